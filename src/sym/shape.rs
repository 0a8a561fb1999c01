//! The results of symbolic inference: [`Condition`]s on the symbols and the [`SymShape`], and
//! the exactness tests the dialects' arithmetic asks of a quotient or a ratio.

use std::fmt;

use super::{quotient, Quotient, SymDim};
use crate::dims::LIMIT;
use crate::small::Small;

/// What a [`Condition`] asks of its two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
enum Kind {
    /// `lhs % rhs == 0`.
    #[default]
    Divides,
    /// `lhs == rhs`.
    Equals,
    /// `lhs <= rhs`: a zero-size input's non-zero dims stay within `isize::MAX`.
    AtMost,
}

/// A condition on the symbols under which a symbolic inference holds: `3*N % 2 == 0` (a `-1`
/// whose division is exact only for some values) or `N == 3` (sizes that agree only for some
/// values). Both sides are products with integer coefficients. `Display` writes it as a
/// boolean expression a converter can put in a runtime assert.
///
/// ```
/// use ndarray_reshape::{SymDim, Onnx, ShapeSpec};
///
/// let s = Onnx::new([2, -1]).infer_symbolic(&[SymDim::sym("N"), SymDim::from(3)])?;
/// assert_eq!(s.conditions()[0].to_string(), "3*N % 2 == 0");
/// assert_eq!(s.conditions()[0].holds(&[("N", 4)]), Some(true));
/// assert_eq!(s.conditions()[0].holds(&[("N", 5)]), Some(false));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Condition {
    kind: Kind,
    lhs: SymDim,
    rhs: SymDim,
}

impl Condition {
    /// `value` is an integer: its numerator side divisible by its denominator side.
    pub(crate) fn integer(value: SymDim) -> Condition {
        let (lhs, rhs) = value.sides();
        Condition {
            kind: Kind::Divides,
            lhs,
            rhs,
        }
    }

    /// `ratio == 1`, written as its numerator side equal to its denominator side.
    pub(crate) fn unit(ratio: SymDim) -> Condition {
        let (lhs, rhs) = ratio.sides();
        Condition {
            kind: Kind::Equals,
            lhs,
            rhs,
        }
    }

    /// The non-zero dims of a zero-size input, `product`, multiply to at most `isize::MAX`
    /// (ndarray's bound, which a zero dim does not lift).
    pub(crate) fn within_limit(product: SymDim) -> Condition {
        Condition {
            kind: Kind::AtMost,
            lhs: product,
            rhs: SymDim::from(LIMIT),
        }
    }

    /// Whether the condition holds under `bindings`; `None` when a symbol is unbound (or bound
    /// to 0: symbols are sizes of at least 1). Exact for every binding, sides past `isize::MAX`
    /// or 128 bits included.
    ///
    /// ```
    /// use ndarray_reshape::{SymDim, Onnx, ShapeSpec};
    /// let s = Onnx::new([3, 4]).infer_symbolic(&[SymDim::sym("N"), SymDim::from(4)])?;
    /// assert_eq!(s.conditions()[0].to_string(), "N == 3");
    /// assert_eq!(s.conditions()[0].holds(&[("N", 3)]), Some(true));
    /// assert_eq!(s.conditions()[0].holds(&[]), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn holds(&self, bindings: &[(&str, usize)]) -> Option<bool> {
        if self.kind == Kind::AtMost {
            // An integral product against the number `LIMIT`.
            let q = quotient(self.lhs, SymDim::from(1), bindings)?;
            return Some(matches!(q, Quotient::Integer(Some(v)) if v <= LIMIT as u128));
        }
        // The right side is a denominator side (never 0), so the quotient is defined.
        let q = quotient(self.lhs, self.rhs, bindings)?;
        Some(match self.kind {
            Kind::Divides => q != Quotient::Fraction,
            Kind::Equals | Kind::AtMost => q == Quotient::Integer(Some(1)),
        })
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Divides => write!(f, "{} % {} == 0", self.lhs, self.rhs),
            Kind::Equals => write!(f, "{} == {}", self.lhs, self.rhs),
            Kind::AtMost => write!(f, "{} <= {}", self.lhs, self.rhs),
        }
    }
}

/// The result of [`ShapeSpec::infer_symbolic`](crate::ShapeSpec::infer_symbolic): the output
/// dims and the conditions under which they hold. No allocation for up to 8 dims and 8
/// conditions.
///
/// ```
/// use ndarray_reshape::{SymDim, Mx, ShapeSpec};
///
/// let (b, t) = (SymDim::sym("B"), SymDim::sym("T"));
/// let s = Mx::new([-3, 0]).infer_symbolic(&[b, t, SymDim::from(512)])?;
/// assert_eq!(s.dims(), &[b * t, SymDim::from(512)]);
/// assert!(s.conditions().is_empty());
/// assert_eq!(s.eval(&[("B", 2), ("T", 7)]), Some(vec![14, 512]));
/// assert_eq!(s.to_string(), "[B*T, 512]");
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymShape {
    pub(crate) dims: Small<SymDim>,
    pub(crate) conditions: Small<Condition>,
}

impl SymShape {
    /// The output dims.
    ///
    /// ```
    /// use ndarray_reshape::{SymDim, Onnx, ShapeSpec};
    /// let s = Onnx::new([-1, 64]).infer_symbolic(&[SymDim::sym("N"), SymDim::from(12), SymDim::from(64)])?;
    /// assert_eq!(s.dims(), &[SymDim::from(12) * SymDim::sym("N"), SymDim::from(64)]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn dims(&self) -> &[SymDim] {
        &self.dims
    }

    /// The conditions on the symbols under which [`dims`](Self::dims) is the reshape's output
    /// (empty when it holds for every value).
    ///
    /// ```
    /// use ndarray_reshape::{SymDim, Onnx, ShapeSpec};
    /// let s = Onnx::new([2, -1]).infer_symbolic(&[SymDim::sym("N"), SymDim::from(3)])?;
    /// assert_eq!(s.conditions().len(), 1);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn conditions(&self) -> &[Condition] {
        &self.conditions
    }

    /// The concrete output shape under `bindings`: `None` when a symbol is unbound, a condition
    /// fails, or a value is not an integer or passes `isize::MAX`.
    ///
    /// ```
    /// use ndarray_reshape::{SymDim, Onnx, ShapeSpec};
    /// let s = Onnx::new([2, -1]).infer_symbolic(&[SymDim::sym("N"), SymDim::from(3)])?;
    /// assert_eq!(s.eval(&[("N", 4)]), Some(vec![2, 6]));
    /// assert_eq!(s.eval(&[("N", 3)]), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn eval(&self, bindings: &[(&str, usize)]) -> Option<Vec<usize>> {
        if self
            .conditions
            .iter()
            .any(|c| c.holds(bindings) != Some(true))
        {
            return None;
        }
        let dims: Option<Vec<usize>> = self.dims.iter().map(|d| d.eval(bindings)).collect();
        let dims = dims?;
        crate::dims::checked_size(dims.iter().copied())?;
        Some(dims)
    }
}

impl fmt::Display for SymShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self.dims.iter().map(SymDim::to_string).collect();
        write!(f, "[{}]", dims.join(", "))?;
        if !self.conditions.is_empty() {
            let c: Vec<String> = self.conditions.iter().map(|c| c.to_string()).collect();
            write!(f, " if {}", c.join(" and "))?;
        }
        Ok(())
    }
}

/// Why a quotient `q = size / known` is or is not an integer: exactly, under a condition, or
/// for no value of the symbols.
pub(crate) enum Exact {
    Always,
    Sometimes(Condition),
    Never,
}

/// Whether `q` is an integer for every, some or no values of its symbols (each at least 1).
pub(crate) fn integer(q: SymDim) -> Exact {
    if q.is_integral() {
        return Exact::Always;
    }
    // A symbol with a positive power can absorb any denominator. Without one, the smallest
    // choice (every symbol 1) leaves `num / den`, which must be an integer already.
    if q.has_positive() || q.den == 1 {
        return Exact::Sometimes(Condition::integer(q));
    }
    Exact::Never
}

/// Whether `r` (a ratio of two sizes) equals 1 for every, some or no values of its symbols.
pub(crate) fn unit(r: SymDim) -> Exact {
    if r == SymDim::from(1) {
        return Exact::Always;
    }
    if !r.is_symbolic() {
        return Exact::Never;
    }
    // `num * P == den * Q` with every symbol at least 1: impossible when one side has no
    // symbols and is smaller than the other side's coefficient, or does not divide into it.
    let (up, down) = r.sides();
    let impossible = |fixed: &SymDim, free: &SymDim| {
        !fixed.is_symbolic() && (fixed.num < free.num || fixed.num % free.num != 0)
    };
    if impossible(&up, &down) || impossible(&down, &up) {
        return Exact::Never;
    }
    Exact::Sometimes(Condition::unit(r))
}

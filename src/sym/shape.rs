//! The results of symbolic inference: [`Condition`]s on the symbols and the [`SymShape`], and
//! the exactness tests the dialects' arithmetic asks of a quotient or a ratio.

use std::fmt;

use super::display::{dim, Names};

use super::eval::{atom_at_least_one, bounds, value, NoValue};
use super::expr::{Mono, Poly};
use super::rat::{gcd, Rat};
use super::SymDim;
use crate::dims::LIMIT;
use crate::small::Small;

/// What a [`Condition`] asks of its two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) enum Kind {
    /// `lhs % rhs == 0`.
    #[default]
    Divides,
    /// `lhs == rhs`.
    Equals,
    /// `lhs <= rhs`: a size within `isize::MAX`, a graph's intermediate within `i64`, an entry
    /// of a spec at least 1.
    AtMost,
    /// `lhs != 0`: a graph's divisor.
    NonZero,
    /// `lhs == rhs || lhs == 1 || rhs == 1`: two dims that broadcast (NumPy's rule).
    Broadcast,
}

/// A condition on the symbols under which a symbolic inference holds: `3*N % 2 == 0` (a `-1`
/// whose division is exact only for some values), `N == 3` (sizes that agree only for some
/// values), `1024*B <= 9223372036854775807` (a graph's int64 arithmetic that would wrap past
/// it). `Display` writes it as a boolean expression a converter can put in a runtime assert.
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
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Condition {
    kind: Kind,
    lhs: SymDim,
    rhs: SymDim,
}

impl Condition {
    /// `value` is an integer: its numerator side divisible by its denominator side.
    pub(crate) fn integer(value: SymDim) -> Condition {
        let (lhs, rhs) = sides(value);
        Condition {
            kind: Kind::Divides,
            lhs,
            rhs,
        }
    }

    /// `a == b`, written with the positive terms of their difference on the left and the
    /// negative ones on the right, divided by their common factor.
    pub(crate) fn equal(a: SymDim, b: SymDim) -> Condition {
        let (lhs, rhs) = match (a.clone() - b.clone()).poly() {
            Some(d) => balanced(&d),
            None => (a, b),
        };
        Condition {
            kind: Kind::Equals,
            lhs,
            rhs,
        }
    }

    /// `a <= b`.
    pub(crate) fn at_most(a: SymDim, b: SymDim) -> Condition {
        Condition {
            kind: Kind::AtMost,
            lhs: a,
            rhs: b,
        }
    }

    /// `a == b || a == 1 || b == 1`: two dims NumPy broadcasts, in the order of their
    /// operands.
    pub(crate) fn broadcast(a: SymDim, b: SymDim) -> Condition {
        Condition {
            kind: Kind::Broadcast,
            lhs: a,
            rhs: b,
        }
    }

    /// `d != 0`: a divisor the graph divides by.
    pub(crate) fn nonzero(d: SymDim) -> Condition {
        Condition {
            kind: Kind::NonZero,
            lhs: d,
            rhs: SymDim::from(0),
        }
    }

    /// The non-zero dims of a zero-size input, `product`, multiply to at most `isize::MAX`
    /// (ndarray's bound, which a zero dim does not lift).
    pub(crate) fn within_limit(product: SymDim) -> Condition {
        Condition::at_most(product, SymDim::from(LIMIT))
    }

    /// What it asks, and of which sides.
    pub(crate) fn parts(&self) -> (Kind, &SymDim, &SymDim) {
        (self.kind, &self.lhs, &self.rhs)
    }

    /// Whether the condition holds under `bindings`; `None` when a symbol is unbound (or bound
    /// to 0: symbols are sizes of at least 1), or a side's value passes `i128` on the way.
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
        let (l, r) = (value(&self.lhs, bindings), value(&self.rhs, bindings));
        match self.kind {
            Kind::AtMost => match (l, r) {
                (Ok(l), Ok(r)) => Some(l <= r),
                // A side whose own value is past i128 for certain is past the other side; an
                // overflow inside a bounded subterm decides nothing.
                (Err(NoValue::Past(up)), Ok(_)) => Some(!up),
                (Ok(_), Err(NoValue::Past(up))) => Some(up),
                _ => None,
            },
            Kind::Equals => Some(l.ok()? == r.ok()?),
            Kind::Broadcast => {
                let (l, r) = (l.ok()?, r.ok()?);
                Some(l == r || l == Rat::ONE || r == Rat::ONE)
            }
            Kind::NonZero => Some(l.ok()?.num != 0),
            Kind::Divides => {
                let (l, r) = (l.ok()?, r.ok()?);
                if r.num == 0 {
                    return None;
                }
                Some(l.div(r).is_some_and(|q| q.is_int()))
            }
        }
    }
}

impl Condition {
    /// The condition as `Display` writes it, its sides written with the names `n`.
    fn written(&self, n: &Names) -> String {
        let side = |d: &SymDim| dim(d, n);
        let paren = |d: &SymDim| {
            let s = side(d);
            match s.contains(' ') {
                true => format!("({s})"),
                false => s,
            }
        };
        match self.kind {
            Kind::Divides => format!("{} % {} == 0", paren(&self.lhs), paren(&self.rhs)),
            Kind::Equals => format!("{} == {}", side(&self.lhs), side(&self.rhs)),
            Kind::AtMost => format!("{} <= {}", side(&self.lhs), side(&self.rhs)),
            Kind::NonZero => format!("{} != 0", side(&self.lhs)),
            Kind::Broadcast => {
                let (a, b) = (side(&self.lhs), side(&self.rhs));
                format!("{a} == {b} || {a} == 1 || {b} == 1")
            }
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Divides => write!(
                f,
                "{} % {} == 0",
                paren(self.lhs.clone()),
                paren(self.rhs.clone())
            ),
            Kind::Equals => write!(f, "{} == {}", self.lhs, self.rhs),
            Kind::AtMost => write!(f, "{} <= {}", self.lhs, self.rhs),
            Kind::NonZero => write!(f, "{} != 0", self.lhs),
            Kind::Broadcast => {
                let (a, b) = (&self.lhs, &self.rhs);
                write!(f, "{a} == {b} || {a} == 1 || {b} == 1")
            }
        }
    }
}

/// `d` in parentheses when it is a sum or a floor (an operand of `%`).
fn paren(d: SymDim) -> String {
    let s = d.to_string();
    match s.contains(' ') {
        true => format!("({s})"),
        false => s,
    }
}

/// The numerator and denominator sides of `q`: `q = up / down`, `up` integral, `down` the
/// least common denominator of its coefficients times its negative powers.
fn sides(q: SymDim) -> (SymDim, SymDim) {
    let Some(p) = q.poly() else {
        return (q, SymDim::from(1));
    };
    let mut den: i128 = 1;
    let mut neg: Mono = Vec::new();
    for (m, c) in &p.terms {
        let g = gcd(den as u128, c.den as u128) as i128;
        den = (den / g).saturating_mul(c.den);
        for (id, e) in m.iter().filter(|f| f.1 < 0) {
            match neg.iter_mut().find(|f| f.0 == *id) {
                Some(f) => f.1 = f.1.max(-e),
                None => neg.push((id.clone(), -e)),
            }
        }
    }
    neg.sort_unstable();
    let down = Poly {
        terms: vec![(neg, Rat::int(den))],
    };
    let down = SymDim::of_poly(Some(down));
    (q * down.clone(), down)
}

/// `d == 0` written as the positive terms against the negated negative ones, divided by the
/// integer content of the terms.
fn balanced(d: &Poly) -> (SymDim, SymDim) {
    let g = match d.terms.iter().all(|(_, c)| c.is_int()) {
        true => d
            .terms
            .iter()
            .fold(0u128, |g, (_, c)| gcd(g, c.num.unsigned_abs()))
            .max(1) as i128,
        false => 1,
    };
    // A factor of every term that is never 0 (a symbol) divides out.
    let common: Mono = d.terms.first().map_or(Vec::new(), |(m0, _)| {
        m0.iter()
            .filter_map(|(id, _)| {
                let e = d
                    .terms
                    .iter()
                    .map(|(m, _)| m.iter().find(|f| f.0 == *id).map_or(0, |f| f.1))
                    .min()?;
                (e > 0 && atom_at_least_one(id)).then(|| (id.clone(), e))
            })
            .collect()
    });
    let (mut up, mut down) = (Vec::new(), Vec::new());
    for (m, c) in &d.terms {
        let m: Mono = m
            .iter()
            .map(|(id, e)| {
                let k = common.iter().find(|f| f.0 == *id).map_or(0, |f| f.1);
                (id.clone(), e - k)
            })
            .filter(|f| f.1 != 0)
            .collect();
        let m = &m;
        let c = Rat::new(c.num, c.den.saturating_mul(g)).unwrap_or(*c);
        match c.num > 0 {
            true => up.push((m.clone(), c)),
            false => down.push((m.clone(), c.neg().unwrap_or(c))),
        }
    }
    (
        SymDim::of_poly(Some(Poly { terms: up })),
        SymDim::of_poly(Some(Poly { terms: down })),
    )
}

/// Whether `d` is 0 for no value of the symbols: its bounds exclude 0, or its constant is not
/// a multiple of the common divisor of its other coefficients (each term an integer).
pub(crate) fn never_zero(d: &SymDim) -> bool {
    if bounds(d).excludes_zero() {
        return true;
    }
    let Some(p) = d.poly() else {
        return false;
    };
    if !p.is_integral() {
        return false;
    }
    let c0 = p.constant_term();
    let g = p
        .terms
        .iter()
        .filter(|(m, _)| !m.is_empty())
        .fold(0u128, |g, (_, c)| gcd(g, c.num.unsigned_abs()));
    g > 1 && c0 % g as i128 != 0
}

/// The result of [`ShapeSpec::infer_symbolic`](crate::ShapeSpec::infer_symbolic): the output
/// dims and the conditions under which they hold. No allocation for up to 8 dims and 8
/// conditions.
///
/// ```
/// use ndarray_reshape::{SymDim, Mx, ShapeSpec};
///
/// let (b, t) = (SymDim::sym("B"), SymDim::sym("T"));
/// let s = Mx::new([-3, 0]).infer_symbolic(&[b.clone(), t.clone(), SymDim::from(512)])?;
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

/// A list of conditions that holds each once, in the order first met: what every inference
/// adds its conditions to.
pub(crate) trait ConditionList {
    /// `c`, unless the list holds it already.
    fn add(&mut self, c: Condition);

    /// Each of `cs` the list does not hold yet.
    fn add_all(&mut self, cs: impl IntoIterator<Item = Condition>) {
        for c in cs {
            self.add(c);
        }
    }
}

impl ConditionList for Vec<Condition> {
    fn add(&mut self, c: Condition) {
        if !self.contains(&c) {
            self.push(c);
        }
    }
}

impl ConditionList for Small<Condition> {
    fn add(&mut self, c: Condition) {
        if !self.contains(&c) {
            self.push(c);
        }
    }
}

impl SymShape {
    /// `dims` under `conditions`, each condition once.
    pub(crate) fn new(
        dims: Small<SymDim>,
        conditions: impl IntoIterator<Item = Condition>,
    ) -> SymShape {
        let mut kept = Small::new();
        kept.add_all(conditions);
        SymShape {
            dims,
            conditions: kept,
        }
    }

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
        all_hold(&self.conditions, bindings)?;
        let dims: Option<Vec<usize>> = self.dims.iter().map(|d| d.eval(bindings)).collect();
        let dims = dims?;
        crate::dims::checked_size(dims.iter().cloned())?;
        Some(dims)
    }
}

/// `Some` when every condition holds under `bindings`: where an evaluation may go on.
pub(crate) fn all_hold(conditions: &[Condition], bindings: &[(&str, usize)]) -> Option<()> {
    conditions
        .iter()
        .all(|c| c.holds(bindings) == Some(true))
        .then_some(())
}

/// `{}` writes the dims and conditions in one line; `{:#}` first names each subexpression that
/// occurs more than once among them (`$1 = (H + 31) // 32`), one per line (see [`SymDim`]).
///
/// ```
/// use ndarray_reshape::{Onnx, ShapeSpec, SymDim};
/// let h = (SymDim::sym("H") + SymDim::from(31)).floor_div(&SymDim::from(32))?;
/// let input = [SymDim::sym("N"), h.clone(), h, SymDim::from(8)];
/// let shape = Onnx::new([0, -1]).infer_symbolic(&input)?;
/// assert_eq!(shape.to_string(), "[N, 8*((H + 31) // 32)*((H + 31) // 32)]");
/// assert_eq!(format!("{shape:#}"), "$1 = (H + 31) // 32\n[N, 8*$1*$1]");
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
impl fmt::Display for SymShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            let mut all: Vec<SymDim> = self.dims.to_vec();
            for c in self.conditions.iter() {
                all.push(c.lhs.clone());
                all.push(c.rhs.clone());
            }
            let names = Names::of(&all);
            f.write_str(&names.lines())?;
            let dims: Vec<String> = self.dims.iter().map(|d| dim(d, &names)).collect();
            write!(f, "[{}]", dims.join(", "))?;
            if !self.conditions.is_empty() {
                let c: Vec<String> = self.conditions.iter().map(|c| c.written(&names)).collect();
                write!(f, " if {}", c.join(" and "))?;
            }
            return Ok(());
        }
        let dims: Vec<String> = self.dims.iter().map(SymDim::to_string).collect();
        write!(f, "[{}]", dims.join(", "))?;
        if !self.conditions.is_empty() {
            let c: Vec<String> = self.conditions.iter().map(|c| c.to_string()).collect();
            write!(f, " if {}", c.join(" and "))?;
        }
        Ok(())
    }
}

/// Whether a quotient or an equation holds for every, some or no values of the symbols.
pub(crate) enum Exact {
    Always,
    Sometimes(Condition),
    Never,
}

/// Whether `q` is an integer for every, some or no values of its symbols (each at least 1).
pub(crate) fn integer(q: &SymDim) -> Exact {
    let Some(p) = q.poly() else {
        return Exact::Never;
    };
    if p.is_integral() {
        return Exact::Always;
    }
    match p.terms.as_slice() {
        // A fraction without atoms, or one over atoms only: `c / (d*M)` with `c/d` reduced is
        // an integer only when `d*M` divides `c`, so `d` must be 1.
        [(m, c)] if m.iter().all(|f| f.1 < 0) && c.den != 1 => Exact::Never,
        _ => Exact::Sometimes(Condition::integer(q.clone())),
    }
}

/// Whether `a == b` for every, some or no values of the symbols.
pub(crate) fn equals(a: &SymDim, b: &SymDim) -> Exact {
    if a == b {
        // One canonical form: no difference to build.
        return Exact::Always;
    }
    let d = a - b;
    if !d.is_valid() {
        return Exact::Never;
    }
    if d.is_zero() {
        return Exact::Always;
    }
    if never_zero(&d) {
        return Exact::Never;
    }
    Exact::Sometimes(Condition::equal(a.clone(), b.clone()))
}

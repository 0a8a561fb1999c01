//! What a caller knows of its symbols ([`Assumptions`]: bounds and divisibility): conditions
//! and comparisons decided under it, dims unified ([`Unify`]).

use std::cmp::Ordering;
use std::fmt;

use super::eval::{bounds_in, Bounds};
use super::rat::Rat;
use super::rewrite::{substitute, Rewrite};
use super::shape::{equals, integer, never_zero, Exact, Kind};
use super::{Condition, SymDim, SymShape};
use crate::dims::LIMIT;
use crate::error::{Fail, Origin, ReshapeError, Rule};

/// Assignments [`Assumptions::holds`] tries one by one, at most, where the algebra does not
/// decide.
const ENUMERATED: usize = 4096;

/// What the caller knows of one symbol beyond its being a size.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fact {
    lo: usize,
    hi: usize,
    /// The symbol is a multiple of this (1 when nothing is known).
    multiple: usize,
}

impl Default for Fact {
    fn default() -> Self {
        Fact {
            lo: 1,
            hi: LIMIT,
            multiple: 1,
        }
    }
}

/// Facts the caller knows of its symbols, beyond their being sizes from 1 to `isize::MAX`:
/// bounds (`N >= 1`, `T <= 4096`) and divisibility (`C % 8 == 0`), as JAX's shape
/// polymorphism takes them. [`apply`](Self::apply) drops from a symbolic result the
/// conditions they imply and decides the comparisons in its dims;
/// [`holds`](Self::holds), [`compare`](Self::compare) and [`unify`](Self::unify) ask them
/// directly.
///
/// ```
/// use ndarray_reshape::{Assumptions, Onnx, ShapeSpec, SymDim};
///
/// // [T, 3] with [-1, 2]: 3*T/2, which needs an even T...
/// let t = SymDim::sym("T");
/// let s = Onnx::new([-1, 2]).infer_symbolic(&[t.clone(), SymDim::from(3)])?;
/// assert_eq!(s.to_string(), "[3*T/2, 2] if 3*T % 2 == 0");
/// // ...which the caller knows: T is a multiple of 8, at most 4096.
/// let known = Assumptions::new().multiple_of("T", 8).at_most("T", 4096);
/// assert_eq!(known.apply(&s)?.to_string(), "[3*T/2, 2]");
/// assert_eq!(known.compare(&t, &SymDim::from(5000)), Some(std::cmp::Ordering::Less));
/// // A shape no allowed T gives is an error.
/// let odd = Onnx::new([-1, 16]).infer_symbolic(&[t, SymDim::from(3)])?; // 3*T % 16 == 0
/// assert!(Assumptions::new().at_most("T", 15).apply(&odd).is_err());
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assumptions {
    facts: Vec<(String, Fact)>,
}

impl Assumptions {
    /// No facts: every symbol a size from 1 to `isize::MAX`.
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, SymDim};
    /// let none = Assumptions::new();
    /// assert_eq!(none.compare(&SymDim::sym("N"), &SymDim::from(0)), Some(std::cmp::Ordering::Greater));
    /// ```
    pub fn new() -> Self {
        Assumptions::default()
    }

    fn fact(&mut self, name: &str) -> &mut Fact {
        let at = match self.facts.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.facts.push((name.to_owned(), Fact::default()));
                self.facts.len() - 1
            }
        };
        &mut self.facts[at].1
    }

    /// `name >= lo` (with the facts already given: the tightest holds).
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, SymDim};
    /// let a = Assumptions::new().at_least("N", 8);
    /// assert_eq!(a.compare(&SymDim::sym("N"), &SymDim::from(8)), None);
    /// assert_eq!(a.compare(&SymDim::sym("N"), &SymDim::from(7)), Some(std::cmp::Ordering::Greater));
    /// ```
    pub fn at_least(mut self, name: &str, lo: usize) -> Self {
        let f = self.fact(name);
        f.lo = f.lo.max(lo);
        self
    }

    /// `name <= hi`.
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, SymDim};
    /// let a = Assumptions::new().at_most("T", 4096);
    /// assert_eq!(a.compare(&SymDim::sym("T"), &SymDim::from(4097)), Some(std::cmp::Ordering::Less));
    /// ```
    pub fn at_most(mut self, name: &str, hi: usize) -> Self {
        let f = self.fact(name);
        f.hi = f.hi.min(hi);
        self
    }

    /// `name % k == 0` (with an earlier multiple, their least common multiple; `k` of 1 adds
    /// nothing). A multiple of 0 is 0, which no size is: facts that no value satisfies are
    /// refused by the first call that can say so ([`apply`](Self::apply) and the whole-graph
    /// walk with an error, [`holds`](Self::holds) and [`compare`](Self::compare) with `None`).
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, Onnx, ShapeSpec, SymDim};
    /// let s = Onnx::new([0, -1]).infer_symbolic(&[SymDim::sym("T"), SymDim::from(6)])?;
    /// let e = Assumptions::new().multiple_of("T", 0).apply(&s).unwrap_err();
    /// assert_eq!(e.category(), "unsatisfiable");
    /// assert!(e.to_string().contains("T % 0 == 0"));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, SymDim};
    /// let c = SymDim::sym("C");
    /// let a = Assumptions::new().multiple_of("C", 8);
    /// let q = c.floor_div(&SymDim::from(8))? * SymDim::from(8);
    /// assert_eq!(a.unify(&q, &c), ndarray_reshape::Unify::Equal);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn multiple_of(mut self, name: &str, k: usize) -> Self {
        if k == 0 {
            self.fact(name).multiple = 0;
        } else if k > 1 && self.fact(name).multiple != 0 {
            let f = self.fact(name);
            let g = super::rat::gcd(f.multiple as u128, k as u128) as usize;
            f.multiple = (f.multiple / g).saturating_mul(k);
        }
        self
    }

    /// The range the facts give each named symbol (its multiple's quotient for a multiple).
    fn range(&self, name: &str) -> Option<Bounds> {
        let (_, f) = self.facts.iter().find(|(n, _)| n == name)?;
        if f.multiple == 0 {
            // A multiple of 0: no size.
            return Some(Bounds {
                lo: Some(Rat::ONE),
                hi: Some(Rat::ZERO),
            });
        }
        let m = f.multiple.max(1) as i128;
        let (lo, hi) = ((f.lo as i128 + m - 1) / m, f.hi as i128 / m);
        Some(Bounds {
            lo: Some(Rat::int(lo)),
            hi: Some(Rat::int(hi)),
        })
    }

    /// Whether no value satisfies the facts (a range that is empty).
    fn empty(&self) -> bool {
        self.contradiction().is_some()
    }

    /// The facts of the first symbol that no value satisfies (`B >= 5 and B <= 2`,
    /// `T % 0 == 0`), written out.
    pub(crate) fn contradiction(&self) -> Option<String> {
        self.facts.iter().find_map(|(n, f)| {
            let empty = self
                .range(n)
                .is_some_and(|b| matches!((b.lo, b.hi), (Some(l), Some(h)) if l > h));
            empty.then(|| {
                let n = super::display::shown(n);
                let mut parts = vec![format!("{n} >= {}", f.lo), format!("{n} <= {}", f.hi)];
                if f.multiple != 1 {
                    parts.push(format!("{n} % {} == 0", f.multiple));
                }
                parts.join(" and ")
            })
        })
    }

    /// An error when the facts contradict each other (no value satisfies them).
    pub(crate) fn check(&self) -> Result<(), ReshapeError> {
        match self.contradiction() {
            None => Ok(()),
            Some(why) => Err(Fail::whole(
                Rule::Unsatisfiable,
                format!("the assumptions contradict each other: no size satisfies {why}"),
            )
            .attach_no_input(Origin::Symbols, self)),
        }
    }

    /// `d` with each multiple written out (`C` as `8*C`, the new `C` the quotient) and each
    /// symbol the facts pin to one value replaced by it, its comparisons, extremes and
    /// selections decided where the facts decide them.
    fn rewrite(&self, d: &SymDim) -> SymDim {
        let sub = |n: &str| {
            let (_, f) = self.facts.iter().find(|(m, _)| m == n)?;
            if f.lo == f.hi {
                return Some(SymDim::from(f.lo));
            }
            (f.multiple > 1).then(|| SymDim::from(f.multiple) * SymDim::sym(n))
        };
        let ranges = |n: &str| self.range(n);
        Rewrite {
            sym: &sub,
            ranges: Some(&ranges),
        }
        .dim(d)
    }

    fn bounds(&self, d: &SymDim) -> Bounds {
        bounds_in(d, &|n| self.range(n))
    }

    /// Whether `c` holds for every value the facts allow (`Some(true)`), for none
    /// (`Some(false)`), or for some only (`None`).
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, Onnx, ShapeSpec, SymDim};
    /// let s = Onnx::new([2, -1]).infer_symbolic(&[SymDim::sym("N"), SymDim::from(3)])?;
    /// let even = &s.conditions()[0]; // 3*N % 2 == 0
    /// assert_eq!(Assumptions::new().multiple_of("N", 2).holds(even), Some(true));
    /// assert_eq!(Assumptions::new().at_least("N", 3).at_most("N", 3).holds(even), Some(false));
    /// assert_eq!(Assumptions::new().holds(even), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn holds(&self, c: &Condition) -> Option<bool> {
        // Facts that contradict each other decide nothing.
        if self.empty() {
            return None;
        }
        self.decided(c).or_else(|| self.enumerated(c))
    }

    /// [`holds`](Self::holds) by every value the facts allow, where they allow few (at most
    /// [`ENUMERATED`] in all).
    fn enumerated(&self, c: &Condition) -> Option<bool> {
        let (_, lhs, rhs) = c.parts();
        let mut names: Vec<&str> = lhs.symbols();
        for n in rhs.symbols() {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        let mut values: Vec<Vec<usize>> = Vec::new();
        let mut count = 1usize;
        for n in &names {
            let (_, f) = self.facts.iter().find(|(m, _)| m == n)?;
            let m = f.multiple.max(1);
            let first = f.lo.div_ceil(m).max(1) * m;
            let all: Vec<usize> = (first..=f.hi).step_by(m).take(ENUMERATED + 1).collect();
            count = count.saturating_mul(all.len());
            if count > ENUMERATED {
                return None;
            }
            values.push(all);
        }
        let mut at = vec![0usize; names.len()];
        let mut seen = (false, false);
        loop {
            let bind: Vec<(&str, usize)> = names
                .iter()
                .enumerate()
                .map(|(j, n)| (*n, values[j][at[j]]))
                .collect();
            match c.holds(&bind) {
                Some(true) => seen.0 = true,
                Some(false) => seen.1 = true,
                None => return None,
            }
            // The next assignment, odometer-wise.
            let mut k = 0;
            loop {
                if k == at.len() {
                    return match seen {
                        (true, false) => Some(true),
                        (false, true) => Some(false),
                        _ => None,
                    };
                }
                at[k] += 1;
                if at[k] < values[k].len() {
                    break;
                }
                at[k] = 0;
                k += 1;
            }
        }
    }

    /// [`holds`](Self::holds) by the algebra: the facts' ranges and multiples.
    fn decided(&self, c: &Condition) -> Option<bool> {
        let (kind, lhs, rhs) = c.parts();
        // Without facts there is nothing to rewrite.
        let (l, r) = match self.facts.is_empty() {
            true => (lhs.clone(), rhs.clone()),
            false => (self.rewrite(lhs), self.rewrite(rhs)),
        };
        if !(l.is_valid() && r.is_valid()) {
            return None;
        }
        match kind {
            Kind::AtMost => self.non_negative(&(r - l)),
            Kind::NonZero => match l.is_zero() {
                true => Some(false),
                false => self.nonzero(&l).then_some(true),
            },
            Kind::Equals => match equals(&l, &r) {
                Exact::Always => Some(true),
                Exact::Never => Some(false),
                Exact::Sometimes(_) => (!self.may_be_zero(&(l - r))).then_some(false),
            },
            Kind::Broadcast => {
                let one = SymDim::from(1);
                let is = |a: &SymDim, b: &SymDim| match equals(a, b) {
                    Exact::Always => Some(true),
                    Exact::Never => Some(false),
                    Exact::Sometimes(_) => {
                        (!self.may_be_zero(&(a.clone() - b.clone()))).then_some(false)
                    }
                };
                let all = [is(&l, &r), is(&l, &one), is(&r, &one)];
                match all {
                    _ if all.contains(&Some(true)) => Some(true),
                    [Some(false), Some(false), Some(false)] => Some(false),
                    _ => None,
                }
            }
            Kind::Divides => {
                if r.is_zero() {
                    return None;
                }
                match integer(&(l / r)) {
                    Exact::Always => Some(true),
                    Exact::Never => Some(false),
                    Exact::Sometimes(_) => None,
                }
            }
        }
    }

    /// Whether `d >= 0` for every value the facts allow (`Some(true)`), `d < 0` for every one
    /// (`Some(false)`), or neither.
    fn non_negative(&self, d: &SymDim) -> Option<bool> {
        let b = self.bounds(d);
        if b.lo.is_some_and(|l| l >= Rat::ZERO) {
            return Some(true);
        }
        if b.hi.is_some_and(|h| h < Rat::ZERO) {
            return Some(false);
        }
        None
    }

    fn nonzero(&self, d: &SymDim) -> bool {
        self.bounds(d).excludes_zero() || never_zero(d)
    }

    fn may_be_zero(&self, d: &SymDim) -> bool {
        !self.nonzero(d)
    }

    /// How `a` compares with `b` for every value the facts allow; `None` where it depends on
    /// the values.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use ndarray_reshape::{Assumptions, SymDim};
    /// let (b, t) = (SymDim::sym("B"), SymDim::sym("T"));
    /// let a = Assumptions::new().at_most("B", 64).at_least("T", 128);
    /// assert_eq!(a.compare(&b, &t), Some(Ordering::Less));
    /// assert_eq!(Assumptions::new().compare(&b, &t), None);
    /// ```
    pub fn compare(&self, a: &SymDim, b: &SymDim) -> Option<Ordering> {
        if self.empty() {
            return None;
        }
        let d = self.rewrite(a) - self.rewrite(b);
        if !d.is_valid() {
            return None;
        }
        if d.is_zero() {
            return Some(Ordering::Equal);
        }
        let bd = self.bounds(&d);
        match (bd.lo, bd.hi) {
            (Some(l), _) if l > Rat::ZERO => Some(Ordering::Greater),
            (_, Some(h)) if h < Rat::ZERO => Some(Ordering::Less),
            (Some(l), Some(h)) if l == Rat::ZERO && h == Rat::ZERO => Some(Ordering::Equal),
            _ => None,
        }
    }

    /// Whether `a` and `b` are equal for every value the facts allow, under conditions, or
    /// for none.
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, SymDim, Unify};
    /// let (b, k) = (SymDim::sym("B"), SymDim::from);
    /// assert_eq!(Assumptions::new().unify(&b, &k(1)).conditions().len(), 1); // B == 1
    /// assert_eq!(Assumptions::new().at_least("B", 2).unify(&b, &k(1)), Unify::Never);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn unify(&self, a: &SymDim, b: &SymDim) -> Unify {
        let c = Condition::equal(a.clone(), b.clone());
        match self.holds(&c) {
            Some(true) => Unify::Equal,
            Some(false) => Unify::Never,
            None => Unify::When(vec![c]),
        }
    }

    /// [`unify`](Self::unify), dim by dim: `Never` for another rank or a dim that never
    /// agrees, else the conditions of every dim.
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, SymDim, Unify};
    /// let (b, t, k) = (SymDim::sym("B"), SymDim::sym("T"), SymDim::from);
    /// let a = Assumptions::new();
    /// assert_eq!(a.unify_shapes(&[b.clone(), k(8) * t.clone()], &[b.clone(), k(8) * t]), Unify::Equal);
    /// assert_eq!(a.unify_shapes(&[b.clone(), k(3)], &[b, k(4)]), Unify::Never);
    /// ```
    pub fn unify_shapes(&self, a: &[SymDim], b: &[SymDim]) -> Unify {
        if a.len() != b.len() {
            return Unify::Never;
        }
        let mut all = Vec::new();
        for (x, y) in a.iter().zip(b) {
            match self.unify(x, y) {
                Unify::Equal => {}
                Unify::Never => return Unify::Never,
                Unify::When(c) => all.extend(c),
            }
        }
        match all.is_empty() {
            true => Unify::Equal,
            false => Unify::When(all),
        }
    }

    /// `shape` with the conditions the facts imply dropped and its dims' comparisons,
    /// extremes and selections decided where the facts decide them.
    ///
    /// # Errors
    ///
    /// [`Unsatisfiable`](ReshapeError::Unsatisfiable) when a condition holds for no value the
    /// facts allow (the shape is no reshape's output there; the position is the condition's
    /// index), or when no value satisfies the facts themselves (`at_least("B", 5)` with
    /// `at_most("B", 2)`).
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, Paddle, ShapeSpec, SymDim};
    /// let x = [SymDim::sym("B"), SymDim::from(3136), SymDim::from(96)];
    /// let s = Paddle::new([0, 0, -1, 32]).infer_symbolic(&x)?; // 96 / 32 = 3: exact
    /// assert!(Assumptions::new().apply(&s)?.conditions().is_empty());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn apply(&self, shape: &SymShape) -> Result<SymShape, ReshapeError> {
        self.check()?;
        let kept = self.kept(shape.conditions())?;
        Ok(SymShape {
            dims: shape.dims().iter().map(|d| self.simplified(d)).collect(),
            conditions: kept.into_iter().collect(),
        })
    }

    /// Whether the caller stated no fact: every symbol a size from 1 to `isize::MAX`.
    pub(crate) fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// The conditions the facts do not imply; an error for one they contradict.
    pub(crate) fn kept(&self, conditions: &[Condition]) -> Result<Vec<Condition>, ReshapeError> {
        self.check()?;
        let mut kept = Vec::new();
        for (i, c) in conditions.iter().enumerate() {
            match self.holds(c) {
                Some(true) => {}
                Some(false) => {
                    return Err(Fail::at(
                        Rule::Unsatisfiable,
                        i,
                        format!("{c} holds for no value the assumptions allow ({self})"),
                    )
                    .attach_no_input(Origin::Symbols, self))
                }
                None => kept.push(c.clone()),
            }
        }
        Ok(kept)
    }

    /// `d` with what the facts decide in it decided, each multiple written back.
    pub(crate) fn simplified(&self, d: &SymDim) -> SymDim {
        if !d.is_symbolic() || self.facts.is_empty() || self.empty() {
            return d.clone();
        }
        let r = self.rewrite(d);
        // Written in the caller's symbols again (the quotient of a multiple back to `C/8`).
        let back = substitute(&r, &|n: &str| {
            let (_, f) = self.facts.iter().find(|(m, _)| m == n)?;
            (f.multiple > 1 && f.lo != f.hi).then(|| SymDim::sym(n) / SymDim::from(f.multiple))
        });
        match back.is_valid() {
            true => back,
            false => d.clone(),
        }
    }
}

impl fmt::Display for Assumptions {
    /// `T <= 4096 and C % 8 == 0`, or `no assumptions`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        for (n, fact) in &self.facts {
            let n = super::display::shown(n);
            if fact.lo == fact.hi {
                parts.push(format!("{n} == {}", fact.lo));
                continue;
            }
            if fact.lo > 1 {
                parts.push(format!("{n} >= {}", fact.lo));
            }
            if fact.hi < LIMIT {
                parts.push(format!("{n} <= {}", fact.hi));
            }
            if fact.multiple != 1 {
                parts.push(format!("{n} % {} == 0", fact.multiple));
            }
        }
        match parts.is_empty() {
            true => f.write_str("no assumptions"),
            false => f.write_str(&parts.join(" and ")),
        }
    }
}

/// Whether two dims (or shapes) are equal: for every value of the symbols, under conditions,
/// or for none ([`Assumptions::unify`], [`SymDim::unify`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unify {
    /// Equal for every value.
    Equal,
    /// Equal where every condition holds (one per dim that may differ).
    When(Vec<Condition>),
    /// Equal for no value.
    Never,
}

impl Unify {
    /// The conditions of [`Unify::When`]; empty otherwise.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let u = SymDim::sym("N").unify(&SymDim::from(3));
    /// assert_eq!(u.conditions()[0].to_string(), "N == 3");
    /// ```
    pub fn conditions(&self) -> &[Condition] {
        match self {
            Unify::When(c) => c,
            _ => &[],
        }
    }
}

impl SymDim {
    /// Whether `self` and `other` are equal for every value of the symbols, under a
    /// condition, or for none ([`Assumptions::unify`] with no assumptions).
    ///
    /// ```
    /// use ndarray_reshape::{SymDim, Unify};
    /// let (b, k) = (SymDim::sym("B"), SymDim::from);
    /// assert_eq!((k(64) * &b).floor_div(&k(64))?.unify(&b), Unify::Equal);
    /// assert_eq!(b.unify(&k(0)), Unify::Never); // a size is at least 1
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn unify(&self, other: &SymDim) -> Unify {
        Assumptions::new().unify(self, other)
    }
}

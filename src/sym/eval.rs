//! Evaluation of a [`SymDim`] under bindings of its symbols (exact, rational on the way) and
//! its bounds over every value of the symbols (each from 1 to `isize::MAX`), by interval
//! arithmetic on the canonical form.

use super::expr::{Atom, AtomRef, Mono, Poly};
use super::rat::Rat;
use super::{Repr, SymDim};
use crate::dims::LIMIT;

/// Why an evaluation has no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoValue {
    /// A symbol unbound or bound to 0, a division by 0, a floor of a fraction.
    Undefined,
    /// An intermediate past `i128`, inside a bounded subterm or without its magnitude known:
    /// nothing follows from it.
    Overflow,
    /// The expression's own value past `i128` for certain (a polynomial's, from an `f64`
    /// estimate with its rounding bounded), positive when `true`: past any bound within it.
    Past(bool),
}

type Value = Result<Rat, NoValue>;

struct Evaluator<'a> {
    bindings: &'a [(&'a str, usize)],
    memo: Vec<(AtomRef, Value)>,
}

impl Evaluator<'_> {
    fn dim(&mut self, d: &SymDim) -> Value {
        match &d.0 {
            Repr::Int(v) => Ok(Rat::int(*v as i128)),
            Repr::Expr(f) => self.poly(f.get()),
            Repr::Invalid => Err(NoValue::Undefined),
        }
    }

    fn int(&mut self, d: &SymDim) -> Result<i128, NoValue> {
        let v = self.dim(d)?;
        match v.is_int() {
            true => Ok(v.num),
            false => Err(NoValue::Undefined),
        }
    }

    fn poly(&mut self, p: &Poly) -> Value {
        let mut sum = Rat::ZERO;
        for (m, c) in &p.terms {
            let term = self
                .mono(m)
                .and_then(|v| v.mul(*c).ok_or(NoValue::Overflow));
            let next = term.and_then(|t| sum.add(t).ok_or(NoValue::Overflow));
            match next {
                Ok(v) => sum = v,
                Err(NoValue::Overflow) => return self.wide(p),
                Err(e) => return Err(e),
            }
        }
        Ok(sum)
    }

    /// [`poly`](Self::poly) of an expanded polynomial whose terms pass `i128` on the way
    /// (`(1 - (1 // T)*T)^8` at `T = 32767`) though its value may not: the terms summed in
    /// wrapping `i128` arithmetic, exact when the value lies within `2^126` of 0, which an `f64`
    /// evaluation with its rounding bounded decides (the sum of the terms' magnitudes times the
    /// operations' unit roundoff). Integer coefficients and atoms only, non-negative powers; a
    /// `NoValue::Overflow` otherwise.
    fn wide(&mut self, p: &Poly) -> Value {
        let (mut sum, mut approx, mut magnitude, mut ops) = (0i128, 0f64, 0f64, 0u32);
        for (m, c) in &p.terms {
            if c.den != 1 {
                return Err(NoValue::Overflow);
            }
            let (mut t, mut tf) = (c.num, c.num as f64);
            for (id, e) in m {
                let v = self.atom(id)?;
                if *e < 0 || !v.is_int() {
                    return Err(NoValue::Overflow);
                }
                for _ in 0..*e {
                    t = t.wrapping_mul(v.num);
                    tf *= v.num as f64;
                    ops = ops.saturating_add(2);
                }
            }
            sum = sum.wrapping_add(t);
            approx += tf;
            magnitude += tf.abs();
            ops = ops.saturating_add(2);
        }
        // Each conversion, product and sum rounds by at most half an epsilon, relative.
        let error = magnitude * f64::from(ops.saturating_add(4)) * f64::EPSILON;
        if approx.abs() + error < 2f64.powi(126) {
            return Ok(Rat::int(sum));
        }
        match approx.abs() - error > 2f64.powi(127) {
            true => Err(NoValue::Past(approx > 0.0)),
            false => Err(NoValue::Overflow),
        }
    }

    fn mono(&mut self, m: &Mono) -> Value {
        let mut out = Rat::ONE;
        for (id, e) in m {
            let (id, e) = (id, *e);
            let v = self.atom(id)?;
            if e < 0 && v.num == 0 {
                return Err(NoValue::Undefined);
            }
            out = out
                .mul(v.pow(e).ok_or(NoValue::Overflow)?)
                .ok_or(NoValue::Overflow)?;
        }
        Ok(out)
    }

    fn atom(&mut self, id: &AtomRef) -> Value {
        // An operand past `i128` says nothing of a minimum, a comparison or a floor of it.
        let bounded = |v: Value| match v {
            Err(NoValue::Past(_)) => Err(NoValue::Overflow),
            v => v,
        };
        memoized(
            self,
            id,
            |e| &mut e.memo,
            |e| bounded(e.atom_value(id.get())),
        )
    }

    fn atom_value(&mut self, a: &Atom) -> Value {
        let int = |v: i128| Ok(Rat::int(v));
        let flag = |b: bool| Ok(Rat::int(b as i128));
        match a {
            Atom::Sym(name) => match self.bindings.iter().find(|(s, _)| *s == &**name) {
                Some(&(_, v)) if v > 0 => int(v as i128),
                _ => Err(NoValue::Undefined),
            },
            Atom::FloorDiv(x, y) | Atom::Mod(x, y) => {
                let (x, y) = (self.int(x)?, self.int(y)?);
                if y == 0 {
                    return Err(NoValue::Undefined);
                }
                let q = floor_i128(x, y).ok_or(NoValue::Overflow)?;
                match a {
                    Atom::FloorDiv(..) => int(q),
                    _ => int(x - q.checked_mul(y).ok_or(NoValue::Overflow)?),
                }
            }
            Atom::Min(x, y) | Atom::Max(x, y) => {
                let (vx, vy) = (self.dim(x), self.dim(y));
                let less = order(vx, vy)?.is_le();
                match (less, matches!(a, Atom::Min(..))) {
                    (true, true) | (false, false) => vx,
                    _ => vy,
                }
            }
            Atom::Eq(x, y) => flag(order(self.dim(x), self.dim(y))?.is_eq()),
            Atom::Lt(x, y) => flag(order(self.dim(x), self.dim(y))?.is_lt()),
            Atom::Le(x, y) => flag(order(self.dim(x), self.dim(y))?.is_le()),
            Atom::Select(c, x, y) => match self.dim(c)?.num != 0 {
                true => self.dim(x),
                false => self.dim(y),
            },
            Atom::Group(g) => self.dim(g),
        }
    }
}

/// How two values compare: exactly, or where one is past `i128` for certain and the other
/// is not (or lies past it on the other side); an `Overflow` where that does not decide it,
/// and `Undefined` where either is.
fn order(x: Value, y: Value) -> Result<std::cmp::Ordering, NoValue> {
    use std::cmp::Ordering::{Greater, Less};
    match (x, y) {
        (Ok(a), Ok(b)) => Ok(a.cmp(&b)),
        (Err(NoValue::Undefined), _) | (_, Err(NoValue::Undefined)) => Err(NoValue::Undefined),
        (Err(NoValue::Past(up)), Ok(_)) => Ok(if up { Greater } else { Less }),
        (Ok(_), Err(NoValue::Past(up))) => Ok(if up { Less } else { Greater }),
        (Err(NoValue::Past(a)), Err(NoValue::Past(b))) if a != b => {
            Ok(if a { Greater } else { Less })
        }
        _ => Err(NoValue::Overflow),
    }
}

/// What a walk already found for the atom `id`: atoms repeat within one expression (`B` in
/// `B // 2` and `B*T`), and each is walked once.
fn cached<T: Copy>(memo: &[(AtomRef, T)], id: &AtomRef) -> Option<T> {
    memo.iter().find(|m| m.0 == *id).map(|m| m.1)
}

/// What `compute` gives for atom `id` of walker `w`, computed once per walk: kept in the
/// walker's table `memo`.
fn memoized<W, T: Copy>(
    w: &mut W,
    id: &AtomRef,
    memo: fn(&mut W) -> &mut Vec<(AtomRef, T)>,
    compute: impl FnOnce(&mut W) -> T,
) -> T {
    if let Some(v) = cached(memo(w), id) {
        return v;
    }
    let v = compute(w);
    memo(w).push((id.clone(), v));
    v
}

/// `x // y` toward negative infinity; `None` on overflow.
fn floor_i128(x: i128, y: i128) -> Option<i128> {
    let q = x.checked_div(y)?;
    Some(if q * y != x && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    })
}

/// The exact value of `d` under `bindings`.
pub(crate) fn value(d: &SymDim, bindings: &[(&str, usize)]) -> Value {
    if let Repr::Int(v) = d.0 {
        return Ok(Rat::int(v as i128));
    }
    Evaluator {
        bindings,
        memo: Vec::new(),
    }
    .dim(d)
}

impl SymDim {
    /// The value under `bindings` (name, size): `None` when a symbol is unbound or bound to 0,
    /// a division on the way is by 0, or the value is not an integer from 0 to `isize::MAX`.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let half = SymDim::from(3) * SymDim::sym("N") / SymDim::from(2);
    /// assert_eq!(half.eval(&[("N", 4)]), Some(6));
    /// assert_eq!(half.eval(&[("N", 3)]), None); // 4.5
    /// ```
    pub fn eval(&self, bindings: &[(&str, usize)]) -> Option<usize> {
        self.eval_int(bindings)
            .and_then(|v| usize::try_from(v).ok())
    }

    /// The value under `bindings` as a signed integer: as [`eval`](Self::eval), negative
    /// values included (a graph's intermediate, a code such as `-1`).
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let frames = SymDim::sym("S").floor_div(&SymDim::from(20))? - SymDim::from(1);
    /// assert_eq!(frames.eval_int(&[("S", 10)]), Some(-1));
    /// assert_eq!(frames.eval(&[("S", 10)]), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn eval_int(&self, bindings: &[(&str, usize)]) -> Option<i64> {
        match value(self, bindings) {
            Ok(v) if v.is_int() => i64::try_from(v.num).ok(),
            _ => None,
        }
    }
}

/// Bounds over every value of the symbols; `None` is unbounded on that side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub lo: Option<Rat>,
    pub hi: Option<Rat>,
}

/// Bounds as a form keeps them: two integers within `i64` inline (nearly always), others
/// boxed.
pub(crate) enum Stored {
    /// `i64::MIN` for no lower bound, `i64::MAX` for no upper one.
    Ints(i64, i64),
    Wide(Box<Bounds>),
}

impl Stored {
    fn of(b: Bounds) -> Stored {
        let int = |r: Option<Rat>, none: i64| match r {
            None => Some(none),
            Some(r) if r.is_int() => i64::try_from(r.num).ok().filter(|&v| v != none),
            Some(_) => None,
        };
        match (int(b.lo, i64::MIN), int(b.hi, i64::MAX)) {
            (Some(lo), Some(hi)) => Stored::Ints(lo, hi),
            _ => Stored::Wide(Box::new(b)),
        }
    }

    fn get(&self) -> Bounds {
        match self {
            Stored::Ints(lo, hi) => Bounds {
                lo: (*lo != i64::MIN).then(|| Rat::int((*lo).into())),
                hi: (*hi != i64::MAX).then(|| Rat::int((*hi).into())),
            },
            Stored::Wide(b) => **b,
        }
    }
}

/// An end of an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum End {
    NegInf,
    At(Rat),
    PosInf,
}

impl End {
    fn sign(self) -> i8 {
        match self {
            End::NegInf => -1,
            End::PosInf => 1,
            End::At(r) => r.num.signum() as i8,
        }
    }

    fn mul(self, o: End) -> End {
        match (self, o) {
            (End::At(a), End::At(b)) => match a.mul(b) {
                Some(p) => End::At(p),
                None if (a.num < 0) != (b.num < 0) => End::NegInf,
                None => End::PosInf,
            },
            _ => match self.sign() * o.sign() {
                0 => End::At(Rat::ZERO),
                s if s > 0 => End::PosInf,
                _ => End::NegInf,
            },
        }
    }
}

impl Bounds {
    pub(crate) const ANY: Bounds = Bounds { lo: None, hi: None };

    pub(crate) fn point(r: Rat) -> Bounds {
        Bounds {
            lo: Some(r),
            hi: Some(r),
        }
    }

    fn ends(self) -> (End, End) {
        (
            self.lo.map_or(End::NegInf, End::At),
            self.hi.map_or(End::PosInf, End::At),
        )
    }

    fn of_ends(lo: End, hi: End) -> Bounds {
        let at = |e: End| match e {
            End::At(r) => Some(r),
            _ => None,
        };
        Bounds {
            lo: at(lo),
            hi: at(hi),
        }
    }

    /// Whether 0 is outside.
    pub fn excludes_zero(self) -> bool {
        self.lo.is_some_and(|l| l > Rat::ZERO) || self.hi.is_some_and(|h| h < Rat::ZERO)
    }

    fn add(self, o: Bounds) -> Bounds {
        let sum = |a: Option<Rat>, b: Option<Rat>| a.zip(b).and_then(|(a, b)| a.add(b));
        Bounds {
            lo: sum(self.lo, o.lo),
            hi: sum(self.hi, o.hi),
        }
    }

    fn mul(self, o: Bounds) -> Bounds {
        let ((a, b), (c, d)) = (self.ends(), o.ends());
        let p = [a.mul(c), a.mul(d), b.mul(c), b.mul(d)];
        let lo = p.iter().cloned().min().unwrap_or(End::NegInf);
        let hi = p.iter().cloned().max().unwrap_or(End::PosInf);
        Bounds::of_ends(lo, hi)
    }

    fn recip(self) -> Bounds {
        let positive = self.lo.is_some_and(|l| l > Rat::ZERO);
        let negative = self.hi.is_some_and(|h| h < Rat::ZERO);
        if !(positive || negative) {
            return Bounds::ANY;
        }
        let inv = |r: Option<Rat>| r.map_or(Some(Rat::ZERO), |r| r.recip());
        Bounds {
            lo: inv(self.hi),
            hi: inv(self.lo),
        }
    }

    fn pow(self, e: i32) -> Bounds {
        // Each factor ranging on its own: wider than the power's range, never narrower.
        let base = if e < 0 { self.recip() } else { self };
        (0..e.unsigned_abs()).fold(Bounds::point(Rat::ONE), |acc, _| acc.mul(base))
    }
}

fn min_end(a: Option<Rat>, b: Option<Rat>, unbounded_wins: bool) -> Option<Rat> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (Some(x), None) | (None, Some(x)) if !unbounded_wins => Some(x),
        _ => None,
    }
}

fn max_end(a: Option<Rat>, b: Option<Rat>, unbounded_wins: bool) -> Option<Rat> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (Some(x), None) | (None, Some(x)) if !unbounded_wins => Some(x),
        _ => None,
    }
}

/// The range of each symbol the caller knows (name to bounds); `None` for a symbol it does
/// not name (a size: 1 to `isize::MAX`).
pub(crate) type Ranges<'a> = &'a dyn Fn(&str) -> Option<Bounds>;

/// Bounds by interval arithmetic. With the symbols' default ranges (`env` none), each
/// interned form keeps its own once computed.
#[derive(Clone, Copy)]
struct Bounder<'e> {
    env: Option<Ranges<'e>>,
}

const DEFAULT: Bounder<'static> = Bounder { env: None };

impl Bounder<'_> {
    fn dim(&self, d: &SymDim) -> Bounds {
        match &d.0 {
            Repr::Int(v) => Bounds::point(Rat::int(*v as i128)),
            Repr::Expr(f) if self.env.is_none() => f
                .node()
                .bounds
                .get_or_init(|| Stored::of(self.poly(f.get())))
                .get(),
            Repr::Expr(f) => self.poly(f.get()),
            Repr::Invalid => Bounds::ANY,
        }
    }

    fn poly(&self, p: &Poly) -> Bounds {
        p.terms
            .iter()
            .fold(Bounds::point(Rat::ZERO), |sum, (m, c)| {
                sum.add(Bounds::point(*c).mul(self.mono(m)))
            })
    }

    fn mono(&self, m: &Mono) -> Bounds {
        m.iter().fold(Bounds::point(Rat::ONE), |t, (id, e)| {
            t.mul(self.atom(id).pow(*e))
        })
    }

    fn atom(&self, id: &AtomRef) -> Bounds {
        match (self.env, id.get()) {
            // A symbol's are its range: nothing to keep.
            (_, Atom::Sym(_)) | (Some(_), _) => self.atom_bounds(id.get()),
            (None, a) => id
                .node()
                .bounds
                .get_or_init(|| Stored::of(self.atom_bounds(a)))
                .get(),
        }
    }

    fn atom_bounds(&self, a: &Atom) -> Bounds {
        let zero = Rat::ZERO;
        match a {
            Atom::Sym(name) => self.env.and_then(|env| env(name)).unwrap_or(Bounds {
                lo: Some(Rat::ONE),
                hi: Some(Rat::int(LIMIT as i128)),
            }),
            Atom::FloorDiv(x, y) => {
                let (bx, by) = (self.dim(x), self.dim(y));
                match y.constant() {
                    Some(c) if c > 0 => {
                        let f = |r: Option<Rat>| {
                            r.and_then(|r| r.div(Rat::int(c as i128)))
                                .map(|q| Rat::int(q.floor()))
                        };
                        Bounds {
                            lo: f(bx.lo),
                            hi: f(bx.hi),
                        }
                    }
                    _ if bx.lo.is_some_and(|l| l >= zero)
                        && by.lo.is_some_and(|l| l >= Rat::ONE) =>
                    {
                        Bounds {
                            lo: Some(zero),
                            hi: bx.hi,
                        }
                    }
                    _ => Bounds::ANY,
                }
            }
            Atom::Mod(x, y) => {
                let (bx, by) = (self.dim(x), self.dim(y));
                if by.lo.is_some_and(|l| l >= Rat::ONE) {
                    let mut hi = by.hi.and_then(|h| h.sub(Rat::ONE));
                    if bx.lo.is_some_and(|l| l >= zero) {
                        hi = min_end(hi, bx.hi, false);
                    }
                    Bounds { lo: Some(zero), hi }
                } else if by.hi.is_some_and(|h| h <= Rat::int(-1)) {
                    Bounds {
                        lo: by.lo.and_then(|l| l.add(Rat::ONE)),
                        hi: Some(zero),
                    }
                } else {
                    Bounds::ANY
                }
            }
            Atom::Min(x, y) => {
                let (bx, by) = (self.dim(x), self.dim(y));
                Bounds {
                    lo: min_end(bx.lo, by.lo, true),
                    hi: min_end(bx.hi, by.hi, false),
                }
            }
            Atom::Max(x, y) => {
                let (bx, by) = (self.dim(x), self.dim(y));
                Bounds {
                    lo: max_end(bx.lo, by.lo, false),
                    hi: max_end(bx.hi, by.hi, true),
                }
            }
            Atom::Eq(..) | Atom::Lt(..) | Atom::Le(..) => Bounds {
                lo: Some(zero),
                hi: Some(Rat::ONE),
            },
            Atom::Select(_, x, y) => {
                let (bx, by) = (self.dim(x), self.dim(y));
                Bounds {
                    lo: min_end(bx.lo, by.lo, true),
                    hi: max_end(bx.hi, by.hi, true),
                }
            }
            Atom::Group(g) => self.dim(g),
        }
    }
}

/// The bounds of `d` over every value of its symbols.
pub(crate) fn bounds(d: &SymDim) -> Bounds {
    DEFAULT.dim(d)
}

/// The bounds of `d` where the symbols range as `env` says.
pub(crate) fn bounds_in(d: &SymDim, env: Ranges<'_>) -> Bounds {
    Bounder { env: Some(env) }.dim(d)
}

/// Whether `d >= 1` for every value of the symbols.
pub(crate) fn at_least_one(d: &SymDim) -> bool {
    bounds(d).lo.is_some_and(|l| l >= Rat::ONE)
}

/// A single-term size `c * M` (every power positive) as its monomial and coefficient.
fn size_term(d: &SymDim) -> Option<(Mono, Rat)> {
    match d.form()?.get().terms.as_slice() {
        [(m, c)] if c.num > 0 && m.iter().all(|f| f.1 > 0) => Some((m.clone(), *c)),
        _ => None,
    }
}

/// Upper bounds where each of the known sizes is at most `isize::MAX`.
struct Upper {
    b: Bounder<'static>,
    sizes: Vec<(Mono, Rat)>,
}

impl Upper {
    fn poly(&mut self, p: &Poly, depth: u8) -> Option<Rat> {
        let mut sum = Rat::ZERO;
        for (m, c) in &p.terms {
            let t = match c.num > 0 {
                true => c.mul(self.mono(m, depth)?)?,
                false => c.mul(self.b.mono(m).lo?)?,
            };
            sum = sum.add(t)?;
        }
        Some(sum)
    }

    /// An upper bound of the monomial `m`: its interval's, a known size that contains it, or a
    /// floor in it replaced by its (larger) quotient.
    fn mono(&mut self, m: &Mono, depth: u8) -> Option<Rat> {
        let mut best = self.b.mono(m).hi;
        let ranges: Vec<Bounds> = m.iter().map(|(id, _)| self.b.atom(id)).collect();
        if m.iter().any(|f| f.1 < 0) || ranges.iter().any(|r| !r.lo.is_some_and(|l| l >= Rat::ZERO))
        {
            return best;
        }
        let mut tighten = |v: Option<Rat>| {
            if let Some(v) = v {
                best = Some(best.map_or(v, |b| b.min(v)));
            }
        };
        for (sm, sc) in &self.sizes {
            let inside = m
                .iter()
                .all(|(id, e)| sm.iter().any(|(s, se)| s == id && se >= e));
            let rest_at_least_one = sm.iter().all(|(s, se)| {
                let used = m.iter().find(|f| f.0 == *s).map_or(0, |f| f.1);
                used == *se || self.b.atom(s).lo.is_some_and(|l| l >= Rat::ONE)
            });
            if inside && rest_at_least_one {
                tighten(Rat::int(LIMIT as i128).div(*sc));
            }
        }
        if depth == 0 {
            return best;
        }
        for (i, (id, _)) in m.iter().enumerate() {
            let Atom::FloorDiv(x, y) = id.get() else {
                continue;
            };
            let (Some(k), Some(xp)) = (y.constant().filter(|&k| k > 0), x.poly()) else {
                continue;
            };
            if !self.b.dim(x).lo.is_some_and(|l| l >= Rat::ZERO) {
                continue;
            }
            let mut rest = m.clone();
            rest[i].1 -= 1;
            rest.retain(|f| f.1 != 0);
            let Some(k) = Rat::new(1, k as i128) else {
                continue;
            };
            let replaced = Poly {
                terms: vec![(rest, k)],
            }
            .mul(&xp);
            if let Some(p) = replaced {
                let u = self.poly(&p, depth - 1);
                tighten(u);
            }
        }
        best
    }
}

/// An upper bound of `d` where each of `sizes` is at most `isize::MAX`; `None` when unbounded.
pub(crate) fn upper(d: &SymDim, sizes: &[SymDim]) -> Option<Rat> {
    let p = match &d.0 {
        Repr::Int(v) => return Some(Rat::int(*v as i128)),
        Repr::Expr(f) => f.get(),
        Repr::Invalid => return None,
    };
    let mut u = Upper {
        b: DEFAULT,
        sizes: sizes.iter().filter_map(size_term).collect(),
    };
    u.poly(p, 3)
}

/// A lower bound of `d`, as [`upper`] of `-d`.
pub(crate) fn lower(d: &SymDim, sizes: &[SymDim]) -> Option<Rat> {
    upper(&-d.clone(), sizes)?.neg()
}

/// Whether the atom `id` is at least 1 for every value of the symbols.
pub(crate) fn atom_at_least_one(id: &AtomRef) -> bool {
    DEFAULT.atom(id).lo.is_some_and(|l| l >= Rat::ONE)
}

/// Whether `d` is past `isize::MAX` for every value of the symbols (no array has that size).
pub(crate) fn past_limit(d: &SymDim) -> bool {
    bounds(d).lo.is_some_and(|l| l > Rat::int(LIMIT as i128))
}

#[cfg(test)]
#[path = "eval_tests.rs"]
mod tests;

//! The arithmetic the dialects' algorithms do on dims, for the two kinds of dim they run on:
//! `usize` (concrete inference: `infer_shape` and every array method) and [`SymDim`] (symbolic
//! inference: `infer_symbolic`). Each dialect's scan is written once, generic over
//! [`Extent`]; only these few operations differ. For `usize` they are the exact checks of the
//! concrete path; for `SymDim` they decide exactly, add a [`Condition`], or fail, and never round.

use std::fmt;

use crate::dims::{checked_size, LIMIT};
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::small::Small;
use crate::sym::ConditionList;
use crate::sym::{self, Condition, Exact, SymDim};

use super::dim_of;

/// A dim the dialects' algorithms run on. Sealed in effect: the module is private.
pub(crate) trait Extent: Clone + Default + PartialEq + fmt::Debug + fmt::Display {
    /// What an inference collects besides the dims: nothing for `usize`, the conditions for
    /// `SymDim`.
    type Conds: Default;

    /// A spec value `>= 0` as a dim (values past `usize` saturate, as [`dim_of`] does).
    fn lit(v: i64) -> Self;

    /// The symbolic entry `d` of a spec (a [`ShapeValue`](crate::ShapeValue)'s) at spec
    /// position `p`: itself, or for `usize` a `needs_number` failure.
    fn sym(d: SymDim, p: usize) -> Result<Self, Fail>;

    /// The inference's conditions `conds` after `given`, the conditions of the spec's shape
    /// value, and those its symbolic `entries` need to read as sizes (at least 1, unless the
    /// entry is the input dim at its index, which reads the same as a 0 or as itself); for
    /// `usize`, a `needs_number` failure when there are any.
    fn assume(
        given: &[Condition],
        entries: &[Option<SymDim>],
        input: &[Self],
        conds: Self::Conds,
    ) -> Result<Self::Conds, Fail>;

    /// Known to be this size.
    fn is(&self, v: usize) -> bool;

    /// The product of the two input dims an MXNet `-3` (or `npx` `-5`) merges; an overflow is
    /// reported by [`finish`](Self::finish).
    fn merge(self, other: Self) -> Self;

    /// The input's size, or an `overflow` (`symbol_limit`) failure.
    fn size(input: &[Self], conds: &mut Self::Conds) -> Result<Self, Fail>;

    /// The [`ReshapeError`] of a failure of a spec of `origin`, written as `spec`, on `input`.
    fn attach(f: Fail, origin: Origin, input: &[Self], spec: impl fmt::Display) -> ReshapeError;

    /// The shared tail of every dialect: `overflow`, `infer_zero_product`,
    /// `infer_not_divisible`, `size_mismatch`, in this order; fills the `-1` at `infer`.
    fn finish(
        dims: &mut [Self],
        infer: Option<usize>,
        size: Self,
        conds: &mut Self::Conds,
    ) -> Result<(), Fail>;

    /// The pair `a b` of an MXNet split (`-4`, `npx` `-6`) of the input dim `d0`, written at
    /// spec position `p`, operands already checked to be `>= -1` and not both `-1`.
    fn split(
        op: &str,
        d0: Self,
        a: i64,
        b: i64,
        p: usize,
        conds: &mut Self::Conds,
    ) -> Result<(Self, Self), Fail>;

    /// `npx` `-3`: the dropped input dim `d` (at read position `pos`, spec position `p`) is 1.
    fn drop_one(d: Self, pos: usize, p: usize, conds: &mut Self::Conds) -> Result<(), Fail>;

    /// `reshape_like`: the output `dims` hold as many elements as the input `lhs`.
    fn same_size(dims: &[Self], lhs: &[Self], conds: &mut Self::Conds) -> Result<(), Fail>;

    /// Paddle's rule for a zero-size input with both a `-1` (at `slot`) and a `0` in the spec.
    fn paddle_zero_size(
        input: &[Self],
        dims: &mut [Self],
        slot: usize,
        conds: &mut Self::Conds,
    ) -> Result<(), Fail>;
}

impl Extent for usize {
    type Conds = ();

    #[cold]
    #[inline(always)]
    fn lit(v: i64) -> usize {
        dim_of(v)
    }

    #[cold]
    fn sym(d: SymDim, p: usize) -> Result<usize, Fail> {
        Err(Fail::at(
            Rule::NeedsNumber,
            p,
            format!(
                "entry {p} is the symbolic {d}: infer with infer_symbolic, or bind the symbols \
                 first (ShapeValue::eval)"
            ),
        ))
    }

    fn assume(
        given: &[Condition],
        _: &[Option<SymDim>],
        _: &[usize],
        conds: (),
    ) -> Result<(), Fail> {
        match given {
            [] => Ok(conds),
            _ => Err(Fail::whole(
                Rule::NeedsNumber,
                format!(
                    "the shape value holds only if {}: infer with infer_symbolic, or bind the \
                     symbols first (ShapeValue::eval)",
                    given
                        .iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            )),
        }
    }

    #[inline(always)]
    fn is(&self, v: usize) -> bool {
        *self == v
    }

    fn attach(f: Fail, origin: Origin, input: &[usize], spec: impl fmt::Display) -> ReshapeError {
        f.attach(origin, input, spec)
    }

    #[inline(always)]
    fn merge(self, other: usize) -> usize {
        // Saturating: a product past usize::MAX is past LIMIT too, and is reported as
        // `overflow` by `finish`, in the dialect's error order.
        self.saturating_mul(other)
    }

    #[inline]
    fn size(input: &[usize], _: &mut ()) -> Result<usize, Fail> {
        checked_size(input.iter().cloned()).ok_or_else(input_overflow)
    }

    #[inline(always)]
    fn finish(
        dims: &mut [usize],
        infer: Option<usize>,
        size: usize,
        _: &mut (),
    ) -> Result<(), Fail> {
        // overflow: the product of the known non-zero dims.
        let mut nonzero: usize = 1;
        let mut zero = false;
        for (i, &d) in dims.iter().enumerate() {
            if Some(i) == infer {
                continue;
            }
            if d == 0 {
                zero = true;
            } else {
                match nonzero.checked_mul(d) {
                    Some(p) if p <= LIMIT => nonzero = p,
                    _ => return Err(output_overflow(i)),
                }
            }
        }
        let known = if zero { 0 } else { nonzero };
        match infer {
            Some(slot) => {
                // A lone `-1` (a flatten) divides by 1: skip the division's latency.
                if known == 1 {
                    dims[slot] = size;
                } else if known == 0 || size % known != 0 {
                    return Err(infer_fail(slot, known, size));
                } else {
                    dims[slot] = size / known;
                }
            }
            None if known != size => return Err(size_mismatch(dims, known, size)),
            None => {}
        }
        Ok(())
    }

    fn split(
        op: &str,
        d0: usize,
        a: i64,
        b: i64,
        p: usize,
        _: &mut (),
    ) -> Result<(usize, usize), Fail> {
        let (x, y) = match (a, b) {
            (-1, k) | (k, -1) => {
                let k = dim_of(k);
                if k == 0 || d0 % k != 0 {
                    return Err(split_mismatch(
                        format!("{op} cannot infer a half of {d0} next to {k}"),
                        p,
                    ));
                }
                if a == -1 {
                    (d0 / k, k)
                } else {
                    (k, d0 / k)
                }
            }
            (x, y) => (dim_of(x), dim_of(y)),
        };
        if x.checked_mul(y) != Some(d0) {
            return Err(split_mismatch(
                format!("{op} {x} {y} does not split the input dim {d0}"),
                p,
            ));
        }
        Ok((x, y))
    }

    fn drop_one(d: usize, pos: usize, p: usize, _: &mut ()) -> Result<(), Fail> {
        if d != 1 {
            return Err(not_one(d, pos, p));
        }
        Ok(())
    }

    fn same_size(dims: &[usize], lhs: &[usize], c: &mut ()) -> Result<(), Fail> {
        let size = Self::size(lhs, c)?;
        let out_size = checked_size(dims.iter().cloned()).ok_or_else(|| {
            Fail::whole(
                Rule::Overflow,
                format!("the output dims multiply past {}", isize::MAX),
            )
        })?;
        if out_size != size {
            return Err(Fail::whole(
                Rule::SizeMismatch,
                format!("the output shape {dims:?} has {out_size} elements, the input {size}"),
            ));
        }
        Ok(())
    }

    fn paddle_zero_size(
        input: &[usize],
        dims: &mut [usize],
        slot: usize,
        _: &mut (),
    ) -> Result<(), Fail> {
        let overflow = || {
            Fail::whole(
                Rule::Overflow,
                format!("the output dims multiply past {}", isize::MAX),
            )
        };
        let others = dims.iter().enumerate().filter(|&(i, _)| i != slot);
        let z_out = others.clone().filter(|&(_, &d)| d == 0).count();
        let p_out =
            checked_size(others.map(|(_, &d)| d).filter(|&d| d != 0)).ok_or_else(overflow)?;
        let z_in = input.iter().filter(|&&d| d == 0).count();
        let p_in = checked_size(input.iter().cloned().filter(|&d| d != 0)).ok_or_else(overflow)?;
        if z_in == z_out {
            if p_in % p_out != 0 {
                return Err(zero_size_not_divisible(slot, p_out, p_in));
            }
            dims[slot] = p_in / p_out;
            return Ok(());
        }
        if z_out > z_in && p_out != p_in {
            return Err(zero_size_mismatch(slot, z_out, z_in, p_out, p_in));
        }
        Err(zero_size_ambiguous(slot, z_in, z_out))
    }
}

impl Extent for SymDim {
    type Conds = Small<Condition>;

    #[cold]
    fn attach(f: Fail, origin: Origin, input: &[SymDim], spec: impl fmt::Display) -> ReshapeError {
        f.attach_sym(origin, input, spec)
    }

    fn lit(v: i64) -> SymDim {
        SymDim::from(dim_of(v))
    }

    fn sym(d: SymDim, p: usize) -> Result<SymDim, Fail> {
        if !d.is_valid() {
            return Err(Fail::at(
                Rule::SymbolLimit,
                p,
                format!("entry {p} is past the symbolic range"),
            ));
        }
        Ok(d)
    }

    fn assume(
        given: &[Condition],
        entries: &[Option<SymDim>],
        input: &[SymDim],
        conds: Small<Condition>,
    ) -> Result<Small<Condition>, Fail> {
        let mut all: Small<Condition> = given.iter().cloned().collect();
        let sizes = entries.iter().enumerate().filter_map(|(p, d)| {
            let d = d.clone()?;
            let read_as_size = sym::at_least_one(&d) || input.get(p) == Some(&d);
            (!read_as_size).then(|| Condition::at_most(SymDim::from(1), d))
        });
        all.add_all(conds.iter().cloned().chain(sizes));
        Ok(all)
    }

    fn is(&self, v: usize) -> bool {
        self.known() == Some(v)
    }

    fn merge(self, other: SymDim) -> SymDim {
        self * other
    }

    fn size(input: &[SymDim], conds: &mut Small<Condition>) -> Result<SymDim, Fail> {
        // As `checked_size`: the non-zero dims are bounded even when a zero makes the size 0.
        let nonzero = product(input.iter().filter(|d| !d.is_zero()).cloned());
        let nonzero = nonzero.ok_or_else(input_limit)?;
        if sym::past_limit(&nonzero) {
            return Err(input_overflow());
        }
        if !input.iter().any(SymDim::is_zero) {
            // The output has this size: evaluating it checks the bound.
            return Ok(nonzero);
        }
        match nonzero.known() {
            Some(_) => {}
            None => conds.push(Condition::within_limit(nonzero)),
        }
        Ok(SymDim::from(0))
    }

    fn finish(
        dims: &mut [SymDim],
        infer: Option<usize>,
        size: SymDim,
        conds: &mut Small<Condition>,
    ) -> Result<(), Fail> {
        let mut known = SymDim::from(1);
        for (i, d) in dims.iter().enumerate().filter(|&(i, _)| Some(i) != infer) {
            known = known * d.clone();
            if !known.is_valid() {
                return Err(output_limit(i));
            }
        }
        match infer {
            Some(slot) => {
                if known.is_zero() {
                    return Err(infer_fail_sym(slot, known, size));
                }
                // A dim that may be 0 leaves -1 undetermined there.
                for (_, d) in dims.iter().enumerate().filter(|&(i, _)| i != slot) {
                    if !sym::at_least_one(d) {
                        conds.add(Condition::at_most(SymDim::from(1), d.clone()));
                    }
                }
                let q = size.clone() / known.clone();
                if !possible(sym::integer(&q), conds) {
                    return Err(infer_fail_sym(slot, known, size));
                }
                dims[slot] = q;
            }
            None => equal_sizes(dims, known, size, conds)?,
        }
        Ok(())
    }

    fn split(
        op: &str,
        d0: SymDim,
        a: i64,
        b: i64,
        p: usize,
        conds: &mut Small<Condition>,
    ) -> Result<(SymDim, SymDim), Fail> {
        let (x, y) = match (a, b) {
            (-1, k) | (k, -1) => {
                let k = SymDim::lit(k);
                let q = Some(d0.clone() / k.clone())
                    .filter(|q| !k.is_zero() && possible(sym::integer(q), conds));
                let Some(q) = q else {
                    return Err(split_mismatch(
                        format!("{op} cannot infer a half of {d0} next to {k}"),
                        p,
                    ));
                };
                if a == -1 {
                    (q, k)
                } else {
                    (k, q)
                }
            }
            (x, y) => (SymDim::lit(x), SymDim::lit(y)),
        };
        let xy = x.clone() * y.clone();
        if !(xy.is_valid() && equal(xy, d0.clone(), conds)) {
            return Err(split_mismatch(
                format!("{op} {x} {y} does not split the input dim {d0}"),
                p,
            ));
        }
        Ok((x, y))
    }

    fn drop_one(d: SymDim, pos: usize, p: usize, conds: &mut Small<Condition>) -> Result<(), Fail> {
        if d.is_zero() {
            return Err(not_one(d, pos, p));
        }
        if !possible(sym::equals(&d, &SymDim::from(1)), conds) {
            return Err(not_one(d, pos, p));
        }
        Ok(())
    }

    fn same_size(
        dims: &[SymDim],
        lhs: &[SymDim],
        conds: &mut Small<Condition>,
    ) -> Result<(), Fail> {
        let size = Self::size(lhs, conds)?;
        let out = product(dims.iter().cloned()).ok_or_else(|| {
            Fail::whole(
                Rule::SymbolLimit,
                "the output dims multiply past the symbolic range",
            )
        })?;
        equal_sizes(dims, out, size, conds)
    }

    fn paddle_zero_size(
        input: &[SymDim],
        dims: &mut [SymDim],
        slot: usize,
        conds: &mut Small<Condition>,
    ) -> Result<(), Fail> {
        let others = || {
            dims.iter()
                .enumerate()
                .filter(|&(i, _)| i != slot)
                .map(|(_, d)| d.clone())
        };
        let z_out = others().filter(SymDim::is_zero).count();
        let z_in = input.iter().filter(|d| d.is_zero()).count();
        let nonzero = |d: &SymDim| !d.is_zero();
        let limit = || {
            Fail::whole(
                Rule::SymbolLimit,
                "the dims multiply past the symbolic range",
            )
        };
        let p_out = product(others().filter(nonzero)).ok_or_else(limit)?;
        let p_in = product(input.iter().filter(|d| nonzero(d)).cloned()).ok_or_else(limit)?;
        if z_in == z_out {
            let q = p_in.clone() / p_out.clone();
            if !possible(sym::integer(&q), conds) {
                return Err(zero_size_not_divisible(slot, p_out, p_in));
            }
            dims[slot] = q;
            return Ok(());
        }
        // Both outcomes are errors; which one depends on the values only when the products
        // may differ.
        if z_out > z_in && !matches!(sym::equals(&p_out, &p_in), Exact::Always) {
            return Err(zero_size_mismatch(slot, z_out, z_in, p_out, p_in));
        }
        Err(zero_size_ambiguous(slot, z_in, z_out))
    }
}

/// The product of `dims`, or `None` past the symbolic range.
fn product(dims: impl Iterator<Item = SymDim>) -> Option<SymDim> {
    let p = dims.fold(SymDim::from(1), |p, d| p * d);
    p.is_valid().then_some(p)
}

/// `known` (the product of `dims`) equals `size`: always, under a condition, or never.
fn equal_sizes(
    dims: &[SymDim],
    known: SymDim,
    size: SymDim,
    conds: &mut Small<Condition>,
) -> Result<(), Fail> {
    if equal(known.clone(), size.clone(), conds) {
        return Ok(());
    }
    Err(size_mismatch(dims, known, size))
}

/// Whether `a == b` for some values of the symbols (decided where the bounds of their
/// difference decide it), the condition it needs, if any, added to `conds`.
fn equal(a: SymDim, b: SymDim, conds: &mut Small<Condition>) -> bool {
    possible(sym::equals(&b, &a), conds)
}

/// Whether `e` holds for some values of the symbols, the condition it needs, if any, added to
/// `conds`.
fn possible(e: Exact, conds: &mut Small<Condition>) -> bool {
    match e {
        Exact::Always => true,
        Exact::Sometimes(c) => {
            conds.push(c);
            true
        }
        Exact::Never => false,
    }
}

// The failures, out of line: formatting them inline costs the concrete success path a larger
// frame and more saved registers.

#[cold]
#[inline(never)]
fn input_overflow() -> Fail {
    Fail::whole(
        Rule::Overflow,
        format!("the input's dims multiply past {}", isize::MAX),
    )
}

#[cold]
#[inline(never)]
fn input_limit() -> Fail {
    Fail::whole(
        Rule::SymbolLimit,
        "the input's dims multiply past the symbolic range (a coefficient past i128, more \
         than 64 terms or a power past 127)",
    )
}

#[cold]
#[inline(never)]
fn output_overflow(i: usize) -> Fail {
    Fail::at(
        Rule::Overflow,
        i,
        format!("the output dims multiply past {}", isize::MAX),
    )
}

#[cold]
#[inline(never)]
fn output_limit(i: usize) -> Fail {
    Fail::at(
        Rule::SymbolLimit,
        i,
        "the output dims multiply past the symbolic range",
    )
}

#[cold]
fn infer_zero(slot: usize) -> Fail {
    Fail::at(
        Rule::InferZeroProduct,
        slot,
        "the other dims multiply to 0, so -1 cannot be inferred",
    )
}

#[cold]
#[inline(never)]
fn infer_fail(slot: usize, known: usize, size: usize) -> Fail {
    if known == 0 {
        infer_zero(slot)
    } else {
        Fail::at(
            Rule::InferNotDivisible,
            slot,
            format!("the other dims multiply to {known}, which does not divide the size {size}"),
        )
    }
}

#[cold]
#[inline(never)]
fn infer_fail_sym(slot: usize, known: SymDim, size: SymDim) -> Fail {
    if known.is_zero() {
        infer_zero(slot)
    } else {
        Fail::at(
            Rule::InferNotDivisible,
            slot,
            format!(
                "the other dims multiply to {known}, which divides the size {size} for no value \
                 of the symbols (({size}) / ({known}) = {})",
                size.clone() / known.clone()
            ),
        )
    }
}

#[cold]
#[inline(never)]
fn size_mismatch<E: Extent>(dims: &[E], known: E, size: E) -> Fail {
    Fail::whole(
        Rule::SizeMismatch,
        format!("the output shape {dims:?} has {known} elements, the input {size}"),
    )
}

#[cold]
#[inline(never)]
fn split_mismatch(detail: String, p: usize) -> Fail {
    Fail::at(Rule::SplitMismatch, p, detail)
}

#[cold]
#[inline(never)]
fn not_one<E: Extent>(d: E, pos: usize, p: usize) -> Fail {
    Fail::at(
        Rule::DropNotOne,
        p,
        format!("-3 drops the input dim {d} at read position {pos}, which is not 1"),
    )
}

#[cold]
fn zero_size_not_divisible<E: Extent>(pos: usize, p_out: E, p_in: E) -> Fail {
    Fail::at(
        Rule::InferNotDivisible,
        pos,
        format!("the non-zero output dims multiply to {p_out}, which does not divide the input's non-zero product {p_in}"),
    )
}

#[cold]
fn zero_size_mismatch<E: Extent>(pos: usize, z_out: usize, z_in: usize, p_out: E, p_in: E) -> Fail {
    Fail::at(
        Rule::ZeroSizeMismatch,
        pos,
        format!("the spec has {z_out} zero dims and the input {z_in}, and their non-zero dims multiply to {p_out} and {p_in}"),
    )
}

#[cold]
fn zero_size_ambiguous(pos: usize, z_in: usize, z_out: usize) -> Fail {
    Fail::at(
        Rule::InferAmbiguous,
        pos,
        format!("the input has {z_in} zero dims and the spec {z_out}, which leaves -1 undetermined on a zero-size input"),
    )
}

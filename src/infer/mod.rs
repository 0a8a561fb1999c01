//! The inference engine every dialect runs on: the output shape under construction, `-1`
//! inference, reading a spec in reverse, MXNet's split pairs, and the arithmetic on concrete and
//! symbolic dims ([`Extent`]). It knows no public spec type; a dialect is a scan over resolved
//! entries that pushes into an [`Out`].
#![forbid(unsafe_code)]

use crate::error::{Fail, Rule};
use crate::small::Small;

pub(crate) mod extent;

pub(crate) use extent::Extent;

/// A spec entry as a dialect reads it: a dim (a positive number, or a symbolic entry of a
/// shape value) or a code (`0` or a negative number, whose meaning is the dialect's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry<E> {
    Dim(E),
    Code(i64),
}

/// ONNX `Reshape`'s rule, the one place it is written: each entry a dim, `0` the input's dim
/// at its index (with `allowzero`, a dim of 0, never beside a `-1`), `-1` inferred from the
/// size. The `Onnx` dialect runs it on its spec, a shape value's `Reshape` (`graph/`) on its
/// target.
pub(crate) fn onnx_reshape<E: Extent>(
    input: &[E],
    spec: impl Iterator<Item = Result<(usize, Entry<E>), Fail>>,
    allowzero: bool,
    dims: &mut Small<E>,
) -> Result<E::Conds, Fail> {
    let mut out = Out::new(dims);
    let mut zero_at = None;
    for entry in spec {
        match entry? {
            (_, Entry::Dim(d)) => out.push(d),
            (i, Entry::Code(0)) if allowzero => {
                zero_at.get_or_insert(i);
                out.push(E::lit(0));
            }
            (i, Entry::Code(0)) => out.push(copy_dim(input, i)?),
            (i, Entry::Code(-1)) => out.push_infer_at(i)?,
            (i, Entry::Code(v)) => return Err(below_minus_one(i, v)),
        }
    }
    if let (Some(z), Some(_)) = (zero_at, out.infer) {
        return Err(Fail::at(
            Rule::AllowzeroWithInfer,
            z,
            "with allowzero, a shape may not hold both a 0 and a -1",
        ));
    }
    let size = E::size(input, &mut out.conds)?;
    out.finish(size)
}

/// A positive spec value as a dim; one that does not fit in `usize` saturates (and is then
/// reported as `overflow`, since it exceeds [`LIMIT`](crate::dims::LIMIT)).
#[inline]
pub(crate) fn dim_of(v: i64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// The input dim at index `i`, which a copying `0` at spec index `i` stands for (ONNX, Paddle).
#[inline]
pub(crate) fn copy_dim<E: Extent>(input: &[E], i: usize) -> Result<E, Fail> {
    match input.get(i) {
        Some(d) => Ok(d.clone()),
        None => Err(zero_out_of_rank(i, input.len())),
    }
}

#[cold]
#[inline(never)]
fn zero_out_of_rank(i: usize, rank: usize) -> Fail {
    Fail::at(
        Rule::ZeroOutOfRank,
        i,
        format!("0 copies the input dim at index {i}, past the input's rank {rank}"),
    )
}

/// The failure of a value below `-1` at spec index `i` (ONNX, Paddle).
#[cold]
#[inline(never)]
pub(crate) fn below_minus_one(i: usize, v: i64) -> Fail {
    Fail::at(Rule::BadValue, i, format!("value {v} is below -1"))
}

/// An output shape under construction, the slot of the `-1` to infer, and what the inference
/// collects besides (the conditions of a symbolic one).
///
/// Failures from [`finish`](Self::finish) carry the *output index* as their position; dialects
/// whose output index is not the spec index (MXNet) map it back.
#[derive(Debug)]
pub(crate) struct Out<'a, E: Extent> {
    pub dims: &'a mut Small<E>,
    pub infer: Option<usize>,
    pub conds: E::Conds,
}

impl<'a, E: Extent> Out<'a, E> {
    /// Build into `dims`, which is cleared first.
    #[inline]
    pub(crate) fn new(dims: &'a mut Small<E>) -> Self {
        dims.clear();
        Out {
            dims,
            infer: None,
            conds: E::Conds::default(),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, d: E) {
        self.dims.push(d);
    }

    /// Push the slot of the `-1`.
    #[inline]
    pub(crate) fn push_infer(&mut self) {
        self.infer = Some(self.dims.len());
        self.dims.push(E::lit(1));
    }

    /// The end of an MXNet-style read ([`reading`]): [`finish`](Self::finish), with a failure's
    /// output index moved to the written-spec position that dim came from, then the output
    /// reversed back after a `reverse` read. `positions` re-runs the read with a [`Track`]
    /// that records them; it is called only on failure, so the success path records nothing.
    #[inline]
    pub(crate) fn finish_read(
        &mut self,
        size: E,
        reverse: bool,
        positions: impl FnOnce() -> Small<usize>,
    ) -> Result<E::Conds, Fail> {
        let conds = match self.finish(size) {
            Ok(c) => c,
            Err(f) => return Err(remap(f, positions())),
        };
        if reverse {
            self.dims.reverse();
        }
        Ok(conds)
    }

    /// Push the slot of the `-1` written at spec position `p`, or fail with `multiple_infer`
    /// if there is one already.
    #[inline]
    pub(crate) fn push_infer_at(&mut self, p: usize) -> Result<(), Fail> {
        if self.infer.is_some() {
            return Err(second_infer(p));
        }
        self.push_infer();
        Ok(())
    }

    /// The shared tail of every dialect ([`Extent::finish`]): `overflow`,
    /// `infer_zero_product`, `infer_not_divisible`, `size_mismatch`, in this order. `size` is
    /// the input's size. Gives what the inference collected.
    #[inline(always)]
    pub(crate) fn finish(&mut self, size: E) -> Result<E::Conds, Fail> {
        E::finish(self.dims, self.infer, size, &mut self.conds)?;
        Ok(std::mem::take(&mut self.conds))
    }
}

/// An MXNet-style read (MXNet `Reshape`, `npx.reshape`) into `dims`: `scan` the spec against
/// the input, then [`Out::finish_read`]. Spec positions are recorded only when a failure
/// needs them, by scanning again with a [`Small`] (`tracked`, the same scan).
#[inline]
pub(crate) fn read<E: Extent>(
    dims: &mut Small<E>,
    input: &[E],
    reverse: bool,
    scan: impl FnOnce(&mut Out<'_, E>, &mut NoTrack) -> Result<(), Fail>,
    tracked: impl FnOnce(&mut Out<'_, E>, &mut Small<usize>) -> Result<(), Fail>,
) -> Result<E::Conds, Fail> {
    let mut out = Out::new(dims);
    scan(&mut out, &mut NoTrack)?;
    let size = E::size(input, &mut out.conds)?;
    out.finish_read(size, reverse, || {
        let mut dims = Small::new();
        let mut src = Small::new();
        // The same scan succeeded above, so it succeeds again.
        let _ = tracked(&mut Out::new(&mut dims), &mut src);
        src
    })
}

/// `f` with its output index replaced by the spec position `src` records for it.
#[cold]
#[inline(never)]
fn remap(mut f: Fail, src: Small<usize>) -> Fail {
    f.position = f.position.and_then(|k| src.get(k).copied());
    f
}

/// Where an MXNet-style read records the written-spec position of each output dim: nowhere on
/// the success path ([`NoTrack`]), into a [`Small`] when a failure must be reported.
pub(crate) trait Track {
    fn record(&mut self, p: usize);
}

/// Records nothing.
pub(crate) struct NoTrack;

impl Track for NoTrack {
    #[inline(always)]
    fn record(&mut self, _: usize) {}
}

impl Track for Small<usize> {
    #[inline]
    fn record(&mut self, p: usize) {
        self.push(p);
    }
}

#[cold]
#[inline(never)]
fn second_infer(p: usize) -> Fail {
    Fail::at(Rule::MultipleInfer, p, "a second -1")
}

/// A value of the spec in reading order, with its position in the written spec.
pub(crate) fn reading(spec: &[i64], reverse: bool) -> impl Fn(usize) -> (i64, usize) + '_ {
    let n = spec.len();
    move |i| {
        if reverse {
            (spec[n - 1 - i], n - 1 - i)
        } else {
            (spec[i], i)
        }
    }
}

/// The input dim at read position `k`, counted from the end after a `reverse` read (the
/// counterpart of [`reading`] for the input).
pub(crate) fn input_reading<E: Extent>(input: &[E], reverse: bool) -> impl Fn(usize) -> E + '_ {
    let rank = input.len();
    move |k| {
        if reverse {
            input[rank - 1 - k].clone()
        } else {
            input[k].clone()
        }
    }
}

/// The pair `a b` of an MXNet split (`-4` in `Reshape`, `-6` in `npx.reshape`) of the input dim
/// `d0`, written at spec position `p`: each operand `>= 0` (0 is a real zero) or `-1`, inferred
/// from `d0` alone; then the pair must multiply to `d0`.
pub(crate) fn split_pair<E: Extent>(
    op: &str,
    d0: E,
    a: (i64, usize),
    b: (i64, usize),
    p: usize,
    conds: &mut E::Conds,
) -> Result<(E, E), Fail> {
    for (v, pv) in [a, b] {
        if v < -1 {
            return Err(Fail::at(
                Rule::BadValue,
                pv,
                format!("value {v} inside a {op} pair; only -1 may be negative there"),
            ));
        }
    }
    E::split(op, d0, a.0, b.0, p, conds)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dims::LIMIT;

    #[test]
    fn finish_reports_in_order() {
        let mut d = Small::new();
        let mut o = Out::new(&mut d);
        o.push(LIMIT);
        o.push(2);
        assert_eq!(o.finish(0).unwrap_err().rule, Rule::Overflow);
        let mut o = Out::new(&mut d);
        o.push(0);
        o.push_infer();
        assert_eq!(o.finish(0).unwrap_err().rule, Rule::InferZeroProduct);
        let mut o = Out::new(&mut d);
        o.push(5);
        o.push_infer();
        assert_eq!(o.finish(6).unwrap_err().rule, Rule::InferNotDivisible);
        let mut o = Out::new(&mut d);
        o.push(5);
        assert_eq!(o.finish(6).unwrap_err().rule, Rule::SizeMismatch);
    }
}

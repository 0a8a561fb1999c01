//! Shape specs: the [`ShapeSpec`] trait and the reading machinery the dialects share (the
//! output under construction, `-1` inference, reading in reverse, `-4`/`-6` splits). One file
//! per dialect beside this one, and the spec values in [`values`].
//!
//! Every dialect is a way to compute a target shape from an input shape. Nothing here touches
//! array data.

use crate::dims::{checked_size, Order, LIMIT};
use crate::error::{Fail, ReshapeError, Rule};
use crate::small::Small;

pub(crate) mod attrs;
pub(crate) mod like;
pub(crate) mod mx;
pub(crate) mod np;
pub(crate) mod npx;
pub(crate) mod onnx;
pub(crate) mod paddle;
pub(crate) mod values;

pub(crate) use values::into_spec;
pub use values::{IntoSpec, IntoSpecList, ShapeItem, SpecInt, SpecList};

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// A reshape spec of some dialect: computes the target shape from an input shape, without data.
///
/// Implemented by [`Mx`](crate::Mx), [`MxTarget`](crate::MxTarget), [`Like`](crate::Like),
/// [`Paddle`](crate::Paddle), [`Np`](crate::Np), [`Npx`](crate::Npx) and
/// [`Onnx`](crate::Onnx), and by references to them. Graph compilers
/// and model converters can call [`infer_shape`](Self::infer_shape) on shapes alone. The trait
/// is sealed so that methods can be added without breaking users.
///
/// ```
/// use ndarray_reshape::{Mx, Np, Order, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// assert_eq!(Mx::new([-3, -2]).infer_shape(&[2, 3, 4])?, vec![6, 4]);
/// assert_eq!(Np::new([3, -1], Order::F).infer_shape(&[6])?, vec![3, 2]);
/// # Ok(())
/// # }
/// ```
pub trait ShapeSpec: Sealed {
    /// The target shape for an input of shape `input`.
    ///
    /// # Errors
    ///
    /// The [`ReshapeError`] variant of the first rule the spec breaks for this input, in the
    /// dialect's order (see each spec type).
    fn infer_shape(&self, input: &[usize]) -> Result<Vec<usize>, ReshapeError> {
        let mut dims = Small::new();
        self.infer_into(input, &mut dims)?;
        Ok(dims.to_vec())
    }

    /// [`infer_shape`](Self::infer_shape) into a caller's small inline buffer (no allocation
    /// for up to 8 dims, nothing large returned by value): the view path uses this.
    #[doc(hidden)]
    fn infer_into(&self, input: &[usize], dims: &mut Small<usize>) -> Result<(), ReshapeError>;

    /// The requested reading order. [`Order::C`] for every dialect but NumPy's.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, Np, Order, ShapeSpec};
    /// assert_eq!(Mx::new([-1]).order(), Order::C);
    /// assert_eq!(Np::new([-1], Order::A).order(), Order::A);
    /// ```
    fn order(&self) -> Order {
        Order::C
    }

    /// The dialect and the spec as written, for error messages.
    #[doc(hidden)]
    fn describe(&self) -> (crate::Dialect, String);

    /// The ONNX `Reshape` that means exactly this reshape for an input of shape `input`: an
    /// explicit shape of non-negative dims, with `allowzero` set when a dim is 0 (so the 0 is a
    /// literal zero). Exporters lower MXNet, Paddle and NumPy reshapes with it.
    ///
    /// # Errors
    ///
    /// The spec's own errors for this input.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, Onnx, Paddle, ShapeSpec};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let lowered = Mx::new([-4, 1, 2, -2]).to_onnx(&[2, 3, 4])?;
    /// assert_eq!(lowered, Onnx::new([1, 2, 3, 4]));
    /// let lowered = Paddle::new([0, -1]).to_onnx(&[2, 0, 3])?;
    /// assert_eq!(lowered, Onnx::new([0, 6]).allowzero(true));
    /// assert_eq!(lowered.infer_shape(&[2, 0, 3])?, vec![0, 6]);
    /// # Ok(())
    /// # }
    /// ```
    fn to_onnx(&self, input: &[usize]) -> Result<crate::Onnx, ReshapeError> {
        let shape = self.infer_shape(input)?;
        let zero = shape.contains(&0);
        Ok(crate::Onnx::new(shape).allowzero(zero))
    }
}

impl<T: ShapeSpec + ?Sized> Sealed for &T {}
impl<T: ShapeSpec + ?Sized> ShapeSpec for &T {
    #[inline]
    fn infer_into(&self, input: &[usize], dims: &mut Small<usize>) -> Result<(), ReshapeError> {
        (**self).infer_into(input, dims)
    }
    #[inline]
    fn order(&self) -> Order {
        (**self).order()
    }
    fn describe(&self) -> (crate::Dialect, String) {
        (**self).describe()
    }
}

/// A rule broken by a whole reshape of `input` with `spec` (not by one of its entries), as a
/// [`ReshapeError`] with the spec's dialect and text: the modes' errors (`NeedsCopy`,
/// `RankMismatch`, `OutputLength`).
#[cold]
pub(crate) fn reject<P: ShapeSpec + ?Sized>(
    rule: Rule,
    spec: &P,
    input: &[usize],
    why: &str,
) -> ReshapeError {
    let (dialect, written) = spec.describe();
    Fail::whole(rule, why).attach(dialect, input, written)
}

/// The size of an input shape, or an `overflow` failure.
#[inline]
pub(crate) fn input_size(input: &[usize]) -> Result<usize, Fail> {
    checked_size(input.iter().copied()).ok_or_else(input_overflow)
}

#[cold]
#[inline(never)]
fn input_overflow() -> Fail {
    Fail::whole(
        Rule::Overflow,
        format!("the input's dims multiply past {}", isize::MAX),
    )
}

/// A positive spec value as a dim; one that does not fit in `usize` saturates (and is then
/// reported as `overflow`, since it exceeds [`LIMIT`]).
#[inline]
pub(crate) fn dim_of(v: i64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// An output shape under construction, and the slot of the `-1` to infer.
///
/// Failures from [`finish`](Self::finish) carry the *output index* as their position; dialects
/// whose output index is not the spec index (MXNet) map it back.
#[derive(Debug)]
pub(crate) struct Out<'a> {
    pub dims: &'a mut Small<usize>,
    pub infer: Option<usize>,
}

impl<'a> Out<'a> {
    /// Build into `dims`, which is cleared first.
    #[inline]
    pub(crate) fn new(dims: &'a mut Small<usize>) -> Self {
        dims.clear();
        Out { dims, infer: None }
    }

    #[inline]
    pub(crate) fn push(&mut self, d: usize) {
        self.dims.push(d);
    }

    /// Push the slot of the `-1`.
    #[inline]
    pub(crate) fn push_infer(&mut self) {
        self.infer = Some(self.dims.len());
        self.dims.push(1);
    }

    /// The end of an MXNet-style read ([`reading`]): [`finish`](Self::finish), with a failure's
    /// output index moved to the written-spec position that dim came from, then the output
    /// reversed back after a `reverse` read. `positions` re-runs the read with a [`Track`]
    /// that records them; it is called only on failure, so the success path records nothing.
    #[inline]
    pub(crate) fn finish_read(
        &mut self,
        size: usize,
        reverse: bool,
        positions: impl FnOnce() -> Small<usize>,
    ) -> Result<(), Fail> {
        if let Err(f) = self.finish(size) {
            return Err(remap(f, positions()));
        }
        if reverse {
            self.dims.reverse();
        }
        Ok(())
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

    /// The shared tail of every dialect: `overflow`, `infer_zero_product`,
    /// `infer_not_divisible`, `size_mismatch`, in this order. `size` is the input's size.
    #[inline]
    pub(crate) fn finish(&mut self, size: usize) -> Result<(), Fail> {
        // overflow: the product of the known non-zero dims.
        let mut nonzero: usize = 1;
        let mut zero = false;
        for (i, &d) in self.dims.iter().enumerate() {
            if Some(i) == self.infer {
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
        match self.infer {
            Some(slot) => {
                // A lone `-1` (a flatten) divides by 1: skip the division's latency.
                if known == 1 {
                    self.dims[slot] = size;
                } else if known == 0 || size % known != 0 {
                    return Err(infer_fail(slot, known, size));
                } else {
                    self.dims[slot] = size / known;
                }
            }
            None if known != size => return Err(size_mismatch(self.dims, known, size)),
            None => {}
        }
        Ok(())
    }
}

/// An MXNet-style read (MXNet `Reshape`, `npx.reshape`) into `dims`: `scan` the spec against
/// the input, then [`Out::finish_read`]. Spec positions are recorded only when a failure
/// needs them, by scanning again with a [`Small`] (`tracked`, the same scan).
#[inline]
pub(crate) fn read(
    dims: &mut Small<usize>,
    input: &[usize],
    reverse: bool,
    scan: impl FnOnce(&mut Out<'_>, &mut NoTrack) -> Result<(), Fail>,
    tracked: impl FnOnce(&mut Out<'_>, &mut Small<usize>) -> Result<(), Fail>,
) -> Result<(), Fail> {
    let mut out = Out::new(dims);
    scan(&mut out, &mut NoTrack)?;
    let size = input_size(input)?;
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

// The failures of `Out::finish`, out of line: formatting them inline costs the success path a
// larger frame and more saved registers.

#[cold]
#[inline(never)]
fn second_infer(p: usize) -> Fail {
    Fail::at(Rule::MultipleInfer, p, "a second -1")
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
fn infer_fail(slot: usize, known: usize, size: usize) -> Fail {
    if known == 0 {
        Fail::at(
            Rule::InferZeroProduct,
            slot,
            "the other dims multiply to 0, so -1 cannot be inferred",
        )
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
fn size_mismatch(dims: &[usize], known: usize, size: usize) -> Fail {
    Fail::whole(
        Rule::SizeMismatch,
        format!("the output shape {dims:?} has {known} elements, the input {size}"),
    )
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
pub(crate) fn input_reading(input: &[usize], reverse: bool) -> impl Fn(usize) -> usize + '_ {
    let rank = input.len();
    move |k| {
        if reverse {
            input[rank - 1 - k]
        } else {
            input[k]
        }
    }
}

/// The pair `a b` of an MXNet split (`-4` in `Reshape`, `-6` in `npx.reshape`) of the input dim
/// `d0`, written at spec position `p`: each operand `>= 0` (0 is a real zero) or `-1`, inferred
/// from `d0` alone; then the pair must multiply to `d0`.
pub(crate) fn split_pair(
    op: &str,
    d0: usize,
    a: (i64, usize),
    b: (i64, usize),
    p: usize,
) -> Result<(usize, usize), Fail> {
    for (v, pv) in [a, b] {
        if v < -1 {
            return Err(Fail::at(
                Rule::BadValue,
                pv,
                format!("value {v} inside a {op} pair; only -1 may be negative there"),
            ));
        }
    }
    let mismatch = |detail: String| Fail::at(Rule::SplitMismatch, p, detail);
    let (x, y) = match (a.0, b.0) {
        (-1, k) | (k, -1) => {
            let k = dim_of(k);
            if k == 0 || d0 % k != 0 {
                return Err(mismatch(format!(
                    "{op} cannot infer a half of {d0} next to {k}"
                )));
            }
            if a.0 == -1 {
                (d0 / k, k)
            } else {
                (k, d0 / k)
            }
        }
        (x, y) => (dim_of(x), dim_of(y)),
    };
    if x.checked_mul(y) != Some(d0) {
        return Err(mismatch(format!(
            "{op} {x} {y} does not split the input dim {d0}"
        )));
    }
    Ok((x, y))
}

/// Format `Option<i64>` bounds as `begin..end`.
pub(crate) fn fmt_range(b: Option<i64>, e: Option<i64>) -> String {
    let s = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
    format!("{}..{}", s(b), s(e))
}

#[cfg(test)]
mod tests {
    use super::*;

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

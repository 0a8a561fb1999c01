//! Dims, strides and reading orders: the helpers every other module shares, with no knowledge
//! of specs or array data.
//!
//! Strides are in elements and signed, as `ndarray`'s `strides()` gives them. The three layout
//! rules that several modules apply live here once: whether one axis steps exactly over the
//! next ([`steps_over`]), the axis merge built on it ([`merge_axis`]), and the lowest address a
//! layout touches ([`low_offset`]).

use ndarray::{Dimension, ShapeBuilder, StrideShape};

/// The largest element count (and the largest product of non-zero dims) an `ndarray` shape may
/// have: `isize::MAX`.
pub(crate) const LIMIT: usize = isize::MAX as usize;

/// The order in which a reshape reads the input's elements and writes the output's.
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::{Order, ReshapeExt};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let a = array![[0, 1], [2, 3], [4, 5]];
/// assert_eq!(a.reshape_np([2, 3], Order::C)?, array![[0, 1, 2], [3, 4, 5]].into_dyn());
/// assert_eq!(a.reshape_np([2, 3], Order::F)?, array![[0, 4, 3], [2, 1, 5]].into_dyn());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// Row-major: the last index changes fastest.
    #[default]
    C,
    /// Column-major (Fortran): the first index changes fastest.
    F,
    /// `F` if the input is F-contiguous and not C-contiguous, `C` otherwise (NumPy's `'A'`).
    A,
}

impl From<ndarray::Order> for Order {
    /// `RowMajor` is [`Order::C`], `ColumnMajor` is [`Order::F`].
    ///
    /// ```
    /// use ndarray_reshape::Order;
    /// assert_eq!(Order::from(ndarray::Order::ColumnMajor), Order::F);
    /// assert_eq!(Order::from(ndarray::Order::RowMajor), Order::C);
    /// ```
    fn from(o: ndarray::Order) -> Self {
        match o {
            ndarray::Order::ColumnMajor => Order::F,
            _ => Order::C,
        }
    }
}

/// The order a reshape actually reads in: an [`Order`] with `A` resolved against the input's
/// layout ([`layout::reading`](crate::layout::reading)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Row-major: the last axis is read fastest.
    C,
    /// Column-major: the first axis is read fastest.
    F,
}

impl Reading {
    /// The public [`Order`] of the same name.
    #[inline]
    pub(crate) fn order(self) -> Order {
        match self {
            Reading::C => Order::C,
            Reading::F => Order::F,
        }
    }

    /// The index of the `i`-th axis read, outermost first, among `n` axes.
    #[inline(always)]
    pub(crate) fn axis(self, i: usize, n: usize) -> usize {
        match self {
            Reading::C => i,
            Reading::F => n - 1 - i,
        }
    }

    /// ndarray's name for this order.
    #[inline]
    pub(crate) fn ndarray(self) -> ndarray::Order {
        match self {
            Reading::C => ndarray::Order::RowMajor,
            Reading::F => ndarray::Order::ColumnMajor,
        }
    }
}

/// The element count of a shape, or `None` past [`LIMIT`]. Zero dims are left out of the
/// bound: `[0, usize::MAX / 2]` has 0 elements, `[0, usize::MAX]` is still too large for
/// ndarray.
#[inline]
pub(crate) fn checked_size(dims: impl IntoIterator<Item = usize>) -> Option<usize> {
    let mut nonzero: usize = 1;
    let mut zero = false;
    for d in dims {
        if d == 0 {
            zero = true;
        } else {
            nonzero = nonzero.checked_mul(d).filter(|&p| p <= LIMIT)?;
        }
    }
    Some(if zero { 0 } else { nonzero })
}

/// Whether an axis of stride `outer` steps exactly over the axis read right after it (length
/// `d`, stride `s`), so that the two read as one axis of stride `s`.
#[inline(always)]
pub(crate) fn steps_over(outer: isize, d: usize, s: isize) -> bool {
    span(d, s) == Some(outer)
}

/// The stride an axis needs to [step over](steps_over) an axis of length `d` and stride `s`:
/// `d * s`, or `None` past `isize` (no stride matches). `d` is a dim of a non-empty shape of
/// bounded size, so at most [`LIMIT`].
#[inline(always)]
pub(crate) fn span(d: usize, s: isize) -> Option<isize> {
    debug_assert!(d <= LIMIT);
    (d as isize).checked_mul(s)
}

/// The axis merge: folds an axis of length `d` and stride `s`, read right after the last of the
/// axes `dims`/`steps` (outer to inner), into that last axis when `d` is 1 (it addresses
/// nothing) or when the last axis [steps over](steps_over) it. Returns `false` when the axis must
/// stay an axis of its own, for the caller to append.
#[inline(always)]
pub(crate) fn merge_axis(dims: &mut [usize], steps: &mut [isize], d: usize, s: isize) -> bool {
    if d == 1 {
        return true;
    }
    match (dims.last_mut(), steps.last_mut()) {
        (Some(ld), Some(ls)) if steps_over(*ls, d, s) => {
            *ld *= d;
            *ls = s;
            true
        }
        _ => false,
    }
}

/// The offset (`<= 0`, in elements) from the element at index `[0, ..., 0]` to the lowest
/// address a non-empty layout touches: the sum of `stride * (len - 1)` over negative strides.
/// It is negative exactly when some axis longer than 1 has a negative stride.
#[inline]
pub(crate) fn low_offset(shape: &[usize], strides: &[isize]) -> isize {
    shape
        .iter()
        .zip(strides)
        .map(|(&d, &s)| axis_low(d, s))
        .sum()
}

/// One axis's part of [`low_offset`]: `stride * (len - 1)` for a negative stride, else 0.
#[inline(always)]
pub(crate) fn axis_low(d: usize, s: isize) -> isize {
    if s < 0 && d > 1 {
        s * (d as isize - 1)
    } else {
        0
    }
}

/// A dim of rank `n` whose entries `fill` writes in place: in registers for a fixed rank, in
/// the inline (or boxed) storage for `IxDyn`. Filling in place avoids a store-forwarding stall
/// that `IxDyn(&buf)` of a just-written buffer costs (BENCHMARKS.md, "The view path").
#[inline(always)]
pub(crate) fn dim_filled<E: Dimension>(n: usize, fill: impl FnOnce(&mut [usize])) -> E {
    let mut d = E::zeros(n);
    fill(d.slice_mut());
    d
}

/// `v` as a dimension of type `E`, whose rank the caller has checked to be `v.len()`: built
/// from the slice for `IxDyn` (one copy), filled in place for a fixed rank.
#[inline(always)]
pub(crate) fn typed_dim<E: Dimension + 'static>(v: &[usize]) -> E {
    debug_assert!(E::NDIM.unwrap_or(v.len()) == v.len());
    if E::NDIM.is_none() {
        // `E` is `IxDyn`: `IxDyn(v)` copies once, where `zeros` and a fill copy twice
        // (BENCHMARKS.md, "The view path").
        let mut d = Some(ndarray::IxDyn(v));
        if let Some(e) = (&mut d as &mut dyn std::any::Any).downcast_mut::<Option<E>>() {
            if let Some(e) = e.take() {
                return e;
            }
        }
    }
    dim_filled(v.len(), |d| d.copy_from_slice(v))
}

/// `shape` with ndarray's default strides for it in `reading`, as dims of type `E` (of rank
/// `shape.len()`): the layout of a contiguous view or copy. A fixed rank takes ndarray's own
/// default strides; an `IxDyn` has them written in place (see [`dim_filled`]).
#[inline(always)]
pub(crate) fn contiguous_dims<E: Dimension + 'static>(
    shape: &[usize],
    reading: Reading,
) -> StrideShape<E> {
    if E::NDIM.is_some() {
        return typed_dim::<E>(shape).set_f(reading == Reading::F).into();
    }
    let strides = dim_filled(shape.len(), |s| fill_strides(shape, reading, s, |v| v));
    typed_dim::<E>(shape).strides(strides)
}

/// The strides of a contiguous array of `shape` in `reading` into `out` (as long as `shape`):
/// all zero for an empty shape, as ndarray has them.
#[inline]
pub(crate) fn fill_contiguous_strides(shape: &[usize], reading: Reading, out: &mut [isize]) {
    fill_strides(shape, reading, out, |v| v as isize);
}

#[inline(always)]
fn fill_strides<T: Copy>(
    shape: &[usize],
    reading: Reading,
    out: &mut [T],
    of: impl Fn(usize) -> T,
) {
    if shape.contains(&0) {
        out.iter_mut().for_each(|s| *s = of(0));
        return;
    }
    // The products stay below `isize::MAX`: the shape's size was checked.
    let mut acc: usize = 1;
    let mut set = |k: usize| {
        out[k] = of(acc);
        acc = acc.wrapping_mul(shape[k]);
    };
    // Innermost first; one loop per reading order.
    match reading {
        Reading::C => (0..shape.len()).rev().for_each(&mut set),
        Reading::F => (0..shape.len()).for_each(&mut set),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndarray_orders() {
        assert_eq!(Order::from(ndarray::Order::RowMajor), Order::C);
        assert_eq!(Order::from(ndarray::Order::ColumnMajor), Order::F);
    }

    #[test]
    fn checked_size_skips_zeros_and_bounds_the_rest() {
        assert_eq!(checked_size([2, 3, 4]), Some(24));
        assert_eq!(checked_size([0, usize::MAX / 2]), Some(0));
        assert_eq!(checked_size([0, usize::MAX]), None);
        assert_eq!(checked_size([LIMIT]), Some(LIMIT));
        assert_eq!(checked_size([LIMIT, 2]), None);
        assert_eq!(checked_size([]), Some(1));
    }

    #[test]
    fn steps_over_is_exact_and_checked() {
        assert!(steps_over(12, 3, 4));
        assert!(steps_over(-12, 3, -4));
        assert!(!steps_over(12, 4, 4));
        assert!(!steps_over(11, 3, 4));
        // A product that wraps to the outer stride is no match.
        assert!(!steps_over(0, 2, isize::MIN));
        assert!(!steps_over(-2, LIMIT, 2));
        assert!(steps_over(0, 5, 0));
    }

    #[test]
    fn merge_axis_drops_ones_and_joins_neighbours() {
        let (mut d, mut s) = ([6usize], [4isize]);
        assert!(merge_axis(&mut d, &mut s, 1, 99));
        assert_eq!((d, s), ([6], [4]));
        assert!(merge_axis(&mut d, &mut s, 4, 1));
        assert_eq!((d, s), ([24], [1]));
        assert!(!merge_axis(&mut d, &mut s, 3, 1));
        assert_eq!((d, s), ([24], [1]));
        assert!(!merge_axis(&mut [], &mut [], 3, 1));
        assert!(merge_axis(&mut [], &mut [], 1, 1));
    }

    #[test]
    fn low_offset_sums_the_negative_strides() {
        assert_eq!(low_offset(&[3, 4], &[4, 1]), 0);
        assert_eq!(low_offset(&[3, 4], &[-4, 1]), -8);
        assert_eq!(low_offset(&[3, 4], &[-4, -1]), -11);
        assert_eq!(low_offset(&[1, 4], &[-9, 1]), 0);
        assert_eq!(low_offset(&[], &[]), 0);
    }

    #[test]
    fn contiguous_strides_per_reading() {
        let mut out = [0isize; 3];
        fill_contiguous_strides(&[2, 3, 4], Reading::C, &mut out);
        assert_eq!(out, [12, 4, 1]);
        fill_contiguous_strides(&[2, 3, 4], Reading::F, &mut out);
        assert_eq!(out, [1, 2, 6]);
        fill_contiguous_strides(&[2, 0, 4], Reading::F, &mut out);
        assert_eq!(out, [0, 0, 0]);
        let d: ndarray::Ix3 = typed_dim(&[2, 3, 4]);
        assert_eq!(d, ndarray::Dim([2, 3, 4]));
        assert_eq!(Reading::F.axis(0, 3), 2);
        assert_eq!(Reading::C.axis(0, 3), 0);
        assert_eq!(Reading::F.order(), Order::F);
        assert_eq!(Reading::C.ndarray(), ndarray::Order::RowMajor);
    }
}

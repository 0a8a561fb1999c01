//! The stride rules several modules apply, here once: whether one axis steps exactly over the
//! next ([`steps_over`]), the axis merge built on it ([`merge_axis`]), the lowest address a
//! layout touches ([`low_offset`]), and the strides of a contiguous layout.
//!
//! Strides are in elements and signed, as `ndarray`'s `strides()` gives them.

use ndarray::{Dimension, ShapeBuilder, StrideShape};

use crate::dims::{dim_filled, typed_dim, Reading, LIMIT};
use crate::small::Small;

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

/// An input's axes split and permuted before a reshape reads them (an einops pattern): the
/// arranged shape, and for each arranged axis the input axis it steps along and the factor of
/// that axis's stride it steps by (`None`: an axis `repeat` adds, stride 0). `pub` in this
/// private module only because the sealed spec trait returns it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Arrangement {
    pub(crate) shape: Small<usize>,
    pub(crate) from: Small<Option<(usize, usize)>>,
}

impl Arrangement {
    /// The arranged strides of an input of `strides`, into `out`. A split of a dim of a valid
    /// layout steps within its span, so the products fit (saturating otherwise: only an empty
    /// array's strides are never used).
    pub(crate) fn strides(&self, strides: &[isize], out: &mut Small<isize>) {
        out.clear();
        for f in self.from.iter() {
            out.push(match *f {
                Some((axis, k)) => {
                    let k = isize::try_from(k).unwrap_or(isize::MAX);
                    strides[axis].saturating_mul(k)
                }
                None => 0,
            });
        }
    }

    /// Whether two indices of the arranged layout reach one element: an added axis longer
    /// than 1 (a broadcast), so no mutable or owning view may take it.
    pub(crate) fn aliases(&self) -> bool {
        self.from
            .iter()
            .zip(self.shape.iter())
            .any(|(f, &d)| f.is_none() && d > 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dims::Order;

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

    #[test]
    fn arranged_strides_and_aliasing() {
        // [6, 4] split as (2 3) 4, permuted to 4 3 2, then a new axis of length k.
        fn small<T: Copy + Default>(v: &[T]) -> Small<T> {
            let mut s = Small::new();
            v.iter().for_each(|&x| s.push(x));
            s
        }
        let arranged = |k: usize| Arrangement {
            shape: small(&[4, 3, 2, k]),
            from: small(&[Some((1, 1)), Some((0, 1)), Some((0, 3)), None]),
        };
        let mut out = Small::new();
        arranged(2).strides(&[4, 1], &mut out);
        assert_eq!(&out[..], [1, 4, 12, 0]);
        assert!(arranged(2).aliases());
        // A new axis of length 1 or 0 repeats nothing.
        assert!(!arranged(1).aliases());
        assert!(!arranged(0).aliases());
    }
}

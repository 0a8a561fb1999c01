//! Shapes and strides only: contiguity, order-A resolution, and the no-copy stride solver
//! [`view_strides`], which decides view versus copy exactly as NumPy does.
//!
//! Strides are in elements and signed, as `ndarray`'s `strides()` gives them. Every rule here
//! that asks whether two axes read as one uses the same predicate (`strides::steps_over`).
#![forbid(unsafe_code)]

use crate::dims::Order;
use crate::dims::{checked_size, Reading};

pub(crate) mod strides;

use crate::small::INLINE;
pub(crate) use strides::Arrangement;
use strides::{fill_contiguous_strides, span, steps_over};

/// Whether `shape` with `strides` is C-contiguous in NumPy's relaxed sense: length-1 axes are
/// ignored, and an empty array is contiguous.
///
/// ```
/// use ndarray_reshape::layout::is_c_contiguous;
/// assert!(is_c_contiguous(&[2, 3], &[3, 1]));
/// assert!(is_c_contiguous(&[2, 1, 3], &[3, 99, 1]));
/// assert!(!is_c_contiguous(&[2, 3], &[1, 2]));
/// assert!(is_c_contiguous(&[2, 0], &[7, 7]));
/// assert!(!is_c_contiguous(&[usize::MAX, 2], &[2, 1])); // no array has this shape
/// ```
#[inline]
pub fn is_c_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    possible(shape) && is_contiguous(shape, strides, Reading::C)
}

/// Whether `shape` with `strides` is F-contiguous in NumPy's relaxed sense.
///
/// ```
/// use ndarray_reshape::layout::is_f_contiguous;
/// assert!(is_f_contiguous(&[2, 3], &[1, 2]));
/// assert!(is_f_contiguous(&[5], &[1]));
/// assert!(!is_f_contiguous(&[2, 3], &[3, 1]));
/// ```
#[inline]
pub fn is_f_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    possible(shape) && is_contiguous(shape, strides, Reading::F)
}

/// Whether an array can have `shape` (empty, or of at most `isize::MAX` elements): the public
/// contiguity tests take any shape, the crate's own callers only such ones.
#[inline]
fn possible(shape: &[usize]) -> bool {
    checked_size(shape.iter().copied()).is_some()
}

/// Contiguous in `reading`: empty, or read as one axis of stride 1 (the axis read fastest steps
/// over a unit axis, and every other over the one read after it). The shape is that of an
/// array (see [`possible`]).
#[inline]
pub(crate) fn is_contiguous(shape: &[usize], strides: &[isize], reading: Reading) -> bool {
    if shape.contains(&0) {
        return true;
    }
    // Innermost first, one loop per reading order.
    let axes = shape.iter().zip(strides);
    match reading {
        Reading::C => contiguous_of(axes.rev()),
        Reading::F => contiguous_of(axes),
    }
}

#[inline(always)]
fn contiguous_of<'a>(axes: impl Iterator<Item = (&'a usize, &'a isize)>) -> bool {
    // The stride the next axis needs: 1 for the first, then the span of the one before.
    let mut expected = Some(1isize);
    for (&d, &s) in axes {
        if d != 1 {
            if Some(s) != expected {
                return false;
            }
            expected = span(d, s);
        }
    }
    true
}

/// Resolve [`Order::A`] for an input layout: `F` iff F-contiguous and not C-contiguous.
/// `C` and `F` are returned unchanged.
///
/// ```
/// use ndarray_reshape::{layout::resolve_order, Order};
/// assert_eq!(resolve_order(&[2, 3], &[1, 2], Order::A), Order::F);
/// assert_eq!(resolve_order(&[6], &[1], Order::A), Order::C);
/// assert_eq!(resolve_order(&[2, 3], &[1, 2], Order::C), Order::C);
/// assert_eq!(resolve_order(&[usize::MAX, 2], &[1, 1], Order::A), Order::C);
/// ```
#[inline]
pub fn resolve_order(shape: &[usize], strides: &[isize], order: impl Into<Order>) -> Order {
    match order.into() {
        Order::A if !possible(shape) => Order::C,
        order => reading(shape, strides, order).order(),
    }
}

/// The order a reshape in `order` reads this layout in ([`resolve_order`], as a [`Reading`]),
/// for the shape of an array (see [`possible`]).
#[inline]
pub(crate) fn reading(shape: &[usize], strides: &[isize], order: Order) -> Reading {
    match order {
        Order::C => Reading::C,
        Order::F => Reading::F,
        Order::A
            if is_contiguous(shape, strides, Reading::F)
                && !is_contiguous(shape, strides, Reading::C) =>
        {
            Reading::F
        }
        Order::A => Reading::C,
    }
}

/// The strides of a contiguous array of `shape` in `order` (`A` is taken as `C`).
///
/// ```
/// use ndarray_reshape::{layout::contiguous_strides, Order};
/// assert_eq!(contiguous_strides(&[2, 3, 4], Order::C), vec![12, 4, 1]);
/// assert_eq!(contiguous_strides(&[2, 3, 4], Order::F), vec![1, 2, 6]);
/// assert_eq!(contiguous_strides(&[2, 3, 4], Order::A), vec![12, 4, 1]);
/// ```
pub fn contiguous_strides(shape: &[usize], order: impl Into<Order>) -> Vec<isize> {
    let reading = match order.into() {
        Order::F => Reading::F,
        _ => Reading::C,
    };
    let mut strides = vec![0isize; shape.len()];
    fill_contiguous_strides(shape, reading, &mut strides);
    strides
}

/// The strides that make `new_shape` a view of an array with `shape` and `strides`, read in
/// `order`, or `None` when the reshape needs a copy (or the sizes differ).
///
/// This is NumPy's `_attempt_nocopy_reshape`: drop the input's length-1 axes, cut both shapes
/// into the smallest groups of consecutive axes with equal products, and require every group of
/// input axes to be evenly spaced in the reading order. Zero and negative strides can form
/// views. An empty array is always a view (its strides are then all zero). [`Order::A`] is
/// resolved from the input layout first.
///
/// ```text
/// (4, 3) strides (6, 2)  ->  (2, 2, 3): the 4 splits into 2 x 2 with strides 12, 6
///                                       the 3 keeps stride 2            => view (12, 6, 2)
/// (4, 3) strides (1, 4)  ->  (12,) in C order: 4 then 3 is not evenly spaced => copy
/// ```
///
/// ```
/// use ndarray_reshape::{layout::view_strides, Order};
/// assert_eq!(view_strides(&[4, 3], &[6, 2], &[2, 2, 3], Order::C), Some(vec![12, 6, 2]));
/// assert_eq!(view_strides(&[4, 3], &[1, 4], &[12], Order::C), None);
/// assert_eq!(view_strides(&[4, 3], &[1, 4], &[12], Order::F), Some(vec![1]));
/// assert_eq!(view_strides(&[3], &[0], &[3, 1], Order::C), Some(vec![0, 0]));
/// ```
pub fn view_strides(
    shape: &[usize],
    strides: &[isize],
    new_shape: &[usize],
    order: impl Into<Order>,
) -> Option<Vec<isize>> {
    if shape.len() != strides.len() {
        return None;
    }
    let size = checked_size(shape.iter().copied());
    let new_size = checked_size(new_shape.iter().copied());
    if size.is_none() || size != new_size {
        return None;
    }
    let mut out = vec![0isize; new_shape.len()];
    let reading = reading(shape, strides, order.into());
    solve(
        shape,
        strides,
        new_shape,
        reading,
        size == Some(0),
        &mut out,
    )
    .then_some(out)
}

/// The solver proper. The sizes of `shape` and `new_shape` must be equal (and bounded),
/// `empty` whether that size is 0, and `out` as long as `new_shape`.
#[inline]
pub(crate) fn solve(
    shape: &[usize],
    strides: &[isize],
    new_shape: &[usize],
    reading: Reading,
    empty: bool,
    out: &mut [isize],
) -> bool {
    if empty {
        out.iter_mut().for_each(|s| *s = 0);
        return true;
    }
    if let [flat] = out {
        return match flat_stride(shape, strides, reading) {
            Some(s) => {
                *flat = s;
                true
            }
            None => false,
        };
    }
    // The input's axes longer than 1, packed (length-1 axes address nothing and join any
    // neighbour): on the stack up to `INLINE` axes, which also spares the group loop below
    // from skipping them.
    let mut dims = [0usize; INLINE];
    let mut steps = [0isize; INLINE];
    let (mut heap_dims, mut heap_steps);
    let (dims, steps): (&mut [usize], &mut [isize]) = if shape.len() <= INLINE {
        (&mut dims[..shape.len()], &mut steps[..shape.len()])
    } else {
        heap_dims = vec![0usize; shape.len()];
        heap_steps = vec![0isize; shape.len()];
        (&mut heap_dims, &mut heap_steps)
    };
    let mut ond = 0;
    for (&d, &s) in shape.iter().zip(strides) {
        if d != 1 {
            dims[ond] = d;
            steps[ond] = s;
            ond += 1;
        }
    }
    solve_packed(&dims[..ond], &steps[..ond], new_shape, reading, out)
}

/// The stride of the one axis a non-empty layout reads as in `reading`, when its axes longer
/// than 1 are evenly spaced in that order (1 when there is none), or `None`: what
/// [`solve_packed`] finds for a flatten, and the contiguity test (a stride of 1).
#[inline]
pub(crate) fn flat_stride(shape: &[usize], strides: &[isize], reading: Reading) -> Option<isize> {
    // One loop per reading order, so the loop body has no branch on it.
    let axes = shape.iter().zip(strides);
    match reading {
        Reading::C => flat_stride_of(axes),
        Reading::F => flat_stride_of(axes.rev()),
    }
}

#[inline(always)]
fn flat_stride_of<'a>(axes: impl Iterator<Item = (&'a usize, &'a isize)>) -> Option<isize> {
    let mut inner: Option<isize> = None;
    for (&d, &s) in axes {
        if d == 1 {
            continue;
        }
        if let Some(outer) = inner {
            if !steps_over(outer, d, s) {
                return None;
            }
        }
        inner = Some(s);
    }
    Some(inner.unwrap_or(1))
}

/// [`solve`] on an input without length-1 axes (`shape`, `strides`).
#[inline]
fn solve_packed(
    shape: &[usize],
    strides: &[isize],
    new: &[usize],
    reading: Reading,
    out: &mut [isize],
) -> bool {
    // Every product of dims below stays within the (bounded, equal) sizes; strides are
    // multiplied checked, and a stride that does not fit in isize means no view.
    let f = reading == Reading::F;
    let ond = shape.len();
    let newnd = new.len();
    let mut ni = 0usize;
    let mut oi = 0usize;
    while ni < newnd && oi < ond {
        // Grow the groups new[ni..nj] and old[oi..oj] until their products agree.
        let mut nj = ni + 1;
        let mut oj = oi + 1;
        let mut np = new[ni];
        let mut op = shape[oi];
        while np != op {
            if np < op {
                if nj >= newnd {
                    return false;
                }
                np *= new[nj];
                nj += 1;
            } else {
                if oj >= ond {
                    return false;
                }
                op *= shape[oj];
                oj += 1;
            }
        }
        // The input axes of the group must be evenly spaced in the reading order.
        for k in oi + 1..oj {
            let joined = if f {
                steps_over(strides[k], shape[k - 1], strides[k - 1])
            } else {
                steps_over(strides[k - 1], shape[k], strides[k])
            };
            if !joined {
                return false;
            }
        }
        // The strides of the new axes ni..nj, written straight into `out`.
        if f {
            out[ni] = strides[oi];
            for nk in ni + 1..nj {
                match out[nk - 1].checked_mul(new[nk - 1] as isize) {
                    Some(w) => out[nk] = w,
                    None => return false,
                }
            }
        } else {
            out[nj - 1] = strides[oj - 1];
            for nk in (ni + 1..nj).rev() {
                match out[nk].checked_mul(new[nk] as isize) {
                    Some(w) => out[nk - 1] = w,
                    None => return false,
                }
            }
        }
        ni = nj;
        oi = oj;
    }
    // Trailing length-1 axes of the new shape (their stride computed only when there are any:
    // an F-order product that overflows otherwise rejected a view needing none).
    if ni == newnd {
        return true;
    }
    let mut last = if ni >= 1 { out[ni - 1] } else { 1 };
    if f && ni >= 1 {
        match last.checked_mul(new[ni - 1] as isize) {
            Some(l) => last = l,
            None => return false,
        }
    }
    for w in out.iter_mut().skip(ni) {
        *w = last;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dims::LIMIT;

    #[test]
    fn solver_table() {
        // (shape, strides, new, order, expected)
        type Case<'a> = (
            &'a [usize],
            &'a [isize],
            &'a [usize],
            Order,
            Option<&'a [isize]>,
        );
        let table: &[Case] = &[
            (&[2, 3, 4], &[12, 4, 1], &[6, 4], Order::C, Some(&[4, 1])),
            (&[2, 3, 4], &[12, 4, 1], &[24], Order::F, None),
            (&[2, 3], &[1, 2], &[6], Order::F, Some(&[1])),
            (&[2, 3], &[1, 2], &[6], Order::A, Some(&[1])),
            (&[2, 3], &[1, 2], &[6], Order::C, None),
            (&[4], &[-1], &[2, 2], Order::C, Some(&[-2, -1])),
            (&[4], &[0], &[2, 2], Order::C, Some(&[0, 0])),
            (&[2, 1, 3], &[3, 100, 1], &[6], Order::C, Some(&[1])),
            (&[2, 0], &[5, 5], &[0, 7], Order::C, Some(&[0, 0])),
            (&[], &[], &[1, 1], Order::C, Some(&[1, 1])),
            (&[1], &[9], &[], Order::C, Some(&[])),
            (&[6], &[2], &[2, 3, 1], Order::C, Some(&[6, 2, 2])),
            (&[6], &[2], &[2, 3, 1], Order::F, Some(&[2, 4, 12])),
            (&[2, 3], &[3, 1], &[7], Order::C, None),
        ];
        for &(shape, strides, new, order, want) in table {
            assert_eq!(
                view_strides(shape, strides, new, order).as_deref(),
                want,
                "{shape:?} {strides:?} -> {new:?} {order:?}"
            );
        }
    }

    /// The flatten shortcut finds what the general solver finds, on every layout of up to 4
    /// axes of lengths 1 to 3 with strides from a set that includes zero, negative,
    /// chained and overflowing ones.
    #[test]
    #[cfg_attr(miri, ignore)] // no unsafe code, and 100,000 layouts
    fn flat_solver_matches_the_general_one() {
        let steps = [
            0isize,
            1,
            -1,
            2,
            3,
            -3,
            6,
            9,
            -9,
            18,
            isize::MAX,
            isize::MIN,
        ];
        let mut checked = 0;
        for nd in 0..=4usize {
            for code in 0..3usize.pow(nd as u32) * steps.len().pow(nd as u32) {
                let (mut c, mut shape, mut strides) = (code, vec![], vec![]);
                for _ in 0..nd {
                    shape.push(1 + c % 3);
                    c /= 3;
                    strides.push(steps[c % steps.len()]);
                    c /= steps.len();
                }
                let size: usize = shape.iter().product();
                for f in [Reading::C, Reading::F] {
                    let (dims, st): (Vec<usize>, Vec<isize>) = shape
                        .iter()
                        .zip(&strides)
                        .filter(|(&d, _)| d != 1)
                        .map(|(&d, &s)| (d, s))
                        .unzip();
                    let mut general = [0isize];
                    let g = solve_packed(&dims, &st, &[size], f, &mut general);
                    let mut flat = 0isize;
                    let q = flat_stride(&shape, &strides, f).map(|s| flat = s).is_some();
                    assert_eq!(
                        (q, q.then_some(flat)),
                        (g, g.then_some(general[0])),
                        "{shape:?} {strides:?} {f:?}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn contiguity_in_numpys_relaxed_sense() {
        // (shape, strides, C-contiguous, F-contiguous)
        let table: &[(&[usize], &[isize], bool, bool)] = &[
            (&[2, 3], &[3, 1], true, false),
            (&[2, 3], &[1, 2], false, true),
            (&[2, 1, 3], &[3, 99, 1], true, false),
            (&[1, 1], &[5, 7], true, true),
            (&[], &[], true, true),
            (&[6], &[1], true, true),
            (&[6], &[2], false, false),
            (&[6], &[-1], false, false),
            (&[2, 0], &[7, 7], true, true),
            (&[2, 3], &[4, 1], false, false),
            (&[3, 2], &[2, 1], true, false),
            (&[3, 2], &[1, 3], false, true),
            (&[2, 2], &[0, 1], false, false),
            // No array has more than isize::MAX elements, so none of these is contiguous.
            (&[usize::MAX, 2], &[2, 1], false, false),
            (&[LIMIT, 2], &[1, LIMIT as isize], false, false),
        ];
        for &(shape, strides, c, f) in table {
            assert_eq!(
                is_c_contiguous(shape, strides),
                c,
                "C {shape:?} {strides:?}"
            );
            assert_eq!(
                is_f_contiguous(shape, strides),
                f,
                "F {shape:?} {strides:?}"
            );
        }
    }

    #[test]
    fn order_a_reads_f_only_for_f_but_not_c_contiguous_inputs() {
        assert_eq!(resolve_order(&[2, 3], &[1, 2], Order::A), Order::F);
        assert_eq!(resolve_order(&[2, 3], &[3, 1], Order::A), Order::C);
        assert_eq!(resolve_order(&[6], &[1], Order::A), Order::C); // both: C
        assert_eq!(resolve_order(&[2, 3], &[4, 1], Order::A), Order::C); // neither: C
        assert_eq!(resolve_order(&[2, 3], &[1, 2], Order::C), Order::C);
        assert_eq!(resolve_order(&[2, 3], &[3, 1], Order::F), Order::F);
        assert_eq!(resolve_order(&[usize::MAX, 2], &[1, 1], Order::A), Order::C);
        assert_eq!(resolve_order(&[usize::MAX, 2], &[1, 1], Order::F), Order::F);
        assert_eq!(reading(&[2, 3], &[1, 2], Order::A), Reading::F);
    }

    #[test]
    fn contiguous_strides_per_order() {
        assert_eq!(contiguous_strides(&[2, 3, 4], Order::C), vec![12, 4, 1]);
        assert_eq!(contiguous_strides(&[2, 3, 4], Order::F), vec![1, 2, 6]);
        assert_eq!(contiguous_strides(&[2, 3, 4], Order::A), vec![12, 4, 1]);
        assert_eq!(contiguous_strides(&[2, 0, 4], Order::C), vec![0, 0, 0]);
        assert_eq!(contiguous_strides(&[], Order::F), Vec::<isize>::new());
    }

    #[test]
    fn view_strides_needs_equal_sizes_and_matching_lengths() {
        assert_eq!(view_strides(&[2, 3], &[3, 1], &[7], Order::C), None);
        assert_eq!(view_strides(&[2, 3], &[3, 1], &[5], Order::C), None);
        assert_eq!(view_strides(&[2, 3], &[3], &[6], Order::C), None);
        assert_eq!(
            view_strides(&[2, 3], &[3, 1], &[6], Order::C),
            Some(vec![1])
        );
        assert_eq!(
            view_strides(&[2, 0], &[3, 1], &[0, 9], Order::C),
            Some(vec![0, 0])
        );
        assert_eq!(view_strides(&[2, 0], &[3, 1], &[1, 9], Order::C), None);
        assert_eq!(
            view_strides(&[usize::MAX, 2], &[1, 1], &[usize::MAX, 2], Order::C),
            None
        );
        // Order A on an F-contiguous input reads in F order.
        assert_eq!(
            view_strides(&[2, 3], &[1, 2], &[3, 2], Order::A),
            Some(vec![1, 3])
        );
        assert_eq!(view_strides(&[2, 3], &[1, 2], &[3, 2], Order::C), None);
    }

    /// Inputs of more axes than the solver packs on the stack take its heap buffers.
    #[test]
    fn more_axes_than_the_inline_buffers() {
        let c: Vec<isize> = (0..10).rev().map(|k| 1isize << k).collect();
        assert_eq!(
            view_strides(&[2; 10], &c, &[4, 256], Order::C),
            Some(vec![256, 1])
        );
        let f: Vec<isize> = (0..10).map(|k| 1isize << k).collect();
        assert_eq!(
            view_strides(&[2; 10], &f, &[4, 256], Order::F),
            Some(vec![1, 4])
        );
        // Every stride doubled (a stepped array): still evenly spaced, a view.
        let stepped: Vec<isize> = (0..10).rev().map(|k| 2isize << k).collect();
        assert_eq!(
            view_strides(&[2; 10], &stepped, &[32, 32], Order::C),
            Some(vec![64, 2])
        );
        // A gap after the first axis: only groups that keep it apart are views.
        let mut gapped = c.clone();
        gapped[0] *= 2;
        assert_eq!(view_strides(&[2; 10], &gapped, &[4, 256], Order::C), None);
        assert_eq!(
            view_strides(&[2; 10], &gapped, &[2, 512], Order::C),
            Some(vec![1024, 1])
        );
    }

    #[test]
    fn never_panics_on_extreme_input() {
        assert_eq!(
            view_strides(&[usize::MAX, 2], &[1, 1], &[2, usize::MAX], Order::C),
            None
        );
        assert_eq!(
            view_strides(&[2, 2], &[isize::MAX, isize::MIN], &[4], Order::C),
            None
        );
        assert_eq!(view_strides(&[2], &[1, 1], &[2], Order::C), None);
        let _ = view_strides(&[3, 3], &[isize::MAX, 1], &[9], Order::F);
    }
}

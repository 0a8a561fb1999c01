//! The copy kernels: gather a strided input into a fresh buffer, in C (row-major) reading order.
//!
//! This is the only module besides view construction with `unsafe` code. A reading in F order
//! is a reading in C order of the input with its axes reversed, so the kernels only know C.

use std::mem::MaybeUninit;

use ndarray::{Array, ArrayView, Dimension, IxDyn, ShapeBuilder};

use crate::layout::Order;

/// Below this many bytes of output a copy stays on the calling thread.
#[cfg(feature = "rayon")]
pub(crate) const PARALLEL_MIN_BYTES: usize = 256 * 1024;

/// A raw layout: the pointer to element `[0, ..., 0]`, the shape, and signed strides.
struct Layout<A> {
    ptr: *const A,
    shape: Vec<usize>,
    strides: Vec<isize>,
}

// SAFETY: a `Layout` is only built from an `ArrayView<A>` borrowed for the whole copy and is only
// read through; sharing it across threads is sharing `&A`, which is sound when `A: Sync`.
unsafe impl<A: Sync> Sync for Layout<A> {}
// SAFETY: as for `Sync`: moving a `Layout` to another thread hands it read access to `&A` only.
unsafe impl<A: Sync> Send for Layout<A> {}

impl<A> Layout<A> {
    /// Drop length-1 axes and merge neighbours that are evenly spaced in C order, keeping the
    /// same C reading order with fewer, longer axes.
    fn simplified(view: &ArrayView<'_, A, IxDyn>) -> Self {
        let mut shape: Vec<usize> = Vec::with_capacity(view.ndim());
        let mut strides: Vec<isize> = Vec::with_capacity(view.ndim());
        for (&d, &s) in view.shape().iter().zip(view.strides()) {
            if d == 1 {
                continue;
            }
            if let (Some(&ld), Some(&ls)) = (shape.last(), strides.last()) {
                if ls == s * d as isize {
                    let n = shape.len();
                    shape[n - 1] = ld * d;
                    strides[n - 1] = s;
                    continue;
                }
            }
            shape.push(d);
            strides.push(s);
        }
        Layout {
            ptr: view.as_ptr(),
            shape,
            strides,
        }
    }
}

/// A fresh array of `shape` holding the elements of `view` read in `order` (`C` or `F`),
/// contiguous in that order.
pub(crate) fn copy_to<A: Clone + Send + Sync>(
    view: ArrayView<'_, A, IxDyn>,
    shape: &[usize],
    order: Order,
) -> Array<A, IxDyn> {
    let f = order == Order::F;
    // Reading in F order is reading the axis-reversed input in C order.
    let view = if f { view.reversed_axes() } else { view };
    let data = gather_c(&view);
    debug_assert_eq!(
        Some(data.len()),
        shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
    );
    // SAFETY: `shape` is the planned target of a reshape of `view`, so it has exactly
    // `view.len() == data.len()` elements, and a contiguous (C or F) shape with as many elements
    // as the vector indexes it in bounds, each element once.
    unsafe { Array::from_shape_vec_unchecked(IxDyn(shape).set_f(f), data) }
}

/// The owned array `a` with a new layout (`shape`, signed `strides`) over the same elements,
/// keeping its buffer.
///
/// `shape`/`strides` must be a view reshape of `a` found by the solver: a bijection onto the
/// same elements, so the lowest address is the same too.
pub(crate) fn owned_with_layout<A, D: Dimension>(
    a: Array<A, D>,
    shape: &[usize],
    strides: &[isize],
) -> Array<A, IxDyn> {
    let empty = a.is_empty();
    let to_low = crate::layout::low_offset(a.shape(), a.strides());
    let (mut vec, offset) = a.into_raw_vec_and_offset();
    if empty {
        let zeros = IxDyn(&vec![0; shape.len()]);
        // SAFETY: an empty array with zero strides never offsets its pointer: conditions 3-5 of
        // `from_shape_vec_unchecked` hold for any vector.
        return unsafe { Array::from_shape_vec_unchecked(IxDyn(shape).strides(zeros), vec) };
    }
    let low = offset.unwrap_or(0) as isize + to_low;
    if low > 0 {
        // Elements before the lowest one are not part of the array (it was sliced): move the
        // array's elements to the front of the same buffer, so the lowest is at index 0.
        vec.drain(..low as usize);
    }
    // ndarray stores strides as `usize`, negative ones in two's complement.
    let ustrides: Vec<usize> = strides.iter().map(|&s| s as usize).collect();
    // SAFETY: the new layout addresses exactly the elements of `a` (a solver view of it), whose
    // lowest is now at index 0; `from_shape_vec_unchecked` puts the logical first element at
    // the offset of the negative strides, which is where it was relative to the lowest. The
    // elements are distinct and in bounds, as they were in `a`.
    unsafe { Array::from_shape_vec_unchecked(IxDyn(shape).strides(IxDyn(&ustrides)), vec) }
}

/// The elements of `view` in C reading order, in a fresh `Vec`.
///
/// Parallel with rayon (if the feature is on) when the output is at least
/// [`PARALLEL_MIN_BYTES`]; the caller's rayon pool is used.
pub(crate) fn gather_c<A: Clone + Send + Sync>(view: &ArrayView<'_, A, IxDyn>) -> Vec<A> {
    let n = view.len();
    let mut out: Vec<A> = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let layout = Layout::simplified(view);
    {
        let dst = &mut out.spare_capacity_mut()[..n];
        fill(&layout, dst);
    }
    // SAFETY: `fill` initialised every one of the first `n` slots (each chunk writes exactly its
    // own slots, see `copy_range`). If a `clone` panicked we never get here, and the `Vec` drops
    // with length 0: the clones made so far leak, nothing uninitialised is read.
    unsafe { out.set_len(n) };
    out
}

#[cfg(feature = "rayon")]
fn fill<A: Clone + Send + Sync>(layout: &Layout<A>, dst: &mut [MaybeUninit<A>]) {
    use rayon::prelude::*;
    let n = dst.len();
    let bytes = n.saturating_mul(std::mem::size_of::<A>().max(1));
    let threads = rayon::current_num_threads();
    if bytes < PARALLEL_MIN_BYTES || threads < 2 {
        // SAFETY: `layout` describes a live view of `n` elements and `dst` has `n` slots.
        unsafe { copy_range(layout, 0, dst) };
        return;
    }
    // A few chunks per thread for balance, each at least half the threshold.
    let min_chunk = (PARALLEL_MIN_BYTES / 2 / std::mem::size_of::<A>().max(1)).max(1);
    let chunk = n.div_ceil(threads * 4).max(min_chunk);
    dst.par_chunks_mut(chunk).enumerate().for_each(|(k, part)| {
        // SAFETY: chunk `k` covers the flat indices `k * chunk ..` of a view of `n` elements,
        // and `part` is exactly that many disjoint slots of the output.
        unsafe { copy_range(layout, k * chunk, part) };
    });
}

#[cfg(not(feature = "rayon"))]
fn fill<A: Clone + Send + Sync>(layout: &Layout<A>, dst: &mut [MaybeUninit<A>]) {
    // SAFETY: `layout` describes a live view of `dst.len()` elements.
    unsafe { copy_range(layout, 0, dst) };
}

/// Clone the elements at flat C-order indices `start .. start + dst.len()` into `dst`.
///
/// # Safety
///
/// `layout` must describe a live, readable view (every index within its shape is an element),
/// and `start + dst.len()` must not exceed its element count.
unsafe fn copy_range<A: Clone>(layout: &Layout<A>, start: usize, dst: &mut [MaybeUninit<A>]) {
    let shape = &layout.shape;
    let strides = &layout.strides;
    let nd = shape.len();
    if nd == 0 {
        // A single element (all axes had length 1).
        if let Some(slot) = dst.first_mut() {
            // SAFETY: the view has one element, at `ptr`.
            slot.write(unsafe { (*layout.ptr).clone() });
        }
        return;
    }
    // Unravel `start` into a multi-index and an element offset.
    let mut idx = vec![0usize; nd];
    let mut rem = start;
    let mut off: isize = 0;
    for k in (0..nd).rev() {
        idx[k] = rem % shape[k];
        rem /= shape[k];
        off += idx[k] as isize * strides[k];
    }
    let inner_n = shape[nd - 1];
    let inner_s = strides[nd - 1];
    let mut written = 0usize;
    let total = dst.len();
    while written < total {
        let j0 = idx[nd - 1];
        let take = (inner_n - j0).min(total - written);
        // SAFETY: `off` is the offset of the element at multi-index `idx`, inside the view.
        let row = unsafe { layout.ptr.offset(off) };
        let out = &mut dst[written..written + take];
        if inner_s == 1 {
            // SAFETY: the `take` elements from `row` are contiguous elements of the view.
            let src = unsafe { std::slice::from_raw_parts(row, take) };
            for (o, v) in out.iter_mut().zip(src) {
                o.write(v.clone());
            }
        } else {
            for (t, o) in out.iter_mut().enumerate() {
                // SAFETY: `j0 + t < inner_n`, so this is an element of the current row.
                o.write(unsafe { (*row.offset(t as isize * inner_s)).clone() });
            }
        }
        written += take;
        if written == total {
            break;
        }
        // Next row: reset the inner index and carry into the outer axes.
        off -= j0 as isize * inner_s;
        idx[nd - 1] = 0;
        let mut k = nd - 1;
        while k > 0 {
            k -= 1;
            idx[k] += 1;
            off += strides[k];
            if idx[k] < shape[k] {
                break;
            }
            off -= strides[k] * shape[k] as isize;
            idx[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array, Axis};

    fn check(view: ArrayView<'_, i64, IxDyn>) {
        let want: Vec<i64> = view.iter().copied().collect();
        assert_eq!(
            gather_c(&view),
            want,
            "shape {:?} strides {:?}",
            view.shape(),
            view.strides()
        );
    }

    #[test]
    fn odd_strides() {
        let a = Array::from_iter(0..720i64)
            .into_shape_with_order((6, 5, 4, 6))
            .unwrap();
        check(a.view().into_dyn());
        check(a.t().into_dyn());
        check(a.slice(s![..;-2, 1..4, ..;3, ..;-1]).into_dyn());
        check(a.slice(s![2..3, .., 1..2, ..]).into_dyn());
        check(a.slice(s![.., 0..0, .., ..]).into_dyn());
        check(a.slice(s![1, 2, 3, 4]).into_dyn());
        let mut p = a.view();
        p.swap_axes(1, 3);
        check(p.into_dyn());
        let b = Array::from_iter(0..5i64);
        check(b.broadcast((3, 5)).unwrap().into_dyn());
        check(
            b.view()
                .insert_axis(Axis(1))
                .broadcast((5, 4))
                .unwrap()
                .into_dyn(),
        );
    }

    #[test]
    fn large_parallel_copy_is_exact() {
        let a = Array::from_iter(0..(600 * 700) as i64)
            .into_shape_with_order((600, 700))
            .unwrap();
        check(a.t().into_dyn());
        check(a.slice(s![..;-1, 3..]).into_dyn());
    }

    #[test]
    fn clone_types() {
        let a = Array::from_shape_fn((7, 9), |(i, j)| format!("{i}-{j}"));
        let v = a.t().into_dyn();
        let want: Vec<String> = v.iter().cloned().collect();
        assert_eq!(gather_c(&v), want);
    }
}

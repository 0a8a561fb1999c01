//! The copy kernels: gather a strided input into a fresh buffer, in C (row-major) reading order.
//!
//! This is the only module besides view construction with `unsafe` code. A reading in F order
//! is a reading in C order of the input with its axes reversed, so the kernels only know C.

#[cfg(feature = "hugepages")]
mod hugepages;
mod kernels;

use ndarray::{Array, ArrayView, Dimension, IxDyn, ShapeBuilder};

use crate::layout::Order;

/// Below this many bytes of output a copy stays on the calling thread. Measured on 2 cores
/// (f32 transposes, one thread against two): two threads lose at 16 KiB (0.66x), break even at
/// 32 KiB, and win from 64 KiB (1.35x; 1.7x at 256 KiB). Row copies are cut in
/// [`CHUNK_BYTES`] units, so they only go parallel from twice that.
#[cfg_attr(not(feature = "rayon"), allow(dead_code))]
pub(crate) const PARALLEL_MIN_BYTES: usize = 64 * 1024;

/// A raw layout: the pointer to element `[0, ..., 0]`, the shape, and signed strides.
pub(crate) struct Layout<A> {
    pub(crate) ptr: *const A,
    pub(crate) shape: Vec<usize>,
    pub(crate) strides: Vec<isize>,
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
/// Parallel with rayon (feature `rayon`) when the output is at least [`PARALLEL_MIN_BYTES`]; the
/// caller's rayon pool is used.
/// Copy `view`'s elements, read in `order`, into `out` (as long as the view): the buffer of
/// [`ReshapeExt::reshape_copy_into`](crate::ReshapeExt::reshape_copy_into).
pub(crate) fn copy_into<A: Copy + Send + Sync>(
    view: ArrayView<'_, A, IxDyn>,
    order: Order,
    out: &mut [A],
) {
    let view = if order == Order::F {
        view.reversed_axes()
    } else {
        view
    };
    let n = view.len();
    assert_eq!(out.len(), n, "the caller checks the output length");
    if n == 0 {
        return;
    }
    let layout = Layout::simplified(&view);
    let plan = Plan::new(&layout);
    // SAFETY: `layout` describes the live view, which is borrowed (shared) for this call while
    // `out` is borrowed mutably, so the two do not overlap. `out` holds exactly `n` slots, the
    // units write each once; overwriting initialized `Copy` values without dropping them is
    // sound (they have no drop glue).
    unsafe { run(&layout, &plan, Dst(out.as_mut_ptr()), n) };
}

pub(crate) fn gather_c<A: Clone + Send + Sync>(view: &ArrayView<'_, A, IxDyn>) -> Vec<A> {
    let n = view.len();
    let mut out: Vec<A> = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    #[cfg(feature = "hugepages")]
    hugepages::advise(&mut out);
    let layout = Layout::simplified(view);
    let plan = Plan::new(&layout);
    let dst = Dst(out.as_mut_ptr());
    // SAFETY: `layout` describes the live view of `n` elements and `dst` has capacity `n`; the
    // plan's units write disjoint slots that together cover `0..n` exactly once.
    unsafe { run(&layout, &plan, dst, n) };
    // SAFETY: every one of the first `n` slots is initialised (see above). If a `clone`
    // panicked we never get here, and the `Vec` drops with length 0: the clones made so far
    // leak, nothing uninitialised is read.
    unsafe { out.set_len(n) };
    out
}

/// The output buffer, shared by the workers; each writes its own disjoint slots.
struct Dst<A>(*mut A);
impl<A> Clone for Dst<A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A> Copy for Dst<A> {}
// SAFETY: workers write disjoint slots of one allocation that outlives them; `A: Send` lets the
// values move into the buffer from any thread.
unsafe impl<A: Send> Send for Dst<A> {}
// SAFETY: as above: shared only to hand out disjoint slots.
unsafe impl<A: Send> Sync for Dst<A> {}

impl<A> Dst<A> {
    /// The pointer (a method, so closures capture the `Send` wrapper, not the raw field).
    fn ptr(self) -> *mut A {
        self.0
    }
}

/// How a copy is cut into units of work.
enum Plan {
    /// Row by row along the last axis (its stride is the smallest, or the layout is 1-D):
    /// units are ranges of the flat output.
    Rows { chunk: usize },
    /// A cache-blocked transpose of axes `p` (the input's fastest) and `q` (the last, the
    /// output's fastest): units are blocks of `tile` indices along `p` (for each index of the
    /// other axes), each sweeping all of `q` in tiles.
    Tiles(kernels::Tiles),
}

impl Plan {
    fn new<A>(layout: &Layout<A>) -> Plan {
        let nd = layout.shape.len();
        let elem = std::mem::size_of::<A>().max(1);
        if nd >= 2 {
            let q = nd - 1;
            let p = (0..q)
                .min_by_key(|&i| layout.strides[i].unsigned_abs())
                .unwrap_or(0);
            let sq = layout.strides[q].unsigned_abs();
            // Transpose only when reading along `p` is more local than along `q`.
            if layout.strides[p].unsigned_abs() < sq && sq > 1 {
                return Plan::Tiles(kernels::Tiles::new(&layout.shape, p, elem));
            }
        }
        Plan::Rows {
            chunk: (CHUNK_BYTES / elem).max(1),
        }
    }

    fn units(&self, n: usize) -> usize {
        match self {
            Plan::Rows { chunk } => n.div_ceil(*chunk),
            Plan::Tiles(t) => t.units(),
        }
    }
}

/// The flat range a row unit covers (the last unit may be short).
const CHUNK_BYTES: usize = 64 * 1024;

/// Run every unit of `plan`, in parallel when the output is large enough.
///
/// # Safety
///
/// `layout` must describe a live, readable view of `n` elements and `dst` must point to `n`
/// writable slots.
unsafe fn run<A: Clone + Send + Sync>(layout: &Layout<A>, plan: &Plan, dst: Dst<A>, n: usize) {
    let units = plan.units(n);
    let unit = |u: usize| match plan {
        // SAFETY: unit `u` covers flat indices `u * chunk ..` (clamped to `n`), disjoint from
        // every other unit; the caller guarantees the view and the buffer.
        Plan::Rows { chunk } => unsafe {
            let start = u * chunk;
            let len = (*chunk).min(n - start);
            kernels::copy_range(layout, start, dst.ptr().add(start), len)
        },
        // SAFETY: tile units write disjoint output blocks (see `Tiles::run_unit`).
        Plan::Tiles(t) => unsafe { t.run_unit(layout, u, dst.ptr()) },
    };
    #[cfg(feature = "rayon")]
    {
        let bytes = n.saturating_mul(std::mem::size_of::<A>().max(1));
        if bytes >= PARALLEL_MIN_BYTES && units > 1 && rayon::current_num_threads() > 1 {
            use rayon::prelude::*;
            (0..units).into_par_iter().for_each(unit);
            return;
        }
    }
    (0..units).for_each(unit);
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

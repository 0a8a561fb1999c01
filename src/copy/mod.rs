//! The copy kernels: gather a strided input into a fresh buffer, in C (row-major) reading order.
//!
//! This is the only module besides view construction with `unsafe` code. A reading in F order
//! is a reading in C order of the input with its axes reversed, so the kernels only know C.

#[cfg(feature = "hugepages")]
mod hugepages;
mod kernels;

use ndarray::{Array, ArrayRef, Dimension, IxDyn, ShapeBuilder};

use crate::small::Small;

use crate::layout::Order;

/// Below this many bytes of output a copy stays on the calling thread. Measured on 2 cores
/// (f32 transposes, best of 7 x 200 copies, two runs; time with two threads over time with
/// one): 32 KiB 0.97-1.15, 64 KiB 1.14-1.44 (two threads lose), 128 KiB 0.89-0.98 (even),
/// 256 KiB 0.75-0.79, 1 MiB 0.51-0.60. (An earlier, single run had two threads winning from
/// 64 KiB; waking the pool's threads costs more on some runs of this virtual machine.) Row
/// copies are cut in [`CHUNK_BYTES`] units, so they only go parallel from twice that.
#[cfg_attr(not(feature = "rayon"), allow(dead_code))]
pub(crate) const PARALLEL_MIN_BYTES: usize = 128 * 1024;

/// A raw layout: the pointer to element `[0, ..., 0]`, the shape, and signed strides (inline
/// up to 8 axes: a small copy allocates nothing but its output).
pub(crate) struct Layout<A> {
    pub(crate) ptr: *const A,
    pub(crate) shape: Small<usize>,
    pub(crate) strides: Small<isize>,
}

// SAFETY: a `Layout` is only built from an array borrowed for the whole copy and is only read
// through; sharing it across threads is sharing `&A`, which is sound when `A: Sync`.
unsafe impl<A: Sync> Sync for Layout<A> {}
// SAFETY: as for `Sync`: moving a `Layout` to another thread hands it read access to `&A` only.
unsafe impl<A: Sync> Send for Layout<A> {}

impl<A> Layout<A> {
    /// An empty layout at `ptr`, for [`read`](Self::read) to fill in place.
    #[inline(always)]
    fn at(ptr: *const A) -> Self {
        Layout {
            ptr,
            shape: Small::new(),
            strides: Small::new(),
        }
    }

    /// Fill this (empty) layout with `a` read in `order`, simplified: length-1 axes dropped
    /// and neighbours that are evenly spaced in the reading order merged, keeping the same
    /// reading order with fewer, longer axes. An F-order read is a C-order read of the
    /// reversed axes, so the result is always read in C order.
    ///
    /// Filled in place on purpose: a layout built in a function and returned was moved with a
    /// `memcpy` of its 200 bytes, right after its entries were written (callgrind, small copy).
    #[inline(always)]
    fn read<D: Dimension>(&mut self, a: &ArrayRef<A, D>, order: Order) {
        let (shape, strides) = (a.shape(), a.strides());
        if order == Order::F {
            (0..shape.len())
                .rev()
                .for_each(|k| self.add(shape[k], strides[k]));
        } else {
            (0..shape.len()).for_each(|k| self.add(shape[k], strides[k]));
        }
    }

    /// [`at`](Self::at) and [`read`](Self::read) (for tests; the copies fill in place).
    #[cfg(test)]
    fn of<D: Dimension>(a: &ArrayRef<A, D>, order: Order) -> Self {
        let mut l = Layout::at(a.as_ptr());
        l.read(a, order);
        l
    }

    /// Append an axis of length `d` and stride `s` (outer to inner), dropping length 1 and
    /// merging it into the previous axis when that one steps over it exactly.
    #[inline(always)]
    fn add(&mut self, d: usize, s: isize) {
        if d == 1 {
            return;
        }
        let n = self.shape.len();
        if n > 0 && steps_over(self.strides[n - 1], d, s) {
            self.shape[n - 1] *= d;
            self.strides[n - 1] = s;
            return;
        }
        self.shape.push(d);
        self.strides.push(s);
    }
}

/// Whether an axis of stride `outer` steps exactly over the next axis read (length `d`, stride
/// `s`), so the two read as one axis of stride `s`. Wrapping: a product that overflows matches
/// no real stride.
#[inline(always)]
fn steps_over(outer: isize, d: usize, s: isize) -> bool {
    outer == s.wrapping_mul(d as isize)
}

/// A fresh array of `shape` holding the elements of `a` read in `order` (`C` or `F`),
/// contiguous in that order, with its dims built by `mk` (`IxDyn`, or
/// [`typed_dim`](crate::layout::typed_dim) of rank `shape.len()`).
#[inline]
pub(crate) fn copy_to_in<A, D, E>(
    a: &ArrayRef<A, D>,
    shape: &[usize],
    order: Order,
    mk: impl Fn(&[usize]) -> E,
) -> Array<A, E>
where
    A: Clone + Send + Sync,
    D: Dimension,
    E: Dimension,
{
    let f = order == Order::F;
    let data = gather(a, order);
    debug_assert_eq!(
        Some(data.len()),
        shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
    );
    if data.is_empty() {
        // SAFETY: an empty array: ndarray's default (zero) strides never offset the pointer.
        return unsafe { Array::from_shape_vec_unchecked(mk(shape).set_f(f), data) };
    }
    let shape = crate::layout::contiguous_shape_in(shape, order, mk);
    // SAFETY: `shape` is the planned target of a reshape of `a`, so it has exactly
    // `a.len() == data.len()` elements, and contiguous strides for it in this order index the
    // vector in bounds, each element once.
    unsafe { Array::from_shape_vec_unchecked(shape, data) }
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
        let zeros = IxDyn::zeros(shape.len());
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
    let ustrides: IxDyn = crate::ext::dim_filled(strides.len(), |u| {
        u.iter_mut()
            .zip(strides)
            .for_each(|(u, &s)| *u = s as usize)
    });
    // SAFETY: the new layout addresses exactly the elements of `a` (a solver view of it), whose
    // lowest is now at index 0; `from_shape_vec_unchecked` puts the logical first element at
    // the offset of the negative strides, which is where it was relative to the lowest. The
    // elements are distinct and in bounds, as they were in `a`.
    unsafe { Array::from_shape_vec_unchecked(IxDyn(shape).strides(ustrides), vec) }
}

/// Copy the elements of `a`, read in `order`, into `out` (as long as `a`): the buffer of
/// [`ReshapeExt::reshape_copy_into`](crate::ReshapeExt::reshape_copy_into).
pub(crate) fn copy_into<A, D>(a: &ArrayRef<A, D>, order: Order, out: &mut [A])
where
    A: Copy + Send + Sync,
    D: Dimension,
{
    let n = a.len();
    assert_eq!(out.len(), n, "the caller checks the output length");
    if n == 0 {
        return;
    }
    // SAFETY: `a` is live, non-empty and borrowed (shared) for this call while `out` is
    // borrowed mutably, so the two do not overlap. `out` holds exactly `n` slots, each written
    // once; overwriting initialized `Copy` values without dropping them is sound (they have no
    // drop glue).
    if small_output::<A>(n) && unsafe { walk_array(a, order, out.as_mut_ptr()) } {
        return;
    }
    let mut layout = Layout::at(a.as_ptr());
    layout.read(a, order);
    let plan = Plan::new(&layout, n);
    // SAFETY: as above; `layout` describes `a` and the plan's units write disjoint slots that
    // together cover `out` once.
    unsafe { run(&layout, &plan, Dst(out.as_mut_ptr()), n) };
}

/// Whether an output of `n` elements of `A` is under [`SMALL_BYTES`]: copied in one
/// [`walk_array`] when its axes fit the walk.
#[inline(always)]
fn small_output<A>(n: usize) -> bool {
    n.saturating_mul(std::mem::size_of::<A>()) < SMALL_BYTES
}

/// [`kernels::walk`] over `a`, read in `order`, into `dst`; `false`, having written nothing,
/// when too many axes remain for the walk.
///
/// # Safety
///
/// `a` must be non-empty and `dst` must point to `a.len()` writable slots that do not overlap
/// it and that no other thread touches.
#[inline(always)]
unsafe fn walk_array<A, D>(a: &ArrayRef<A, D>, order: Order, dst: *mut A) -> bool
where
    A: Clone,
    D: Dimension,
{
    // SAFETY: `a` is a live, non-empty array and `dst` has room for its elements (the
    // caller's contract).
    unsafe { kernels::walk(a.as_ptr(), a.shape(), a.strides(), order == Order::F, dst) }
}

/// The elements of `a`, read in `order`, in a fresh `Vec`: outputs under [`SMALL_BYTES`] in
/// one [`walk`](kernels::walk) of the array, larger ones (or with too many axes for
/// the walk) through [`gather_c_into`]'s plan, in the same buffer.
#[inline(always)]
fn gather<A, D>(a: &ArrayRef<A, D>, order: Order) -> Vec<A>
where
    A: Clone + Send + Sync,
    D: Dimension,
{
    let n = a.len();
    let out = if n != 0 && small_output::<A>(n) {
        let mut out: Vec<A> = Vec::with_capacity(n);
        // SAFETY: `a` is a live, non-empty array borrowed for this call and `out` (fresh) has
        // room for its `n` elements, which the walk writes once each when it returns `true`.
        if unsafe { walk_array(a, order, out.as_mut_ptr()) } {
            // SAFETY: all `n` slots are initialised (see above); a panicking `clone` never
            // gets here and leaves the `Vec` at length 0.
            unsafe { out.set_len(n) };
            return out;
        }
        // Too many axes for the walk: the same (still empty) buffer, through the plan.
        out
    } else {
        Vec::with_capacity(n)
    };
    let mut layout = Layout::at(a.as_ptr());
    layout.read(a, order);
    gather_c_into(&layout, out, n)
}

/// Below this many bytes of output a copy is one [`walk`](kernels::walk) of the array: no
/// simplified layout, no plan, no chunks (the row copy such outputs get anyway, without its
/// fixed cost). The same bound as [`TILE_MIN_BYTES`]: tiles are never planned below it.
const SMALL_BYTES: usize = TILE_MIN_BYTES;

/// The `n` elements `layout` addresses, in C reading order, in a fresh `Vec` (the plan path
/// alone, for the tests).
#[cfg(test)]
pub(crate) fn gather_c<A: Clone + Send + Sync>(layout: &Layout<A>, n: usize) -> Vec<A> {
    gather_c_into(layout, Vec::with_capacity(n), n)
}

/// The `n` elements `layout` addresses, in C reading order, written into `out` (empty, with
/// room for `n`), which is returned.
///
/// Parallel with rayon (feature `rayon`) when the output is at least [`PARALLEL_MIN_BYTES`]; the
/// caller's rayon pool is used.
fn gather_c_into<A: Clone + Send + Sync>(layout: &Layout<A>, mut out: Vec<A>, n: usize) -> Vec<A> {
    debug_assert!(out.is_empty() && out.capacity() >= n);
    if n == 0 {
        return out;
    }
    #[cfg(feature = "hugepages")]
    hugepages::advise(&mut out);
    let plan = Plan::new(layout, n);
    let dst = Dst(out.as_mut_ptr());
    // SAFETY: `layout` describes a live array of `n` elements and `dst` has capacity `n`; the
    // plan's units write disjoint slots that together cover `0..n` exactly once.
    unsafe { run(layout, &plan, dst, n) };
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
// The tile plan is boxed: only copies of 16 KiB and more are tiled, where one small allocation
// is noise, and an unboxed `Plan` (some 250 bytes) was moved with a `memcpy` on every copy,
// the small row copies included.
enum Plan {
    /// Row by row along the last axis (its stride is the smallest, or the layout is 1-D):
    /// units are ranges of the flat output.
    Rows { chunk: usize },
    /// A cache-blocked transpose of axes `p` (the input's fastest) and `q` (the last, the
    /// output's fastest): units are blocks of `tile` indices along `p` (for each index of the
    /// other axes), each sweeping all of `q` in tiles.
    Tiles(Box<kernels::Tiles>),
}

impl Plan {
    fn new<A>(layout: &Layout<A>, n: usize) -> Plan {
        let nd = layout.shape.len();
        let elem = std::mem::size_of::<A>().max(1);
        let bytes = n.saturating_mul(elem);
        if nd >= 2 && bytes >= TILE_MIN_BYTES {
            let q = nd - 1;
            let p = (0..q)
                .min_by_key(|&i| layout.strides[i].unsigned_abs())
                .unwrap_or(0);
            let sq = layout.strides[q].unsigned_abs();
            // Transpose only when reading along `p` is more local than along `q`, and only
            // where a strided row loses: large outputs, or rows whose stride in bytes maps
            // every read to a few cache sets.
            if layout.strides[p].unsigned_abs() < sq
                && sq > 1
                && (bytes >= TILE_ALWAYS_BYTES || sq.saturating_mul(elem) % CONFLICT_STRIDE == 0)
            {
                return Plan::Tiles(Box::new(kernels::Tiles::new(&layout.shape, p, elem, bytes)));
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

/// Below this many bytes of output every copy is a row copy: planning tiles costs more than
/// it saves on data this small (measured on f32 transposes, one thread: rows took 0.6x to 0.8x
/// the time of tiles at sides 4 to 31, and 0.7x to 0.9x at sides 32 to 45, i.e. 4 to 8 KiB).
const TILE_MIN_BYTES: usize = 16 * 1024;

/// From this many bytes of output every transposing copy is tiled. Below it, and above
/// [`TILE_MIN_BYTES`], only rows with a [`CONFLICT_STRIDE`] are: a strided row read (one
/// element per cache line, the next row reusing the same lines) keeps its lines in L1/L2 up to
/// here. Measured on f32 transposes, best of 3 x 9 x 500 copies, tile time over row time:
/// 1.15 to 1.7 at sides 64 to 300 except 128, 0.98 to 1.03 at 400 to 1000, 0.94 at 1500, then
/// 0.18 to 0.22 from 2000 (a column then touches more pages than the TLB holds); f64 1.0 to
/// 1.3 at sides 45 to 110 except 64 and 128.
const TILE_ALWAYS_BYTES: usize = 1024 * 1024;

/// Row strides (in bytes) that are a multiple of this put the reads of a strided row into a
/// few cache sets, which then thrash: tiles took 0.69x the time of rows for a 128 x 128 f32
/// transpose (512-byte stride) and 0.58x for f64 (1 KiB).
const CONFLICT_STRIDE: usize = 512;

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
    use ndarray::{s, Array, ArrayView, Axis};

    /// Both copy paths (the plan of `gather_c`, and `gather`, which walks small outputs) in
    /// both reading orders give the elements in that order.
    fn check(view: ArrayView<'_, i64, IxDyn>) {
        let want: Vec<i64> = view.iter().copied().collect();
        let want_f: Vec<i64> = view.t().iter().copied().collect();
        let at = format!("shape {:?} strides {:?}", view.shape(), view.strides());
        assert_eq!(
            gather_c(&Layout::of(&view, Order::C), view.len()),
            want,
            "{at}"
        );
        assert_eq!(gather(&view, Order::C), want, "walk, C, {at}");
        assert_eq!(gather(&view, Order::F), want_f, "walk, F, {at}");
    }

    /// More axes than `walk` takes (after merging): the plan path, with the same values.
    #[test]
    fn many_axes() {
        let a = Array::from_iter(0..1024i64)
            .into_shape_with_order(IxDyn(&[2; 10]))
            .unwrap();
        let mut v = a.view();
        v.swap_axes(0, 9);
        v.swap_axes(2, 5);
        check(v.clone());
        check(a.t());
        check(a.slice_each_axis(|ax| {
            ndarray::Slice::new(0, None, if ax.axis.index() % 3 == 0 { -1 } else { 1 })
        }));
        // Every other axis reversed: no two neighbours merge, so ten axes remain, more than
        // the walk takes; this small copy falls back to the plan in the walk's buffer.
        let alternate = a.slice_each_axis(|ax| {
            ndarray::Slice::new(0, None, if ax.axis.index() % 2 == 0 { -1 } else { 1 })
        });
        let mut out = Vec::<i64>::with_capacity(alternate.len());
        // SAFETY: a live, non-empty view, and room for its elements in `out`.
        let walked = unsafe {
            kernels::walk(
                alternate.as_ptr(),
                alternate.shape(),
                alternate.strides(),
                false,
                out.as_mut_ptr(),
            )
        };
        assert!(!walked, "the walk must refuse ten unmergeable axes");
        check(alternate);
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

    /// Tiles only for large outputs or conflict strides; the values are right either way,
    /// serial and parallel.
    #[test]
    fn tiles_or_rows_by_size_and_stride() {
        let tiled = |v: &ArrayView<'_, i64, IxDyn>| {
            matches!(Plan::new(&Layout::of(v, Order::C), v.len()), Plan::Tiles(_))
        };
        for (side, want) in [
            (40, false),
            (64, true),
            (90, false),
            (150, false),
            (400, true),
        ] {
            // i64: 40^2 = 12.5 KiB (rows), 64 (512-byte stride: tiles), 90 and 150 (rows, the
            // latter parallel), 400 (1.2 MiB: tiles).
            let a = Array::from_iter(0..(side * side) as i64)
                .into_shape_with_order((side, side))
                .unwrap();
            let t = a.t().into_dyn();
            assert_eq!(tiled(&t), want, "side {side}");
            check(t);
            // Reversed rows are not transposes: never tiled.
            let r = a.slice(s![..;-1, ..]).into_dyn();
            assert!(!tiled(&r));
            check(r);
        }
    }

    /// Outputs past [`kernels::LARGE_TILE_BYTES`] use the larger tiles: edges that are not
    /// multiples of the tile, a negative stride, and a third axis.
    #[test]
    fn large_tiles_are_exact() {
        let a = Array::from_iter(0..(1030 * 1031) as i64)
            .into_shape_with_order((1030, 1031))
            .unwrap(); // 8.1 MiB of i64
        check(a.t().into_dyn());
        check(a.slice(s![..;-1, ..]).reversed_axes().into_dyn());
        let b = Array::from_iter(0..(3 * 700 * 521) as i64)
            .into_shape_with_order((3, 700, 521))
            .unwrap(); // 8.3 MiB
        let mut p = b.view();
        p.swap_axes(1, 2);
        check(p.into_dyn());
    }

    #[test]
    fn clone_types() {
        let a = Array::from_shape_fn((7, 9), |(i, j)| format!("{i}-{j}"));
        let v = a.t().into_dyn();
        let want: Vec<String> = v.iter().cloned().collect();
        assert_eq!(gather_c(&Layout::of(&v, Order::C), v.len()), want);
    }
}

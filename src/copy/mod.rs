//! The copy engine, the ground floor every copying call stands on: it reads a [`RawArray`]
//! (pointer, lengths, strides) and knows no spec, dialect or conversion. Three executors:
//! the plain copy here (a strided input read in C or F order into a fresh buffer or the
//! caller's, contiguous in that order: row copies, cache-blocked tiles of two axes, of elements
//! or of whole rows, or of two axis groups in `groups.rs`), the converting copy (`convert/`:
//! the same tiles with an [`Elementwise`] step on each element, crops and paddings) and the
//! reduction (`reduce/`: folds along the removed axes); each on rayon when large.
//!
//! With `view`, where the crate's `unsafe` code lives (raw writes into the output; `strided`
//! adds only its raw-pointer constructor). An F-order reading is a C-order reading of the axes
//! reversed, so past [`Source::read_dims`] the kernels only know C order.

pub(crate) mod convert;
pub(crate) mod fold;
mod groups;
#[cfg(feature = "hugepages")]
pub(crate) mod hugepages;
mod kernels;
#[cfg(feature = "rayon")]
mod parallel;
#[cfg(test)]
mod plans;
mod reduce;
mod simd;
mod slice;
mod standby;

pub(crate) use convert::{Elementwise, Kernel, Step};
pub(crate) use reduce::reduce;
pub(crate) use simd::plain_by_name;
pub use simd::PlainData;
pub(crate) use slice::{OutOfBounds, SliceView};
pub use standby::set_helper_standby;

use std::marker::PhantomData;

use ndarray::{Array, ArrayRef, Dimension, ShapeBuilder};

use crate::dims::{typed_dim, Reading};
use crate::layout::strides::{contiguous_dims, merge_axis};
use crate::small::Small;

/// Below this many bytes of output a copy stays on the calling thread: below it, waking the
/// pool's second thread costs more than it saves (BENCHMARKS.md, "Thresholds"). Row copies are
/// cut in [`CHUNK_BYTES`] units, so they only go parallel from twice that.
#[cfg_attr(not(feature = "rayon"), allow(dead_code))]
pub(crate) const PARALLEL_MIN_BYTES: usize = 128 * 1024;

/// An array the engine reads: the pointer to element `[0, ..., 0]`, the lengths and the signed
/// strides (in elements) of every axis, and the element count; an ndarray array's, or a plan's
/// arrangement of one (axes split, permuted, broadcast), with no `ArrayView` built between.
#[derive(Clone, Copy)]
pub(crate) struct RawArray<'a, A> {
    ptr: *const A,
    shape: &'a [usize],
    strides: &'a [isize],
    len: usize,
    life: PhantomData<&'a A>,
}

impl<'a, A> RawArray<'a, A> {
    /// The array `a`, borrowed for `'a`.
    #[inline(always)]
    pub(crate) fn of<D: Dimension>(a: &'a ArrayRef<A, D>) -> RawArray<'a, A> {
        RawArray {
            ptr: a.as_ptr(),
            shape: a.shape(),
            strides: a.strides(),
            len: a.len(),
            life: PhantomData,
        }
    }

    /// The array of `len` elements at `ptr` with `shape` and `strides`.
    ///
    /// # Safety
    ///
    /// `len` must be the product of `shape` (0 when a dim is, whatever the others multiply
    /// to), and every index within `shape` must address an element of a live array readable
    /// for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn from_parts(
        ptr: *const A,
        shape: &'a [usize],
        strides: &'a [isize],
        len: usize,
    ) -> RawArray<'a, A> {
        RawArray {
            ptr,
            shape,
            strides,
            len,
            life: PhantomData,
        }
    }

    /// How many elements the array holds.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// What a copy reads: the pointer to element `[0, ..., 0]`, and the shape and signed strides of
/// the input simplified for the reading order (inline up to 8 axes).
pub(crate) struct Source<A> {
    pub(crate) first: Src<A>,
    pub(crate) shape: Small<usize>,
    pub(crate) strides: Small<isize>,
}

impl<A> Source<A> {
    /// Element `[0, ..., 0]`.
    #[inline(always)]
    pub(crate) fn ptr(&self) -> *const A {
        self.first.ptr()
    }

    /// An empty source at `ptr`, for [`read_dims`](Self::read_dims) to fill in place.
    #[inline(always)]
    fn at(ptr: *const A) -> Self {
        Source {
            first: Src(ptr),
            shape: Small::new(),
            strides: Small::new(),
        }
    }

    /// Fill this (empty) source with the axes `shape` and `strides` read in `reading`,
    /// simplified by [`merge_axis`]: the same reading order with fewer, longer axes, outermost
    /// first, always read in C order. Filled in place: a source returned by value is moved with
    /// a `memcpy` of its 200 bytes.
    #[inline(always)]
    fn read_dims(&mut self, shape: &[usize], strides: &[isize], reading: Reading) {
        let n = shape.len();
        for i in 0..n {
            let k = reading.axis(i, n);
            let (d, s) = (shape[k], strides[k]);
            if !merge_axis(&mut self.shape, &mut self.strides, d, s) {
                self.shape.push(d);
                self.strides.push(s);
            }
        }
    }

    /// [`at`](Self::at) and [`read_dims`](Self::read_dims) of `a` (for tests; the copies
    /// fill in place).
    #[cfg(test)]
    fn of<D: Dimension>(a: &ArrayRef<A, D>, reading: Reading) -> Self {
        let mut l = Source::at(a.as_ptr());
        l.read_dims(a.shape(), a.strides(), reading);
        l
    }
}

/// An output buffer the system would not give: `elements` of `elem_size` bytes each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AllocError {
    elements: usize,
    elem_size: usize,
}

impl AllocError {
    /// What could not be allocated, in a few words.
    pub(crate) fn detail(self) -> String {
        let n = self.elements;
        match n.checked_mul(self.elem_size) {
            Some(bytes) => format!(
                "cannot allocate the copy's output: {n} elements of {} bytes, {bytes} bytes",
                self.elem_size
            ),
            None => format!(
                "cannot allocate the copy's output: {n} elements of {} bytes, more than {} bytes",
                self.elem_size,
                usize::MAX
            ),
        }
    }
}

/// An empty `Vec` with room for exactly `n` elements, or the [`AllocError`] (never an abort: a
/// shape read from a file may ask for more memory than there is).
/// Allocated here rather than by `Vec::try_reserve_exact`, whose growth logic is not inlined
/// and costs the small copies about 30 instructions (BENCHMARKS.md, "The view path").
#[inline]
pub(crate) fn buffer<A>(n: usize) -> Result<Vec<A>, AllocError> {
    // `Layout::array` refuses sizes past `isize::MAX`, as `Vec` does.
    let Ok(layout) = std::alloc::Layout::array::<A>(n) else {
        return Err(alloc_failed::<A>(n));
    };
    if layout.size() == 0 {
        // Zero elements or zero-sized ones: no allocation (a `Vec` of ZSTs holds any count).
        return Ok(Vec::new());
    }
    // SAFETY: `layout` has a non-zero size.
    let ptr = unsafe { std::alloc::alloc(layout) }.cast::<A>();
    if ptr.is_null() {
        return Err(alloc_failed::<A>(n));
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `[A; n]`, which
    // is what a `Vec<A>` of capacity `n` owns; length 0 reads nothing.
    Ok(unsafe { Vec::from_raw_parts(ptr, 0, n) })
}

#[cold]
#[inline(never)]
fn alloc_failed<A>(elements: usize) -> AllocError {
    AllocError {
        elements,
        elem_size: std::mem::size_of::<A>(),
    }
}

/// A fresh array of `shape` holding the elements of `a` read in `reading`, contiguous in that
/// order, with dims of type `E` (of rank `shape.len()`, checked by the caller). `shape` must be
/// a planned target of a reshape of `a`.
///
/// # Errors
///
/// [`AllocError`] when the output cannot be allocated; nothing is copied then.
#[inline(always)]
pub(crate) fn copy_to<A, E>(
    a: RawArray<'_, A>,
    shape: &[usize],
    reading: Reading,
) -> Result<Array<A, E>, AllocError>
where
    A: Clone + Send + Sync,
    E: Dimension + 'static,
{
    let f = reading == Reading::F;
    let data = gather(a, reading)?;
    debug_assert_eq!(
        Some(data.len()),
        shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
    );
    if data.is_empty() {
        // SAFETY: an empty array: ndarray's default (zero) strides never offset the pointer.
        return Ok(unsafe {
            Array::from_shape_vec_unchecked(typed_dim::<E>(shape).set_f(f), data)
        });
    }
    let shape = contiguous_dims::<E>(shape, reading);
    // SAFETY: `shape` is the planned target of a reshape of `a`, so it has exactly
    // `a.len() == data.len()` elements, and contiguous strides for it in this order index the
    // vector in bounds, each element once.
    Ok(unsafe { Array::from_shape_vec_unchecked(shape, data) })
}

/// A fresh array of the shape of `a` holding its elements, contiguous in `reading`:
/// [`ReshapeExt::to_layout`](crate::ReshapeExt::to_layout).
///
/// # Errors
///
/// [`AllocError`] when the output cannot be allocated; nothing is copied then.
pub(crate) fn copy_as<A, D>(a: &ArrayRef<A, D>, reading: Reading) -> Result<Array<A, D>, AllocError>
where
    A: Clone + Send + Sync,
    D: Dimension,
{
    let data = gather(RawArray::of(a), reading)?;
    let shape = a.raw_dim().set_f(reading == Reading::F);
    // SAFETY: `data` holds the `a.len()` elements of `a`; ndarray's default strides for its
    // shape in this order index the vector in bounds, each element once (all zero when empty).
    Ok(unsafe { Array::from_shape_vec_unchecked(shape, data) })
}

/// Copy the elements of `a`, read in `reading`, into `out` (as long as `a`, and apart from it:
/// `out` is borrowed mutably while `a` is read): the buffer of
/// [`ReshapeExt::reshape_copy_into`](crate::ReshapeExt::reshape_copy_into),
/// [`ReshapeExt::to_layout_into`](crate::ReshapeExt::to_layout_into) and
/// [`StridedSlice`](crate::StridedSlice)'s `copy_into`.
pub(crate) fn copy_into<A: Copy + Send + Sync>(
    a: RawArray<'_, A>,
    reading: Reading,
    out: &mut [A],
) {
    assert_eq!(out.len(), a.len(), "the caller checks the output length");
    let n = out.len();
    if n == 0 {
        return;
    }
    let (ptr, shape, strides) = (a.ptr, a.shape, a.strides);
    let dst = out.as_mut_ptr();
    // SAFETY: `a` addresses a live, non-empty array of `n` elements (its constructors'
    // contract), and `out` holds `n` slots apart from it, each written once; overwriting
    // initialized `Copy` values without dropping them is sound (they have no drop glue).
    if small_output::<A>(n) && unsafe { kernels::walk(ptr, shape, strides, reading, dst) } {
        return;
    }
    let mut source = Source::at(ptr);
    source.read_dims(shape, strides, reading);
    // `Copy` elements are still read through their type, not as bits, unless they are known to
    // have no padding (the vector kernels read every byte).
    let schedule = Schedule::new(&source, n, simd::plain_by_name::<A>());
    // SAFETY: as above; `source` describes the array and the schedule's units write disjoint
    // slots that together cover `out` once.
    unsafe { run(&source, &schedule, Dst(out.as_mut_ptr()), n) };
}

/// Whether an output of `n` elements of `A` is under [`SMALL_BYTES`]: copied in one
/// [`walk`](kernels::walk) when its axes fit the walk.
#[inline(always)]
fn small_output<A>(n: usize) -> bool {
    n.saturating_mul(std::mem::size_of::<A>()) < SMALL_BYTES
}

/// The elements of `a`, read in `reading`, in a fresh `Vec`: outputs under [`SMALL_BYTES`] in
/// one [`walk`](kernels::walk) of the array, larger ones (or with too many axes for the walk)
/// through [`gather_c_into`]'s schedule, in the same buffer.
#[inline(always)]
pub(crate) fn gather<A: Clone + Send + Sync>(
    a: RawArray<'_, A>,
    reading: Reading,
) -> Result<Vec<A>, AllocError> {
    let n = a.len();
    let out = if n != 0 && small_output::<A>(n) {
        let mut out: Vec<A> = buffer(n)?;
        // SAFETY: a live, non-empty array (`a`'s constructors' contract) and a fresh `out` with room
        // for its `n` elements, which the walk writes once each when it returns `true`.
        if unsafe { kernels::walk(a.ptr, a.shape, a.strides, reading, out.as_mut_ptr()) } {
            // SAFETY: all `n` slots are initialised (see above); a panicking `clone` never
            // gets here and leaves the `Vec` at length 0.
            unsafe { out.set_len(n) };
            return Ok(out);
        }
        // Too many axes for the walk: the same (still empty) buffer, through the schedule.
        out
    } else {
        buffer(n)?
    };
    let mut source = Source::at(a.ptr);
    source.read_dims(a.shape, a.strides, reading);
    Ok(gather_c_into(&source, out, n))
}

/// Below this many bytes of output a copy is one [`walk`](kernels::walk) of the array: no
/// [`Source`], no schedule, no chunks (the row copy such outputs get anyway, without its fixed
/// cost). The same bound as [`TILE_MIN_BYTES`]: tiles are never planned below it.
const SMALL_BYTES: usize = TILE_MIN_BYTES;

/// The `n` elements `source` addresses, in C reading order, in a fresh `Vec` (the schedule
/// alone, for the tests).
#[cfg(test)]
pub(crate) fn gather_c<A: Clone + Send + Sync>(source: &Source<A>, n: usize) -> Vec<A> {
    gather_c_into(source, Vec::with_capacity(n), n)
}

/// The `n` elements `source` addresses, in C reading order, written into `out` (empty, with
/// room for `n`), which is returned.
///
/// Parallel with rayon (feature `rayon`) when the output is at least [`PARALLEL_MIN_BYTES`]: the
/// calling thread and the other threads of the caller's rayon pool share the units
/// (`parallel.rs`).
fn gather_c_into<A: Clone + Send + Sync>(source: &Source<A>, mut out: Vec<A>, n: usize) -> Vec<A> {
    debug_assert!(out.is_empty() && out.capacity() >= n);
    if n == 0 {
        return out;
    }
    #[cfg(feature = "hugepages")]
    hugepages::advise(&mut out);
    let schedule = Schedule::new(source, n, simd::plain_by_name::<A>());
    let dst = Dst(out.as_mut_ptr());
    // SAFETY: `source` describes a live array of `n` elements and `dst` has capacity `n`; the
    // schedule's units write disjoint slots that together cover `0..n` exactly once.
    unsafe { run(source, &schedule, dst, n) };
    // SAFETY: every one of the first `n` slots is initialised (see above). If a `clone`
    // panicked we never get here, and the `Vec` drops with length 0: the clones made so far
    // leak, nothing uninitialised is read.
    unsafe { out.set_len(n) };
    out
}

/// The two pointers the workers of one copy share, and the only ones: [`Src`], which they only
/// read through, and [`Dst`], into whose slots each writes its own. Both are `Copy` whatever
/// `A` is, and hand out their pointer by a method, so that closures capture the `Send` wrapper
/// rather than the raw field.
macro_rules! shared_pointer {
    ($(#[$doc:meta])* $name:ident($ptr:ty)) => {
        $(#[$doc])*
        pub(crate) struct $name<A>(pub(crate) $ptr);
        impl<A> Clone for $name<A> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<A> Copy for $name<A> {}
        impl<A> $name<A> {
            /// The pointer.
            #[inline(always)]
            pub(crate) fn ptr(self) -> $ptr {
                self.0
            }
        }
    };
}

shared_pointer!(
    /// The input, shared by the workers, which only read through it (as `&A`).
    Src(*const A)
);
// SAFETY: the input is only read, and `A: Sync` lets threads share `&A`; it outlives the
// workers (they end before the copy returns).
unsafe impl<A: Sync> Send for Src<A> {}
// SAFETY: as above.
unsafe impl<A: Sync> Sync for Src<A> {}

shared_pointer!(
    /// The output buffer, shared by the workers; each writes its own disjoint slots.
    Dst(*mut A)
);
// SAFETY: workers write disjoint slots of one allocation that outlives them; `A: Send` lets the
// values move into the buffer from any thread.
unsafe impl<A: Send> Send for Dst<A> {}
// SAFETY: as above: shared only to hand out disjoint slots.
unsafe impl<A: Send> Sync for Dst<A> {}

/// How a copy is cut into units of work.
// The tiles are boxed: only copies of 16 KiB and more are tiled, where one small allocation is
// noise, and an unboxed `Schedule` (some 250 bytes) is moved with a `memcpy` on every copy.
enum Schedule {
    /// Row by row along the last axis (its stride is the smallest, or the layout is 1-D):
    /// units are ranges of the flat output.
    Rows {
        chunk: usize,
        stores: kernels::Stores,
    },
    /// A cache-blocked transpose of axes `p` (the input's fastest) and `q` (the output's
    /// fastest), of elements or of whole rows of the last axis (see [`kernels::Tiles`]).
    Tiles(Box<kernels::Tiles>),
    /// The same, of two groups of axes whose runs a single axis would leave short.
    Grouped(Box<groups::Grouped>),
}

impl Schedule {
    /// The schedule of a copy of `n` elements from `source`; `plain` when the elements may be
    /// moved as bits (then tiles use the vector kernels).
    fn new<A>(source: &Source<A>, n: usize, plain: bool) -> Schedule {
        let nd = source.shape.len();
        let elem = std::mem::size_of::<A>().max(1);
        let bytes = n.saturating_mul(elem);
        let stores = kernels::Stores::of(plain, bytes);
        if nd >= 2 && bytes >= TILE_MIN_BYTES {
            let q = nd - 1;
            let p = (0..q)
                .min_by_key(|&i| source.strides[i].unsigned_abs())
                .unwrap_or(0);
            let sq = source.strides[q].unsigned_abs();
            // Short contiguous axes: tiles of axis groups (every run a whole line or more).
            if let Some(g) = groups::Grouped::plan(source, elem, plain) {
                return Schedule::Grouped(Box::new(g));
            }
            // Transpose only when reading along `p` is more local than along `q`, and only
            // where a strided row loses: large outputs, or rows whose stride in bytes maps
            // every read to a few cache sets.
            // A vector tile (plain elements of a kernel's size, contiguous along `p`) beats a
            // strided row at every size from here (BENCHMARKS.md, "The vector kernels").
            let kernel = if plain && source.strides[p] == 1 {
                // The output's rows along `p`: its C-contiguous stride.
                let dp = source.shape[p + 1..].iter().product::<usize>();
                let (np, nq) = (source.shape[p], source.shape[q]);
                simd::strip(elem, (np, nq), source.strides[q], dp).or_else(|| {
                    let out_row = dp.saturating_mul(elem);
                    simd::kernel(elem, bytes, sq.saturating_mul(elem), out_row)
                })
            } else {
                None
            };
            if source.strides[p].unsigned_abs() < sq
                && sq > 1
                && (kernel.is_some()
                    || bytes >= TILE_ALWAYS_BYTES
                    || sq.saturating_mul(elem) % CONFLICT_STRIDE == 0)
            {
                return Schedule::Tiles(Box::new(kernels::Tiles::new(
                    &source.shape,
                    p,
                    elem,
                    bytes,
                    kernel,
                )));
            }
            // Rows, in tiles of rows when the output's order reads them out of the input's.
            if let Some(t) = kernels::Tiles::rows(source, stores) {
                return Schedule::Tiles(Box::new(t));
            }
        }
        Schedule::Rows {
            chunk: (CHUNK_BYTES / elem).max(1),
            stores,
        }
    }

    fn units(&self, n: usize) -> usize {
        match self {
            Schedule::Rows { chunk, .. } => n.div_ceil(*chunk),
            Schedule::Tiles(t) => t.units(),
            Schedule::Grouped(g) => g.units(),
        }
    }
}

/// The flat range a row unit covers (the last unit may be short).
const CHUNK_BYTES: usize = 64 * 1024;

/// Below this many bytes of output every copy is a row copy: setting up tiles costs more than
/// they save on data this small (BENCHMARKS.md, "Thresholds").
const TILE_MIN_BYTES: usize = 16 * 1024;

/// From this many bytes of output every transposing copy is tiled. Below it, and above
/// [`TILE_MIN_BYTES`], only rows with a [`CONFLICT_STRIDE`] are: a strided row read (one
/// element per cache line, the next row reusing the same lines) keeps its lines in L1/L2 up to
/// here, and past it a column touches more pages than the TLB holds (BENCHMARKS.md,
/// "Thresholds").
const TILE_ALWAYS_BYTES: usize = 1024 * 1024;

/// Row strides (in bytes) that are a multiple of this put the reads of a strided row into a
/// few cache sets, which then thrash: tiles win there even on small outputs (BENCHMARKS.md,
/// "Thresholds").
const CONFLICT_STRIDE: usize = 512;

/// Run every unit of `schedule`, in parallel when the output is large enough.
///
/// # Safety
///
/// `source` must describe a live, readable view of `n` elements and `dst` must point to `n`
/// writable slots.
unsafe fn run<A: Clone + Send + Sync>(
    source: &Source<A>,
    schedule: &Schedule,
    dst: Dst<A>,
    n: usize,
) {
    let units = schedule.units(n);
    let unit = |u: usize| match schedule {
        // SAFETY: unit `u` covers flat indices `u * chunk ..` (clamped to `n`), disjoint from
        // every other unit; the caller guarantees the view and the buffer.
        Schedule::Rows { chunk, stores } => unsafe {
            let start = u * chunk;
            let len = (*chunk).min(n - start);
            kernels::copy_range(source, start, dst.ptr().add(start), len, *stores);
            if *stores == kernels::Stores::Stream {
                simd::fence();
            }
        },
        // SAFETY: tile units write disjoint output blocks (see `Tiles::run_unit`).
        Schedule::Tiles(t) => unsafe { t.run_unit(source, u, dst.ptr()) },
        // SAFETY: as for tiles (see `Grouped::run_unit`).
        Schedule::Grouped(g) => unsafe { g.run_unit(source, u, dst.ptr()) },
    };
    #[cfg(feature = "rayon")]
    {
        let bytes = n.saturating_mul(std::mem::size_of::<A>().max(1));
        if bytes >= PARALLEL_MIN_BYTES {
            parallel::for_each(units, bytes, unit);
            return;
        }
    }
    (0..units).for_each(unit);
}

#[cfg(test)]
mod tests;

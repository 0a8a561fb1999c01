//! The inner loops of a copy: strided rows, the small-copy walk, and cache-blocked tiles of two
//! axes.
//!
//! Each reads a live array through its pointer and strides and writes into a raw output buffer
//! that is C-contiguous in the (simplified) shape it reads.

use super::{simd, Source};
use crate::dims::Reading;
use crate::layout::strides::{merge_axis, steps_over};
use crate::small::Small;

/// Clone the elements at flat C-order indices `start .. start + len` into `dst[..len]`.
///
/// # Safety
///
/// `source` must describe a live, readable view (every index within its shape is an element),
/// `start + len` must not exceed its element count, and `dst` must point to `len` writable slots
/// no other thread touches.
pub(super) unsafe fn copy_range<A: Clone>(
    source: &Source<A>,
    start: usize,
    dst: *mut A,
    len: usize,
    stores: Stores,
) {
    let shape = &source.shape;
    let strides = &source.strides;
    let nd = shape.len();
    if len == 0 {
        return;
    }
    if nd == 0 {
        // SAFETY: a single element (all axes had length 1), at `ptr`; one slot at `dst`.
        unsafe { dst.write((*source.ptr()).clone()) };
        return;
    }
    // Whole rows of a 2-D source (most row copies, after simplification): no multi-index
    // bookkeeping per row. The whole source at once (a serial copy) is told apart without a
    // division, which costs more than the rest of a 64-byte copy's row setup.
    let whole = nd == 2 && start == 0 && len == shape[0] * shape[1];
    if whole || (nd == 2 && start % shape[1] == 0 && len % shape[1] == 0) {
        let (n1, s0, s1) = (shape[1], strides[0], strides[1]);
        let (first, rows) = if whole {
            (0, shape[0])
        } else {
            (start / n1, len / n1)
        };
        let row = |r: usize| {
            // SAFETY: row `first + r` is inside the source (`start + len` does not exceed its
            // element count), so its `n1` elements are elements of the view; the slots
            // `r * n1 .. (r + 1) * n1` are within `dst[..len]`.
            unsafe {
                let row = source.ptr().offset((first + r) as isize * s0);
                copy_row(row, s1, dst.add(r * n1), n1, stores);
            }
        };
        // Rows that go down in memory (a flipped outer axis) are read last to first when the
        // copy streams past the caches: the reads then go up, as the prefetchers expect, and
        // the streaming stores do not mind the order (BENCHMARKS.md, "Flips and small elements").
        if stores == Stores::Stream && s0 < 0 {
            (0..rows).rev().for_each(row);
        } else {
            (0..rows).for_each(row);
        }
        return;
    }
    // Unravel `start` into a multi-index and an element offset (no divisions for the first
    // chunk, which is the whole of a small copy).
    let mut inline = [0usize; 8];
    let mut heap;
    let idx: &mut [usize] = if nd <= inline.len() {
        &mut inline[..nd]
    } else {
        heap = vec![0usize; nd];
        &mut heap
    };
    let mut off: isize = 0;
    if start != 0 {
        let mut rem = start;
        for k in (0..nd).rev() {
            idx[k] = rem % shape[k];
            rem /= shape[k];
            off += idx[k] as isize * strides[k];
        }
    }
    let inner_n = shape[nd - 1];
    let inner_s = strides[nd - 1];
    let mut written = 0usize;
    while written < len {
        let j0 = idx[nd - 1];
        let take = (inner_n - j0).min(len - written);
        // SAFETY: `off` is the offset of the element at multi-index `idx`, inside the view; the
        // `take` elements along the last axis from there are elements of the view; the slots
        // `written .. written + take` are ours.
        unsafe {
            copy_row(
                source.ptr().offset(off),
                inner_s,
                dst.add(written),
                take,
                stores,
            );
        }
        written += take;
        if written == len {
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

/// The most axes [`walk`] takes (after dropping length-1 axes and merging).
pub(super) const WALK_MAX_AXES: usize = 8;

/// Clone every element of the array at `ptr` (`shape`, `strides`), read in `reading`, into
/// `dst[..n]`, where `n` is the array's element count: the whole copy in one pass over the
/// array's own axes, for small outputs, with no schedule, no chunking and no allocation. The
/// axes are simplified by [`merge_axis`], as [`Source::read_dims`] does, into a fixed stack array;
/// rows run along the axis read fastest. Returns `false`, having written nothing, when more
/// than [`WALK_MAX_AXES`] axes remain.
///
/// # Safety
///
/// `ptr`, `shape` and `strides` must describe a live, readable, non-empty array, and `dst`
/// must point to as many writable slots as it has elements, which no other thread touches.
#[inline(always)]
pub(super) unsafe fn walk<A: Clone>(
    ptr: *const A,
    shape: &[usize],
    strides: &[isize],
    reading: Reading,
    dst: *mut A,
) -> bool {
    if let Some((rows, inner)) = two_axes(shape, strides, reading) {
        // SAFETY: the caller's contract; `two_axes` gives the array's rows, each `inner.0`
        // elements `inner.1` apart, the rows `rows.1` apart, written one after another.
        unsafe { walk_two(ptr, rows, inner, dst) };
        return true;
    }
    let nd = shape.len();
    let mut dims = [0usize; WALK_MAX_AXES];
    let mut steps = [0isize; WALK_MAX_AXES];
    let mut m = 0usize;
    for i in 0..nd {
        let k = reading.axis(i, nd);
        let (d, s) = (shape[k], strides[k]);
        if merge_axis(&mut dims[..m], &mut steps[..m], d, s) {
            continue;
        }
        if m == WALK_MAX_AXES {
            return false;
        }
        dims[m] = d;
        steps[m] = s;
        m += 1;
    }
    if m == 0 {
        // SAFETY: a single element (every axis has length 1), at `ptr`; one slot at `dst`.
        unsafe { dst.write((*ptr).clone()) };
        return true;
    }
    let (inner, step) = (dims[m - 1], steps[m - 1]);
    let outer = (&dims[..m - 1], &steps[..m - 1]);
    // `copy_row`'s choice of row kernel, made once for the whole walk instead of per row.
    // SAFETY: the caller's contract. `walk_rows` calls each closure (local to this block) only
    // with the start of a row of the array, whose `inner` elements lie `step` apart along the
    // axis read fastest, and that row's own `inner` output slots.
    unsafe {
        match step {
            1 => walk_rows(ptr, outer, dst, inner, |r, o| row_unit(r, o, inner)),
            -1 => walk_rows(ptr, outer, dst, inner, |r, o| row_reversed(r, o, inner)),
            s => walk_rows(ptr, outer, dst, inner, |r, o| row_strided(r, s, o, inner)),
        }
    }
    true
}

/// An array of one or two axes as rows: `(count, stride)` of the rows and `(length, stride)`
/// of each, in `reading` (length-1 axes dropped, two axes that step over each other merged);
/// `None` for more axes. The ranks of most small model tensors, walked with no axis arrays to
/// set up (`scripts/instr_counts.py copy_`: 30 instructions a call where the general walk
/// takes 100).
#[inline(always)]
fn two_axes(
    shape: &[usize],
    strides: &[isize],
    reading: Reading,
) -> Option<((usize, isize), (usize, isize))> {
    let (outer, inner) = match (shape, strides) {
        ([d], [s]) => return Some(((1, 0), (*d, *s))),
        ([d0, d1], [s0, s1]) => match reading {
            Reading::C => ((*d0, *s0), (*d1, *s1)),
            Reading::F => ((*d1, *s1), (*d0, *s0)),
        },
        _ => return None,
    };
    Some(match () {
        _ if inner.0 == 1 => ((1, 0), outer),
        _ if outer.0 == 1 => ((1, 0), inner),
        _ if steps_over(outer.1, inner.0, inner.1) => ((1, 0), (outer.0 * inner.0, inner.1)),
        _ => (outer, inner),
    })
}

/// The rows of [`two_axes`] cloned into `dst`, one after another.
///
/// # Safety
///
/// The `rows.0` rows from `ptr`, `rows.1` apart, of `inner.0` elements `inner.1` apart, must be
/// readable, and `dst` must have room for all their elements.
#[inline(always)]
unsafe fn walk_two<A: Clone>(
    ptr: *const A,
    rows: (usize, isize),
    (n, step): (usize, isize),
    dst: *mut A,
) {
    // SAFETY: the caller's contract; row `r` starts `r * rows.1` from `ptr` and fills the
    // `n` slots from `r * n`.
    unsafe {
        match step {
            1 => each_row(ptr, rows, n, dst, |src, out| row_unit(src, out, n)),
            -1 => each_row(ptr, rows, n, dst, |src, out| row_reversed(src, out, n)),
            s => each_row(ptr, rows, n, dst, |src, out| row_strided(src, s, out, n)),
        }
    }
}

/// `row(src, out)` for each of `rows.0` rows, `rows.1` apart from `ptr`, each writing `n`
/// slots from `dst` on.
///
/// # Safety
///
/// As [`walk_two`], for what `row` reads and writes.
#[inline(always)]
unsafe fn each_row<A>(
    ptr: *const A,
    rows: (usize, isize),
    n: usize,
    dst: *mut A,
    row: impl Fn(*const A, *mut A),
) {
    let (mut src, mut out) = (ptr, dst);
    for _ in 0..rows.0 {
        row(src, out);
        src = src.wrapping_offset(rows.1);
        out = out.wrapping_add(n);
    }
}

/// The rows of [`walk`]: `row(src, dst)` for every multi-index of the outer axes (`dims`,
/// `steps`, in C order), the rows written one after another, `inner` slots each.
///
/// # Safety
///
/// Every multi-index of the outer axes, offset from `ptr`, must start a row that `row` may
/// read, and `dst` must have room for all the rows.
#[inline(always)]
unsafe fn walk_rows<A>(
    ptr: *const A,
    (dims, steps): (&[usize], &[isize]),
    dst: *mut A,
    inner: usize,
    row: impl Fn(*const A, *mut A),
) {
    let mut idx = [0usize; WALK_MAX_AXES];
    let mut src = ptr;
    let mut out = dst;
    loop {
        row(src, out);
        // SAFETY: the rows fill `dst` in order, `inner` slots each (caller's contract); the
        // pointer one past the last row is never written.
        out = unsafe { out.add(inner) };
        // The next row: carry through the outer axes, innermost first.
        let mut k = dims.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            src = src.wrapping_offset(steps[k]);
            if idx[k] < dims[k] {
                break;
            }
            src = src.wrapping_offset(steps[k].wrapping_mul(-(dims[k] as isize)));
            idx[k] = 0;
        }
    }
}

/// Clone the `n` elements at `src`, `src + s`, ... into `dst[..n]`: a unit, reversed or
/// strided row.
///
/// # Safety
/// `src + t * s` readable for `t < n`, `dst[..n]` writable and disjoint from them.
#[inline(always)]
unsafe fn copy_row<A: Clone>(src: *const A, s: isize, dst: *mut A, n: usize, stores: Stores) {
    let size = std::mem::size_of::<A>();
    // SAFETY: the caller's contract, for each kind of row; `Plain` and `Stream` only for
    // plain elements, which a copy of their bytes clones.
    unsafe {
        match (s, stores) {
            (1, Stores::Stream) => simd::stream(src.cast(), dst.cast(), n * size),
            (1, Stores::Plain) if n * size >= PLAIN_ROW_BYTES => {
                std::ptr::copy_nonoverlapping(src, dst, n);
            }
            (1, _) => row_unit(src, dst, n),
            (-1, Stores::Stream) => simd::stream_reversed(src.cast(), dst.cast(), n, size),
            (-1, _) => row_reversed(src, dst, n),
            (s, _) => row_strided(src, s, dst, n),
        }
    }
}

/// How a copy writes its contiguous rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stores {
    /// Element by element, each cloned: any `Clone` type.
    Clone,
    /// Plain elements ([`simd::plain_by_name`]): rows of [`PLAIN_ROW_BYTES`] or more copied as
    /// bytes (`memcpy`, with the widest vectors the machine has).
    Plain,
    /// Plain elements of an output past the caches ([`simd::STREAM_MIN_BYTES`]): rows with
    /// streaming stores, a fence at the end of each unit of work.
    Stream,
}

impl Stores {
    /// The stores of a copy of `bytes` output bytes, of plain elements or not.
    pub(super) fn of(plain: bool, bytes: usize) -> Stores {
        match plain {
            true if bytes >= simd::STREAM_MIN_BYTES => Stores::Stream,
            true => Stores::Plain,
            false => Stores::Clone,
        }
    }
}

/// Rows of tiles at least this long stream whatever their alignment (see [`row_tile`]).
const STREAM_ROW_BYTES: usize = 512;

/// Tiles of rows shorter than this are copied in the input's order, longer ones in the
/// output's: head splits of 64- to 256-byte rows ran 1.3x to 2x faster in the input's order,
/// of 512 bytes to 1.25 KiB 0.75x (BENCHMARKS.md, "Thresholds").
const INPUT_ORDER_ROW_BYTES: usize = 512;

/// Plain rows at least this long are copied with `memcpy`; the clone loop, which the compiler
/// vectorizes for the baseline instruction set only, ran 128-byte rows of `u16` at 0.6x to
/// 0.8x of it (BENCHMARKS.md, "Flips and small elements"); shorter rows do not repay the call.
const PLAIN_ROW_BYTES: usize = 64;

/// # Safety
/// `src[..n]` readable, `dst[..n]` writable and disjoint from it.
#[inline(always)]
unsafe fn row_unit<A: Clone>(src: *const A, dst: *mut A, n: usize) {
    for t in 0..n {
        // SAFETY: `t < n` (caller's contract).
        unsafe { dst.add(t).write((*src.add(t)).clone()) };
    }
}

/// # Safety
/// `src[-(n-1)..=0]` readable, `dst[..n]` writable.
#[inline(always)]
unsafe fn row_reversed<A: Clone>(src: *const A, dst: *mut A, n: usize) {
    for t in 0..n {
        // SAFETY: `t < n` (caller's contract).
        unsafe { dst.add(t).write((*src.sub(t)).clone()) };
    }
}

/// # Safety
/// `src + t * s` readable for `t < n`, `dst[..n]` writable.
#[inline(always)]
unsafe fn row_strided<A: Clone>(src: *const A, s: isize, dst: *mut A, n: usize) {
    let mut p = src;
    for t in 0..n {
        // SAFETY: `t < n`, and `p` is `src + t * s` (caller's contract); the step after the
        // last element is a wrapping offset, never dereferenced.
        unsafe { dst.add(t).write((*p).clone()) };
        p = p.wrapping_offset(s);
    }
}

/// The strides of the (C-contiguous) output of `shape`, in elements.
pub(super) fn out_strides(shape: &[usize]) -> Small<usize> {
    let mut s = Small::filled(1usize, shape.len());
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * shape[k + 1];
    }
    s
}

/// Rows at least this long are copied in the output's order: each row read is a long stream
/// already (BENCHMARKS.md, "Thresholds": tiles win on 1 KiB rows, rows on 1568-byte ones).
const ROW_TILE_BYTES: usize = 1536;

/// From this many bytes of output, tiles are larger (see [`Tiles::new`]).
pub(super) const LARGE_TILE_BYTES: usize = 8 * 1024 * 1024;

/// A blocked transpose of axis `p` (the input's fastest) and axis `q` (the output's fastest),
/// for any number of other axes. Either `q` is the last axis and the tiles hold elements, or
/// `q` is the one before it and the tiles hold whole rows of the last axis, contiguous in the
/// input: then a row copy in the output's order would read short runs far apart, revisiting
/// each input page once per index along `q` ([`Tiles::rows`]).
pub(super) struct Tiles {
    p: usize,
    q: usize,
    /// Elements per tile entry: 1, or the length of the last axis for tiles of rows.
    row: usize,
    /// How rows are written (tiles of rows).
    stores: Stores,
    /// Tile side, in elements, along `p`.
    tile: usize,
    /// Tile side, in elements, along `q`.
    tq: usize,
    p_blocks: usize,
    /// Indices along `q` per unit (all of `q` for tiles of elements, one tile for tiles of
    /// rows, whose `p` is short) and the number of such blocks.
    q_span: usize,
    q_blocks: usize,
    /// The other axes (not `p`, not `q`), outermost first, and their output strides.
    outer: Small<usize>,
    outer_count: usize,
    /// Output (C-contiguous) strides of every axis.
    out_strides: Small<usize>,
    /// The vector kernel ([`simd::tile`]) of the tiles whose input is contiguous along `p`, if
    /// one exists for the copy (the elements may be moved as bits): at every size, sparse output
    /// rows past the caches included (BENCHMARKS.md, "The vector kernels").
    vector: Option<simd::Kernel>,
}

impl Tiles {
    /// Tiles of `shape` for a copy of `bytes` output bytes of `elem`-byte elements, with the
    /// vector `kernel` for the input contiguous along `p`, if there is one.
    pub(super) fn new(
        shape: &[usize],
        p: usize,
        elem: usize,
        bytes: usize,
        kernel: Option<simd::Kernel>,
    ) -> Tiles {
        let nd = shape.len();
        let out_strides = out_strides(shape);
        // Along `p` (the input's contiguous axis) 256 bytes, 16 to 64 elements; along `q` (the
        // output's) a cache line, at least 16 elements. Past the caches, 1 KiB by 256 bytes:
        // longer runs per page and per output row (BENCHMARKS.md, "Thresholds").
        let (tile, tq) = if bytes >= LARGE_TILE_BYTES {
            ((1024 / elem).clamp(16, 256), (256 / elem).clamp(16, 64))
        } else {
            ((256 / elem).clamp(16, 64), (64 / elem).clamp(16, 64))
        };
        let tile = kernel.map_or(tile, |k| k.tile_side(tile));
        let outer: Small<usize> = (0..nd - 1).filter(|&k| k != p).collect();
        let outer_count = outer.iter().map(|&k| shape[k]).product();
        Tiles {
            p,
            q: nd - 1,
            row: 1,
            stores: Stores::Clone,
            tile,
            tq,
            p_blocks: shape[p].div_ceil(tile),
            q_span: shape[nd - 1],
            q_blocks: 1,
            outer,
            outer_count,
            vector: kernel,
            out_strides,
        }
    }

    /// Tiles of whole rows for a copy from `source`, whose last axis is contiguous and whose
    /// rows are under [`ROW_TILE_BYTES`] long, when the input's row axis of smallest stride `p`
    /// is not the output's fastest row axis: each tile then reads and writes runs of about a
    /// page. Rows are written as `stores` says (see [`row_tile`]). `None` where a row copy in the
    /// output's order already reads the rows in the input's order.
    pub(super) fn rows<A>(source: &Source<A>, stores: Stores) -> Option<Tiles> {
        let (shape, strides) = (&source.shape[..], &source.strides[..]);
        let nd = shape.len();
        let elem = std::mem::size_of::<A>().max(1);
        let row = shape.last().copied().unwrap_or(0);
        if nd < 3 || row < 2 || strides[nd - 1] != 1 || row * elem >= ROW_TILE_BYTES {
            return None;
        }
        let q = nd - 2;
        let p = (0..q).min_by_key(|&k| strides[k].unsigned_abs())?;
        if strides[p].unsigned_abs() >= strides[q].unsigned_abs() {
            return None;
        }
        // Runs of up to a page on both sides, the tile within 64 KiB (L2).
        let row_bytes = row * elem;
        let side = (4096 / row_bytes).min(((65536 / row_bytes) as f64).sqrt() as usize);
        let side = side.max(1);
        let outer: Small<usize> = (0..q).filter(|&k| k != p).collect();
        let outer_count = outer.iter().map(|&k| shape[k]).product();
        Some(Tiles {
            p,
            q,
            row,
            stores,
            tile: side,
            tq: side,
            p_blocks: shape[p].div_ceil(side),
            q_span: side,
            q_blocks: shape[q].div_ceil(side),
            outer,
            outer_count,
            out_strides: out_strides(shape),
            vector: None,
        })
    }

    /// Whether these are tiles of rows.
    #[cfg(test)]
    pub(super) fn of_rows(&self) -> bool {
        self.row > 1
    }

    pub(super) fn units(&self) -> usize {
        self.outer_count * self.p_blocks * self.q_blocks
    }

    /// Copy unit `u`: one block of `tile` indices along `p` by one block of `q_span` along `q`,
    /// at one index of the other axes.
    ///
    /// # Safety
    ///
    /// `source` must be the live view these tiles were made for, and `dst` its C-contiguous
    /// output buffer. Units write pairwise disjoint output slots: unit `u` writes exactly the slots
    /// whose indices along `p` and `q` are in its blocks and whose other indices are its own.
    pub(super) unsafe fn run_unit<A: Clone>(&self, source: &Source<A>, u: usize, dst: *mut A) {
        let shape = &source.shape;
        let strides = &source.strides;
        let (p, q, tile) = (self.p, self.q, self.tile);
        let (qb, u) = (u % self.q_blocks, u / self.q_blocks);
        let pb = u % self.p_blocks;
        let mut rest = u / self.p_blocks;
        let mut src_off: isize = 0;
        let mut dst_off: usize = 0;
        for &k in self.outer.iter().rev() {
            let i = rest % shape[k];
            rest /= shape[k];
            src_off += i as isize * strides[k];
            dst_off += i * self.out_strides[k];
        }
        let i0 = pb * tile;
        let ni = tile.min(shape[p] - i0);
        src_off += i0 as isize * strides[p];
        dst_off += i0 * self.out_strides[p];
        let (sp, sq, dp) = (strides[p], strides[q], self.out_strides[p]);
        let j_start = qb * self.q_span;
        let j_end = shape[q].min(j_start + self.q_span);
        if self.row > 1 {
            // SAFETY: the rows `i0 .. i0 + ni` along `p` by `j_start .. j_end` along `q` at this
            // unit's other indices lie in the view, each contiguous (the last axis has stride
            // 1); their output slots are this unit's.
            unsafe {
                row_tile(
                    source.ptr().offset(src_off + j_start as isize * sq),
                    (sp, sq),
                    dst.add(dst_off + j_start * self.out_strides[q]),
                    (dp, self.out_strides[q]),
                    (ni, j_end - j_start, self.row),
                    self.stores,
                );
            }
            return;
        }
        let vector = self.vector.filter(|_| sp == 1);
        let tq = match vector {
            Some(k) if k.whole_q() => j_end - j_start,
            _ => self.tq,
        };
        let mut j0 = j_start;
        while j0 < j_end {
            let nj = tq.min(j_end - j0);
            if let Some(kernel) = vector {
                // SAFETY: as for `tile_kernel` below, with the input contiguous along `p`
                // (`sp == 1`) and the elements plain data of the size the kernel was chosen for
                // (`self.vector`).
                unsafe {
                    simd::tile(
                        kernel,
                        source.ptr().offset(src_off + j0 as isize * sq).cast(),
                        sq,
                        dst.add(dst_off + j0).cast(),
                        dp,
                        ni,
                        nj,
                    );
                }
                j0 += nj;
                continue;
            }
            // SAFETY: the block `i0 .. i0 + ni` along `p` by `j0 .. j0 + nj` along `q` lies in
            // the view (so every source offset is an element) and in this unit's output slots,
            // which `put` is given one pair at a time.
            unsafe {
                tile_kernel(
                    source.ptr().offset(src_off + j0 as isize * sq),
                    sp,
                    sq,
                    dst.add(dst_off + j0),
                    dp,
                    ni,
                    nj,
                    |s, d| d.write((*s).clone()),
                );
            }
            j0 += nj;
        }
    }
}

/// Rows of `row` contiguous elements: row `(i, j)` from `src + i * sp + j * sq` to
/// `dst + i * dp + j * dq`, for `i < ni`, `j < nj`; a fence after streaming stores. Rows under
/// [`INPUT_ORDER_ROW_BYTES`] are copied in the input's order (`i`, the smaller stride,
/// innermost: one stream of reads, `ni` of writes), longer ones in the output's.
///
/// # Safety
///
/// Every source row must be readable and every destination row writable, disjoint from the
/// source; `Plain` and `Stream` stores only for elements that may be moved as bits.
#[inline(always)]
unsafe fn row_tile<A: Clone>(
    src: *const A,
    (sp, sq): (isize, isize),
    dst: *mut A,
    (dp, dq): (usize, usize),
    (ni, nj, row): (usize, usize, usize),
    stores: Stores,
) {
    // Streaming stores for rows of whole 64-byte lines, or long enough that their partial first
    // and last lines (written plainly) are a small part: short rows off a line boundary run
    // faster through the caches (BENCHMARKS.md, "Flips and small elements").
    let bytes = row * std::mem::size_of::<A>();
    let lines = bytes % 64 == 0 && dst as usize % 64 == 0;
    let stores = match stores {
        Stores::Stream if !lines && bytes < STREAM_ROW_BYTES => Stores::Plain,
        stores => stores,
    };
    let copy = |i: usize, j: usize| {
        // SAFETY: `i < ni`, `j < nj` (caller's contract).
        unsafe {
            copy_row(
                src.offset(i as isize * sp + j as isize * sq),
                1,
                dst.add(i * dp + j * dq),
                row,
                stores,
            );
        }
    };
    if bytes < INPUT_ORDER_ROW_BYTES {
        (0..nj).for_each(|j| (0..ni).for_each(|i| copy(i, j)));
    } else {
        (0..ni).for_each(|i| (0..nj).for_each(|j| copy(i, j)));
    }
    if stores == Stores::Stream {
        simd::fence();
    }
}

/// `put(src + i * sp + j * sq, dst + i * dp + j)` for `i < ni`, `j < nj`: a tile, each
/// element moved by `put` (a clone here, a copy of the bits in the converting engine).
///
/// # Safety
///
/// Every source offset must address a readable element and every destination slot must be
/// writable and disjoint from the source, as `put` requires of its two pointers.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the tile's geometry, as the vector kernels take it
pub(super) unsafe fn tile_kernel<A>(
    src: *const A,
    sp: isize,
    sq: isize,
    dst: *mut A,
    dp: usize,
    ni: usize,
    nj: usize,
    put: impl Fn(*const A, *mut A),
) {
    for i in 0..ni {
        let s = src.wrapping_offset((i as isize).wrapping_mul(sp));
        let d = dst.wrapping_add(i * dp);
        for j in 0..nj {
            put(
                s.wrapping_offset((j as isize).wrapping_mul(sq)),
                d.wrapping_add(j),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{copy_into, gather, RawArray};
    use super::*;
    use ndarray::Array;

    /// 8-byte plain elements with source rows 2 KiB apart (the narrow tiles of the 8-byte
    /// vector kernel on AMD with AVX-512, the scalar tiles elsewhere): a square transpose,
    /// a batched one with a reversed axis, and edges that are not whole tiles.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn rows_2_kib_apart_of_8_bytes_are_exact() {
        let a = Array::from_iter(0..3 * 256 * 256u64)
            .into_shape_with_order((3, 256, 256))
            .unwrap();
        let mut b = a.view().permuted_axes([0, 2, 1]);
        b.invert_axis(ndarray::Axis(0));
        let odd = a.slice(ndarray::s![0, ..250, ..]).reversed_axes();
        for view in [
            a.index_axis(ndarray::Axis(0), 1).t().into_dyn(),
            b.into_dyn(),
            odd.into_dyn(),
        ] {
            let want: Vec<u64> = view.iter().copied().collect();
            assert_eq!(
                gather(RawArray::of(&view), Reading::C).unwrap(),
                want,
                "{:?}",
                view.shape()
            );
            let mut out = vec![0u64; want.len()];
            copy_into(RawArray::of(&view), Reading::C, &mut out);
            assert_eq!(out, want, "{:?} into a buffer", view.shape());
        }
    }

    /// 4-byte plain elements past [`LARGE_TILE_BYTES`] with output rows far apart: the
    /// vector tiles (the AVX-512 kernel on strides of a multiple of 1 KiB, AVX2 otherwise),
    /// with edges that are not whole blocks.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn large_sparse_vector_tiles_are_exact() {
        for (rows, cols) in [(2304, 1024), (1031, 2300)] {
            let a = Array::from_iter(0..(rows * cols) as u32)
                .into_shape_with_order((rows, cols))
                .unwrap();
            let t = a.t();
            let want: Vec<u32> = t.iter().copied().collect();
            assert_eq!(
                gather(RawArray::of(&t), Reading::C).unwrap(),
                want,
                "{rows}x{cols}"
            );
            let mut out = vec![0u32; want.len()];
            copy_into(RawArray::of(&t), Reading::C, &mut out);
            assert_eq!(out, want, "{rows}x{cols} into a buffer");
        }
    }
}

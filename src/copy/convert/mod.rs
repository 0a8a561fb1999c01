//! The copy engine with a conversion: a strided source written into an output of another
//! element type, each element through [`Elementwise::each`] or a vector kernel that gives
//! the same bits, in one pass; with regions of the output filled with a value (padding) or left
//! out (cropping).
//!
//! The output is described axis by axis ([`Axis`]: a length, the source's stride and the
//! output's), so the caller's arrangement (a reshape read in C or F order, an einops pattern, a
//! blocked layout with its channel axis split in two) is just axes. Runs along the output's
//! contiguous axis are converted straight from the source when it is contiguous there too
//! (rows); otherwise tiles of two axes are first gathered into a small buffer in L1 with the
//! transpose kernels of the plain copy (`simd`), then converted run by run: each input byte
//! is read from memory once and each output byte written once.

mod door;
mod rows;
mod step;
// The vector kernels under the same names: x86-64's, or the portable twin that has none.
#[cfg_attr(all(target_arch = "x86_64", not(miri)), path = "x86.rs")]
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), path = "portable.rs")]
mod arch;

use super::kernels::tile_kernel;
use super::{simd, Dst, Src};
use crate::small::Small;

pub(crate) use arch::Vector;
pub(crate) use door::{blocked, gather, gather_into, joined};
pub(crate) use rows::Rows;
pub(crate) use step::{Elementwise, Kernel, Step};

/// One axis of the output: its length and the strides (in elements) of the source and of the
/// output along it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Axis {
    pub(crate) len: usize,
    pub(crate) src: isize,
    pub(crate) dst: usize,
}

/// A limit on the axes `first .. first + count` (a group read as one number, most significant
/// first): the positions whose number is `limit` or more read nothing; they are filled
/// (`fill`, a padding) or not written (a crop: those slots do not exist in the output).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limit {
    pub(crate) first: usize,
    pub(crate) count: usize,
    pub(crate) limit: usize,
    pub(crate) fill: bool,
}

/// A conversion copy: the source at `src` with the output's `axes`, the `limits`, the value of
/// the filled positions, the conversion, and where its parameters are found in the output
/// (the positions one index along its axis covers, and the axis' length).
pub(crate) struct Job<'a, A, B, C: ?Sized> {
    pub(crate) src: Src<A>,
    pub(crate) axes: &'a [Axis],
    pub(crate) limits: &'a [Limit],
    pub(crate) fill: Option<B>,
    pub(crate) conv: &'a C,
    pub(crate) params: Option<(usize, usize)>,
}

impl<'a, A, B, C: ?Sized> Job<'a, A, B, C> {
    /// A job with neither limits nor fill: every output slot read from `src` along `axes`.
    pub(crate) fn reading(
        src: *const A,
        axes: &'a [Axis],
        conv: &'a C,
        params: Option<(usize, usize)>,
    ) -> Self {
        Job {
            src: Src(src),
            axes,
            limits: &[],
            fill: None,
            conv,
            params,
        }
    }
}

/// The output bytes one unit of rows covers.
const CHUNK_BYTES: usize = 64 * 1024;

/// The gathering buffer of a tile: 64 KiB, in L2 with the source lines it is read from.
const SCRATCH_BYTES: usize = 64 * 1024;

#[repr(C, align(64))]
struct Scratch([std::mem::MaybeUninit<u8>; SCRATCH_BYTES]);

/// One box of the output after the limits: a source offset, an output offset, its axes
/// (simplified), and how it is cut into units.
struct Part {
    src: isize,
    dst: usize,
    axes: Small<Axis>,
    kind: Kind,
    units: usize,
}

enum Kind {
    /// Filled with the job's fill value, `per` rows to a unit.
    Fill { per: usize },
    /// Runs along the last axis straight from the source: `per` rows to a unit, or (when
    /// `pieces > 1`) each row in `pieces` pieces of `piece` elements.
    Rows {
        per: usize,
        pieces: usize,
        piece: usize,
    },
    /// Tiles of axis `p` (the source's most local) by the last axis, `tp` by `tq`, gathered
    /// into the scratch buffer (through `kernel` when there is one) and converted run by run.
    Tiles(Tiles),
}

/// The tiles of [`Kind::Tiles`]: `p_blocks` by `q_blocks` of them in each outer box.
struct Tiles {
    p: usize,
    tp: usize,
    tq: usize,
    p_blocks: usize,
    q_blocks: usize,
    kernel: Option<simd::Kernel>,
    scratch: bool,
}

impl Tiles {
    /// Tiles `tp` by `tq` of axis `p` (`np` long) by the last axis (`nq` long).
    fn new(
        p: usize,
        (tp, tq): (usize, usize),
        (np, nq): (usize, usize),
        kernel: Option<simd::Kernel>,
        scratch: bool,
    ) -> Self {
        let (p_blocks, q_blocks) = (np.div_ceil(tp), nq.div_ceil(tq));
        Tiles {
            p,
            tp,
            tq,
            p_blocks,
            q_blocks,
            kernel,
            scratch,
        }
    }
}

/// Run `job` into `dst`, whose slots are those the job's axes address (a fresh buffer or the
/// caller's).
///
/// # Safety
///
/// Every position of the job's axes outside the limits must address a live, readable element
/// of the source, and every output position (inside the limits, or filled) a writable slot of
/// `dst`, disjoint from the source; no two positions may share a slot.
pub(crate) unsafe fn run<A, B, C>(job: &Job<'_, A, B, C>, dst: *mut B)
where
    A: Sync,
    B: Clone + Send + Sync,
    C: Elementwise<A, B> + ?Sized,
{
    let plain = simd::plain_by_name::<A>();
    let size_a = std::mem::size_of::<A>().max(1);
    let size_b = std::mem::size_of::<B>().max(1);
    let mut parts = Vec::new();
    let (mut bytes, mut out_bytes) = (0usize, 0usize);
    for region in regions(job.axes, job.limits, job.fill.is_some()) {
        if let Some(part) = plan(job.axes, &region, plain, size_a, size_b) {
            let n: usize = part.axes.iter().map(|a| a.len).product();
            bytes = bytes.saturating_add(n.saturating_mul(size_a.max(size_b)));
            out_bytes = out_bytes.saturating_add(n.saturating_mul(size_b));
            parts.push(part);
        }
    }
    let mut starts = Vec::with_capacity(parts.len() + 1);
    let mut total = 0usize;
    for p in &parts {
        starts.push(total);
        total += p.units;
    }
    let vector = Vector::of(job.conv.step().kernel);
    // Outputs past the caches are written with streaming stores, as the plain copies' rows.
    let stream = out_bytes >= simd::STREAM_MIN_BYTES;
    let out = Dst(dst);
    let src = job.src;
    let unit = |u: usize| {
        let k = starts.partition_point(|&s| s <= u) - 1;
        // SAFETY: the caller's contract; every part is a box of the job's positions and its
        // units write disjoint slots of it (see `run_part`).
        unsafe {
            run_part(
                job,
                src.ptr(),
                &parts[k],
                u - starts[k],
                out.ptr(),
                (vector, stream),
            )
        };
        if stream {
            simd::fence();
        }
    };
    #[cfg(feature = "rayon")]
    if bytes >= super::PARALLEL_MIN_BYTES {
        super::parallel::for_each(total, bytes, unit);
        return;
    }
    let _ = bytes;
    (0..total).for_each(unit);
}

/// A box of positions: a range along every axis, filled or read.
struct Region {
    ranges: Small<(usize, usize)>,
    fill: bool,
}

/// The boxes covering the output: the positions the limits keep (read), those they fill, and
/// none of those they leave out.
fn regions(axes: &[Axis], limits: &[Limit], fill: bool) -> Vec<Region> {
    let mut out = vec![Region {
        ranges: axes.iter().map(|a| (0, a.len)).collect(),
        fill: false,
    }];
    for l in limits {
        let lens: Small<usize> = axes[l.first..l.first + l.count]
            .iter()
            .map(|a| a.len)
            .collect();
        let mut kept = Vec::new();
        boxes(&lens, l.limit, true, &mut Vec::new(), &mut kept);
        let mut filled = Vec::new();
        if l.fill && fill {
            boxes(&lens, l.limit, false, &mut Vec::new(), &mut filled);
        }
        let mut next = Vec::new();
        for r in out {
            let sub = kept.iter().map(|g| (g, r.fill));
            for (group, fill) in sub.chain(filled.iter().map(|g| (g, true))) {
                let mut ranges = r.ranges.clone();
                for (i, &range) in group.iter().enumerate() {
                    ranges[l.first + i] = range;
                }
                next.push(Region { ranges, fill });
            }
        }
        out = next;
    }
    out
}

/// Boxes of the numbers below `limit` (`below`), or from `limit` on, written with digits of
/// `lens` (most significant first), each a range per digit after `prefix`.
fn boxes(
    lens: &[usize],
    limit: usize,
    below: bool,
    prefix: &mut Vec<(usize, usize)>,
    out: &mut Vec<Vec<(usize, usize)>>,
) {
    let Some((&n, rest)) = lens.split_first() else {
        if (limit > 0) == below {
            out.push(prefix.clone());
        }
        return;
    };
    let w: usize = rest.iter().product();
    if w == 0 || n == 0 {
        return;
    }
    // The leading digit `q` is split at `r` (below it one side, from it the other); the
    // digits before `q`, or after it, are whole.
    let (q, r) = (limit / w, limit % w);
    let (lo, hi) = match below {
        true => (0, q.min(n)),
        false => (q + usize::from(r > 0), n),
    };
    if lo < hi {
        let mut b = prefix.clone();
        b.push((lo, hi));
        b.extend(rest.iter().map(|&d| (0, d)));
        out.push(b);
    }
    if r > 0 && q < n {
        prefix.push((q, q + 1));
        boxes(rest, r, below, prefix, out);
        prefix.pop();
    }
}

/// The part of `region`: its offsets, its axes without units and merged where both strides
/// allow (the last one of output stride 1), and its units; `None` when it is empty.
fn plan(axes: &[Axis], region: &Region, plain: bool, size_a: usize, size_b: usize) -> Option<Part> {
    let (mut src, mut dst) = (0isize, 0usize);
    let mut long: Small<Axis> = Small::new();
    for (a, &(lo, hi)) in axes.iter().zip(region.ranges.iter()) {
        if hi <= lo {
            return None;
        }
        src = src.wrapping_add((lo as isize).wrapping_mul(a.src));
        dst += lo * a.dst;
        if hi - lo > 1 {
            long.push(Axis { len: hi - lo, ..*a });
        }
    }
    // In the output's order (its strides decreasing), merged where both strides allow.
    long.sort_by_key(|a| std::cmp::Reverse(a.dst));
    let mut kept: Small<Axis> = Small::new();
    for axis in long.iter().copied() {
        let len = axis.len;
        match kept.last_mut() {
            Some(o) if o.src == axis.src.wrapping_mul(len as isize) && o.dst == axis.dst * len => {
                o.len *= len;
                o.src = axis.src;
                o.dst = axis.dst;
            }
            _ => kept.push(axis),
        }
    }
    if kept.last().map_or(true, |a| a.dst != 1) {
        kept.push(Axis {
            len: 1,
            src: 0,
            dst: 1,
        });
    }
    let m = kept.len();
    let row = kept[m - 1].len;
    let rows: usize = kept[..m - 1].iter().map(|a| a.len).product();
    let row_bytes = row * size_b;
    let rows_kind = |rows: usize| {
        if row_bytes >= CHUNK_BYTES {
            let piece = (CHUNK_BYTES / size_b).max(1);
            let pieces = row.div_ceil(piece);
            (
                Kind::Rows {
                    per: 1,
                    pieces,
                    piece,
                },
                rows * pieces,
            )
        } else {
            let per = (CHUNK_BYTES / row_bytes.max(1)).max(1);
            (
                Kind::Rows {
                    per,
                    pieces: 1,
                    piece: row,
                },
                rows.div_ceil(per),
            )
        }
    };
    let (kind, units) = if region.fill {
        let per = (CHUNK_BYTES / row_bytes.max(1)).max(1);
        (Kind::Fill { per }, rows.div_ceil(per))
    } else {
        let q = m - 1;
        let sq = kept[q].src.unsigned_abs();
        let p = (0..q).min_by_key(|&k| kept[k].src.unsigned_abs());
        match p {
            Some(p) if kept[p].src.unsigned_abs() < sq && sq > 1 => {
                let (np, nq) = (kept[p].len, kept[q].len);
                let contiguous = plain && kept[p].src == 1;
                let strip = contiguous
                    .then(|| simd::strip(size_a, (np, nq.min(64)), kept[q].src, nq.min(64)))
                    .flatten();
                // Along `p` 512 bytes (16 to 128 elements), the runs the source reads; along `q`
                // what the scratch then holds, at most 1024, the runs the output writes. Tiles
                // of 64 by 64 to 256 by 64 `f32` ran within 20% of each other on a 4096 x 4096
                // transpose to `bf16`, 128 by 128 fastest on the quantized one (BENCHMARKS.md,
                // "Conversions").
                let tp = match strip {
                    Some(k) => k.tile_side(np).min(np),
                    None => np.min((512 / size_a).clamp(16, 128)),
                };
                let room = SCRATCH_BYTES / size_a / tp;
                let tq = nq.min(room).clamp(1, 1024);
                let kernel = match strip {
                    Some(_) => simd::strip(size_a, (tp, tq), kept[q].src, tq),
                    None if contiguous => {
                        simd::kernel(size_a, tp * tq * size_a, sq * size_a, tq * size_a)
                    }
                    None => None,
                };
                let tiles = Tiles::new(p, (tp, tq), (np, nq), kernel, plain);
                let units = rows / np * tiles.p_blocks * tiles.q_blocks;
                (Kind::Tiles(tiles), units)
            }
            _ => rows_kind(rows),
        }
    };
    // Rows are walked in the order of the side with more bytes: short rows of it then follow
    // one another in one stream while the other side's spread over its planes. Attention heads
    // from `f32` to `bf16` ran 1.8x faster in the source's order, back from `bf16` 2x faster in
    // the output's (BENCHMARKS.md, "Conversions").
    let wider_source = size_a > size_b || (size_a == size_b && row_bytes < 512);
    if matches!(kind, Kind::Rows { .. }) && wider_source {
        kept[..m - 1].sort_by_key(|a| std::cmp::Reverse(a.src.unsigned_abs()));
    }
    Some(Part {
        src,
        dst,
        axes: kept,
        kind,
        units,
    })
}

/// The offsets of multi-index `i` (flat, C order) over `axes`, from the part's own.
#[inline]
fn offsets(axes: &[Axis], mut i: usize, mut src: isize, mut dst: usize) -> (isize, usize) {
    for a in axes.iter().rev() {
        let k = i % a.len;
        i /= a.len;
        src = src.wrapping_add((k as isize).wrapping_mul(a.src));
        dst += k * a.dst;
    }
    (src, dst)
}

/// A multi-index over some axes (C order) with its source and output offsets, stepped one
/// position at a time.
struct Odometer {
    idx: Small<usize>,
    src: isize,
    dst: usize,
}

impl Odometer {
    /// At flat position `i` of `axes`, from the offsets `src` and `dst`.
    fn new(axes: &[Axis], mut i: usize, mut src: isize, mut dst: usize) -> Odometer {
        let mut idx = Small::filled(0, axes.len());
        for (k, a) in axes.iter().enumerate().rev() {
            idx[k] = i % a.len;
            i /= a.len;
            src = src.wrapping_add((idx[k] as isize).wrapping_mul(a.src));
            dst += idx[k] * a.dst;
        }
        Odometer { idx, src, dst }
    }

    /// `count` positions on, within the innermost axis' remaining length.
    #[inline]
    fn skip(&mut self, axes: &[Axis], count: usize) {
        let Some((a, rest)) = axes.split_last() else {
            return;
        };
        let k = rest.len();
        self.idx[k] += count;
        self.src = self.src.wrapping_add((count as isize).wrapping_mul(a.src));
        self.dst = self.dst.wrapping_add(count.wrapping_mul(a.dst));
        if self.idx[k] >= a.len {
            self.idx[k] = 0;
            self.src = self.src.wrapping_sub((a.len as isize).wrapping_mul(a.src));
            self.dst = self.dst.wrapping_sub(a.len.wrapping_mul(a.dst));
            self.step(rest);
        }
    }

    /// The next position (past the last, the offsets wrap to the first: never used).
    #[inline]
    fn step(&mut self, axes: &[Axis]) {
        for (k, a) in axes.iter().enumerate().rev() {
            self.idx[k] += 1;
            self.src = self.src.wrapping_add(a.src);
            self.dst = self.dst.wrapping_add(a.dst);
            if self.idx[k] < a.len {
                return;
            }
            self.idx[k] = 0;
            self.src = self.src.wrapping_sub((a.len as isize).wrapping_mul(a.src));
            self.dst = self.dst.wrapping_sub(a.len.wrapping_mul(a.dst));
        }
    }
}

/// Unit `u` of `part`.
///
/// # Safety
///
/// [`run`]'s contract; `src` and `dst` are the job's.
unsafe fn run_part<A, B, C>(
    job: &Job<'_, A, B, C>,
    src: *const A,
    part: &Part,
    u: usize,
    dst: *mut B,
    (vector, stream): (Vector, bool),
) where
    A: Sync,
    B: Clone + Send + Sync,
    C: Elementwise<A, B> + ?Sized,
{
    let axes = &part.axes[..];
    let m = axes.len();
    let last = axes[m - 1];
    let outer = &axes[..m - 1];
    let rows: usize = outer.iter().map(|a| a.len).product();
    let convert = rows::Runs {
        conv: job.conv,
        step: job.conv.step(),
        params: job.params,
        vector,
        stream,
        types: std::marker::PhantomData,
    };
    match part.kind {
        Kind::Fill { per } => {
            // Fill regions exist only with a fill value (`regions`).
            let Some(fill) = job.fill.as_ref() else {
                return;
            };
            for r in u * per..rows.min((u + 1) * per) {
                let (_, d) = offsets(outer, r, 0, part.dst);
                for t in 0..last.len {
                    // SAFETY: a filled position of the output (the caller's contract).
                    unsafe { dst.add(d + t).write(fill.clone()) };
                }
            }
        }
        Kind::Rows { per, pieces, piece } => {
            let (first, end, cut) = match pieces {
                1 => (u * per, rows.min((u + 1) * per), None),
                _ => (u / pieces, u / pieces + 1, Some(u % pieces)),
            };
            let (from, len) = match cut {
                Some(c) => (c * piece, piece.min(last.len - c * piece)),
                None => (0, last.len),
            };
            // The first row's offsets by division, the next ones by carrying (an odometer), in
            // blocks along the innermost outer axis, each block one call of the kernel.
            let mut at = Odometer::new(outer, first, part.src, part.dst);
            let inner = outer.last().copied().unwrap_or(Axis {
                len: 1,
                src: 0,
                dst: 0,
            });
            let mut r = first;
            while r < end {
                let count = (inner.len - at.idx.last().copied().unwrap_or(0)).min(end - r);
                let s = at.src.wrapping_add((from as isize).wrapping_mul(last.src));
                let d = at.dst + from;
                let rows = Rows {
                    count,
                    src: inner.src,
                    dst: inner.dst,
                    stream,
                };
                // SAFETY: `count` runs of `len` positions along the last axis of this part,
                // one per index along the innermost outer axis, read from the source and
                // written to their own slots (the caller's contract).
                unsafe {
                    convert.run_rows(src.wrapping_offset(s), last.src, dst.add(d), len, rows, d)
                };
                at.skip(outer, count);
                r += count;
            }
        }
        Kind::Tiles(ref t) => {
            let (p, tp, tq, kernel) = (t.p, t.tp, t.tq, t.kernel);
            let (qb, rest) = (u % t.q_blocks, u / t.q_blocks);
            let (pb, o) = (rest % t.p_blocks, rest / t.p_blocks);
            let others: Small<Axis> = outer
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != p)
                .map(|(_, a)| *a)
                .collect();
            let (s, d) = offsets(&others, o, part.src, part.dst);
            let (ap, i0, j0) = (axes[p], pb * tp, qb * tq);
            let (ni, nj) = (tp.min(ap.len - i0), tq.min(last.len - j0));
            let s = s
                .wrapping_add((i0 as isize).wrapping_mul(ap.src))
                .wrapping_add((j0 as isize).wrapping_mul(last.src));
            let d = d + i0 * ap.dst + j0;
            let at = src.wrapping_offset(s);
            if !t.scratch {
                let rows = Rows {
                    count: ni,
                    src: ap.src,
                    dst: ap.dst,
                    stream,
                };
                // SAFETY: the runs of this tile (the caller's contract).
                unsafe { convert.run_rows(at, last.src, dst.add(d), nj, rows, d) };
                return;
            }
            // One run when the tile's output rows follow one another.
            let whole = nj == tq && ap.dst == nj;
            let direct = !(stream && whole) && kernel.map_or(true, |k| !k.is_strip());
            if convert.step.kernel == Kernel::Same && direct {
                // A copy of the type to itself: the tile straight into the output (past the
                // caches, a tile whose output is one run goes through the scratch and streams;
                // rows far apart stream slower; BENCHMARKS.md, "Conversions").
                // SAFETY: `A` is `B` (`Kernel::Same`), plain; the tile's source elements are the
                // job's and its output slots this unit's (the caller's contract).
                unsafe {
                    let out = dst.add(d).cast::<A>();
                    match kernel {
                        Some(k) => simd::tile(k, at.cast(), last.src, out.cast(), ap.dst, ni, nj),
                        None => tile_kernel(at, ap.src, last.src, out, ap.dst, ni, nj, |s, d| {
                            bits(s, d)
                        }),
                    }
                }
                return;
            }
            let mut buf = Scratch([std::mem::MaybeUninit::uninit(); SCRATCH_BYTES]);
            let tile = buf.0.as_mut_ptr().cast::<A>();
            // SAFETY: the tile's `ni` by `nj` source elements are the job's (the caller's
            // contract), and the scratch holds `tp * tq >= ni * nj` plain elements of `A`
            // (`tp * tq * size_of::<A>() <= SCRATCH_BYTES`), in rows of `tq`.
            unsafe {
                match kernel {
                    Some(k) => simd::tile(k, at.cast(), last.src, tile.cast(), tq, ni, nj),
                    None => tile_kernel(at, ap.src, last.src, tile, tq, ni, nj, |s, d| bits(s, d)),
                }
                if whole {
                    convert.run(tile, 1, dst.add(d), ni * nj, d);
                    return;
                }
                let rows = Rows {
                    count: ni,
                    src: tq as isize,
                    dst: ap.dst,
                    stream,
                };
                convert.run_rows(tile, 1, dst.add(d), nj, rows, d);
            }
        }
    }
}

/// Moves a plain element as its bits, for [`tile_kernel`].
///
/// # Safety
///
/// `s` is readable, `d` writable, and the two do not overlap.
#[inline(always)]
unsafe fn bits<A>(s: *const A, d: *mut A) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(s, d, 1) }
}

#[cfg(test)]
pub(crate) mod tests;

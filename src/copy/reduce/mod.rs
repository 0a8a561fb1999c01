//! einops' `reduce` on a strided input, read in place: the input's axes (already split as the
//! pattern's left side says) are sorted by their strides and merged where they chain, and the
//! loop nest reads the input in its memory order. Two kernels: rows (the innermost axis is
//! kept: each output row takes one input row per reduced index, with an innermost window of a
//! few reduced elements for pooling) and runs (the innermost axis is reduced: each output
//! element folds its runs). Sums are pairwise over rows and runs, as NumPy sums a run, so a
//! float sum is at least as accurate as NumPy's (BENCHMARKS.md, "reduce").

use ndarray::{ArrayView, IxDyn};

// The AVX2 twins of the kernels under the same names: x86-64's, or the portable ones.
#[cfg_attr(all(target_arch = "x86_64", not(miri)), path = "x86.rs")]
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), path = "portable.rs")]
mod arch;
mod kernels;
mod tree;

use kernels::{fold_rows, fold_run, fold_two};
use tree::{Levels, Tree};

use super::fold::sealed::Element;
use super::fold::{Acc, Fold, MaxFold, MinFold, ProdFold, SumFold};
use super::{buffer, AllocError, Dst, Src};
use crate::reduction::Reduction;
use crate::small::Small;

/// At most this many elements of a row the rows kernel accumulates at once: its partial rows
/// stay in the second-level cache, and each input row is read in runs long enough for the
/// prefetchers (BENCHMARKS.md, "reduce").
const TILE: usize = 32768;

/// Rows or runs folded into one partial result before it joins the pairwise tree: each
/// element of a partial result takes this many additions in a row, as each of the eight
/// accumulators of NumPy's pairwise blocks of 128 takes 16.
const BLOCK: usize = 32;

/// Below this many outputs a thread, a large reduction is split over its reduced axes
/// (`parts`) rather than over its outputs.
const PART_OUTPUTS: usize = 1024;

/// The longest window of reduced elements (pooling's `w2`) the rows kernel folds inside a row.
const WINDOW: usize = 8;

/// One axis of the loop nest: its length, input stride and output stride (0 when reduced).
#[derive(Clone, Copy, Debug, Default)]
struct Ax {
    len: usize,
    is: isize,
    os: isize,
    kept: bool,
}

/// The elements of `src` reduced by `r` over every axis but `kept`, in C order of the `kept`
/// axes as listed: a fresh buffer of the product of their lengths.
///
/// The caller has checked that `r` applies to `A`, and that no `Max`/`Min` folds an empty set
/// into a non-empty output.
///
/// # Errors
///
/// [`AllocError`] when the output cannot be allocated.
pub(crate) fn reduce<A: Element>(
    src: &ArrayView<'_, A, IxDyn>,
    kept: &[usize],
    r: Reduction,
) -> Result<Vec<A>, AllocError> {
    match r {
        Reduction::Sum => run::<A, SumFold>(src, kept, false),
        Reduction::Mean => run::<A, SumFold>(src, kept, true),
        Reduction::Prod => run::<A, ProdFold>(src, kept, false),
        Reduction::Max | Reduction::Any => run::<A, MaxFold>(src, kept, false),
        Reduction::Min | Reduction::All => run::<A, MinFold>(src, kept, false),
    }
}

/// What every worker reads, and where it writes.
struct Job<A, S> {
    src: Src<A>,
    sink: S,
}

/// Where the kernels put the fold of each output.
trait Sink<A: Element>: Sync {
    /// Put the fold `a` of the output at offset `at`.
    ///
    /// # Safety
    ///
    /// `at` is an offset of the output, written by one worker only.
    unsafe fn put(&self, at: isize, a: A::Acc);
}

/// The output itself: each fold finished (a mean divided by the count) and stored.
struct Finished<A> {
    out: Dst<A>,
    /// The number of elements each output folds (for a mean).
    count: usize,
    mean: bool,
}

impl<A: Element> Finished<A> {
    #[inline(always)]
    fn finish(&self, a: A::Acc) -> A {
        A::store(if self.mean { a.mean(self.count) } else { a })
    }
}

impl<A: Element> Sink<A> for Finished<A> {
    #[inline(always)]
    unsafe fn put(&self, at: isize, a: A::Acc) {
        // SAFETY: the caller's contract: an offset of the output, written once.
        unsafe { self.out.ptr().offset(at).write(self.finish(a)) }
    }
}

/// A part's accumulators, joined with the other parts' afterwards.
struct Partial<T> {
    out: Dst<T>,
}

impl<A: Element> Sink<A> for Partial<A::Acc> {
    #[inline(always)]
    unsafe fn put(&self, at: isize, a: A::Acc) {
        // SAFETY: the caller's contract: a slot of this part's buffer, written once.
        unsafe { self.out.ptr().offset(at).write(a) }
    }
}

fn run<A: Element, O: Fold<A::Acc>>(
    src: &ArrayView<'_, A, IxDyn>,
    kept: &[usize],
    mean: bool,
) -> Result<Vec<A>, AllocError> {
    let (shape, strides) = (src.shape(), src.strides());
    let mut axes: Small<Ax> = Small::new();
    for (k, (&len, &is)) in shape.iter().zip(strides).enumerate() {
        axes.push(Ax {
            len,
            is,
            os: 0,
            kept: kept.contains(&k),
        });
    }
    let mut out_len = 1usize;
    for &k in kept.iter().rev() {
        axes[k].os = out_len as isize;
        out_len *= shape[k];
    }
    let count: usize = axes.iter().filter(|a| !a.kept).map(|a| a.len).product();
    let mut out = buffer::<A>(out_len)?;
    if out_len == 0 {
        return Ok(out);
    }
    // Huge pages for a large output, as the copies have them: fewer faults on first touch.
    #[cfg(feature = "hugepages")]
    super::hugepages::advise(&mut out);
    let sink = Finished {
        out: Dst(out.as_mut_ptr()),
        count,
        mean,
    };
    if count == 0 {
        let v = sink.finish(O::ID);
        out.resize(out_len, v);
        return Ok(out);
    }
    let axes = nest(&axes);
    let bytes = src.len().saturating_mul(std::mem::size_of::<A>());
    if !parts::<A, O>(src.as_ptr(), &axes, &sink, out_len, bytes) {
        let job = Job {
            src: Src(src.as_ptr()),
            sink,
        };
        fold_all::<A, O, _>(&job, &axes, bytes);
    }
    // SAFETY: the kernels wrote every one of the `out_len` output elements (each output index
    // is one combination of the kept axes, which the loop nest covers once).
    unsafe { out.set_len(out_len) };
    Ok(out)
}

/// Every output of the loop nest `axes` folded and put in the job's sink, by the kernel that
/// fits the innermost axes.
fn fold_all<A: Element, O: Fold<A::Acc>, S: Sink<A>>(job: &Job<A, S>, axes: &[Ax], bytes: usize) {
    match axes.last() {
        None => {
            // SAFETY: one element in and one out.
            unsafe { job.sink.put(0, O::f(O::ID, (*job.src.ptr()).load())) }
        }
        Some(a) if a.kept => rows::<A, O, S>(job, axes, None, bytes),
        Some(&g) => {
            let n = axes.len();
            match n.checked_sub(2).map(|i| axes[i]) {
                Some(r) if r.kept && g.len <= WINDOW && r.is == g.is * g.len as isize => {
                    rows::<A, O, S>(job, &axes[..n - 1], Some(g), bytes)
                }
                _ => runs::<A, O, S>(job, axes, bytes),
            }
        }
    }
}

/// A small output of a large input, folded in parts: the outermost long reduced axis cut into
/// a few ranges per thread of the pool, each range folded into accumulators of its own, then
/// the parts joined in order. The kernels' own split is over the outputs, which a reduction
/// to a scalar or to a few channels does not have. `false` when the kernels' split suffices.
fn parts<A: Element, O: Fold<A::Acc>>(
    src: *const A,
    axes: &[Ax],
    sink: &Finished<A>,
    out_len: usize,
    bytes: usize,
) -> bool {
    let threads = threads_for(bytes);
    if threads < 2 || out_len >= 2 * threads * PART_OUTPUTS {
        return false;
    }
    let Some(k) = (0..axes.len())
        .filter(|&k| !axes[k].kept)
        .max_by_key(|&k| (axes[k].len >= 2 * threads, std::cmp::Reverse(k)))
    else {
        return false;
    };
    let n = axes[k].len.min(4 * threads);
    if n < 2 {
        return false;
    }
    let mut buffers: Vec<Vec<A::Acc>> = (0..n).map(|_| vec![O::ID; out_len]).collect();
    let len = axes[k].len;
    let input = Src(src);
    let work: Vec<(usize, Partial<A::Acc>)> = buffers
        .iter_mut()
        .enumerate()
        .map(|(c, b)| {
            (
                c,
                Partial {
                    out: Dst(b.as_mut_ptr()),
                },
            )
        })
        .collect();
    split(n, bytes, |start, end| {
        for (c, part) in &work[start..end] {
            // In `u128`: a broadcast axis may be near `isize::MAX` long.
            let at = |c: usize| (c as u128 * len as u128 / n as u128) as usize;
            let (from, to) = (at(*c), at(c + 1));
            let mut sub: Small<Ax> = axes.iter().copied().collect();
            sub[k].len = to - from;
            let job = Job {
                // SAFETY: element `from` of axis `k`, inside the input.
                src: Src(unsafe { input.ptr().offset(from as isize * axes[k].is) }),
                sink: Partial { out: part.out },
            };
            // Serial: the parts are the split.
            fold_all::<A, O, _>(&job, &sub, 0);
        }
    });
    for i in 0..out_len {
        let mut levels = Levels::<A::Acc>::new();
        for b in &buffers[..n - 1] {
            levels.push::<O>(b[i]);
        }
        let total = levels.total::<O>(buffers[n - 1][i]);
        // SAFETY: output `i`, written once, here only.
        unsafe { sink.put(i as isize, total) };
    }
    true
}

/// The loop nest: axes longer than 1, outermost (largest input stride) first, adjacent axes
/// of one kind merged where both strides chain.
fn nest(axes: &[Ax]) -> Small<Ax> {
    let mut sorted: Small<Ax> = Small::new();
    for a in axes.iter().filter(|a| a.len > 1) {
        sorted.push(*a);
    }
    sorted.sort_by_key(|a| std::cmp::Reverse(a.is.unsigned_abs()));
    let mut merged: Small<Ax> = Small::new();
    for a in sorted.iter() {
        if let Some(last) = merged.last_mut() {
            let l = a.len as isize;
            if last.kept == a.kept && last.is == a.is * l && last.os == a.os * l {
                last.len *= a.len;
                last.is = a.is;
                last.os = a.os;
                continue;
            }
        }
        merged.push(*a);
    }
    merged
}

/// The input and output offsets of the combinations `start..end` (C order) of `axes`.
fn for_offsets(axes: &[Ax], start: usize, end: usize, mut f: impl FnMut(isize, isize)) {
    let n = axes.len();
    let mut idx: Small<usize> = Small::filled(0, n);
    let (mut i_off, mut o_off) = (0isize, 0isize);
    let mut rest = start;
    for k in (0..n).rev() {
        if rest == 0 {
            break;
        }
        idx[k] = rest % axes[k].len;
        rest /= axes[k].len;
        i_off += idx[k] as isize * axes[k].is;
        o_off += idx[k] as isize * axes[k].os;
    }
    for _ in start..end {
        f(i_off, o_off);
        for k in (0..n).rev() {
            idx[k] += 1;
            i_off += axes[k].is;
            o_off += axes[k].os;
            if idx[k] < axes[k].len {
                break;
            }
            i_off -= axes[k].is * axes[k].len as isize;
            o_off -= axes[k].os * axes[k].len as isize;
            idx[k] = 0;
        }
    }
}

/// The length of the rows kernel's tiles of a row of `len` elements, with `outer` rows: at
/// most [`TILE`], and short enough that a large input gives each thread of the pool two units.
fn tile_len(len: usize, outer: usize, bytes: usize) -> usize {
    let threads = threads_for(bytes);
    let per_row = match threads {
        1 => 1,
        t => (2 * t).div_ceil(outer.max(1)),
    };
    len.div_ceil(per_row).clamp(1024, TILE)
}

/// The threads a reduction of `bytes` input runs on: the caller's rayon pool when large.
fn threads_for(bytes: usize) -> usize {
    #[cfg(feature = "rayon")]
    if bytes >= super::PARALLEL_MIN_BYTES {
        return rayon::current_num_threads();
    }
    let _ = bytes;
    1
}

/// `work(start, end)` over `0..n` units, in up to four parts a thread on the copies' runner
/// (the caller and its pool's threads) when the input is large.
fn split(n: usize, bytes: usize, work: impl Fn(usize, usize) + Sync) {
    let threads = threads_for(bytes);
    #[cfg(feature = "rayon")]
    if threads > 1 && n > 1 {
        let parts = n.min(threads * 4);
        super::parallel::for_each(parts, bytes, |p| work(p * n / parts, (p + 1) * n / parts));
        return;
    }
    let _ = threads;
    work(0, n);
}

/// The rows kernel: `axes` ends with the kept row axis; `group` is a window of reduced
/// elements inside each row element (2x2 pooling's `w2`).
///
/// A block of axes around the row is folded at once (the row and the axes outside it while
/// the kept elements stay within [`TILE`], the reduced ones within [`WINDOW`], and the pool
/// keeps two units a thread): a row of 64 channels in a transposed pooling is folded with its
/// 56 columns, not alone. The units are the combinations of the kept axes outside the block
/// (and tiles of a long row); the reduced axes outside it join pairwise.
fn rows<A: Element, O: Fold<A::Acc>, S: Sink<A>>(
    job: &Job<A, S>,
    axes: &[Ax],
    group: Option<Ax>,
    bytes: usize,
) {
    let Some(&row) = axes.last() else {
        return;
    };
    let threads = threads_for(bytes);
    let min_units = if threads > 1 { 2 * threads } else { 1 };
    let mut start = axes.len() - 1;
    let (mut kept_in, mut reduced_in) = (row.len, 1usize);
    let mut kept_out: usize = axes[..start]
        .iter()
        .filter(|a| a.kept)
        .map(|a| a.len)
        .product();
    while start > 0 {
        let a = axes[start - 1];
        let fits = match a.kept {
            true => kept_in * a.len <= TILE && kept_out / a.len >= min_units,
            false => reduced_in * a.len <= WINDOW,
        };
        if !fits {
            break;
        }
        match a.kept {
            true => {
                kept_in *= a.len;
                kept_out /= a.len;
            }
            false => reduced_in *= a.len,
        }
        start -= 1;
    }
    // The block's kept axes hold the row alone: tile a long row. Otherwise the block is whole.
    let block = &axes[start..];
    let single = kept_in == row.len;
    let (mut kept, mut reduced): (Small<Ax>, Small<Ax>) = (Small::new(), Small::new());
    for a in axes[..start].iter() {
        match a.kept {
            true => kept.push(*a),
            false => reduced.push(*a),
        }
    }
    let combos: usize = reduced.iter().map(|a| a.len).product();
    let outer_n: usize = kept.iter().map(|a| a.len).product();
    let tile = match single {
        true => tile_len(row.len, outer_n, bytes),
        false => row.len,
    };
    let tiles = row.len.div_ceil(tile);
    let size = |t: usize| match single {
        true => ((t + 1) * tile).min(row.len) - t * tile,
        false => kept_in,
    };
    // The block's kept axes as the writes walk them: each with its stride in the block's
    // accumulators (C order over the block's kept axes) and in the output, in output order.
    let mut writes: Small<Ax> = Small::new();
    let mut acc_stride = kept_in;
    for a in block.iter().filter(|a| a.kept) {
        acc_stride /= a.len;
        writes.push(Ax {
            len: a.len,
            is: acc_stride as isize,
            os: a.os,
            kept: true,
        });
    }
    writes.sort_by_key(|a| std::cmp::Reverse(a.os.unsigned_abs()));
    let folder = Block::new(block, kept_in);
    // One tile of one outer combination: fold its block for every reduced combination.
    let unit = |tree: &mut Tree<A::Acc>, t: usize, i_off: isize| {
        let i_off = i_off + (t * tile) as isize * row.is;
        let mut acc = tree.row::<O>(size(t));
        let mut in_block = 0;
        // A contiguous row alone: rows are folded two at a time (see `fold_block`).
        let pairs = block.len() == 1 && group.is_none() && row.is == 1;
        let mut pending = None;
        for_offsets(&reduced, 0, combos, |r_off, _| {
            match (pairs, pending.take()) {
                (true, None) => {
                    pending = Some(r_off);
                    return;
                }
                (true, Some(first)) => {
                    // SAFETY: `i_off + first` and `i_off + r_off` are offsets of elements of
                    // the input, and the row from each stays inside it (its axes are the
                    // input's).
                    unsafe {
                        let p = job.src.ptr().offset(i_off);
                        fold_two::<A, O>(&mut acc, p.offset(first), p.offset(r_off));
                    }
                    in_block += 2;
                }
                (false, _) => {
                    // SAFETY: `i_off + r_off` is the offset of an element of the input, and
                    // the block stays inside it.
                    unsafe {
                        folder.fold::<A, O>(&mut acc, job.src.ptr().offset(i_off + r_off), group)
                    };
                    in_block += 1;
                }
            }
            if in_block >= BLOCK {
                let full = std::mem::replace(&mut acc, tree.row::<O>(size(t)));
                tree.push::<O>(full);
                in_block = 0;
            }
        });
        if let Some(last) = pending {
            // SAFETY: as above.
            unsafe { folder.fold::<A, O>(&mut acc, job.src.ptr().offset(i_off + last), group) };
        }
        match tree.stack.is_empty() {
            // A single block of rows: no tree.
            true => acc,
            false => {
                tree.push::<O>(acc);
                tree.total::<O>().unwrap_or_default()
            }
        }
    };
    // The writes below are sound: each output index is one of this unit's kept
    // combination, in bounds (the output strides are C-order strides of the kept lengths); no
    // other unit writes it.
    let write = |o_off: isize, t: usize, total: &[A::Acc]| {
        if single {
            for (j, &a) in total.iter().enumerate() {
                let at = o_off + (t * tile + j) as isize * row.os;
                // SAFETY: see above.
                unsafe { job.sink.put(at, a) };
            }
        } else if let Some((last, outer)) = writes.split_last() {
            let n: usize = outer.iter().map(|a| a.len).product();
            for_offsets(outer, 0, n, |k, at| {
                for j in 0..last.len {
                    let (k, at) = (k + j as isize * last.is, at + j as isize * last.os);
                    // SAFETY: see above; `k` indexes the block's accumulators.
                    unsafe { job.sink.put(o_off + at, total[k as usize]) };
                }
            });
        }
    };
    split(outer_n * tiles, bytes, |start, end| {
        let mut tree = Tree::<A::Acc>::new();
        if tiles == 1 {
            // Runs of outer combinations, stepped through in order.
            for_offsets(&kept, start, end, |i_off, o_off| {
                let total = unit(&mut tree, 0, i_off);
                write(o_off, 0, &total);
                tree.spare.push(total);
            });
            return;
        }
        for u in start..end {
            let (o, t) = (u / tiles, u % tiles);
            for_offsets(&kept, o, o + 1, |i_off, o_off| {
                let total = unit(&mut tree, t, i_off);
                write(o_off, t, &total);
                tree.spare.push(total);
            });
        }
    });
}

/// The block of axes a unit of the rows kernel folds at once, prepared once per reduction:
/// its kept axes outside the row (each with its stride in the accumulators as its output
/// stride), the offsets of its reduced rows (at most `WINDOW`), and the row.
struct Block {
    kept: Small<Ax>,
    rows: Small<isize>,
    row: Ax,
    /// The combinations of `kept`.
    n: usize,
}

impl Block {
    /// The block of `axes` (ending with the kept row) for accumulators of `acc_len` elements.
    fn new(axes: &[Ax], acc_len: usize) -> Block {
        let (row, outer) = match axes.split_last() {
            Some((row, outer)) => (*row, outer),
            None => (Ax::default(), &[][..]),
        };
        let mut kept: Small<Ax> = Small::new();
        let mut rows: Small<isize> = Small::new();
        rows.push(0);
        let mut stride = acc_len;
        for a in outer.iter() {
            if a.kept {
                stride /= a.len;
                kept.push(Ax {
                    os: stride as isize,
                    ..*a
                });
            } else {
                let before = rows.len();
                for i in 1..a.len {
                    for r in 0..before {
                        let o = rows[r] + i as isize * a.is;
                        rows.push(o);
                    }
                }
            }
        }
        let n = kept.iter().map(|a| a.len).product();
        Block { kept, rows, row, n }
    }

    /// Fold the block from `p` into `acc` (C order over the block's kept axes; a tile of the
    /// row when the row is the block's only kept axis). Each accumulator row takes all the
    /// block's reduced rows in one pass (`fold_rows`).
    ///
    /// # Safety
    ///
    /// Every element the block addresses from `p` must be a readable element of the input.
    #[inline(always)]
    unsafe fn fold<A: Element, O: Fold<A::Acc>>(
        &self,
        acc: &mut [A::Acc],
        p: *const A,
        group: Option<Ax>,
    ) {
        if self.kept.is_empty() {
            // SAFETY: the rows from `p` (caller's contract).
            return unsafe { fold_rows::<A, O>(acc, p, &self.rows, self.row.is, group) };
        }
        let len = acc.len() / self.n.max(1);
        for_offsets(&self.kept, 0, self.n, |i_off, a_off| {
            let a = &mut acc[a_off as usize..a_off as usize + len];
            // SAFETY: the rows of this kept combination from `p` (caller's contract).
            unsafe { fold_rows::<A, O>(a, p.offset(i_off), &self.rows, self.row.is, group) };
        });
    }
}

/// The runs kernel: `axes` ends with a reduced axis; each output element folds its runs along
/// it, pairwise within a run and across runs.
fn runs<A: Element, O: Fold<A::Acc>, S: Sink<A>>(job: &Job<A, S>, axes: &[Ax], bytes: usize) {
    let Some((run, outer)) = axes.split_last() else {
        return;
    };
    let run = *run;
    let mut kept: Small<Ax> = Small::new();
    let mut reduced: Small<Ax> = Small::new();
    for a in outer.iter() {
        if a.kept {
            kept.push(*a);
        } else {
            reduced.push(*a);
        }
    }
    let combos: usize = reduced.iter().map(|a| a.len).product();
    let outer_n: usize = kept.iter().map(|a| a.len).product();
    split(outer_n, bytes, |start, end| {
        for_offsets(&kept, start, end, |i_off, o_off| {
            let mut levels = Levels::<A::Acc>::new();
            let mut block = O::ID;
            let mut in_block = 0;
            for_offsets(&reduced, 0, combos, |r_off, _| {
                // SAFETY: the run from this element stays inside the input (its axes).
                let v = unsafe {
                    fold_run::<A, O>(job.src.ptr().offset(i_off + r_off), run.len, run.is)
                };
                block = O::f(block, v);
                in_block += 1;
                if in_block == BLOCK {
                    levels.push::<O>(block);
                    block = O::ID;
                    in_block = 0;
                }
            });
            let total = levels.total::<O>(block);
            // SAFETY: the output element of this kept combination; one worker writes it.
            unsafe { job.sink.put(o_off, total) };
        });
    });
}

#[cfg(test)]
mod tests;

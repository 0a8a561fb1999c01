//! einops' `reduce` on a strided input, read in place: the input's axes (already split as the
//! pattern's left side says) are sorted by their strides and merged where they chain, and the
//! loop nest reads the input in its memory order. Two kernels: rows (the innermost axis is
//! kept: each output row takes one input row per reduced index, with an innermost window of a
//! few reduced elements for pooling) and runs (the innermost axis is reduced: each output
//! element folds its runs). Sums are pairwise over rows and runs, as NumPy sums a run, so a
//! float sum is at least as accurate as NumPy's (BENCHMARKS.md, "reduce").

use ndarray::{ArrayView, IxDyn};

use super::fold::sealed::Element;
use super::fold::{Acc, MaxOp, MinOp, Op, ProdOp, SumOp};
use super::{buffer, AllocError};
use crate::dialect::Reduction;
use crate::small::Small;

/// At most this many elements of a row the rows kernel accumulates at once: its partial rows
/// stay in the second-level cache, and each input row is read in runs long enough for the
/// prefetchers (BENCHMARKS.md, "reduce").
const TILE: usize = 32768;

/// Rows or runs folded into one partial result before it joins the pairwise tree: each
/// element of a partial result takes this many additions in a row, as each of the eight
/// accumulators of NumPy's pairwise blocks of 128 takes 16.
const BLOCK: usize = 32;

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
        Reduction::Sum => run::<A, SumOp>(src, kept, false),
        Reduction::Mean => run::<A, SumOp>(src, kept, true),
        Reduction::Prod => run::<A, ProdOp>(src, kept, false),
        Reduction::Max | Reduction::Any => run::<A, MaxOp>(src, kept, false),
        Reduction::Min | Reduction::All => run::<A, MinOp>(src, kept, false),
    }
}

/// What every worker reads and writes.
struct Job<A> {
    src: *const A,
    out: *mut A,
    /// The number of elements each output folds (for a mean).
    count: usize,
    mean: bool,
}

// SAFETY: a job reads the input (shared, `A: Sync`) and writes disjoint output elements from
// each worker; the output buffer outlives the workers.
unsafe impl<A: Sync> Sync for Job<A> {}

impl<A: Element> Job<A> {
    #[inline(always)]
    fn finish(&self, a: A::Acc) -> A {
        A::store(if self.mean { a.mean(self.count) } else { a })
    }
}

fn run<A: Element, O: Op<A::Acc>>(
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
    let job = Job {
        src: src.as_ptr(),
        out: out.as_mut_ptr(),
        count,
        mean,
    };
    if count == 0 {
        let v = job.finish(O::ID);
        out.resize(out_len, v);
        return Ok(out);
    }
    let axes = nest(&axes);
    let bytes = src.len().saturating_mul(std::mem::size_of::<A>());
    match axes.last() {
        None => {
            // SAFETY: one element in and one out; the buffer holds `out_len == 1`.
            unsafe { job.out.write(job.finish(O::f(O::ID, (*job.src).load()))) }
        }
        Some(a) if a.kept => rows::<A, O>(&job, &axes, None, bytes),
        Some(&g) => {
            let n = axes.len();
            match n.checked_sub(2).map(|i| axes[i]) {
                Some(r) if r.kept && g.len <= WINDOW && r.is == g.is * g.len as isize => {
                    rows::<A, O>(&job, &axes[..n - 1], Some(g), bytes)
                }
                _ => runs::<A, O>(&job, &axes, bytes),
            }
        }
    }
    // SAFETY: the kernels wrote every one of the `out_len` output elements (each output index
    // is one combination of the kept axes, which the loop nest covers once).
    unsafe { out.set_len(out_len) };
    Ok(out)
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

/// `work(start, end)` over `0..n` units, on the caller's rayon pool when the input is large.
fn split(n: usize, bytes: usize, work: impl Fn(usize, usize) + Sync) {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        let threads = threads_for(bytes);
        if threads > 1 && n > 1 {
            let parts = n.min(threads * 4);
            (0..parts).into_par_iter().for_each(|p| {
                work(p * n / parts, (p + 1) * n / parts);
            });
            return;
        }
    }
    #[cfg(not(feature = "rayon"))]
    let _ = bytes;
    work(0, n);
}

/// A pairwise sum (or other fold) of partial results: a binary counter of levels, so that
/// each partial result joins others of its own weight (NumPy's pairwise summation, over rows).
struct Tree<T> {
    /// Partial rows, each with its level.
    stack: Vec<(u32, Vec<T>)>,
    spare: Vec<Vec<T>>,
}

impl<T: Acc> Tree<T> {
    fn new() -> Self {
        Tree {
            stack: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// A row of `n` identities to fold a block into.
    fn row<O: Op<T>>(&mut self, n: usize) -> Vec<T> {
        let mut r = self.spare.pop().unwrap_or_default();
        r.clear();
        r.resize(n, O::ID);
        r
    }

    fn push<O: Op<T>>(&mut self, mut row: Vec<T>) {
        let mut level = 0;
        while let Some((l, _)) = self.stack.last() {
            if *l != level {
                break;
            }
            let Some((_, top)) = self.stack.pop() else {
                break;
            };
            for (a, b) in row.iter_mut().zip(&top) {
                *a = O::f(*b, *a);
            }
            self.spare.push(top);
            level += 1;
        }
        self.stack.push((level, row));
    }

    /// The fold of everything pushed.
    fn total<O: Op<T>>(&mut self) -> Option<Vec<T>> {
        let (_, mut acc) = self.stack.pop()?;
        while let Some((_, below)) = self.stack.pop() {
            for (a, b) in acc.iter_mut().zip(&below) {
                *a = O::f(*b, *a);
            }
            self.spare.push(below);
        }
        Some(acc)
    }
}

/// The rows kernel: `axes` ends with the kept row axis; `group` is a window of reduced
/// elements inside each row element (2x2 pooling's `w2`).
///
/// A block of axes around the row is folded at once (the row and the axes outside it while
/// the kept elements stay within [`TILE`], the reduced ones within [`WINDOW`], and the pool
/// keeps two units a thread): a row of 64 channels in a transposed pooling is folded with its
/// 56 columns, not alone. The units are the combinations of the kept axes outside the block
/// (and tiles of a long row); the reduced axes outside it join pairwise.
fn rows<A: Element, O: Op<A::Acc>>(job: &Job<A>, axes: &[Ax], group: Option<Ax>, bytes: usize) {
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
                        let p = job.src.offset(i_off);
                        fold_two::<A, O>(&mut acc, p.offset(first), p.offset(r_off));
                    }
                    in_block += 2;
                }
                (false, _) => {
                    // SAFETY: `i_off + r_off` is the offset of an element of the input, and
                    // the block stays inside it.
                    unsafe {
                        fold_block::<A, O>(&mut acc, job.src.offset(i_off + r_off), block, group)
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
            unsafe { fold_block::<A, O>(&mut acc, job.src.offset(i_off + last), block, group) };
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
    // SAFETY (for the writes below): each output index is one of this unit's kept
    // combination, in bounds (the output strides are C-order strides of the kept lengths); no
    // other unit writes it.
    let write = |o_off: isize, t: usize, total: &[A::Acc]| {
        if single {
            for (j, &a) in total.iter().enumerate() {
                let at = o_off + (t * tile + j) as isize * row.os;
                // SAFETY: see above.
                unsafe { job.out.offset(at).write(job.finish(a)) };
            }
        } else if let Some((last, outer)) = writes.split_last() {
            let n: usize = outer.iter().map(|a| a.len).product();
            for_offsets(outer, 0, n, |k, at| {
                for j in 0..last.len {
                    let (k, at) = (k + j as isize * last.is, at + j as isize * last.os);
                    // SAFETY: see above; `k` indexes the block's accumulators.
                    unsafe {
                        job.out
                            .offset(o_off + at)
                            .write(job.finish(total[k as usize]))
                    };
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

/// Fold the block of axes `block` (ending with the kept row; `group` inside each row element)
/// from `p` into `acc`, C order over the block's kept axes.
///
/// # Safety
///
/// Every element the block addresses from `p` must be a readable element of the input.
unsafe fn fold_block<A: Element, O: Op<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    block: &[Ax],
    group: Option<Ax>,
) {
    let Some((a, rest)) = block.split_first() else {
        return;
    };
    if rest.is_empty() {
        // SAFETY: the row from `p` (caller's contract).
        return unsafe { fold_row::<A, O>(acc, p, a.is, group) };
    }
    let inner = match a.kept {
        true => acc.len() / a.len,
        false => 0,
    };
    if let ([r], false, None) = (rest, a.kept, group) {
        if r.is == 1 {
            // Two rows a step: `f(f(acc, x0), x1)` is stored whatever it is, where one row's
            // `f(acc, x)` of `max` becomes a conditional (masked) store, slow on x86.
            let mut i = 0;
            while i + 1 < a.len {
                // SAFETY: rows `i` and `i + 1` of this axis from `p` (caller's contract).
                unsafe {
                    let q = p.offset(i as isize * a.is);
                    fold_two::<A, O>(acc, q, q.offset(a.is));
                }
                i += 2;
            }
            if i < a.len {
                // SAFETY: the last row (caller's contract).
                unsafe { fold_row::<A, O>(acc, p.offset(i as isize * a.is), 1, None) };
            }
            return;
        }
    }
    for i in 0..a.len {
        // SAFETY: element `i` of this axis from `p` (caller's contract).
        let q = unsafe { p.offset(i as isize * a.is) };
        let len = if a.kept { inner } else { acc.len() };
        let part = &mut acc[i * inner..i * inner + len];
        // SAFETY: the rest of the block from `q` (caller's contract).
        unsafe { fold_block::<A, O>(part, q, rest, group) };
    }
}

/// Fold two contiguous rows from `p` and `q` into `acc`.
///
/// # Safety
///
/// `acc.len()` elements from each of `p` and `q` must be readable elements of the input.
unsafe fn fold_two<A: Element, O: Op<A::Acc>>(acc: &mut [A::Acc], p: *const A, q: *const A) {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the processor has AVX2; the caller's contract.
        return unsafe { fold_two_avx2::<A, O>(acc, p, q) };
    }
    // SAFETY: the caller's contract.
    unsafe { fold_two_plain::<A, O>(acc, p, q) }
}

/// [`fold_two_plain`] compiled for AVX2.
///
/// # Safety
///
/// The processor has AVX2; as [`fold_two`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_two_avx2<A: Element, O: Op<A::Acc>>(acc: &mut [A::Acc], p: *const A, q: *const A) {
    // SAFETY: the caller's contract.
    unsafe { fold_two_plain::<A, O>(acc, p, q) }
}

/// The portable body of [`fold_two`].
///
/// # Safety
///
/// As [`fold_two`].
#[inline(always)]
unsafe fn fold_two_plain<A: Element, O: Op<A::Acc>>(acc: &mut [A::Acc], p: *const A, q: *const A) {
    let n = acc.len();
    // SAFETY: `n` contiguous elements from each (caller's contract).
    let (x, y) = unsafe {
        (
            std::slice::from_raw_parts(p, n),
            std::slice::from_raw_parts(q, n),
        )
    };
    for ((a, x), y) in acc.iter_mut().zip(x).zip(y) {
        *a = O::f(O::f(*a, x.load()), y.load());
    }
}

/// Whether this processor runs the AVX2 twins of the kernels (compiled for it, the same code).
#[inline(always)]
fn avx2() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    return std::arch::is_x86_feature_detected!("avx2");
    #[allow(unreachable_code)]
    false
}

/// Fold one input row (starting at `p`, stride `s`, `acc.len()` elements, each with its
/// window `group`) into `acc`: [`fold_row_plain`], compiled for AVX2 where the processor has
/// it (a NaN-propagating `max` is three vector instructions there, eight in SSE2).
///
/// # Safety
///
/// Every element the row and its windows address must be a readable element of the input.
#[inline(always)]
unsafe fn fold_row<A: Element, O: Op<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    s: isize,
    group: Option<Ax>,
) {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the processor has AVX2; the caller's contract.
        return unsafe { fold_row_avx2::<A, O>(acc, p, s, group) };
    }
    // SAFETY: the caller's contract.
    unsafe { fold_row_plain::<A, O>(acc, p, s, group) }
}

/// [`fold_row_plain`] compiled for AVX2.
///
/// # Safety
///
/// The processor has AVX2; as [`fold_row`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_row_avx2<A: Element, O: Op<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    s: isize,
    group: Option<Ax>,
) {
    // SAFETY: the caller's contract.
    unsafe { fold_row_plain::<A, O>(acc, p, s, group) }
}

/// The portable body of [`fold_row`].
///
/// # Safety
///
/// As [`fold_row`].
#[inline(always)]
unsafe fn fold_row_plain<A: Element, O: Op<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    s: isize,
    group: Option<Ax>,
) {
    let n = acc.len();
    match group {
        None if s == 1 => {
            // SAFETY: `n` contiguous elements of the input (caller's contract).
            let row = unsafe { std::slice::from_raw_parts(p, n) };
            for (a, x) in acc.iter_mut().zip(row) {
                *a = O::f(*a, x.load());
            }
        }
        None => {
            for (j, a) in acc.iter_mut().enumerate() {
                // SAFETY: element `j` of the row (caller's contract).
                *a = O::f(*a, unsafe { *p.offset(j as isize * s) }.load());
            }
        }
        Some(g) if g.is == 1 && s == g.len as isize => {
            // SAFETY: the windows tile `n * len` contiguous elements (caller's contract).
            let row = unsafe { std::slice::from_raw_parts(p, n * g.len) };
            match g.len {
                2 => windows::<A, O, 2>(acc, row),
                3 => windows::<A, O, 3>(acc, row),
                4 => windows::<A, O, 4>(acc, row),
                k => {
                    for (a, w) in acc.iter_mut().zip(row.chunks_exact(k)) {
                        *a = w.iter().fold(*a, |v, x| O::f(v, x.load()));
                    }
                }
            }
        }
        Some(g) => {
            for (j, a) in acc.iter_mut().enumerate() {
                let base = j as isize * s;
                for w in 0..g.len as isize {
                    // SAFETY: element `w` of window `j` (caller's contract).
                    *a = O::f(*a, unsafe { *p.offset(base + w * g.is) }.load());
                }
            }
        }
    }
}

/// Windows of `K` contiguous elements, one per accumulator (a constant `K` lets the compiler
/// vectorize the shuffles).
#[inline(always)]
fn windows<A: Element, O: Op<A::Acc>, const K: usize>(acc: &mut [A::Acc], row: &[A]) {
    for (a, w) in acc.iter_mut().zip(row.chunks_exact(K)) {
        let mut v = *a;
        for x in w {
            v = O::f(v, x.load());
        }
        *a = v;
    }
}

/// The runs kernel: `axes` ends with a reduced axis; each output element folds its runs along
/// it, pairwise within a run and across runs.
fn runs<A: Element, O: Op<A::Acc>>(job: &Job<A>, axes: &[Ax], bytes: usize) {
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
                let v = unsafe { fold_run::<A, O>(job.src.offset(i_off + r_off), run.len, run.is) };
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
            unsafe { job.out.offset(o_off).write(job.finish(total)) };
        });
    });
}

/// [`Tree`] for single values: at most 64 levels (one per bit of a count).
struct Levels<T> {
    at: [(u32, T); 64],
    len: usize,
}

impl<T: Acc> Levels<T> {
    fn new() -> Self {
        Levels {
            at: [(0, T::ZERO); 64],
            len: 0,
        }
    }

    fn push<O: Op<T>>(&mut self, mut v: T) {
        let mut level = 0;
        while self.len > 0 && self.at[self.len - 1].0 == level {
            self.len -= 1;
            v = O::f(self.at[self.len].1, v);
            level += 1;
        }
        self.at[self.len] = (level, v);
        self.len += 1;
    }

    /// The fold of everything pushed, then `last`.
    fn total<O: Op<T>>(&self, last: T) -> T {
        self.at[..self.len]
            .iter()
            .rev()
            .fold(last, |v, &(_, below)| O::f(below, v))
    }
}

/// The fold of `n` elements from `p` with stride `s`: NumPy's pairwise scheme (eight
/// accumulators over blocks of up to 128 elements, halves above that).
///
/// # Safety
///
/// The `n` elements must be readable elements of the input.
unsafe fn fold_run<A: Element, O: Op<A::Acc>>(p: *const A, n: usize, s: isize) -> A::Acc {
    if s == 1 {
        // SAFETY: `n` contiguous elements (caller's contract).
        let run = unsafe { std::slice::from_raw_parts(p, n) };
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the processor has AVX2.
            return unsafe { pairwise_avx2::<A, O>(run) };
        }
        pairwise::<A, O>(run)
    } else {
        // SAFETY: element `i` of the run (caller's contract).
        pairwise_strided::<A, O>(0, n, &|i| unsafe { *p.offset(i as isize * s) }.load())
    }
}

/// [`pairwise`] compiled for AVX2.
///
/// # Safety
///
/// The processor has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pairwise_avx2<A: Element, O: Op<A::Acc>>(run: &[A]) -> A::Acc {
    pairwise::<A, O>(run)
}

/// [`fold_run`] of a contiguous run (the portable body).
#[inline(always)]
fn pairwise<A: Element, O: Op<A::Acc>>(run: &[A]) -> A::Acc {
    let n = run.len();
    if n < 8 {
        return run.iter().fold(O::ID, |v, x| O::f(v, x.load()));
    }
    if n <= 128 {
        let mut r = [O::ID; 8];
        let chunks = run.chunks_exact(8);
        let rest = chunks.remainder();
        for c in chunks {
            for (rk, x) in r.iter_mut().zip(c) {
                *rk = O::f(*rk, x.load());
            }
        }
        let v = O::f(
            O::f(O::f(r[0], r[1]), O::f(r[2], r[3])),
            O::f(O::f(r[4], r[5]), O::f(r[6], r[7])),
        );
        return rest.iter().fold(v, |v, x| O::f(v, x.load()));
    }
    let half = (n / 2) - (n / 2) % 8;
    O::f(
        pairwise::<A, O>(&run[..half]),
        pairwise::<A, O>(&run[half..]),
    )
}

/// [`fold_run`] of a strided run: elements `from..from + n` through `at`.
fn pairwise_strided<A: Element, O: Op<A::Acc>>(
    from: usize,
    n: usize,
    at: &impl Fn(usize) -> A::Acc,
) -> A::Acc {
    if n <= 128 {
        let mut r = [O::ID; 4];
        let full = n - n % 4;
        for i in (0..full).step_by(4) {
            for (k, rk) in r.iter_mut().enumerate() {
                *rk = O::f(*rk, at(from + i + k));
            }
        }
        let v = O::f(O::f(r[0], r[1]), O::f(r[2], r[3]));
        return (full..n).fold(v, |v, i| O::f(v, at(from + i)));
    }
    let half = (n / 2) - (n / 2) % 8;
    O::f(
        pairwise_strided::<A, O>(from, half, at),
        pairwise_strided::<A, O>(from + half, n - half, at),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array, Axis};

    fn arange(shape: &[usize]) -> Array<i64, IxDyn> {
        let n: usize = shape.iter().product();
        Array::from_iter(0..n as i64)
            .into_shape_with_order(IxDyn(shape))
            .unwrap()
    }

    #[test]
    fn every_kernel_agrees_with_ndarray() {
        // Rows (kept innermost), windows (pooling), runs (reduced innermost), transposed and
        // reversed layouts, broadcast strides.
        let x = arange(&[3, 4, 6, 10]);
        let cases: Vec<ArrayView<'_, i64, IxDyn>> = vec![
            x.view(),
            x.view().reversed_axes(),
            x.view().permuted_axes(IxDyn(&[2, 0, 3, 1])),
            {
                let mut v = x.view();
                v.invert_axis(Axis(1));
                v
            },
        ];
        for v in cases {
            for kept in [
                vec![0],
                vec![3],
                vec![0, 2],
                vec![2, 0],
                vec![1, 3],
                vec![],
                vec![0, 1, 2],
            ] {
                let got = reduce(&v, &kept, Reduction::Sum).unwrap();
                let mut want = v.to_owned();
                for ax in (0..4).rev().filter(|a| !kept.contains(a)) {
                    want = want.sum_axis(Axis(ax));
                }
                // `want` has the kept axes in increasing order; permute to the asked order.
                let mut order: Vec<usize> = kept.clone();
                order.sort_unstable();
                let perm: Vec<usize> = kept
                    .iter()
                    .map(|k| order.iter().position(|o| o == k).unwrap())
                    .collect();
                let want = want.permuted_axes(IxDyn(&perm));
                assert_eq!(
                    got,
                    want.iter().copied().collect::<Vec<_>>(),
                    "kept {kept:?} of {:?}",
                    v.strides()
                );
            }
        }
    }

    #[test]
    fn the_avx2_twins_agree_with_the_portable_kernels() {
        // Rows with NaNs and signed zeros, every length around the vector widths.
        let xs: Vec<f32> = (0..300)
            .map(|i| match i % 37 {
                5 => f32::NAN,
                9 => -0.0,
                k => k as f32 * 0.75 - 11.0,
            })
            .collect();
        for n in [0, 1, 3, 7, 8, 9, 31, 64, 65, 130] {
            let (p, q) = (xs.as_ptr(), xs[150..].as_ptr());
            let mut plain = vec![0.5f32; n];
            let mut chosen = plain.clone();
            // SAFETY: `n` elements from both starts are in `xs`.
            unsafe {
                fold_row_plain::<f32, MaxOp>(&mut plain, p, 1, None);
                fold_row::<f32, MaxOp>(&mut chosen, p, 1, None);
                fold_two_plain::<f32, MinOp>(&mut plain, p, q);
                fold_two::<f32, MinOp>(&mut chosen, p, q);
                fold_row_plain::<f32, SumOp>(&mut plain, q, 1, None);
                fold_row::<f32, SumOp>(&mut chosen, q, 1, None);
            }
            // Equal bit for bit, NaNs aside (the payload of a computed NaN is not specified).
            let bits = |v: &[f32]| {
                v.iter()
                    .map(|x| {
                        if x.is_nan() {
                            f32::NAN.to_bits()
                        } else {
                            x.to_bits()
                        }
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&plain), bits(&chosen), "{n}");
            let run = &xs[..n];
            // SAFETY: the run's `n` elements.
            let b = unsafe { fold_run::<f32, SumOp>(run.as_ptr(), n, 1) };
            let a = pairwise::<f32, SumOp>(run);
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{n}"
            );
        }
    }

    #[test]
    fn windows_pool() {
        let x = arange(&[2, 4, 6])
            .into_shape_with_order(IxDyn(&[2, 2, 2, 3, 2]))
            .unwrap();
        let m = reduce(&x.view(), &[0, 1, 3], Reduction::Max).unwrap();
        assert_eq!(m[0], 7);
        assert_eq!(m.len(), 12);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn sums_are_pairwise() {
        // 1 + 2^-24 ten million times, in f32: a running sum stops at 1 + 2^-23 steps;
        // pairwise stays close to the exact value.
        let n = 1 << 20;
        let v = Array::from_elem(IxDyn(&[n]), 1.0f32 + f32::EPSILON);
        let s = reduce(&v.view(), &[], Reduction::Sum).unwrap()[0];
        let exact = n as f64 * (1.0 + f32::EPSILON as f64);
        assert!(
            ((s as f64) - exact).abs() / exact < 1e-6,
            "{s} against {exact}"
        );
        let rows = Array::from_elem(IxDyn(&[n, 2]), 0.1f32);
        let s = reduce(&rows.view(), &[1], Reduction::Sum).unwrap()[0];
        let exact = n as f64 * 0.1f32 as f64;
        assert!(
            ((s as f64) - exact).abs() / exact < 1e-6,
            "{s} against {exact}"
        );
    }
}

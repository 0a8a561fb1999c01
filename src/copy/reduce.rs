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

/// Elements of a row the rows kernel accumulates at once: rows of partial results stay in the
/// first-level cache.
const TILE: usize = 2048;

/// Rows or runs folded into one partial result before it joins the pairwise tree.
const BLOCK: usize = 8;

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
                Some(r) if r.kept && g.len <= BLOCK && r.is == g.is * g.len as isize => {
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

/// `work(start, end)` over `0..n` units, on the caller's rayon pool when the input is large.
fn split(n: usize, bytes: usize, work: impl Fn(usize, usize) + Sync) {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        let threads = rayon::current_num_threads();
        if threads > 1 && n > 1 && bytes >= super::PARALLEL_MIN_BYTES {
            let parts = n.min(threads * 4);
            (0..parts).into_par_iter().for_each(|p| {
                work(p * n / parts, (p + 1) * n / parts);
            });
            return;
        }
    }
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
fn rows<A: Element, O: Op<A::Acc>>(job: &Job<A>, axes: &[Ax], group: Option<Ax>, bytes: usize) {
    let (row, outer) = match axes.split_last() {
        Some((row, outer)) => (*row, outer),
        None => return,
    };
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
    let tiles = row.len.div_ceil(TILE);
    split(outer_n * tiles, bytes, |start, end| {
        let mut tree = Tree::<A::Acc>::new();
        for unit in start..end {
            let (o, t) = (unit / tiles, unit % tiles);
            let (from, to) = (t * TILE, ((t + 1) * TILE).min(row.len));
            for_offsets(&kept, o, o + 1, |i_off, o_off| {
                let i_off = i_off + from as isize * row.is;
                let mut block = tree.row::<O>(to - from);
                let mut in_block = 0;
                for_offsets(&reduced, 0, combos, |r_off, _| {
                    // SAFETY: `i_off + r_off` is the offset of an element of the input, and
                    // the row and window stay inside it (the axes are the input's).
                    unsafe {
                        fold_row::<A, O>(&mut block, job.src.offset(i_off + r_off), row.is, group)
                    };
                    in_block += 1;
                    if in_block == BLOCK {
                        let full = std::mem::replace(&mut block, tree.row::<O>(to - from));
                        tree.push::<O>(full);
                        in_block = 0;
                    }
                });
                tree.push::<O>(block);
                let total = tree.total::<O>().unwrap_or_default();
                for (j, &a) in total.iter().enumerate() {
                    let at = o_off + (from + j) as isize * row.os;
                    // SAFETY: an output index of this unit's kept combination, in bounds
                    // (the output strides are C-order strides of the kept lengths); no other
                    // unit writes it.
                    unsafe { job.out.offset(at).write(job.finish(a)) };
                }
                tree.spare.push(total);
            });
        }
    });
}

/// Fold one input row (starting at `p`, stride `s`, `acc.len()` elements, each with its
/// window `group`) into `acc`.
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
        pairwise::<A, O>(n, &|i| run[i].load())
    } else {
        // SAFETY: element `i` of the run (caller's contract).
        pairwise::<A, O>(n, &|i| unsafe { *p.offset(i as isize * s) }.load())
    }
}

fn pairwise<A: Element, O: Op<A::Acc>>(n: usize, at: &impl Fn(usize) -> A::Acc) -> A::Acc {
    pairwise_from::<A, O>(0, n, at)
}

fn pairwise_from<A: Element, O: Op<A::Acc>>(
    from: usize,
    n: usize,
    at: &impl Fn(usize) -> A::Acc,
) -> A::Acc {
    if n < 8 {
        return (from..from + n).fold(O::ID, |v, i| O::f(v, at(i)));
    }
    if n <= 128 {
        let mut r = [O::ID; 8];
        let full = n - n % 8;
        let mut i = 0;
        while i < full {
            for (k, rk) in r.iter_mut().enumerate() {
                *rk = O::f(*rk, at(from + i + k));
            }
            i += 8;
        }
        let mut v = O::f(
            O::f(O::f(r[0], r[1]), O::f(r[2], r[3])),
            O::f(O::f(r[4], r[5]), O::f(r[6], r[7])),
        );
        for i in full..n {
            v = O::f(v, at(from + i));
        }
        return v;
    }
    let half = (n / 2) - (n / 2) % 8;
    O::f(
        pairwise_from::<A, O>(from, half, at),
        pairwise_from::<A, O>(from + half, n - half, at),
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
    fn windows_pool() {
        let x = arange(&[2, 4, 6])
            .into_shape_with_order(IxDyn(&[2, 2, 2, 3, 2]))
            .unwrap();
        let m = reduce(&x.view(), &[0, 1, 3], Reduction::Max).unwrap();
        assert_eq!(m[0], 7);
        assert_eq!(m.len(), 12);
    }

    #[test]
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

//! The kernels of the reduction: a contiguous row folded into accumulators (alone, two or
//! four rows a step, or in windows of a few elements), a run folded pairwise; each compiled a
//! second time for AVX2 and chosen at run time, the portable body its twin.

use super::arch;
use super::Ax;
use crate::copy::fold::sealed::Element;
use crate::copy::fold::Fold;

/// Fold the rows at `p + offsets` (stride `s`, `group` inside each element) into `acc`, in one
/// pass over `acc` where the rows are contiguous.
///
/// # Safety
///
/// Every row must address readable elements of the input.
#[inline(always)]
pub(super) unsafe fn fold_rows<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    offsets: &[isize],
    s: isize,
    group: Option<Ax>,
) {
    // SAFETY: every call below reads rows of `p` at the given offsets (caller's contract).
    unsafe {
        if s != 1 || group.is_some() {
            for &o in offsets {
                fold_row::<A, O>(acc, p.offset(o), s, group);
            }
            return;
        }
        let at = |k: usize| p.offset(offsets[k]);
        match offsets.len() {
            1 => fold_row::<A, O>(acc, at(0), 1, None),
            2 => fold_two::<A, O>(acc, at(0), at(1)),
            4 => fold_four::<A, O>(acc, [at(0), at(1), at(2), at(3)]),
            k => {
                let mut i = 0;
                while i + 1 < k {
                    fold_two::<A, O>(acc, at(i), at(i + 1));
                    i += 2;
                }
                if i < k {
                    fold_row::<A, O>(acc, at(i), 1, None);
                }
            }
        }
    }
}

/// Fold four contiguous rows into `acc` in one pass (a 2x2 window of rows: pooling of a
/// channels-last map).
///
/// # Safety
///
/// `acc.len()` elements from each row must be readable elements of the input.
pub(super) unsafe fn fold_four<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    rows: [*const A; 4],
) {
    if arch::avx2() {
        // SAFETY: the processor has AVX2; the caller's contract.
        return unsafe { arch::fold_four::<A, O>(acc, rows) };
    }
    // SAFETY: the caller's contract.
    unsafe { fold_four_plain::<A, O>(acc, rows) }
}

/// The portable body of [`fold_four`].
///
/// # Safety
///
/// As [`fold_four`].
#[inline(always)]
pub(super) unsafe fn fold_four_plain<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    rows: [*const A; 4],
) {
    let n = acc.len();
    // SAFETY: `n` contiguous elements from each row (caller's contract).
    let [a, b, c, d] = rows.map(|r| unsafe { std::slice::from_raw_parts(r, n) });
    for ((((v, a), b), c), d) in acc.iter_mut().zip(a).zip(b).zip(c).zip(d) {
        *v = O::f(O::f(O::f(O::f(*v, a.load()), b.load()), c.load()), d.load());
    }
}

/// Fold two contiguous rows from `p` and `q` into `acc`.
///
/// # Safety
///
/// `acc.len()` elements from each of `p` and `q` must be readable elements of the input.
pub(super) unsafe fn fold_two<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    q: *const A,
) {
    if arch::avx2() {
        // SAFETY: the processor has AVX2; the caller's contract.
        return unsafe { arch::fold_two::<A, O>(acc, p, q) };
    }
    // SAFETY: the caller's contract.
    unsafe { fold_two_plain::<A, O>(acc, p, q) }
}

/// The portable body of [`fold_two`].
///
/// # Safety
///
/// As [`fold_two`].
#[inline(always)]
pub(super) unsafe fn fold_two_plain<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    q: *const A,
) {
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

/// Fold one input row (starting at `p`, stride `s`, `acc.len()` elements, each with its
/// window `group`) into `acc`: [`fold_row_plain`], compiled for AVX2 where the processor has
/// it (a NaN-propagating `max` is three vector instructions there, eight in SSE2).
///
/// # Safety
///
/// Every element the row and its windows address must be a readable element of the input.
#[inline(always)]
pub(super) unsafe fn fold_row<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    s: isize,
    group: Option<Ax>,
) {
    if arch::avx2() {
        // SAFETY: the processor has AVX2; the caller's contract.
        return unsafe { arch::fold_row::<A, O>(acc, p, s, group) };
    }
    // SAFETY: the caller's contract.
    unsafe { fold_row_plain::<A, O>(acc, p, s, group) }
}

/// The portable body of [`fold_row`].
///
/// # Safety
///
/// As [`fold_row`].
#[inline(always)]
pub(super) unsafe fn fold_row_plain<A: Element, O: Fold<A::Acc>>(
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
pub(super) fn windows<A: Element, O: Fold<A::Acc>, const K: usize>(acc: &mut [A::Acc], row: &[A]) {
    for (a, w) in acc.iter_mut().zip(row.chunks_exact(K)) {
        let mut v = *a;
        for x in w {
            v = O::f(v, x.load());
        }
        *a = v;
    }
}

/// The fold of `n` elements from `p` with stride `s`: NumPy's pairwise scheme (eight
/// accumulators over blocks of up to 128 elements, halves above that).
///
/// # Safety
///
/// The `n` elements must be readable elements of the input.
pub(super) unsafe fn fold_run<A: Element, O: Fold<A::Acc>>(
    p: *const A,
    n: usize,
    s: isize,
) -> A::Acc {
    if s == 1 {
        // SAFETY: `n` contiguous elements (caller's contract).
        let run = unsafe { std::slice::from_raw_parts(p, n) };
        if arch::avx2() {
            // SAFETY: the processor has AVX2.
            return unsafe { arch::pairwise::<A, O>(run) };
        }
        pairwise::<A, O>(run)
    } else {
        // SAFETY: element `i` of the run (caller's contract).
        pairwise_strided::<A, O>(0, n, &|i| unsafe { *p.offset(i as isize * s) }.load())
    }
}

/// [`fold_run`] of a contiguous run (the portable body).
#[inline(always)]
pub(super) fn pairwise<A: Element, O: Fold<A::Acc>>(run: &[A]) -> A::Acc {
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
pub(super) fn pairwise_strided<A: Element, O: Fold<A::Acc>>(
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

//! The portable twin of `x86.rs`: the same names, no AVX2 twin, so that the portable bodies
//! run (on every machine but x86-64, and under Miri everywhere).

use super::kernels;
use super::Ax;
use crate::copy::fold::sealed::Element;
use crate::copy::fold::Fold;

/// No AVX2 twins here.
#[inline(always)]
pub(crate) fn avx2() -> bool {
    false
}

/// [`kernels::fold_four_plain`], never called here ([`avx2`] is `false`).
///
/// # Safety
///
/// As [`kernels::fold_four`].
#[inline(always)]
pub(crate) unsafe fn fold_four<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    rows: [*const A; 4],
) {
    // SAFETY: the caller's contract.
    unsafe { kernels::fold_four_plain::<A, O>(acc, rows) }
}

/// [`kernels::fold_two_plain`], never called here ([`avx2`] is `false`).
///
/// # Safety
///
/// As [`kernels::fold_two`].
#[inline(always)]
pub(crate) unsafe fn fold_two<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    q: *const A,
) {
    // SAFETY: the caller's contract.
    unsafe { kernels::fold_two_plain::<A, O>(acc, p, q) }
}

/// [`kernels::fold_row_plain`], never called here ([`avx2`] is `false`).
///
/// # Safety
///
/// As [`kernels::fold_row`].
#[inline(always)]
pub(crate) unsafe fn fold_row<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    s: isize,
    group: Option<Ax>,
) {
    // SAFETY: the caller's contract.
    unsafe { kernels::fold_row_plain::<A, O>(acc, p, s, group) }
}

/// [`kernels::pairwise`], never called here ([`avx2`] is `false`).
///
/// # Safety
///
/// As [`kernels::fold_run`].
#[inline(always)]
pub(crate) unsafe fn pairwise<A: Element, O: Fold<A::Acc>>(run: &[A]) -> A::Acc {
    kernels::pairwise::<A, O>(run)
}

//! The reduction kernels compiled for AVX2 (the same portable bodies, with the wider
//! instructions: a NaN-propagating `max` is three vector instructions there, eight in SSE2),
//! and whether this processor runs them. The portable twin, `portable.rs`, has the same names.

use super::kernels;
use super::Ax;
use crate::copy::fold::sealed::Element;
use crate::copy::fold::Fold;

/// Whether this processor runs the AVX2 twins.
#[inline(always)]
pub(crate) fn avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// [`fold_four_plain`](kernels::fold_four_plain) compiled for AVX2.
///
/// # Safety
///
/// The processor has AVX2; as [`kernels::fold_four`].
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn fold_four<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    rows: [*const A; 4],
) {
    // SAFETY: the caller's contract.
    unsafe { kernels::fold_four_plain::<A, O>(acc, rows) }
}

/// [`fold_two_plain`](kernels::fold_two_plain) compiled for AVX2.
///
/// # Safety
///
/// The processor has AVX2; as [`kernels::fold_two`].
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn fold_two<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    q: *const A,
) {
    // SAFETY: the caller's contract.
    unsafe { kernels::fold_two_plain::<A, O>(acc, p, q) }
}

/// [`fold_row_plain`](kernels::fold_row_plain) compiled for AVX2.
///
/// # Safety
///
/// The processor has AVX2; as [`kernels::fold_row`].
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn fold_row<A: Element, O: Fold<A::Acc>>(
    acc: &mut [A::Acc],
    p: *const A,
    s: isize,
    group: Option<Ax>,
) {
    // SAFETY: the caller's contract.
    unsafe { kernels::fold_row_plain::<A, O>(acc, p, s, group) }
}

/// [`kernels::pairwise`] compiled for AVX2.
///
/// # Safety
///
/// The processor has AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn pairwise<A: Element, O: Fold<A::Acc>>(run: &[A]) -> A::Acc {
    kernels::pairwise::<A, O>(run)
}

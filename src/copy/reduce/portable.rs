//! The portable twin of `x86.rs`: the same names, no AVX2 twin, so that the portable bodies
//! run (on every machine but x86-64, and under Miri everywhere).

use super::kernels;
use crate::copy::fold::sealed::Element;
use crate::copy::fold::Fold;

/// No AVX2 twins here.
#[inline(always)]
pub(crate) fn avx2() -> bool {
    false
}

// The plain kernels under the names of x86.rs's AVX2 twins, never called here ([`avx2`] is
// `false`).
pub(super) use super::kernels::{
    fold_four_plain as fold_four, fold_row_plain as fold_row, fold_two_plain as fold_two,
};

/// [`kernels::pairwise`], never called here ([`avx2`] is `false`).
///
/// # Safety
///
/// As [`kernels::fold_run`].
#[inline(always)]
pub(crate) unsafe fn pairwise<A: Element, O: Fold<A::Acc>>(run: &[A]) -> A::Acc {
    kernels::pairwise::<A, O>(run)
}

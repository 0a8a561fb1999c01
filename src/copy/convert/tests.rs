//! The engine's side of the converting copy's tests: the runs of a step through a chosen
//! kernel (for `crate::convert`'s tests of every kernel against its definition), and the regions
//! of crops and paddings.

use std::marker::PhantomData;

use super::rows::Runs;
use super::{boxes, regions, Axis, Elementwise, Limit, Rows, Vector};

/// The run of `conv` over `src` through the kernel `vector` (with parameters at `at` by
/// `params`).
pub(crate) fn runs<A, B: Default + Clone, C: Elementwise<A, B>>(
    conv: &C,
    vector: Vector,
    params: Option<(usize, usize)>,
    src: &[A],
    pos: usize,
) -> Vec<B> {
    let mut out = vec![B::default(); src.len()];
    let r = Runs {
        conv,
        step: conv.step(),
        params,
        vector,
        stream: false,
        types: PhantomData,
    };
    // SAFETY: `src` and `out` are as long as the run.
    unsafe { r.run(src.as_ptr(), 1, out.as_mut_ptr(), src.len(), pos) };
    out
}

/// `rows` runs of `n` elements of `src` (the runs `step` elements apart), through the kernel
/// `vector` in one batched call, with streaming stores.
pub(crate) fn batched<A, B: Default + Clone, C: Elementwise<A, B>>(
    conv: &C,
    vector: Vector,
    src: &[A],
    (rows, n, step): (usize, usize, usize),
) -> Vec<B> {
    let mut out = vec![B::default(); rows * n];
    let r = Runs {
        conv,
        step: conv.step(),
        params: None,
        vector,
        stream: true,
        types: PhantomData,
    };
    let rows = Rows {
        count: rows,
        src: step as isize,
        dst: n,
        stream: true,
    };
    // SAFETY: the runs lie in `src` (the caller's sizes) and the output holds them all.
    unsafe { r.run_rows(src.as_ptr(), 1, out.as_mut_ptr(), n, rows, 0) };
    super::simd::fence();
    out
}

/// The [`boxes`] below and from the limit cover the numbers below and from it, each once, for
/// every limit of small digit sets.
#[test]
fn digit_boxes_cover_each_number_once() {
    for lens in [
        vec![3usize],
        vec![4, 16],
        vec![2, 3, 5],
        vec![1, 7],
        vec![5, 1, 3],
    ] {
        let total: usize = lens.iter().product();
        for limit in 0..=total {
            let mut seen = vec![0u8; total];
            for (below, fill) in [(true, 0), (false, 1)] {
                let mut out = Vec::new();
                boxes(&lens, limit, below, &mut Vec::new(), &mut out);
                for b in out {
                    for (n, count) in seen.iter_mut().enumerate() {
                        // The digits of `n`, most significant first.
                        let mut rest = n;
                        let mut digits = vec![0; lens.len()];
                        for k in (0..lens.len()).rev() {
                            digits[k] = rest % lens[k];
                            rest /= lens[k];
                        }
                        if digits.iter().zip(&b).all(|(d, r)| r.0 <= *d && *d < r.1) {
                            assert_eq!(n >= limit, fill == 1, "{lens:?} limit {limit}: {n}");
                            *count += 1;
                        }
                    }
                }
            }
            assert!(
                seen.iter().all(|&c| c == 1),
                "{lens:?} limit {limit}: {seen:?}"
            );
        }
    }
}

/// A crop's regions leave the cut positions out; a padding's fill them.
#[test]
fn regions_of_a_crop_and_a_padding() {
    let axes = [
        Axis {
            len: 2,
            src: 0,
            dst: 0,
        },
        Axis {
            len: 3,
            src: 0,
            dst: 0,
        },
        Axis {
            len: 4,
            src: 0,
            dst: 0,
        },
    ];
    let limit = Limit {
        first: 1,
        count: 2,
        limit: 10,
        fill: true,
    };
    let count = |fill: bool, with: bool| -> usize {
        regions(&axes, &[Limit { fill, ..limit }], with)
            .iter()
            .filter(|r| r.fill == with)
            .map(|r| r.ranges.iter().map(|(a, b)| b - a).product::<usize>())
            .sum()
    };
    assert_eq!(count(false, false), 20);
    assert_eq!(count(true, true), 4);
    assert_eq!(count(true, false), 20);
}

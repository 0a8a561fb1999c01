//! The reduction against ndarray, its kernels against their twins, its sums against rounding.

use super::kernels::*;
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
            fold_row_plain::<f32, MaxFold>(&mut plain, p, 1, None);
            fold_row::<f32, MaxFold>(&mut chosen, p, 1, None);
            fold_two_plain::<f32, MinFold>(&mut plain, p, q);
            fold_two::<f32, MinFold>(&mut chosen, p, q);
            fold_row_plain::<f32, SumFold>(&mut plain, q, 1, None);
            fold_row::<f32, SumFold>(&mut chosen, q, 1, None);
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
        let b = unsafe { fold_run::<f32, SumFold>(run.as_ptr(), n, 1) };
        let a = pairwise::<f32, SumFold>(run);
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

/// Inputs past the parallel threshold on a pool of two, on the copies' runner: every kernel's
/// split (the parts of a reduced outer axis, the row tiles, the runs) against ndarray.
#[cfg(feature = "rayon")]
#[test]
#[cfg_attr(miri, ignore)] // large inputs
fn parallel_reductions_agree_with_ndarray() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        // 64 x 40 x 96 i64: 1.9 MiB, past `PARALLEL_MIN_BYTES`.
        let x = arange(&[64, 40, 96]);
        for v in [x.view(), x.view().permuted_axes(IxDyn(&[2, 0, 1]))] {
            for kept in [vec![0], vec![2], vec![1, 2], vec![], vec![0, 1]] {
                let got = reduce(&v, &kept, Reduction::Sum).unwrap();
                let mut want = v.to_owned();
                for ax in (0..3).rev().filter(|a| !kept.contains(a)) {
                    want = want.sum_axis(Axis(ax));
                }
                let mut order = kept.clone();
                order.sort_unstable();
                let perm: Vec<usize> = kept
                    .iter()
                    .map(|k| order.iter().position(|o| o == k).unwrap())
                    .collect();
                let want: Vec<i64> = want.permuted_axes(IxDyn(&perm)).iter().copied().collect();
                assert_eq!(got, want, "kept {kept:?} of {:?}", v.strides());
            }
        }
    });
}

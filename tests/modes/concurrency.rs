//! Reshapes under rayon: inside parallel iterators, inside a custom pool's `install`, nested,
//! and from plain threads. Nothing deadlocks, and every result is identical whatever the number
//! of threads (copies split their output into disjoint blocks, so the split cannot change it).

use ndarray::{s, Array, ArrayD, ArrayView, IxDyn};
use ndarray_reshape::{Mx, Np, Order, ReshapeError, ReshapeExt};
use rayon::prelude::*;

type R = Result<(), ReshapeError>;

fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

/// Large inputs for every copy plan: tiled transposes, unit rows, reversed and strided rows,
/// a 4-D permutation, and an F-order read.
fn inputs(a: &ArrayD<i64>) -> Vec<(ArrayView<'_, i64, IxDyn>, Order)> {
    let two = a.view().into_shape_with_order(IxDyn(&[384, 512])).unwrap();
    let four = a
        .view()
        .into_shape_with_order(IxDyn(&[8, 12, 32, 64]))
        .unwrap();
    vec![
        (two.clone().reversed_axes(), Order::C),
        (two.clone().slice_move(s![..;-1, ..]).into_dyn(), Order::C),
        (two.slice_move(s![.., ..;-3]).into_dyn(), Order::C),
        (four.clone().permuted_axes(IxDyn(&[0, 2, 3, 1])), Order::C),
        (four, Order::F),
    ]
}

fn all_copies(a: &ArrayD<i64>) -> Result<Vec<ArrayD<i64>>, ReshapeError> {
    inputs(a)
        .iter()
        .map(|(v, o)| v.reshape_owned(Np::new([-1], *o)))
        .collect()
}

/// 1.5 MiB of `i64`: past the parallel threshold, so the copies fork.
fn source() -> ArrayD<i64> {
    Array::from_iter(0..384 * 512i64)
        .into_shape_with_order(IxDyn(&[384 * 512]))
        .unwrap()
}

#[test]
fn identical_results_with_1_2_and_many_threads() -> R {
    let a = source();
    let one = pool(1).install(|| all_copies(&a))?;
    let two = pool(2).install(|| all_copies(&a))?;
    let many = pool(7).install(|| all_copies(&a))?;
    assert_eq!(one, two);
    assert_eq!(one, many);
    // And each equals ndarray's own copy.
    for ((v, o), got) in inputs(&a).iter().zip(&one) {
        let order = if *o == Order::F {
            ndarray::Order::F
        } else {
            ndarray::Order::C
        };
        let want = v.to_shape(((v.len(),), order)).unwrap();
        assert!(got.iter().eq(want.iter()));
    }
    Ok(())
}

#[test]
fn inside_parallel_iterators_and_nested_pools() -> R {
    let a = source();
    let want = all_copies(&a)?;
    // Reshapes (which may fork themselves) inside a parallel iterator inside a custom pool.
    let outer = pool(3);
    let results: Vec<Vec<ArrayD<i64>>> = outer.install(|| {
        (0..12)
            .into_par_iter()
            .map(|_| all_copies(&a))
            .collect::<Result<_, _>>()
    })?;
    assert!(results.iter().all(|r| *r == want));
    // A pool installed from inside another pool's worker.
    let inner = pool(2);
    let nested = outer.install(|| inner.install(|| all_copies(&a)))?;
    assert_eq!(nested, want);
    // Views and errors from many tasks at once.
    let views: Vec<usize> = (0..64)
        .into_par_iter()
        .map(|i| {
            let v = a.reshape_mx(Mx::new([-1, 8 * (1 + i % 4)]))?;
            assert!(v.is_view());
            Ok(v.len())
        })
        .collect::<Result<_, ReshapeError>>()?;
    assert!(views.iter().all(|&n| n == a.len()));
    let errors = (0..64)
        .into_par_iter()
        .filter(|_| a.reshape_mx([-1, -1]).is_err())
        .count();
    assert_eq!(errors, 64);
    Ok(())
}

#[test]
fn from_plain_threads() -> R {
    let a = source();
    let want = all_copies(&a)?;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(|| all_copies(&a))).collect();
        for h in handles {
            assert_eq!(h.join().unwrap()?, want);
        }
        Ok(())
    })
}

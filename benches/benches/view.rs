//! The view path: reshapes that need no copy, against ndarray's `to_shape` on the same input in
//! the same run. `cargo bench -p ndarray_reshape_bench --bench view`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use ndarray::{s, Array, Ix2, Ix4, IxDyn};
use ndarray_reshape::{Mx, Np, Order, ReshapeExt, ShapeSpec};

/// Contiguous (64, 64, 64, 64) to (4096, 4096): the common case.
fn contiguous(c: &mut Criterion) {
    let a = Array::<f32, _>::zeros((64, 64, 64, 64));
    let mut g = c.benchmark_group("view_contiguous_4d_to_2d");
    g.measurement_time(Duration::from_secs(2));
    g.bench_function("ndarray_to_shape_ix2", |b| {
        b.iter(|| black_box(black_box(&a).to_shape(black_box((4096, 4096))).unwrap()))
    });
    g.bench_function("ndarray_to_shape_ixdyn", |b| {
        b.iter(|| {
            black_box(
                black_box(&a)
                    .to_shape(black_box(IxDyn(&[4096, 4096])))
                    .unwrap(),
            )
        })
    });
    g.bench_function("reshape_np", |b| {
        b.iter(|| {
            black_box(
                black_box(&a)
                    .reshape_np(black_box([4096, 4096]), Order::C)
                    .unwrap(),
            )
        })
    });
    g.bench_function("reshape_view", |b| {
        b.iter(|| {
            let spec = Np::new(black_box([4096, 4096]), Order::C);
            black_box(black_box(&a).reshape_view(spec).unwrap())
        })
    });
    g.bench_function("reshape_mx", |b| {
        b.iter(|| black_box(black_box(&a).reshape_mx(black_box([-3, -3])).unwrap()))
    });
    // A spec built once and passed by reference (a graph reuses its specs): the view path
    // without the spec's construction.
    let spec = Np::new([4096, 4096], Order::C);
    g.bench_function("reshape_with_prebuilt_spec", |b| {
        b.iter(|| black_box(black_box(&a).reshape_with(black_box(&spec)).unwrap()))
    });
    g.bench_function("reshape_view_prebuilt_spec", |b| {
        b.iter(|| black_box(black_box(&a).reshape_view(black_box(&spec)).unwrap()))
    });
    // Rank-typed results, against `to_shape` to a typed `Ix2` shape.
    g.bench_function("reshape_view_ix2_prebuilt_spec", |b| {
        b.iter(|| {
            black_box(
                black_box(&a)
                    .reshape_view(black_box(&spec).dim::<Ix2>())
                    .unwrap(),
            )
        })
    });
    g.bench_function("reshape_with_ix2_prebuilt_spec", |b| {
        b.iter(|| {
            black_box(
                black_box(&a)
                    .reshape_with(black_box(&spec).dim::<Ix2>())
                    .unwrap(),
            )
        })
    });
    g.finish();
}

/// A strided input that still allows a view (negative step, then a split): the solver path.
fn strided(c: &mut Criterion) {
    let a = Array::<f32, _>::zeros((64, 64, 64));
    let v = a.slice(s![..;-1, .., 1..;2]);
    let mut g = c.benchmark_group("view_strided_3d_split");
    g.measurement_time(Duration::from_secs(2));
    g.bench_function("ndarray_to_shape_ixdyn", |b| {
        b.iter(|| {
            black_box(
                black_box(&v)
                    .to_shape(black_box(IxDyn(&[8, 8, 64, 32])))
                    .unwrap(),
            )
        })
    });
    g.bench_function("ndarray_to_shape_ix4", |b| {
        b.iter(|| black_box(black_box(&v).to_shape(black_box((8, 8, 64, 32))).unwrap()))
    });
    g.bench_function("reshape_with", |b| {
        b.iter(|| {
            let spec = Mx::new(black_box([-4, 8, 8, -2]));
            black_box(black_box(&v).reshape_with(spec).unwrap())
        })
    });
    // The same target written out, as `to_shape` gets it: the view path without MXNet's `-4`.
    let np = Np::new([8, 8, 64, 32], Order::C);
    g.bench_function("reshape_with_np_prebuilt_spec", |b| {
        b.iter(|| black_box(black_box(&v).reshape_with(black_box(&np)).unwrap()))
    });
    g.bench_function("reshape_with_ix4_np_prebuilt_spec", |b| {
        b.iter(|| {
            black_box(
                black_box(&v)
                    .reshape_with(black_box(&np).dim::<Ix4>())
                    .unwrap(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, contiguous, strided);
criterion_main!(benches);

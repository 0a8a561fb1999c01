//! The copy path: reshapes whose strides need a copy, against ndarray's `to_shape` (and
//! `as_standard_layout`) on the same input in the same run.
//!
//! Throughput counts every byte read once and written once (2 x output bytes). Every output is
//! fresh, as a reshape's is, except in the ladder's `*_warm` series (`reshape_copy_into` and
//! `copy_from_slice` into one reused buffer). `cargo bench -p ndarray_reshape_bench --bench copy`; `BENCH_LADDER_MAX_MIB` caps the size
//! ladder (default 1024, i.e. up to 1 GiB outputs).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ndarray::{s, Array, Array2, ArrayView, Ix1, IxDyn, ShapeBuilder};
use ndarray_reshape::{Np, Order, ReshapeExt, ShapeSpec};

fn flat_c<A: Clone + Send + Sync>(v: &ArrayView<'_, A, IxDyn>) -> usize {
    v.reshape_with(Np::new([-1], Order::C)).unwrap().len()
}

fn ndarray_flat<A: Clone>(v: &ArrayView<'_, A, IxDyn>) -> usize {
    let n = v.len();
    v.to_shape(((n,), ndarray::Order::RowMajor)).unwrap().len()
}

/// ours and ndarray on one strided input (f32 or f64), as a criterion group.
fn compare<A: Clone + Send + Sync>(c: &mut Criterion, group: &str, v: ArrayView<'_, A, IxDyn>) {
    let bytes = (v.len() * std::mem::size_of::<A>()) as u64;
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Bytes(2 * bytes));
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.bench_function("ndarray_reshape", |b| {
        b.iter(|| black_box(flat_c(black_box(&v))))
    });
    g.bench_function("ndarray_to_shape", |b| {
        b.iter(|| black_box(ndarray_flat(black_box(&v))))
    });
    g.bench_function("ndarray_as_standard_layout", |b| {
        b.iter(|| black_box(black_box(&v).as_standard_layout().len()))
    });
    g.finish();
}

fn transpose_2d(c: &mut Criterion) {
    let n = 4096;
    let a: Array2<f32> = Array::from_shape_fn((n, n), |(i, j)| (i * n + j) as f32);
    compare(c, "transpose_4096_f32", a.t().into_dyn());
    let a: Array2<f64> = a.mapv(f64::from);
    compare(c, "transpose_4096_f64", a.t().into_dyn());
}

fn permute_4d(c: &mut Criterion) {
    let a = Array::from_shape_fn((64, 64, 64, 64), |(i, j, k, l)| (i ^ j ^ k ^ l) as f32);
    compare(
        c,
        "permute_4d_0231_f32",
        a.view().permuted_axes([0, 2, 3, 1]).into_dyn(),
    );
}

fn stepped(c: &mut Criterion) {
    let n = 4096;
    let a: Array2<f32> = Array::from_shape_fn((n, n), |(i, j)| (i * n + j) as f32);
    compare(
        c,
        "stepped_rows2_cols_rev_f32",
        a.slice(s![..;2, ..;-1]).into_dyn(),
    );
    compare(
        c,
        "stepped_rows_rev_cols3_f32",
        a.slice(s![..;-1, ..;3]).into_dyn(),
    );
}

/// Small arrays (64 bytes to 64 KiB): fixed costs against ndarray's, on a dynamic-rank (`IxDyn`)
/// input as in a converted graph and on a typed `Ix2` input (`*_ix2`), for which ndarray's
/// iteration is much cheaper; `*_ix2_typed` asks for a typed `Ix1` result, as ndarray returns.
fn small(c: &mut Criterion) {
    let mut g = c.benchmark_group("small_transpose_f32");
    g.sample_size(50).measurement_time(Duration::from_secs(2));
    for bytes in [64usize, 256, 1024, 4096, 16384, 32768, 65536] {
        let side = ((bytes / 4) as f64).sqrt() as usize;
        let a: Array2<f32> = Array::from_shape_fn((side, side), |(i, j)| (i * side + j) as f32);
        let v = a.t().into_dyn();
        let t = a.t();
        g.throughput(Throughput::Bytes((2 * side * side * 4) as u64));
        g.bench_with_input(BenchmarkId::new("ndarray_reshape", bytes), &v, |b, v| {
            b.iter(|| black_box(flat_c(black_box(v))))
        });
        g.bench_with_input(BenchmarkId::new("ndarray_to_shape", bytes), &v, |b, v| {
            b.iter(|| black_box(ndarray_flat(black_box(v))))
        });
        g.bench_with_input(
            BenchmarkId::new("ndarray_reshape_ix2", bytes),
            &t,
            |b, t| {
                b.iter(|| {
                    let y = black_box(t).reshape_with(Np::new([-1], Order::C)).unwrap();
                    black_box(y.len())
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("ndarray_reshape_ix2_typed", bytes),
            &t,
            |b, t| {
                b.iter(|| {
                    let y = black_box(t)
                        .reshape_with(Np::new([-1], Order::C).dim::<Ix1>())
                        .unwrap();
                    black_box(y.len())
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("ndarray_to_shape_ix2", bytes),
            &t,
            |b, t| {
                b.iter(|| {
                    let n = t.len();
                    let y = black_box(t)
                        .to_shape(((n,), ndarray::Order::RowMajor))
                        .unwrap();
                    black_box(y.len())
                })
            },
        );
    }
    g.finish();
}

/// Throughput against output size, 1 MiB to 1 GiB, with a fresh `Vec` copy (`memcpy` into
/// new pages) as the page-fault-bound reference.
fn ladder(c: &mut Criterion) {
    let max_mib: usize = std::env::var("BENCH_LADDER_MAX_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let mut g = c.benchmark_group("ladder_transpose_f32");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    let mut mib = 1usize;
    while mib <= max_mib {
        let side = ((mib << 20) as f64 / 4.0).sqrt() as usize;
        let a: Array2<f32> = Array::from_shape_fn((side, side), |(i, j)| (i ^ j) as f32);
        let v = a.t().into_dyn();
        g.throughput(Throughput::Bytes((2 * side * side * 4) as u64));
        g.bench_with_input(BenchmarkId::new("ndarray_reshape", mib), &v, |b, v| {
            b.iter(|| black_box(flat_c(black_box(v))))
        });
        g.bench_with_input(BenchmarkId::new("ndarray_to_shape", mib), &v, |b, v| {
            b.iter(|| black_box(ndarray_flat(black_box(v))))
        });
        let src: Vec<f32> = a.iter().copied().collect();
        g.bench_with_input(BenchmarkId::new("memcpy_fresh", mib), &src, |b, src| {
            b.iter(|| black_box(black_box(src).clone()))
        });
        // The same copies into one reused (warm) output: no allocation, no page faults, so
        // what is left is the engine against the caches and memory.
        let mut buf = vec![0f32; side * side];
        let flat = Np::new([-1], Order::C);
        g.bench_with_input(
            BenchmarkId::new("ndarray_reshape_into_warm", mib),
            &v,
            |b, v| b.iter(|| black_box(v.reshape_copy_into(&flat, &mut buf).unwrap().len())),
        );
        g.bench_with_input(BenchmarkId::new("memcpy_warm", mib), &src, |b, src| {
            b.iter(|| {
                buf.copy_from_slice(black_box(src));
                black_box(buf.len())
            })
        });
        drop((a, buf));
        mib *= 4;
    }
    g.finish();
}

/// `to_layout` against ndarray's ways to the same contiguous copy: a transposed 4096x4096
/// `f32` made C-contiguous (`as_standard_layout().into_owned()`), and a C-contiguous one made
/// F-contiguous (`Array::zeros(shape.f())` then `assign`, what LAPACK callers write).
fn to_layout(c: &mut Criterion) {
    let n = 4096;
    let a: Array2<f32> = Array::from_shape_fn((n, n), |(i, j)| (i * n + j) as f32);
    let bytes = (n * n * std::mem::size_of::<f32>()) as u64;
    let mut g = c.benchmark_group("to_layout_4096_f32");
    g.throughput(Throughput::Bytes(2 * bytes));
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    let t = a.t();
    g.bench_function("to_layout_c", |b| {
        b.iter(|| black_box(black_box(&t).to_layout(Order::C).unwrap().len()))
    });
    g.bench_function("ndarray_as_standard_layout_into_owned", |b| {
        b.iter(|| black_box(black_box(&t).as_standard_layout().into_owned().len()))
    });
    g.bench_function("to_layout_f", |b| {
        b.iter(|| black_box(black_box(&a).to_layout(Order::F).unwrap().len()))
    });
    g.bench_function("ndarray_zeros_f_assign", |b| {
        b.iter(|| {
            let mut f = Array2::<f32>::zeros((n, n).f());
            f.assign(black_box(&a));
            black_box(f.len())
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    transpose_2d,
    permute_4d,
    stepped,
    small,
    ladder,
    to_layout
);
criterion_main!(benches);

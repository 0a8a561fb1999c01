//! This crate's copy engine against the peers a user could pick instead, in one run: the
//! `transpose` crate (a cache-blocked scalar transpose; the 4-D permute is 64 of its 2-D
//! transposes) and memcpy of the same bytes (`copy_from_slice` into a reused buffer for
//! "warm", `to_vec` for "fresh"). Every contestant's result is checked once before timing.
//!
//! Cases: transposes of 64x64, 1024x1024 and 4096x4096 `f32`, 4096x4096 `f64`, and the
//! (64, 64, 64, 64) `f32` permute `[0, 2, 3, 1]`, each read in C order. This crate runs warm
//! (`reshape_copy_into` into a reused buffer) and fresh (`reshape_np`), on a 1-thread rayon pool
//! and on the default pool. GB/s counts every byte read once and written once.
//!
//! The cases of 4 MiB and more also run warm with the source and output in transparent huge
//! pages (this crate on the default pool, and memcpy), which shows what the TLB costs.
//!
//! Then one vector kernel per element size: 1024x1024 transposes of `u8`, `u16`, `f64` and
//! `u128`, warm, one thread, against the `transpose` crate.
//!
//! `cargo bench -p ndarray_reshape_bench --bench peers`; `scripts/bench_peers.py` turns the
//! results into BENCHMARKS.md's ratio table.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ndarray::{Array, ArrayView, IxDyn};
use ndarray_reshape::{Np, Order, ReshapeExt};

/// One case: the strided input (a view of `base`), and how the `transpose` crate computes the
/// same output from `base`'s buffer.
struct Case<A: 'static> {
    name: &'static str,
    /// The C-contiguous input buffer.
    base: &'static [A],
    view: ArrayView<'static, A, IxDyn>,
    /// The shape of `base`, and how `view` is made from a view of it.
    shape: Vec<usize>,
    make: fn(ArrayView<'static, A, IxDyn>) -> ArrayView<'static, A, IxDyn>,
    /// `(batches, input_width, input_height)`: each batch of `base` is an
    /// `input_height x input_width` row-major matrix, transposed into the same batch of the
    /// output.
    peer: (usize, usize, usize),
}

fn leak<A: Clone + 'static>(a: Array<A, IxDyn>) -> &'static Array<A, IxDyn> {
    Box::leak(Box::new(a))
}

fn transposed<A: Copy + From<u16> + 'static>(name: &'static str, n: usize) -> Case<A> {
    let base = leak(Array::from_shape_fn(IxDyn(&[n, n]), |i| {
        A::from(((i[0] * 31 + i[1]) % 65521) as u16)
    }));
    Case {
        name,
        base: base.as_slice().unwrap(),
        view: base.view().reversed_axes(),
        shape: vec![n, n],
        make: |v| v.reversed_axes(),
        peer: (1, n, n),
    }
}

fn permuted() -> Case<f32> {
    let base = leak(Array::from_shape_fn(IxDyn(&[64, 64, 64, 64]), |i| {
        ((i[0] * 7 + i[1] * 5 + i[2] * 3 + i[3]) % 65521) as f32
    }));
    Case {
        name: "permute_64x64x64x64_0231_f32",
        base: base.as_slice().unwrap(),
        view: base.view().permuted_axes(IxDyn(&[0, 2, 3, 1])),
        shape: vec![64; 4],
        make: |v| v.permuted_axes(IxDyn(&[0, 2, 3, 1])),
        // out[i, k, l, j] = in[i, j, k, l]: per i, a 64 x 4096 matrix transposed.
        peer: (64, 64 * 64, 64),
    }
}

/// The `transpose` crate's output for `c`, from the input's own buffer.
fn peer_into<A: Copy>(c: &Case<A>, src: &[A], out: &mut [A]) {
    let (batches, w, h) = c.peer;
    for b in 0..batches {
        let r = b * w * h..(b + 1) * w * h;
        transpose::transpose(&src[r.clone()], &mut out[r], w, h);
    }
}

fn run_case<A: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static>(
    crit: &mut Criterion,
    c: Case<A>,
    one: &rayon::ThreadPool,
) {
    let n = c.view.len();
    let bytes = (n * std::mem::size_of::<A>()) as u64;
    let src: &[A] = c.base;
    let spec = || Np::new([-1], Order::C);
    let expected: Vec<A> = c.view.iter().copied().collect();
    let mut warm = vec![src[0]; n];
    c.view.reshape_copy_into(spec(), &mut warm).unwrap();
    assert_eq!(warm, expected, "{}: reshape_copy_into", c.name);
    let mut peer = vec![src[0]; n];
    peer_into(&c, src, &mut peer);
    assert_eq!(peer, expected, "{}: the transpose crate", c.name);

    let mut g = crit.benchmark_group(c.name);
    g.throughput(Throughput::Bytes(2 * bytes));
    let small = bytes < (1 << 20);
    g.sample_size(if small { 100 } else { 20 })
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(if small { 2 } else { 4 }));
    g.bench_function("ours_warm_1thread", |b| {
        one.install(|| {
            b.iter(|| {
                black_box(&c.view)
                    .reshape_copy_into(spec(), &mut warm)
                    .map(|v| v.len())
            })
        })
    });
    g.bench_function("ours_warm_pool", |b| {
        b.iter(|| {
            black_box(&c.view)
                .reshape_copy_into(spec(), &mut warm)
                .map(|v| v.len())
        })
    });
    g.bench_function("ours_fresh_1thread", |b| {
        one.install(|| {
            b.iter(|| {
                black_box(&c.view)
                    .reshape_np([-1], Order::C)
                    .map(|v| v.len())
            })
        })
    });
    g.bench_function("ours_fresh_pool", |b| {
        b.iter(|| {
            black_box(&c.view)
                .reshape_np([-1], Order::C)
                .map(|v| v.len())
        })
    });
    g.bench_function("transpose_crate_warm_1thread", |b| {
        b.iter(|| peer_into(&c, black_box(src), &mut peer))
    });
    g.bench_function("memcpy_warm", |b| {
        b.iter(|| warm.copy_from_slice(black_box(src)))
    });
    g.bench_function("memcpy_fresh", |b| b.iter(|| black_box(src).to_vec()));
    // The TLB's share: the same warm copies with source and output in huge pages.
    #[cfg(target_os = "linux")]
    if bytes >= 4 << 20 {
        let huge_src: &'static [A] = huge_copy(src);
        let huge_view = (c.make)(ArrayView::from_shape(IxDyn(&c.shape), huge_src).unwrap());
        let huge_out = huge_copy(src);
        huge_view.reshape_copy_into(spec(), huge_out).unwrap();
        assert_eq!(&huge_out[..], &expected[..], "{}: huge pages", c.name);
        g.bench_function("ours_warm_pool_hugepages", |b| {
            b.iter(|| {
                black_box(&huge_view)
                    .reshape_copy_into(spec(), huge_out)
                    .map(|v| v.len())
            })
        });
        g.bench_function("memcpy_warm_hugepages", |b| {
            b.iter(|| huge_out.copy_from_slice(black_box(huge_src)))
        });
    }
    g.finish();
}

/// A leaked copy of `src` in 2 MiB-aligned memory advised to use transparent huge pages.
#[cfg(target_os = "linux")]
fn huge_copy<A: Copy>(src: &[A]) -> &'static mut [A] {
    let bytes = std::mem::size_of_val(src);
    let layout = std::alloc::Layout::from_size_align(bytes, 2 << 20).unwrap();
    // SAFETY: `layout` has a non-zero size (the cases are at least 4 MiB); the advice only
    // concerns the new allocation; `src.len()` elements of `A` are copied into it before the
    // slice over them is made, and the allocation is never freed.
    unsafe {
        let p = std::alloc::alloc(layout);
        assert!(!p.is_null(), "allocation of {bytes} bytes");
        libc::madvise(p.cast(), bytes, libc::MADV_HUGEPAGE);
        std::ptr::copy_nonoverlapping(src.as_ptr(), p.cast::<A>(), src.len());
        std::slice::from_raw_parts_mut(p.cast::<A>(), src.len())
    }
}

/// A 1024 x 1024 transpose of `A` (made from `u8` values): this crate's vector kernel for that
/// element size, warm, against the `transpose` crate, one thread each.
fn element_size<A: Copy + From<u8> + Send + Sync + PartialEq + std::fmt::Debug + 'static>(
    crit: &mut Criterion,
    name: &'static str,
    n: usize,
    one: &rayon::ThreadPool,
) {
    let base = leak(Array::from_shape_fn(IxDyn(&[n, n]), |i| {
        A::from(((i[0] * 31 + i[1] * 7) % 251) as u8)
    }));
    let src = base.as_slice().unwrap();
    let view = base.view().reversed_axes();
    let expected: Vec<A> = view.iter().copied().collect();
    let spec = || Np::new([-1], Order::C);
    let mut warm = vec![src[0]; n * n];
    view.reshape_copy_into(spec(), &mut warm).unwrap();
    assert_eq!(warm, expected, "{name}: reshape_copy_into");
    let mut peer = vec![src[0]; n * n];
    transpose::transpose(src, &mut peer, n, n);
    assert_eq!(peer, expected, "{name}: the transpose crate");

    let mut g = crit.benchmark_group(name);
    g.throughput(Throughput::Bytes(
        2 * (n * n * std::mem::size_of::<A>()) as u64,
    ));
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    g.bench_function("ours_warm_1thread", |b| {
        one.install(|| {
            b.iter(|| {
                black_box(&view)
                    .reshape_copy_into(spec(), &mut warm)
                    .map(|v| v.len())
            })
        })
    });
    g.bench_function("transpose_crate_warm_1thread", |b| {
        b.iter(|| transpose::transpose(black_box(src), &mut peer, n, n))
    });
    g.finish();
}

fn peers(crit: &mut Criterion) {
    let one = ndarray_reshape_bench::pool(1);
    run_case(crit, transposed::<f32>("transpose_64_f32", 64), &one);
    run_case(crit, transposed::<f32>("transpose_1024_f32", 1024), &one);
    run_case(crit, transposed::<f32>("transpose_4096_f32", 4096), &one);
    run_case(crit, transposed::<f64>("transpose_4096_f64", 4096), &one);
    run_case(crit, permuted(), &one);
    element_size::<u8>(crit, "transpose_1024_u8", 1024, &one);
    element_size::<u8>(crit, "transpose_256_u8", 256, &one);
    element_size::<u16>(crit, "transpose_1024_u16", 1024, &one);
    element_size::<u16>(crit, "transpose_256_u16", 256, &one);
    element_size::<f64>(crit, "transpose_1024_f64", 1024, &one);
    element_size::<f64>(crit, "transpose_256_f64", 256, &one);
    element_size::<u128>(crit, "transpose_1024_u128", 1024, &one);
    element_size::<u128>(crit, "transpose_256_u128", 256, &one);
}

criterion_group!(benches, peers);
criterion_main!(benches);

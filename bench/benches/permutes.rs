//! This crate's permuting copies against the fastest out-of-place transposers there are, on the
//! relayouts models do: HPTT (C++, through the `hptt` bindings, with OpenMP; only with the
//! bench member's `hptt` feature), `strided-perm` (a Rust port of HPTT, threads through
//! `threadteam`), the `transpose` crate on the 2-D cases, and memcpy of the same bytes.
//!
//! Every contestant writes into a reused, C-contiguous output buffer (warm), reading the
//! C-contiguous input permuted by the case's axes (NumPy's `transpose(x, perm)` made
//! contiguous), once on one thread and once on two. Every result is checked against ndarray's
//! own iteration before timing. GB/s counts every byte read once and written once.
//!
//! `python3 scripts/bench_peers.py permutes` builds HPTT with its AVX kernels, runs this bench
//! and prints BENCHMARKS.md's table; without HPTT:
//! `cargo bench -p ndarray_reshape_bench --bench permutes`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ndarray::{Array, ArrayView, IxDyn};
use ndarray_reshape::{Np, Order, ReshapeExt};
use strided_view::{StridedView, StridedViewMut};
use threadteam::{Exec, Pool};

/// The element types of the cases, with their HPTT entry point.
trait Elem: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    fn of(i: usize) -> Self;
    /// HPTT's row-major transpose of `src` (of `shape`) by `perm` into `out`.
    #[cfg(feature = "hptt")]
    fn hptt(perm: &[usize], src: &[Self], shape: &[usize], out: &mut [Self], threads: usize);
}

/// `Elem` for a float type with its HPTT function; values are exact (no case has more than
/// 2^24 elements).
macro_rules! elem {
    ($t:ty, $hptt:ident) => {
        impl Elem for $t {
            fn of(i: usize) -> Self {
                i as $t
            }
            #[cfg(feature = "hptt")]
            fn hptt(perm: &[usize], src: &[$t], shape: &[usize], out: &mut [$t], threads: usize) {
                let order = hptt::MemoryOrder::RowMajor;
                hptt::$hptt(perm, 1.0, src, shape, 0.0, out, threads, order).unwrap();
            }
        }
    };
}
elem!(f32, transpose_f32);
elem!(f64, transpose_f64);

/// The cases: `(criterion group, input shape, permutation, f64 elements)`. The same list is in
/// `scripts/bench_peers.py`.
#[rustfmt::skip]
const CASES: &[(&str, &[usize], &[usize], bool)] = &[
    ("t1024_f32", &[1024, 1024], &[1, 0], false),
    ("t4096_f32", &[4096, 4096], &[1, 0], false),
    ("t4096_f64", &[4096, 4096], &[1, 0], true),
    ("t256_f64", &[256, 256], &[1, 0], true),
    ("p64x4_0231", &[64, 64, 64, 64], &[0, 2, 3, 1], false),
    ("swin_window", &[32, 8, 7, 8, 7, 96], &[0, 1, 3, 2, 4, 5], false),
    ("attention_heads", &[16, 512, 12, 64], &[0, 2, 1, 3], false),
    ("channel_shuffle", &[32, 4, 58, 28, 28], &[0, 2, 1, 3, 4], false),
    ("pixel_shuffle", &[4, 64, 2, 2, 128, 128], &[0, 1, 4, 2, 5, 3], false),
    ("rank6", &[16, 32, 8, 32, 8, 16], &[5, 2, 0, 4, 1, 3], false),
    ("rank8_reversed", &[8; 8], &[7, 6, 5, 4, 3, 2, 1, 0], false),
];

/// C-contiguous strides of `shape`, in elements.
fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut s = vec![1isize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as isize;
    }
    s
}

struct Pools {
    rayon: [rayon::ThreadPool; 2],
    team: Pool,
}

fn case<A: Elem>(
    crit: &mut Criterion,
    (name, shape, perm): (&str, &[usize], &[usize]),
    pools: &Pools,
) {
    let n: usize = shape.iter().product();
    let base = Array::from_iter((0..n).map(A::of))
        .into_shape_with_order(IxDyn(shape))
        .unwrap();
    let src = base.as_slice().unwrap();
    let view: ArrayView<'_, A, IxDyn> = base.view().permuted_axes(IxDyn(perm));
    let out_shape = view.shape().to_vec();
    let expected: Vec<A> = view.iter().copied().collect();
    let spec = || Np::new([-1], Order::C);
    let mut out = vec![A::of(1); n];
    let check = |who: &str, out: &mut Vec<A>| {
        assert_eq!(out, &expected, "{name}: {who}");
        out.fill(A::of(1));
    };

    view.reshape_copy_into(spec(), &mut out).unwrap();
    check("this crate", &mut out);
    let strided_src = StridedView::<A>::new(src, shape, &c_strides(shape), 0)
        .unwrap()
        .permute(perm)
        .unwrap();
    let out_strides = c_strides(&out_shape);
    let strided = |out: &mut [A], exec: Exec<'_>| {
        let mut dst = StridedViewMut::<A>::new(out, &out_shape, &out_strides, 0).unwrap();
        strided_perm::copy_into(&mut dst, &strided_src, exec).unwrap();
    };
    strided(&mut out, Exec::new(&pools.team, 2).unwrap());
    check("strided-perm", &mut out);
    #[cfg(feature = "hptt")]
    {
        A::hptt(perm, src, shape, &mut out, 2);
        check("HPTT", &mut out);
    }
    let two_d = shape.len() == 2;
    if two_d {
        transpose::transpose(src, &mut out, shape[1], shape[0]);
        check("the transpose crate", &mut out);
    }

    let mut g = crit.benchmark_group(name);
    let bytes = (n * std::mem::size_of::<A>()) as u64;
    g.throughput(Throughput::Bytes(2 * bytes));
    let small = bytes < (4 << 20);
    g.sample_size(if small { 50 } else { 15 })
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(if small { 1 } else { 3 }));
    for (threads, pool) in [1, 2].into_iter().zip(&pools.rayon) {
        g.bench_function(format!("ours_{threads}"), |b| {
            pool.install(|| {
                b.iter(|| {
                    black_box(&view)
                        .reshape_copy_into(spec(), &mut out)
                        .map(|v| v.len())
                })
            })
        });
        g.bench_function(format!("strided_perm_{threads}"), |b| {
            let exec = || match threads {
                1 => Exec::serial(),
                _ => Exec::new(&pools.team, threads).unwrap(),
            };
            b.iter(|| strided(&mut out, exec()))
        });
        #[cfg(feature = "hptt")]
        g.bench_function(format!("hptt_{threads}"), |b| {
            b.iter(|| A::hptt(perm, black_box(src), shape, &mut out, threads))
        });
    }
    if two_d {
        g.bench_function("transpose_crate_1", |b| {
            b.iter(|| transpose::transpose(black_box(src), &mut out, shape[1], shape[0]))
        });
    }
    g.bench_function("memcpy", |b| b.iter(|| out.copy_from_slice(black_box(src))));
    g.finish();
}

fn permutes(crit: &mut Criterion) {
    let rayon = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let pools = Pools {
        rayon: [rayon(1), rayon(2)],
        team: Pool::builder().threads(2).build().unwrap(),
    };
    for &(name, shape, perm, f64) in CASES {
        if f64 {
            case::<f64>(crit, (name, shape, perm), &pools);
        } else {
            case::<f32>(crit, (name, shape, perm), &pools);
        }
    }
}

criterion_group!(benches, permutes);
criterion_main!(benches);

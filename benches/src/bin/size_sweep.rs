//! The calls of the crate against the plain ndarray call that does the same thing, over sizes
//! from 1 KiB to 256 MiB (powers of two, and the odd sizes of model code), at 1 and 2 threads:
//! `reduce` against `sum_axis`/`fold_axis`, `pack` against `concatenate`, `rearrange_owned` and
//! `to_layout` against `as_standard_layout`, `convert_layout` against `mapv` of the standard
//! layout, and `reshape_owned` of a transposed view against `to_shape` of it. Each line:
//! `sweep <call> <bytes> t<T>: ours=<µs> ndarray=<µs>`, medians of interleaved calls (ours, then
//! ndarray, in turn), ours on a rayon pool of `T` threads installed once (the caller is one of
//! them); ndarray's calls are single-threaded, so its column is the same call at both counts.
//!
//! `cargo run --release -p ndarray_reshape_bench --bin size_sweep [CALL...] [--max=BYTES]`, or
//! `python3 scripts/bench_peers.py sweep`, which prints the ratio table of BENCHMARKS.md.
use std::hint::black_box;
use std::time::Instant;

use ndarray::{concatenate, Array2, Array3, ArrayView2, Axis};
use ndarray_reshape::convert::Cast;
use ndarray_reshape::{pack, Np, Order, Reduction, ReshapeExt};

/// Medians of `ours` and `theirs` called in turn, as many rounds as fit in about 0.3 s (at
/// least 5, at most 301).
fn pair_us(mut ours: impl FnMut(), mut theirs: impl FnMut()) -> (f64, f64) {
    let t = Instant::now();
    ours();
    theirs();
    let once = t.elapsed().as_secs_f64();
    let rounds = ((0.3 / once.max(1e-9)) as usize).clamp(5, 301) | 1;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        ours();
        a.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        theirs();
        b.push(t.elapsed().as_secs_f64() * 1e6);
    }
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    (a[rounds / 2], b[rounds / 2])
}

/// The sizes in bytes: powers of two from 1 KiB to `max`, and the odd sizes of model code
/// (151 KB, a YOLOv8 head's reduction; 739 KB, a (4, 22, 2100) `f32` slice; 605 KB, a
/// (1, 197, 768) token pack).
fn sizes(max: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (10..=28)
        .map(|k| 1usize << k)
        .filter(|&b| b <= max)
        .collect();
    v.extend(
        [151_200, 605_184, 739_200]
            .into_iter()
            .filter(|&b| b <= max),
    );
    v.sort_unstable();
    v
}

/// A `(rows, cols)` `f32` matrix of about `bytes` bytes, `cols` a multiple of 8.
fn matrix(bytes: usize) -> Array2<f32> {
    let n = (bytes / 4).max(64);
    let cols = ((n as f64).sqrt() as usize).next_multiple_of(8).max(8);
    let rows = (n / cols).max(1);
    Array2::from_shape_fn((rows, cols), |(i, j)| ((i * 31 + j) % 97) as f32)
}

fn line(call: &str, bytes: usize, threads: usize, (ours, theirs): (f64, f64)) {
    println!("sweep {call} {bytes} t{threads}: ours={ours:.2} ndarray={theirs:.2}");
}

fn run(call: &str, bytes: usize, threads: usize) {
    let m = matrix(bytes);
    let t: ArrayView2<'_, f32> = m.t();
    let r = match call {
        // A sum over the contiguous axis and one over the strided axis.
        "reduce_rows" => pair_us(
            || {
                black_box(m.reduce("a b -> a", Reduction::Sum, &[]).unwrap());
            },
            || {
                black_box(m.sum_axis(Axis(1)));
            },
        ),
        "reduce_cols" => pair_us(
            || {
                black_box(m.reduce("a b -> b", Reduction::Sum, &[]).unwrap());
            },
            || {
                black_box(m.sum_axis(Axis(0)));
            },
        ),
        "reduce_max" => pair_us(
            || {
                black_box(m.reduce("a b -> a", Reduction::Max, &[]).unwrap());
            },
            || {
                black_box(m.fold_axis(Axis(1), f32::NEG_INFINITY, |&a, &b| a.max(b)));
            },
        ),
        // A class token beside its patch tokens: `(b, d)` and `(b, n, d)`, d = 768.
        "pack" => {
            let per = (bytes / 4 / 768).max(2);
            let b = (per / 197).max(1);
            let n = (per / b).max(2) - 1;
            let token = Array2::from_shape_fn((b, 768), |(i, j)| (i + j) as f32);
            let patches = Array3::from_shape_fn((b, n, 768), |(i, j, k)| (i + j + k) as f32);
            pair_us(
                || {
                    let parts = [token.view().into_dyn(), patches.view().into_dyn()];
                    black_box(pack(&parts, "b * d").unwrap());
                },
                || {
                    let parts = [token.view().insert_axis(Axis(1)), patches.view()];
                    black_box(concatenate(Axis(1), &parts).unwrap());
                },
            )
        }
        "rearrange_owned" => pair_us(
            || {
                black_box(m.rearrange_owned("a b -> b a", &[]).unwrap());
            },
            || {
                black_box(t.as_standard_layout().into_owned());
            },
        ),
        "to_layout" => pair_us(
            || {
                black_box(t.to_layout(Order::C).unwrap());
            },
            || {
                black_box(t.as_standard_layout().into_owned());
            },
        ),
        "convert" => pair_us(
            || {
                black_box(t.convert_layout::<half::f16, _>(Order::C, &Cast).unwrap());
            },
            || {
                black_box(t.as_standard_layout().mapv(half::f16::from_f32));
            },
        ),
        "reshape_copy" => pair_us(
            || {
                black_box(t.reshape_owned(Np::new([-1], Order::C)).unwrap());
            },
            || {
                black_box(t.to_shape(t.len()).unwrap().into_owned());
            },
        ),
        other => panic!("no call {other}"),
    };
    line(call, bytes, threads, r);
}

const CALLS: [&str; 8] = [
    "reduce_rows",
    "reduce_cols",
    "reduce_max",
    "pack",
    "rearrange_owned",
    "to_layout",
    "convert",
    "reshape_copy",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let max = args
        .iter()
        .find_map(|a| a.strip_prefix("--max="))
        .map_or(1 << 28, |m| m.parse().expect("--max=BYTES"));
    let mut calls: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(String::as_str)
        .collect();
    if calls.is_empty() {
        calls = CALLS.to_vec();
    }
    let pools = ndarray_reshape_bench::pools();
    for call in calls {
        for bytes in sizes(max) {
            for (n, pool) in &pools {
                pool.install(|| run(call, bytes, *n));
            }
        }
    }
}

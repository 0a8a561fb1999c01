//! Warm transposes of `n x n` matrices of one element type across many sides, for choosing
//! between copy kernels: the median GB/s (2 x output bytes per copy) of seven timed batches per
//! side, each copy into one reused buffer (`reshape_copy_into`). Run it once per build being
//! compared (say, with and without a kernel in `simd::kernel`), one thread:
//!
//! `RAYON_NUM_THREADS=1 cargo run --release -p ndarray_reshape_bench --bin kernel_sweep -- f32 64 100 256 512`
//!
//! The element type is one of `u8`, `u16`, `f32`, `f64`, `u128`. Wall-clock times on a shared
//! machine drift: compare builds run back to back, twice.
//!
//! With `heads` first, the numbers are row lengths instead: 48 MiB of f32 in `(s, 12, row)`
//! read as `(12, s, row)` (a head split), for choosing between tiles of rows and a row copy:
//!
//! `RAYON_NUM_THREADS=1 cargo run --release -p ndarray_reshape_bench --bin kernel_sweep -- heads 64 256 512 1024`

use std::hint::black_box;
use std::time::Instant;

use ndarray::{Array, IxDyn};
use ndarray_reshape::{Np, Order, ReshapeExt};

/// The median GB/s of warm transposes of an `n x n` matrix of `A`.
fn gbs<A: Copy + Send + Sync + From<u8>>(n: usize) -> f64 {
    let base = Array::from_shape_fn(IxDyn(&[n, n]), |i| {
        A::from(((i[0] * 31 + i[1] * 7) % 251) as u8)
    });
    median_gbs(base.view().reversed_axes())
}

/// The median GB/s of warm head splits of 48 MiB of f32 with rows of `row` elements.
fn heads_gbs(row: usize) -> f64 {
    let s = (12 << 20) / (12 * row);
    let base = Array::from_shape_fn(IxDyn(&[s, 12, row]), |i| (i[2] % 251) as f32);
    median_gbs(base.view().permuted_axes(IxDyn(&[1, 0, 2])))
}

/// The median GB/s of copies of `view` in C order into one reused buffer.
fn median_gbs<A: Copy + Send + Sync + From<u8>>(view: ndarray::ArrayViewD<'_, A>) -> f64 {
    let mut out = vec![A::from(0); view.len()];
    let bytes = 2 * view.len() * std::mem::size_of::<A>();
    let reps = (200_000_000 / bytes).clamp(3, 20_000);
    let mut times: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                black_box(&view)
                    .reshape_copy_into(Np::new([-1], Order::C), &mut out)
                    .expect("a transpose of a matrix into a buffer of its size");
            }
            t.elapsed().as_secs_f64() / reps as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    bytes as f64 / times[3] / 1e9
}

fn main() {
    let mut args = std::env::args().skip(1);
    let ty = args.next().unwrap_or_else(|| "f32".to_owned());
    let sides: Vec<usize> = args.filter_map(|s| s.parse().ok()).collect();
    if ty == "heads" {
        for row in sides {
            println!("heads row {row}: {:.1} GB/s", heads_gbs(row));
        }
        return;
    }
    let sides = if sides.is_empty() {
        vec![64, 100, 256, 300, 512, 1024]
    } else {
        sides
    };
    for n in sides {
        let rate = match ty.as_str() {
            "u8" => gbs::<u8>(n),
            "u16" => gbs::<u16>(n),
            "f32" => gbs::<f32>(n),
            "f64" => gbs::<f64>(n),
            "u128" => gbs::<u128>(n),
            other => {
                eprintln!("unknown element type {other}: one of u8, u16, f32, f64, u128");
                std::process::exit(2);
            }
        };
        println!("{ty} {n}x{n}: {rate:.1} GB/s");
    }
}

//! What a parallel copy's ready helper (`src/copy/parallel.rs`) costs what runs after the
//! copy. Each iteration copies a 1024 x 1024 `f32` transpose (4 MiB, parallel) from the main
//! thread with the global pool, then, for `W` microseconds, one of:
//!
//! - `rayon`: arithmetic on both cores, `rayon::join` of two halves on the global pool;
//! - `threads`: arithmetic on both cores, the main thread and one more thread outside rayon
//!   (as an OpenMP team or a BLAS library's threads), woken through a channel;
//! - `idle`: the main thread sleeps.
//!
//! Printed per `W` and kind: microseconds per iteration, wall-clock and CPU time of all the
//! process's threads (`/proc/self/task/*/schedstat`), medians of seven batches of 200
//! iterations. Compare builds with and without the ready helper back to back, twice:
//!
//! `RAYON_NUM_THREADS=2 cargo run --release -p ndarray_reshape_bench --bin standby_cost -- 0 50 200 1000`

use std::hint::black_box;
use std::sync::mpsc;
use std::time::Instant;

use ndarray::{Array, IxDyn};
use ndarray_reshape::{Np, Order, ReshapeExt};

/// Arithmetic for about `us` microseconds (calibrated in `main`), on this thread.
fn spin(iters: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..iters {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

/// CPU time of all the process's threads so far, in microseconds.
fn cpu_us() -> f64 {
    let tasks = std::fs::read_dir("/proc/self/task").expect("Linux's /proc");
    let ns: u64 = tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    ns as f64 / 1e3
}

/// The median wall-clock and CPU microseconds of `f`, over seven batches of 200 calls.
fn median_us(mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..50 {
        f();
    }
    let mut t: Vec<(f64, f64)> = (0..7)
        .map(|_| {
            let (start, cpu) = (Instant::now(), cpu_us());
            for _ in 0..200 {
                f();
            }
            let wall = start.elapsed().as_secs_f64() * 1e6 / 200.0;
            (wall, (cpu_us() - cpu) / 200.0)
        })
        .collect();
    t.sort_by(|a, b| a.0.total_cmp(&b.0));
    t[3]
}

fn main() {
    let widths: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let base = Array::from_shape_fn(IxDyn(&[1024, 1024]), |i| (i[0] ^ i[1]) as f32);
    let view = base.view().reversed_axes();
    let mut out = vec![0f32; view.len()];
    let mut copy = || {
        black_box(&view)
            .reshape_copy_into(Np::new([-1], Order::C), &mut out)
            .expect("a transpose into a buffer of its size");
    };
    let per_us = {
        let t = Instant::now();
        black_box(spin(10_000_000));
        10_000_000.0 / (t.elapsed().as_secs_f64() * 1e6)
    };

    // The thread outside rayon: runs `spin(n)` for every `n` it is sent, and answers.
    let (go, jobs) = mpsc::channel::<u64>();
    let (done, finished) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        for n in jobs {
            black_box(spin(n));
            done.send(()).unwrap();
        }
    });
    let threads = |n: u64| {
        go.send(n).unwrap();
        black_box(spin(n));
        finished.recv().unwrap();
    };
    let rayon = |n: u64| {
        rayon::join(|| black_box(spin(n)), || black_box(spin(n)));
    };

    let idle = |n: u64| std::thread::sleep(std::time::Duration::from_nanos(n));
    let (wall, cpu) = median_us(&mut copy);
    println!("copy alone: {wall:.1} us, CPU {cpu:.1} us");
    for w in widths {
        for (name, work, n) in [
            ("rayon", &rayon as &dyn Fn(u64), (w * per_us) as u64),
            ("threads", &threads, (w * per_us) as u64),
            ("idle", &idle, (w * 1e3) as u64),
        ] {
            let (wall, cpu) = median_us(|| {
                copy();
                work(n);
            });
            println!("W {w} us, {name}: copy then work {wall:.1} us, CPU {cpu:.1} us");
        }
    }
}

//! einops `reduce` on the model cases against plain ndarray, and against a memcpy of the
//! input's bytes (the limit of a reduction, which reads the input once), in one run,
//! interleaved; C-order and transposed inputs; the crate on a rayon pool of 1 and of 2 threads
//! (ndarray's reductions are serial). `f32`.
//!
//! `cargo run --release -p ndarray_reshape_bench --bin reduce_models [rounds]`
//!
//! The ndarray code is what a user writes: `to_shape` to split the pooling windows (a copy when
//! the input is not contiguous) and `fold_axis` over them, `mean_axis` twice for global average
//! pooling, `mean_axis` over tokens.

use std::hint::black_box;
use std::time::Instant;

use ndarray::{Array, ArrayD, ArrayViewD, Axis, IxDyn};
use ndarray_reshape::{Reduction, ReshapeExt};

/// A model case: its name, logical shape, pattern and reduction, the permutation of the
/// transposed layout's storage, and the ndarray code.
struct Case {
    name: &'static str,
    shape: &'static [usize],
    pattern: &'static str,
    reduction: Reduction,
    /// The transposed input is an array of the logical axes in this order, viewed back.
    stored: &'static [usize],
    ndarray: fn(&ArrayViewD<'_, f32>) -> ArrayD<f32>,
}

fn max_pool(x: &ArrayViewD<'_, f32>) -> ArrayD<f32> {
    let s = x.shape();
    let (b, c, h, w) = (s[0], s[1], s[2] / 2, s[3] / 2);
    let split = x.to_shape(IxDyn(&[b, c, h, 2, w, 2])).unwrap();
    let max = |a: &f32, v: &f32| a.max(*v);
    split
        .fold_axis(Axis(5), f32::NEG_INFINITY, max)
        .fold_axis(Axis(3), f32::NEG_INFINITY, max)
}

fn global_average(x: &ArrayViewD<'_, f32>) -> ArrayD<f32> {
    x.mean_axis(Axis(3)).unwrap().mean_axis(Axis(2)).unwrap()
}

fn token_mean(x: &ArrayViewD<'_, f32>) -> ArrayD<f32> {
    x.mean_axis(Axis(1)).unwrap()
}

const CASES: &[Case] = &[
    Case {
        name: "max_pool_2x2_32x64x112x112",
        shape: &[32, 64, 112, 112],
        pattern: "b c (h 2) (w 2) -> b c h w",
        reduction: Reduction::Max,
        stored: &[0, 2, 3, 1],
        ndarray: max_pool,
    },
    Case {
        name: "global_avg_pool_32x512x14x14",
        shape: &[32, 512, 14, 14],
        pattern: "b c h w -> b c",
        reduction: Reduction::Mean,
        stored: &[0, 2, 3, 1],
        ndarray: global_average,
    },
    Case {
        name: "token_mean_32x197x768",
        shape: &[32, 197, 768],
        pattern: "b n d -> b d",
        reduction: Reduction::Mean,
        stored: &[1, 0, 2],
        ndarray: token_mean,
    },
];

/// The best of `rounds` timings of `f`, in ms.
fn best(rounds: usize, mut f: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(9);
    let pools = ndarray_reshape_bench::pools();
    println!(
        "| case | layout | threads | reduce ms | ndarray ms | memcpy ms | vs ndarray | of memcpy |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    for case in CASES {
        let n: usize = case.shape.iter().product();
        let data: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 0.01).collect();
        let c_order = Array::from_shape_vec(IxDyn(case.shape), data.clone()).unwrap();
        let stored_shape: Vec<usize> = case.stored.iter().map(|&k| case.shape[k]).collect();
        let mut inverse = vec![0; case.stored.len()];
        for (i, &k) in case.stored.iter().enumerate() {
            inverse[k] = i;
        }
        let stored = Array::from_shape_vec(IxDyn(&stored_shape), data.clone()).unwrap();
        let transposed = stored.view().permuted_axes(IxDyn(&inverse));
        let mut dst = vec![0f32; n];
        for (layout, x) in [("C", c_order.view()), ("transposed", transposed)] {
            let want = (case.ndarray)(&x);
            for (threads, pool) in &pools {
                let ours = pool.install(|| x.reduce(case.pattern, case.reduction, &[]).unwrap());
                let close = ours
                    .iter()
                    .zip(want.iter())
                    .all(|(a, b)| (a - b).abs() <= 1e-3 * b.abs().max(1.0));
                assert!(
                    close && ours.shape() == want.shape(),
                    "{} {layout}",
                    case.name
                );
                let (mut t_ours, mut t_nd, mut t_copy) =
                    (f64::INFINITY, f64::INFINITY, f64::INFINITY);
                for _ in 0..rounds {
                    t_ours = t_ours.min(best(1, || {
                        black_box(pool.install(|| {
                            x.reduce(case.pattern, case.reduction, &[]).unwrap().len()
                        }));
                    }));
                    t_nd = t_nd.min(best(1, || {
                        black_box((case.ndarray)(&x).len());
                    }));
                    t_copy = t_copy.min(best(1, || {
                        dst.copy_from_slice(black_box(&data));
                        black_box(&dst);
                    }));
                }
                ratios.push(t_nd / t_ours);
                println!(
                    "| {} | {layout} | {threads} | {t_ours:.2} | {t_nd:.2} | {t_copy:.2} | **{:.2}x** | {:.0}% |",
                    case.name,
                    t_nd / t_ours,
                    100.0 * t_copy / t_ours
                );
            }
        }
    }
    let geo = ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64;
    println!("\ngeometric mean against ndarray: {:.2}x", geo.exp());
}

//! The fixed-cost paths of the crate next to ndarray's `to_shape` on the same reshape, for
//! counting instructions under callgrind (`scripts/instr_counts.py`), which is deterministic
//! where wall-clock timings on a shared machine are not.
//!
//! `PATH_NAME=<name> N=<calls> cargo run --release -p ndarray_reshape_bench --bin call_paths` runs one path `N`
//! times; without `PATH_NAME` every path runs once and its result is printed.

use std::hint::black_box;

use ndarray::{s, Array, Array2, ArrayView2, ArrayView3, ArrayView4, Ix1, Ix2, Ix4, IxDyn};
use ndarray_reshape::{Mx, Np, Order, Rearrange, ReshapeExt, ShapeSpec};

/// The inputs every path reads.
struct Inputs<'a> {
    /// Contiguous (64, 64, 64, 64) `f32`, viewed as (4096, 4096).
    contiguous: ArrayView4<'a, f32>,
    /// (64, 64, 64) `f32` sliced `[..;-1, .., 1..;2]`, split as (8, 8, 64, 32): still a view.
    strided: ArrayView3<'a, f32>,
    /// A 4 x 4 `f32` transpose, flattened: a 64-byte copy.
    tiny: ArrayView2<'a, f32>,
    /// An 8 x 8 `f32` transpose, flattened: a 256-byte copy.
    small: ArrayView2<'a, f32>,
    /// A kept einops pattern that splits the last axis of `contiguous` and swaps the middle two
    /// (a view).
    pattern: Rearrange,
}

/// One path: its name (`group/function`; `ndarray_*` functions are the baselines) and the call.
type Path = (&'static str, fn(&Inputs<'_>) -> usize);

const PATHS: &[Path] = &[
    ("view_contiguous/ndarray_to_shape_ixdyn", |x| {
        let v = black_box(&x.contiguous);
        v.to_shape(black_box(IxDyn(&[4096, 4096]))).unwrap().len()
    }),
    ("view_contiguous/reshape_view", |x| {
        let spec = Np::new(black_box([4096, 4096]), Order::C);
        black_box(&x.contiguous).reshape_view(&spec).unwrap().len()
    }),
    ("view_contiguous/reshape_np", |x| {
        let v = black_box(&x.contiguous);
        v.reshape_np(black_box(&[4096, 4096]), Order::C)
            .unwrap()
            .len()
    }),
    ("view_contiguous/reshape_mx", |x| {
        let v = black_box(&x.contiguous);
        v.reshape_mx(black_box([-3, -3])).unwrap().len()
    }),
    ("view_contiguous/ndarray_to_shape_ix2", |x| {
        let v = black_box(&x.contiguous);
        v.to_shape(black_box((4096, 4096))).unwrap().len()
    }),
    ("view_contiguous/reshape_view_ix2", |x| {
        let spec = Np::new(black_box([4096, 4096]), Order::C);
        let v = black_box(&x.contiguous);
        v.reshape_view((&spec).dim::<Ix2>()).unwrap().len()
    }),
    ("view_rearrange/ndarray_to_shape_permuted_ixdyn", |x| {
        let v = black_box(&x.contiguous);
        let split = v.to_shape(black_box(IxDyn(&[64, 64, 64, 8, 8]))).unwrap();
        split
            .permuted_axes(black_box(IxDyn(&[0, 2, 1, 3, 4])))
            .len()
    }),
    ("view_rearrange/reshape_with_kept", |x| {
        let v = black_box(&x.contiguous);
        v.reshape_with(black_box(&x.pattern)).unwrap().len()
    }),
    ("view_rearrange/rearrange", |x| {
        let v = black_box(&x.contiguous);
        v.rearrange(black_box("a b c (d e) -> a c b d e"), &[("e", 8)])
            .unwrap()
            .len()
    }),
    ("view_strided/ndarray_to_shape_ixdyn", |x| {
        let v = black_box(&x.strided);
        v.to_shape(black_box(IxDyn(&[8, 8, 64, 32]))).unwrap().len()
    }),
    ("view_strided/reshape_with_np", |x| {
        let spec = Np::new(black_box([8, 8, 64, 32]), Order::C);
        black_box(&x.strided).reshape_with(&spec).unwrap().len()
    }),
    ("view_strided/reshape_with_mx", |x| {
        let spec = Mx::new(black_box([-4, 8, 8, -2]));
        black_box(&x.strided).reshape_with(&spec).unwrap().len()
    }),
    ("view_strided/ndarray_to_shape_ix4", |x| {
        let v = black_box(&x.strided);
        v.to_shape(black_box((8, 8, 64, 32))).unwrap().len()
    }),
    ("view_strided/reshape_with_ix4", |x| {
        let spec = Np::new(black_box([8, 8, 64, 32]), Order::C);
        let v = black_box(&x.strided);
        v.reshape_with((&spec).dim::<Ix4>()).unwrap().len()
    }),
    ("copy_4x4/ndarray_to_shape_ix1", |x| {
        let v = black_box(&x.tiny);
        v.to_shape(((16,), ndarray::Order::RowMajor)).unwrap().len()
    }),
    ("copy_4x4/reshape_with", |x| {
        let spec = Np::new(black_box([-1]), Order::C);
        black_box(&x.tiny).reshape_with(&spec).unwrap().len()
    }),
    ("copy_4x4/reshape_with_ix1", |x| {
        let spec = Np::new(black_box([-1]), Order::C);
        let v = black_box(&x.tiny);
        v.reshape_with((&spec).dim::<Ix1>()).unwrap().len()
    }),
    ("copy_8x8/ndarray_to_shape_ix1", |x| {
        let v = black_box(&x.small);
        v.to_shape(((64,), ndarray::Order::RowMajor)).unwrap().len()
    }),
    ("copy_8x8/reshape_with", |x| {
        let spec = Np::new(black_box([-1]), Order::C);
        black_box(&x.small).reshape_with(&spec).unwrap().len()
    }),
    ("copy_8x8/reshape_with_ix1", |x| {
        let spec = Np::new(black_box([-1]), Order::C);
        let v = black_box(&x.small);
        v.reshape_with((&spec).dim::<Ix1>()).unwrap().len()
    }),
];

fn main() {
    let a4 = Array::<f32, _>::zeros((64, 64, 64, 64));
    let a3 = Array::<f32, _>::zeros((64, 64, 64));
    let a2 = Array2::<f32>::from_shape_fn((4, 4), |(i, j)| (i * 4 + j) as f32);
    let a8 = Array2::<f32>::from_shape_fn((8, 8), |(i, j)| (i * 8 + j) as f32);
    let x = Inputs {
        contiguous: a4.view(),
        strided: a3.slice(s![..;-1, .., 1..;2]),
        tiny: a2.t(),
        small: a8.t(),
        pattern: Rearrange::new("a b c (d e) -> a c b d e")
            .unwrap()
            .axis("e", 8),
    };
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    match std::env::var("PATH_NAME") {
        Ok(name) => {
            let Some((_, f)) = PATHS.iter().find(|(p, _)| *p == name) else {
                eprintln!("no path {name}; the paths are:");
                PATHS.iter().for_each(|(p, _)| eprintln!("  {p}"));
                std::process::exit(2);
            };
            let total: usize = (0..n).map(|_| f(&x)).sum();
            println!("{name}: {n} calls, {total} elements");
        }
        Err(_) => {
            for (name, f) in PATHS {
                println!("{name}: {} elements", f(&x));
            }
        }
    }
}

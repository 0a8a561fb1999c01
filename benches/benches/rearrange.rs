//! einops relayouts of converted models, three ways to the same fresh C-contiguous result:
//! `rearrange` (one parallel copy read straight from the input), ndarray (`into_shape_with_order`
//! to split, `permuted_axes`, `as_standard_layout`, `into_shape_with_order` to merge: one copy),
//! and the reshape-transpose-reshape chain a NumPy port writes (three copies, as einops runs on
//! NumPy). `f32`, fresh outputs; throughput counts the output's bytes read once and written once.
//! `cargo bench -p ndarray_reshape_bench --bench rearrange`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ndarray::{Array, ArrayD, IxDyn};
use ndarray_reshape::ReshapeExt;

/// A relayout: its name, input shape, pattern and lengths, and the same as split shape,
/// permutation and output shape.
struct Relayout {
    name: &'static str,
    input: &'static [usize],
    pattern: &'static str,
    lengths: &'static [(&'static str, usize)],
    split: &'static [usize],
    perm: &'static [usize],
    output: &'static [usize],
}

const RELAYOUTS: &[Relayout] = &[
    Relayout {
        name: "swin_windows_8x56x56x96",
        input: &[8, 56, 56, 96],
        pattern: "b (h p1) (w p2) c -> (b h w) p1 p2 c",
        lengths: &[("p1", 7), ("p2", 7)],
        split: &[8, 8, 7, 8, 7, 96],
        perm: &[0, 1, 3, 2, 4, 5],
        output: &[512, 7, 7, 96],
    },
    Relayout {
        name: "heads_merge_8x12x196x64",
        input: &[8, 12, 196, 64],
        pattern: "b h n d -> b n (h d)",
        lengths: &[],
        split: &[8, 12, 196, 64],
        perm: &[0, 2, 1, 3],
        output: &[8, 196, 768],
    },
    Relayout {
        name: "pixel_shuffle_8x256x56x56_r2",
        input: &[8, 256, 56, 56],
        pattern: "b (c r1 r2) h w -> b c (h r1) (w r2)",
        lengths: &[("r1", 2), ("r2", 2)],
        split: &[8, 64, 2, 2, 56, 56],
        perm: &[0, 1, 4, 2, 5, 3],
        output: &[8, 64, 112, 112],
    },
    Relayout {
        name: "vit_patches_8x3x224x224_p16",
        input: &[8, 3, 224, 224],
        pattern: "b c (h p1) (w p2) -> b (h w) (p1 p2 c)",
        lengths: &[("p1", 16), ("p2", 16)],
        split: &[8, 3, 14, 16, 14, 16],
        perm: &[0, 2, 4, 3, 5, 1],
        output: &[8, 196, 768],
    },
    Relayout {
        name: "channel_shuffle_32x232x28x28_g2",
        input: &[32, 232, 28, 28],
        pattern: "b (g c) h w -> b (c g) h w",
        lengths: &[("g", 2)],
        split: &[32, 2, 116, 28, 28],
        perm: &[0, 2, 1, 3, 4],
        output: &[32, 232, 28, 28],
    },
];

fn ndarray_one_copy(x: &ArrayD<f32>, r: &Relayout) -> ArrayD<f32> {
    let split = x.view().into_shape_with_order(IxDyn(r.split)).unwrap();
    let t = split
        .permuted_axes(IxDyn(r.perm))
        .as_standard_layout()
        .into_owned();
    t.into_shape_with_order(IxDyn(r.output)).unwrap()
}

fn numpy_chain(x: &ArrayD<f32>, r: &Relayout) -> ArrayD<f32> {
    let a = x.to_shape(IxDyn(r.split)).unwrap().into_owned();
    let b = a
        .permuted_axes(IxDyn(r.perm))
        .as_standard_layout()
        .into_owned();
    b.to_shape(IxDyn(r.output)).unwrap().into_owned()
}

fn relayouts(c: &mut Criterion) {
    for r in RELAYOUTS {
        let n: usize = r.input.iter().product();
        let x = Array::from_iter((0..n).map(|i| i as f32))
            .into_shape_with_order(IxDyn(r.input))
            .unwrap();
        let ours = x.rearrange(r.pattern, r.lengths).unwrap();
        assert!(!ours.is_view(), "{}", r.name);
        assert_eq!(ours, ndarray_one_copy(&x, r), "{}", r.name);
        assert_eq!(ours, numpy_chain(&x, r), "{}", r.name);
        let mut g = c.benchmark_group(format!("rearrange_{}", r.name));
        g.throughput(Throughput::Bytes(2 * 4 * n as u64));
        g.sample_size(20).measurement_time(Duration::from_secs(3));
        g.bench_function("rearrange", |b| {
            b.iter(|| black_box(black_box(&x).rearrange(r.pattern, r.lengths).unwrap().len()))
        });
        g.bench_function("ndarray_permuted_axes_as_standard_layout", |b| {
            b.iter(|| black_box(ndarray_one_copy(black_box(&x), r).len()))
        });
        g.bench_function("numpy_port_reshape_transpose_reshape", |b| {
            b.iter(|| black_box(numpy_chain(black_box(&x), r).len()))
        });
        g.finish();
    }
}

criterion_group!(benches, relayouts);
criterion_main!(benches);

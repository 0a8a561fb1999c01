//! The owned result of a pattern on a strided view (YOLOv8's box slice of a `(4, 84, 2100)`
//! head output, `b k n -> b n k`): `rearrange_owned`, `reshape_owned` of the same spec,
//! `to_layout` of the view, the view's `into_owned` (ndarray's element-by-element copy) and
//! ndarray's `as_standard_layout`. Medians of 51 calls, the contestants interleaved, three
//! rounds. `cargo run --release -p ndarray_reshape_bench --bin owned_pattern`
use std::hint::black_box;
use std::time::Instant;

use ndarray::{s, Array};
use ndarray_reshape::{Order, Rearrange, ReshapeExt};

fn median_us(mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..51)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[25]
}

fn main() {
    let x = Array::from_shape_fn((4, 84, 2100), |(a, b, c)| (a * 7 + b * 3 + c) as f32);
    let v = x.slice(s![.., ..22, ..]);
    let spec = Rearrange::new("b k n -> b n k").unwrap();
    for round in 0..3 {
        let owned = median_us(|| {
            black_box(v.rearrange_owned("b k n -> b n k", &[]).unwrap());
        });
        let spec_owned = median_us(|| {
            black_box(v.reshape_owned(&spec).unwrap());
        });
        let layout = median_us(|| {
            let y = v.rearrange("b k n -> b n k", &[]).unwrap();
            black_box(y.to_layout(Order::C).unwrap());
        });
        let into_owned = median_us(|| {
            black_box(v.rearrange("b k n -> b n k", &[]).unwrap().into_owned());
        });
        let ndarray = median_us(|| {
            black_box(v.permuted_axes([0, 2, 1]).as_standard_layout().into_owned());
        });
        println!(
            "round {round}: rearrange_owned {owned:.1} us, reshape_owned {spec_owned:.1} us, \
             to_layout {layout:.1} us, into_owned {into_owned:.1} us, \
             ndarray as_standard_layout {ndarray:.1} us"
        );
    }
}

//! `pack` against `ndarray::concatenate` of the arrays flattened to `(before, run, after)`:
//! random ranks, run lengths (empty ones too), layouts (stepped, flipped, permuted) and
//! element types (plain and `String`), and inputs past the parallel threshold.

use ndarray::{concatenate, Array, ArrayD, ArrayViewD, Axis, IxDyn};
use ndarray_reshape::pack;

use crate::engine::layout;
use crate::rng::Rng;

/// `x` as `(leading, run, trailing)` in C order.
fn flat<T: Clone>(x: &ArrayViewD<'_, T>, at: usize, after: usize) -> ArrayD<T> {
    let r = x.ndim();
    let lead: usize = x.shape()[..at].iter().product();
    let trail: usize = x.shape()[r - after..].iter().product();
    let run: usize = x.shape()[at..r - after].iter().product();
    let c: Vec<T> = x.iter().cloned().collect();
    Array::from_shape_vec(IxDyn(&[lead, run, trail]), c).unwrap()
}

/// Packs random arrays of `T` (made by `f` from a counter) with `at` leading and `after`
/// trailing fixed dims and checks the result and packed shapes against the reference.
fn check<T: Clone + PartialEq + std::fmt::Debug + Send + Sync>(
    rng: &mut Rng,
    max_dim: usize,
    f: impl Fn(usize) -> T,
) {
    // At most 4 Mi elements in each doubled buffer (a dim is doubled for the layouts).
    let cap = 1usize << 22;
    let small = |dims: &[usize]| dims.iter().map(|d| 2 * d).product::<usize>() <= cap;
    let (at, after, fixed) = loop {
        let (at, after) = (rng.below(3), rng.below(3));
        let fixed: Vec<usize> = (0..at + after).map(|_| 1 + rng.below(max_dim)).collect();
        if small(&fixed) {
            break (at, after, fixed);
        }
    };
    let count = 1 + rng.below(4);
    let mut bigs = Vec::new();
    let mut shapes = Vec::new();
    for _ in 0..count {
        let run = loop {
            let run: Vec<usize> = (0..rng.below(3)).map(|_| rng.below(max_dim + 1)).collect();
            if small(&[&fixed[..], &run[..]].concat()) {
                break run;
            }
        };
        let shape: Vec<usize> = fixed[..at]
            .iter()
            .chain(&run)
            .chain(&fixed[at..])
            .copied()
            .collect();
        let doubled: Vec<usize> = shape.iter().map(|d| 2 * d).collect();
        let n: usize = doubled.iter().product();
        bigs.push(Array::from_shape_vec(IxDyn(&doubled), (0..n).map(&f).collect()).unwrap());
        shapes.push((shape, run));
    }
    let views: Vec<ArrayViewD<'_, T>> = bigs
        .iter_mut()
        .zip(&shapes)
        .map(|(big, (shape, _))| layout(rng, big, shape))
        .collect();
    let names: Vec<String> = (0..at + after).map(|k| format!("f{k}")).collect();
    let pattern = format!("{} * {}", names[..at].join(" "), names[at..].join(" "));
    let (got, packed) = pack(&views, &pattern).unwrap();
    let flats: Vec<ArrayD<T>> = views.iter().map(|v| flat(v, at, after)).collect();
    let parts: Vec<ArrayViewD<'_, T>> = flats.iter().map(|a| a.view()).collect();
    let want = concatenate(Axis(1), &parts).unwrap();
    let mut want_shape = fixed[..at].to_vec();
    want_shape.push(want.shape()[1]);
    want_shape.extend(&fixed[at..]);
    assert_eq!(got.shape(), want_shape.as_slice(), "{pattern}");
    assert!(got.is_standard_layout());
    assert!(got.iter().eq(want.iter()), "{pattern} {shapes:?}");
    let runs: Vec<Vec<usize>> = shapes.into_iter().map(|(_, r)| r).collect();
    assert_eq!(packed, runs);
}

#[test]
fn random_packs_agree_with_concatenate() {
    let mut rng = Rng(0x9ac);
    for _ in 0..150 {
        check(&mut rng, 5, |i| i as f32);
        check(&mut rng, 5, |i| i as u8);
        check(&mut rng, 4, |i| i.to_string());
        check(&mut rng, 4, |i| [i as u16; 3]);
    }
}

#[test]
fn large_packs_take_the_parallel_copies() {
    let mut rng = Rng(0x9ad);
    // Dims up to 64, parts up to the 4 Mi elements `check` allows.
    for side in [64; 6] {
        check(&mut rng, side, |i| i as f32);
        check(&mut rng, side, |i| i as f64);
    }
    // The ViT class token beside its patch tokens, the patches permuted (channels first).
    let token = Array::from_shape_fn((8, 768), |(b, d)| (b * 768 + d) as f32);
    let chw = Array::from_shape_fn((8, 768, 196), |(b, d, n)| (b + d + n) as f32);
    let patches = chw.view().permuted_axes([0, 2, 1]);
    let (got, ps) = pack(&[token.view().into_dyn(), patches.into_dyn()], "b * d").unwrap();
    assert_eq!(ps, vec![vec![], vec![196]]);
    let want = concatenate(Axis(1), &[token.view().insert_axis(Axis(1)), patches]).unwrap();
    assert_eq!(got, want.into_dyn());
}

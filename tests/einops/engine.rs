//! `reduce` against a slow, obviously right reference: random shapes, layouts (permuted,
//! stepped, flipped, broadcast), patterns (kept axes in any order, split groups, unit axes)
//! and every reduction, on `i64`, `f64` (integer values, so sums are exact in any order) and
//! `bool`; large inputs too, for the parallel split, long rows and the pairwise tree.

use ndarray::{Array, ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use ndarray_reshape::{Reduction, ReshapeExt};

use crate::rng::Rng;

/// `base` viewed through a random layout of the same logical shape.
pub(crate) fn layout<'a, T: Clone>(
    rng: &mut Rng,
    big: &'a mut ArrayD<T>,
    shape: &[usize],
) -> ArrayViewD<'a, T> {
    let mut v = big.view();
    // `big` has each dim doubled: step by 2 or take the first half.
    for (k, &len) in shape.iter().enumerate() {
        let slice = match rng.below(2) {
            0 => Slice::new(0, Some(len as isize), 1),
            _ => Slice::new(0, None, 2),
        };
        v.slice_axis_inplace(Axis(k), slice);
        if rng.below(3) == 0 {
            v.invert_axis(Axis(k));
        }
    }
    v
}

/// The reduction of `x` over the axes not in `kept` (output axes in `kept`'s order), by
/// folding every element into its output in C order of the input.
fn reference<T: Copy>(
    x: &ArrayViewD<'_, T>,
    kept: &[usize],
    init: T,
    f: impl Fn(T, T) -> T,
) -> ArrayD<T> {
    let out_shape: Vec<usize> = kept.iter().map(|&k| x.shape()[k]).collect();
    let mut out = Array::from_elem(IxDyn(&out_shape), init);
    for (idx, &v) in x.indexed_iter() {
        let o: Vec<usize> = kept.iter().map(|&k| idx[k]).collect();
        let slot = &mut out[IxDyn(&o)];
        *slot = f(*slot, v);
    }
    out
}

const NAMES: [&str; 5] = ["a", "b", "c", "d", "e"];

/// A random case: shape, kept axes (in output order) and the pattern saying so (with `()`
/// units sprinkled on the right).
fn case(rng: &mut Rng, max_dim: usize) -> (Vec<usize>, Vec<usize>, String) {
    let rank = 1 + rng.below(5);
    let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(max_dim)).collect();
    let mut kept: Vec<usize> = (0..rank).filter(|_| rng.below(2) == 0).collect();
    // Shuffle the kept axes.
    for i in (1..kept.len()).rev() {
        kept.swap(i, rng.below(i + 1));
    }
    let mut right: Vec<String> = kept.iter().map(|&k| NAMES[k].to_string()).collect();
    if rng.below(4) == 0 {
        right.insert(rng.below(right.len() + 1), "()".into());
    }
    let pattern = format!("{} -> {}", NAMES[..rank].join(" "), right.join(" "));
    (shape, kept, pattern)
}

fn check<T>(
    rng: &mut Rng,
    shape: &[usize],
    kept: &[usize],
    pattern: &str,
    value: impl Fn(usize) -> T,
) where
    T: Copy + PartialEq + std::fmt::Debug + Send + Sync + ndarray_reshape::Reducible,
    T: Fold,
{
    let big_shape: Vec<usize> = shape.iter().map(|d| 2 * d).collect();
    let n: usize = big_shape.iter().product();
    let mut big = Array::from_shape_vec(IxDyn(&big_shape), (0..n).map(&value).collect()).unwrap();
    let x = layout(rng, &mut big, shape);
    for r in T::REDUCTIONS {
        let got = x
            .reduce(pattern, *r, &[])
            .unwrap_or_else(|e| panic!("{pattern} {r}: {e}"));
        let (init, f) = T::fold(*r);
        let want = reference(&x, kept, init, f);
        let want = want.iter().copied().collect::<Vec<_>>();
        let got_values: Vec<T> = got.iter().copied().collect();
        assert_eq!(
            got_values,
            want,
            "{pattern} {r} on {:?} strides {:?}",
            x.shape(),
            x.strides()
        );
    }
}

/// The reductions of an element type and their folds.
trait Fold: Sized {
    const REDUCTIONS: &'static [Reduction];
    fn fold(r: Reduction) -> (Self, fn(Self, Self) -> Self);
}

impl Fold for i64 {
    const REDUCTIONS: &'static [Reduction] = &[
        Reduction::Sum,
        Reduction::Prod,
        Reduction::Max,
        Reduction::Min,
    ];
    fn fold(r: Reduction) -> (i64, fn(i64, i64) -> i64) {
        match r {
            Reduction::Sum => (0, |a, b| a.wrapping_add(b)),
            Reduction::Prod => (1, |a, b| a.wrapping_mul(b)),
            Reduction::Max => (i64::MIN, |a, b| a.max(b)),
            _ => (i64::MAX, |a, b| a.min(b)),
        }
    }
}

impl Fold for f64 {
    const REDUCTIONS: &'static [Reduction] = &[Reduction::Sum, Reduction::Max, Reduction::Min];
    fn fold(r: Reduction) -> (f64, fn(f64, f64) -> f64) {
        match r {
            Reduction::Sum => (0.0, |a, b| a + b),
            Reduction::Max => (f64::NEG_INFINITY, |a, b| a.max(b)),
            _ => (f64::INFINITY, |a, b| a.min(b)),
        }
    }
}

impl Fold for bool {
    const REDUCTIONS: &'static [Reduction] = &[
        Reduction::Any,
        Reduction::All,
        Reduction::Max,
        Reduction::Min,
    ];
    fn fold(r: Reduction) -> (bool, fn(bool, bool) -> bool) {
        match r {
            Reduction::Any | Reduction::Max => (false, |a, b| a | b),
            _ => (true, |a, b| a & b),
        }
    }
}

#[test]
fn random_patterns_and_layouts_agree_with_the_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..if cfg!(miri) { 12 } else { 300 } {
        let (shape, kept, pattern) = case(&mut rng, 5);
        check(&mut rng, &shape, &kept, &pattern, |i| (i % 7) as i64 - 3);
        check(&mut rng, &shape, &kept, &pattern, |i| {
            ((i * 31) % 11) as f64 - 5.0
        });
        check(&mut rng, &shape, &kept, &pattern, |i| (i * 7) % 5 != 0);
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn large_inputs_split_tile_and_pair() {
    // Rows past the tile length, more reduced rows than a block, inputs past the parallel
    // threshold, on every layout.
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let shapes: &[(&[usize], &[usize], &str)] = &[
        (&[18, 33_000], &[1], "a b -> b"),
        (&[3, 150, 700], &[0, 2], "a b c -> a c"),
        (&[40, 3, 2000], &[1], "a b c -> b"),
        (&[5, 64, 10, 12], &[0, 1], "a b c d -> a b"),
    ];
    for (shape, kept, pattern) in shapes {
        check(&mut rng, shape, kept, pattern, |i| (i % 5) as i64 - 2);
        check(&mut rng, shape, kept, pattern, |i| {
            ((i * 13) % 9) as f64 - 4.0
        });
    }
}

#[test]
fn nan_propagates_through_max_and_min() {
    let x = ndarray::array![[1.0, f64::NAN, 3.0], [4.0, 5.0, 6.0]].into_dyn();
    for r in [Reduction::Max, Reduction::Min] {
        let y = x.reduce("a b -> a", r, &[]).unwrap();
        assert!(y[[0]].is_nan(), "{r}");
        assert!(!y[[1]].is_nan(), "{r}");
        let y = x.reduce("a b -> b", r, &[]).unwrap();
        assert!(y[[1]].is_nan() && !y[[0]].is_nan(), "{r}");
    }
}

#[test]
#[cfg(feature = "half")]
fn half_types_accumulate_in_f32() {
    use half::{bf16, f16};
    // A thousand f16 tenths: accumulated in f32 the sum rounds to the f16 nearest the exact
    // sum (100.0); f16 partial sums drift off it.
    let tenth = f16::from_f32(0.1);
    let x = Array::from_elem((3, 1000), tenth);
    let exact = 1000.0 * tenth.to_f64();
    let s = x.reduce("a b -> a", Reduction::Sum, &[]).unwrap();
    assert!(
        s.iter().all(|&v| v == f16::from_f64(exact)),
        "{s} against {exact}"
    );
    let naive = (0..1000).fold(f16::ZERO, |a, _| a + tenth);
    assert_ne!(naive, f16::from_f64(exact)); // what an f16 accumulator gives
    let m = x.reduce("a b -> b", Reduction::Mean, &[]).unwrap();
    assert!(m.iter().all(|&v| v == tenth));
    let y = Array::from_shape_fn((4, 6), |(i, j)| bf16::from_f32((i * 6 + j) as f32));
    let mx = y
        .reduce("(a a2) b -> a", Reduction::Max, &[("a2", 2)])
        .unwrap();
    assert_eq!(
        mx.iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
        [11.0, 23.0]
    );
    assert!(y.reduce("a b -> a", Reduction::Any, &[]).is_err());
}

#[test]
fn means_divide_sums_by_the_count() {
    let x = Array::from_iter((0..24).map(f64::from))
        .into_shape_with_order((2, 3, 4))
        .unwrap();
    let m = x.reduce("a b c -> b", Reduction::Mean, &[]).unwrap();
    let want = x.mean_axis(Axis(2)).unwrap().mean_axis(Axis(0)).unwrap();
    assert_eq!(m, want.into_dyn());
    let f = x.mapv(|v| v as f32);
    assert_eq!(
        f.reduce("a b c -> ", Reduction::Mean, &[]).unwrap()[[]],
        11.5
    );
}

#[test]
fn broadcast_inputs_fold_every_repeat() {
    // Stride-0 axes, kept and reduced, innermost and outermost.
    let base = Array::from_iter((0..12).map(|v| v as i64 - 5))
        .into_shape_with_order((3, 1, 4))
        .unwrap();
    let x = base.broadcast((3, 5, 4)).unwrap().into_dyn();
    for (pattern, kept) in [
        ("a b c -> b", vec![1]),
        ("a b c -> a c", vec![0, 2]),
        ("a b c -> c b", vec![2, 1]),
        ("a b c -> ", vec![]),
    ] {
        for r in <i64 as Fold>::REDUCTIONS {
            let got = x.reduce(pattern, *r, &[]).unwrap();
            let (init, f) = i64::fold(*r);
            let want = reference(&x, &kept, init, f);
            assert_eq!(
                got.iter().copied().collect::<Vec<_>>(),
                want.iter().copied().collect::<Vec<_>>(),
                "{pattern} {r}"
            );
        }
    }
    let t = Array::from_elem((1, 6), 2.5f64);
    let wide = t.broadcast((7, 6)).unwrap().into_dyn();
    assert_eq!(
        wide.reduce("a b -> b", Reduction::Mean, &[]).unwrap()[[0]],
        2.5
    );
}

#[test]
#[cfg_attr(miri, ignore)]
fn small_outputs_of_large_inputs_fold_in_parts() {
    // A scalar, three channels, a few columns: outputs too few to split, inputs large enough
    // to fold in parts on a pool of three.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let cases: &[(&[usize], &[usize], &str)] = &[
        (&[300, 200], &[], "a b -> "),
        (&[4, 3, 100, 100], &[1], "a b c d -> b"),
        (&[50_000, 5], &[1], "a b -> b"),
        (&[7, 40, 1000], &[0], "a b c -> a"),
    ];
    pool.install(|| {
        for (shape, kept, pattern) in cases {
            check(&mut rng, shape, kept, pattern, |i| (i % 9) as i64 - 4);
            check(&mut rng, shape, kept, pattern, |i| {
                ((i * 7) % 13) as f64 - 6.0
            });
        }
    });
}

#[test]
#[cfg_attr(miri, ignore)]
fn long_broadcast_axes_fold_in_parts() {
    // A broadcast view a million times longer than its buffer (stride 0), past the parallel
    // threshold with three outputs: folded in parts along the broadcast axis.
    let one = Array::from_elem((1, 3), 2i64);
    let x = one.broadcast((1 << 20, 3)).unwrap().into_dyn();
    let s = x.reduce("a b -> b", Reduction::Sum, &[]).unwrap();
    assert_eq!(s.iter().copied().collect::<Vec<_>>(), [2 << 20; 3]);
    let m = x.reduce("a b -> ", Reduction::Max, &[]).unwrap();
    assert_eq!(m[[]], 2);
}

/// NumPy sums and multiplies integers narrower than 64 bits in 64 bits: the crate refuses them
/// with the widening to make, and sums them right once widened (300 ones of `u8` are 300, not
/// 44).
#[test]
fn narrow_integer_sums_name_their_widening() {
    use ndarray::Array1;
    use ndarray_reshape::{Reduction, ReshapeExt};
    let ones = Array1::<u8>::ones(300);
    let e = ones.reduce("n ->", Reduction::Sum, &[]).unwrap_err();
    assert_eq!(e.category(), "reduction_type");
    assert!(e.to_string().contains("x.mapv(u64::from)"), "{e}");
    let wide = ones.mapv(u64::from);
    assert_eq!(
        wide.reduce("n ->", Reduction::Sum, &[]).unwrap().first(),
        Some(&300)
    );
    let (a, b) = (Array1::<i32>::ones(4), Array1::<i8>::ones(4));
    for e in [
        a.reduce("n ->", Reduction::Prod, &[]).unwrap_err(),
        b.reduce("n ->", Reduction::Sum, &[]).unwrap_err(),
    ] {
        assert!(e.to_string().contains("i64"), "{e}");
    }
    // Max and min keep the type, as NumPy's do.
    assert_eq!(
        ones.reduce("n ->", Reduction::Max, &[]).unwrap().first(),
        Some(&1)
    );
}

//! Every einops error of `reduce`, `pack`, `unpack`, `parse_shape` and the typed ellipsis,
//! pinned: the rule, the words, the pattern and the part at fault.

use ndarray::{Array, ArrayD, IxDyn};
use ndarray_reshape::{pack, parse_shape, Reduce, Reduction, ReshapeError, ReshapeExt};

fn x() -> ArrayD<i64> {
    Array::from_iter(0..24i64)
        .into_shape_with_order(IxDyn(&[2, 3, 4]))
        .unwrap()
}

fn message<T>(r: Result<T, ReshapeError>) -> String {
    match r {
        Ok(_) => "no error".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn reduce_errors() {
    let x = x();
    let cases: Vec<(String, &str)> = vec![
        (
            message("avg".parse::<Reduction>()),
            "unknown_reduction: unknown reduction \"avg\"; einops has min, max, sum, mean, prod, any, all; einops spec reduce \"avg\"",
        ),
        (
            message(x.reduce("a b c -> a z", Reduction::Sum, &[])),
            "bad_pattern: z stands on the right only; reduce adds no axis; einops spec reduce \"a b c -> a z\"",
        ),
        (
            message(x.reduce("a b c -> a 2", Reduction::Sum, &[])),
            "bad_pattern: the anonymous axis 2 stands on the right only; reduce adds no axis; einops spec reduce \"a b c -> a 2\"",
        ),
        (
            message(x.reduce("a b c -> a", Reduction::Mean, &[])),
            "reduction_type: a mean needs a floating-point element type, as in einops; convert the integers first; input shape [2, 3, 4], einops spec reduce \"a b c -> a\" mean",
        ),
        (
            message(x.reduce("a b c -> a", Reduction::Any, &[])),
            "reduction_type: any and all take bool elements; compare the numbers with zero first; input shape [2, 3, 4], einops spec reduce \"a b c -> a\" any",
        ),
        (
            message(Array::<f64, _>::zeros(IxDyn(&[2, 0])).reduce("a b -> a", Reduction::Max, &[])),
            "zero_size_reduction: max of no elements: the reduced axes [1] of the split input are empty; input shape [2, 0], einops spec reduce \"a b -> a\" max",
        ),
        (
            // The shape alone says so: the spec refuses it as the call does.
            message(Reduce::new("a b -> a", Reduction::Max).unwrap().infer_shape(&[2, 0])),
            "zero_size_reduction: max of no elements: the reduced axes [1] of the split input are empty; input shape [2, 0], einops spec reduce \"a b -> a\" max",
        ),
        (
            // An empty output needs no element: both give the shape.
            format!("{:?}", Reduce::new("a b -> a", Reduction::Min).unwrap().infer_shape(&[0, 0])),
            "Ok([0])",
        ),
        (
            message(x.reduce("a (b 2) c -> a", Reduction::Sum, &[])),
            "infer_not_divisible: input dim 1 (3) as (b 2): the other dims multiply to 2, which does not divide the size 3; input shape [2, 3, 4], einops spec reduce \"a (b 2) c -> a\" sum, position 1",
        ),
        (
            message(x.reduce("a b c d -> a", Reduction::Sum, &[])),
            "pattern_rank: the left side names 4 dims, the input has 3; input shape [2, 3, 4], einops spec reduce \"a b c d -> a\" sum",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
    // A mean of integers that reduces nothing is a rearrangement, as in einops.
    assert!(x
        .reduce("a b c -> c b a", Reduction::Mean, &[])
        .unwrap()
        .is_view());
    // Empty reductions with an identity give it (sum 0, prod 1), as NumPy.
    let empty = Array::<i64, _>::zeros(IxDyn(&[2, 0]));
    let p = empty.reduce("a b -> a", Reduction::Prod, &[]).unwrap();
    assert_eq!(p.iter().copied().collect::<Vec<_>>(), [1, 1]);
}

#[test]
fn pack_unpack_and_parse_shape_errors() {
    let x = x();
    let y = Array::from_iter(0..6i64)
        .into_shape_with_order(IxDyn(&[2, 3]))
        .unwrap();
    let cases: Vec<(String, &str)> = vec![
        (message(pack(&[x.view()], "a * * c")), "bad_pattern: * stands twice in the pattern; einops spec pack \"a * * c\""),
        (
            message(pack(&[x.view()], "a c")),
            "bad_pattern: a pack pattern has one * for the packed axes; there is none; einops spec pack \"a c\"",
        ),
        (
            message(pack(&[x.view()], "a _b *")),
            "bad_pattern: \"_b\" is no axis name: axis names neither start nor end with _; einops spec pack \"a _b *\"",
        ),
        (
            message(pack::<i64, IxDyn>(&[], "a *")),
            "bad_pattern: pack takes at least one array; input shape [], einops spec pack \"a *\"",
        ),
        (
            message(pack(&[x.view(), y.view()], "a * c")),
            "dim_mismatch: input 1's fixed axes [2, 3] differ from input 0's [2, 4]; input shape [2, 3], einops spec pack \"a * c\", position 1",
        ),
        (
            message(pack(&[x.view()], "a b c d *")),
            "pattern_rank: input 0 has 3 dims; the pattern names 4 fixed axes; input shape [2, 3, 4], einops spec pack \"a b c d *\", position 0",
        ),
        (
            message(x.unpack("a *", &[vec![5usize]])),
            "pattern_rank: the packed array has 3 dims; the pattern names 1 and the *; input shape [2, 3, 4], einops spec unpack \"a *\"",
        ),
        (
            message(x.unpack("a * c", &[vec![-1i64], vec![-1]])),
            "multiple_infer: one -1 among the packed shapes, which einops infers; input shape [2, 3, 4], einops spec unpack \"a * c\", position 1",
        ),
        (
            message(x.unpack("a * c", &[vec![2i64], vec![2]])),
            "dim_mismatch: the packed shapes hold 4 along the packed axis, which has 3; input shape [2, 3, 4], einops spec unpack \"a * c\"",
        ),
        (
            message(x.unpack("a * c", &[vec![2i64, -1]])),
            "infer_not_divisible: packed shape 0: 3 left on the packed axis is no multiple of its other dims' 2; input shape [2, 3, 4], einops spec unpack \"a * c\", position 0",
        ),
        (
            message(x.unpack("a * c", &[vec![-2i64]])),
            "bad_value: packed shape 0 holds -2, neither a length nor -1; input shape [2, 3, 4], einops spec unpack \"a * c\", position 0",
        ),
        (
            message(parse_shape(&[2, 3], "a (b c)")),
            "bad_pattern: parse_shape takes no group of axes: (b c); input shape [2, 3], einops spec parse_shape \"a (b c)\"",
        ),
        (
            message(parse_shape(&[2, 3], "a 1")),
            "dim_mismatch: dim 1 has length 3 where the pattern has a unit axis; input shape [2, 3], einops spec parse_shape \"a 1\", position 1",
        ),
        (
            message(parse_shape(&[2, 3], "a 4")),
            "dim_mismatch: dim 1 has length 3 where the pattern has 4; input shape [2, 3], einops spec parse_shape \"a 4\", position 1",
        ),
        (
            message(parse_shape(&[2, 3], "a (...)")),
            "bad_pattern: parse_shape takes no ellipsis in parentheses; input shape [2, 3], einops spec parse_shape \"a (...)\"",
        ),
        (
            message(parse_shape(&[2, 3, 4, 5], "a b c")),
            "pattern_rank: the pattern names 3 dims, the shape has 4; input shape [2, 3, 4, 5], einops spec parse_shape \"a b c\"",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}

/// einops 0.8.2 reads a typed `…` (U+2026) as its own ellipsis character: an axis name on a
/// side without a written `...`, the ellipsis on the right of a left side that has one.
#[test]
fn a_typed_ellipsis_reads_as_einops_reads_it() {
    let x = x();
    assert_eq!(
        message(x.rearrange("… -> ... 1", &[])),
        "bad_pattern: an ellipsis on the right needs one on the left; einops spec \"… -> ... 1\""
    );
    // An axis named `…`.
    let y = x.rearrange("a b … -> … b a", &[]).unwrap();
    assert_eq!(y.shape(), &[4, 3, 2]);
    assert_eq!(
        parse_shape(&[2, 3], "a …").unwrap(),
        vec![("a".to_string(), 2), ("…".to_string(), 3)]
    );
    // The left side's `...` on the right.
    let y = x.rearrange("a ... -> … a", &[]).unwrap();
    assert_eq!(y.shape(), &[3, 4, 2]);
    assert_eq!(
        message(x.rearrange("(a …) b c -> a b c", &[])),
        "bad_pattern: the left side may not put the ellipsis in parentheses; einops spec \"(a …) b c -> a b c\""
    );
    assert_eq!(
        message(x.rearrange("a ... … -> a", &[])),
        "bad_pattern: … stands twice on one side; einops spec \"a ... … -> a\", position 6"
    );
}

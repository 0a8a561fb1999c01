//! Every `ReshapeError` variant, its category and its exact message, pinned. Each message names
//! the rule, the input shape, the spec and (where one entry broke the rule) its position.

use ndarray::{array, s, Array};
use ndarray_reshape::args::ShapeItem;
use ndarray_reshape::{
    Like, Mx, Np, Npx, Onnx, Order, Origin, Paddle, ReshapeError, ReshapeExt, ShapeSpec,
};

fn pin(err: ReshapeError, category: &str, position: Option<usize>, message: &str) {
    assert_eq!(err.category(), category, "{err}");
    assert_eq!(err.context().position(), position, "{err}");
    assert_eq!(err.to_string(), message);
    // Lowercase, no trailing period, starts with the rule.
    assert!(message.starts_with(category));
    assert!(!message.ends_with('.'));
    assert_eq!(message.chars().next().map(char::is_lowercase), Some(true));
}

#[test]
fn bad_value() {
    let e = Mx::new([2, -5]).infer_shape(&[2, 3, 4]).unwrap_err();
    assert!(matches!(e, ReshapeError::BadValue(_)));
    pin(
        e,
        "bad_value",
        Some(1),
        "bad_value: value -5 is below -4; input shape [2, 3, 4], mxnet spec [2, -5], position 1",
    );
    let e = Like::new([-3, 2]).infer_shape(&[6]).unwrap_err();
    pin(e, "bad_value", Some(0),
        "bad_value: the rhs shape has a negative dim -3; input shape [6], reshape_like spec rhs shape [-3, 2], position 0");
    let e = Np::new([-2, 3], Order::C).infer_shape(&[6]).unwrap_err();
    pin(e, "bad_value", Some(0),
        "bad_value: value -2 is negative; only -1 means unknown; input shape [6], numpy spec [-2, 3] order C, position 0");
}

#[test]
fn multiple_infer() {
    let e = Mx::new([-1, 3, -1]).infer_shape(&[2, 3, 4]).unwrap_err();
    assert!(matches!(e, ReshapeError::MultipleInfer(_)));
    pin(
        e,
        "multiple_infer",
        Some(2),
        "multiple_infer: a second -1; input shape [2, 3, 4], mxnet spec [-1, 3, -1], position 2",
    );
    // With reverse, positions are still those of the spec as written.
    let e = Mx::new([-1, 3, -1])
        .reverse(true)
        .infer_shape(&[2, 3, 4])
        .unwrap_err();
    pin(e, "multiple_infer", Some(0),
        "multiple_infer: a second -1; input shape [2, 3, 4], mxnet spec [-1, 3, -1] reverse, position 0");
}

#[test]
fn out_of_input() {
    let e = Mx::new([0, 0, 0, 0]).infer_shape(&[2, 3, 4]).unwrap_err();
    assert!(matches!(e, ReshapeError::OutOfInput(_)));
    pin(e, "out_of_input", Some(3),
        "out_of_input: 0 copies the input dim at read position 3, past the input's rank 3; input shape [2, 3, 4], mxnet spec [0, 0, 0, 0], position 3");
}

#[test]
fn split_rules() {
    let e = Mx::new([-2, -4, 1]).infer_shape(&[2, 3, 4]).unwrap_err();
    assert!(matches!(e, ReshapeError::SplitIncomplete(_)));
    pin(e, "split_incomplete", Some(1),
        "split_incomplete: -4 needs two values after it; input shape [2, 3, 4], mxnet spec [-2, -4, 1], position 1");
    let e = Mx::new([-4, -1, -1, -2])
        .infer_shape(&[2, 3, 4])
        .unwrap_err();
    assert!(matches!(e, ReshapeError::SplitBothInfer(_)));
    pin(e, "split_both_infer", Some(0),
        "split_both_infer: -4 -1 -1 leaves both halves unknown; input shape [2, 3, 4], mxnet spec [-4, -1, -1, -2], position 0");
    let e = Mx::new([-4, 3, -1, -2])
        .infer_shape(&[2, 3, 4])
        .unwrap_err();
    assert!(matches!(e, ReshapeError::SplitMismatch(_)));
    pin(e, "split_mismatch", Some(0),
        "split_mismatch: -4 cannot infer a half of 2 next to 3; input shape [2, 3, 4], mxnet spec [-4, 3, -1, -2], position 0");
}

#[test]
fn keep_highest_empty() {
    let e = Mx::target_shape([0usize; 0])
        .keep_highest(true)
        .infer_shape(&[2, 3, 4])
        .unwrap_err();
    assert!(matches!(e, ReshapeError::KeepHighestEmpty(_)));
    assert_eq!(e.context().origin(), Origin::MxLegacy);
    pin(e, "keep_highest_empty", None,
        "keep_highest_empty: keep_highest needs a non-empty target_shape and an input of rank at least 1; input shape [2, 3, 4], mxnet target_shape spec [] keep_highest");
}

#[test]
fn zero_out_of_rank() {
    let e = Paddle::new([1, 2, 3, 0])
        .infer_shape(&[2, 3, 4])
        .unwrap_err();
    assert!(matches!(e, ReshapeError::ZeroOutOfRank(_)));
    pin(e, "zero_out_of_rank", Some(3),
        "zero_out_of_rank: 0 copies the input dim at index 3, past the input's rank 3; input shape [2, 3, 4], paddle spec [1, 2, 3, 0], position 3");
}

#[test]
fn overflow() {
    let e = Paddle::new([1i64 << 62, 4, -1])
        .infer_shape(&[4])
        .unwrap_err();
    assert!(matches!(e, ReshapeError::Overflow(_)));
    pin(e, "overflow", Some(1),
        "overflow: the output dims multiply past 9223372036854775807; input shape [4], paddle spec [4611686018427387904, 4, -1], position 1");
    // Paddle wraps this to 0 elements and succeeds; we do not.
    let e = Paddle::new([4294967296i64, 4294967296])
        .infer_shape(&[0])
        .unwrap_err();
    assert_eq!(e.category(), "overflow");
    // An input shape that no array can have.
    let e = Np::new([-1], Order::C)
        .infer_shape(&[usize::MAX, 2])
        .unwrap_err();
    pin(e, "overflow", None,
        "overflow: the input's dims multiply past 9223372036854775807; input shape [18446744073709551615, 2], numpy spec [-1] order C");
}

#[test]
fn inference_rules() {
    let e = Np::new([0, -1], Order::C).infer_shape(&[0, 3]).unwrap_err();
    assert!(matches!(e, ReshapeError::InferZeroProduct(_)));
    pin(e, "infer_zero_product", Some(1),
        "infer_zero_product: the other dims multiply to 0, so -1 cannot be inferred; input shape [0, 3], numpy spec [0, -1] order C, position 1");
    let e = Np::new([5, -1], Order::C).infer_shape(&[2, 3]).unwrap_err();
    assert!(matches!(e, ReshapeError::InferNotDivisible(_)));
    pin(e, "infer_not_divisible", Some(1),
        "infer_not_divisible: the other dims multiply to 5, which does not divide the size 6; input shape [2, 3], numpy spec [5, -1] order C, position 1");
    let e = Paddle::new([0, -1]).infer_shape(&[0, 0]).unwrap_err();
    assert!(matches!(e, ReshapeError::InferAmbiguous(_)));
    pin(e, "infer_ambiguous", Some(1),
        "infer_ambiguous: the input has 2 zero dims and the spec 1, which leaves -1 undetermined on a zero-size input; input shape [0, 0], paddle spec [0, -1], position 1");
    let e = Paddle::new([0, 0, -1]).infer_shape(&[2, 0, 3]).unwrap_err();
    assert!(matches!(e, ReshapeError::ZeroSizeMismatch(_)));
    pin(e, "zero_size_mismatch", Some(2),
        "zero_size_mismatch: the spec has 2 zero dims and the input 1, and their non-zero dims multiply to 1 and 6; input shape [2, 0, 3], paddle spec [0, 0, -1], position 2");
}

#[test]
fn range_invalid() {
    let e = Like::new([3, 2])
        .lhs(Some(1), Some(1))
        .infer_shape(&[6])
        .unwrap_err();
    assert!(matches!(e, ReshapeError::RangeInvalid(_)));
    pin(e, "range_invalid", None,
        "range_invalid: the lhs range 1..1 (as 1..1) is empty or out of range for rank 1; input shape [6], reshape_like spec rhs shape [3, 2] lhs_begin 1 lhs_end 1");
    let e = Like::new([3, 2])
        .rhs(Some(-3), None)
        .infer_shape(&[6])
        .unwrap_err();
    pin(e, "range_invalid", None,
        "range_invalid: the rhs range -3.. (as -1..2) is empty or out of range for rank 2; input shape [6], reshape_like spec rhs shape [3, 2] rhs_begin -3");
}

#[test]
fn size_mismatch() {
    let e = Mx::new([5, 5]).infer_shape(&[2, 3, 4]).unwrap_err();
    assert!(matches!(e, ReshapeError::SizeMismatch(_)));
    pin(e, "size_mismatch", None,
        "size_mismatch: the output shape [5, 5] has 25 elements, the input 24; input shape [2, 3, 4], mxnet spec [5, 5]");
}

#[test]
fn needs_copy() {
    let x = Array::from_iter(0..24)
        .into_shape_with_order((2, 3, 4))
        .unwrap();
    let e = x.t().reshape_view(Np::new([24], Order::C)).unwrap_err();
    assert!(matches!(e, ReshapeError::NeedsCopy(_)));
    pin(e, "needs_copy", None,
        "needs_copy: strides [1, 4, 12] cannot be read as shape [24] in C order without a copy; input shape [4, 3, 2], numpy spec [24] order C");
    let a = Array::from_iter(0..12).into_shared().slice_move(s![..;2]);
    let _other = a.clone();
    let e = a.into_reshape(Mx::new([2, 3])).unwrap_err();
    pin(e, "needs_copy", None,
        "needs_copy: the ArcArray's buffer is shared and not contiguous in the reading order; into_reshape would have to copy it; input shape [6], mxnet spec [2, 3]");
}

#[test]
fn output_length() {
    let x = Array::from_iter(0..24)
        .into_shape_with_order((2, 3, 4))
        .unwrap();
    let mut buf = [7; 25];
    let e = x.reshape_copy_into(Mx::new([-1, 4]), &mut buf).unwrap_err();
    assert!(matches!(e, ReshapeError::OutputLength(_)));
    assert!(buf.iter().all(|&v| v == 7), "untouched on error");
    pin(e, "output_length", None,
        "output_length: the output buffer holds 25 elements, the copy writes 24; input shape [2, 3, 4], mxnet spec [-1, 4]");
    // The spec's own errors come first.
    let e = x.reshape_copy_into(Mx::new([5]), &mut buf).unwrap_err();
    assert_eq!(e.category(), "size_mismatch");
}

#[test]
fn value_does_not_fit() {
    let e = Mx::new([u64::MAX, 1]).infer_shape(&[2]).unwrap_err();
    assert!(matches!(e, ReshapeError::ValueDoesNotFit(_)));
    pin(e, "value_does_not_fit", Some(0),
        "value_does_not_fit: value 18446744073709551615 does not fit in i64; input shape [2], mxnet spec [18446744073709551615, 1], position 0");
}

#[test]
fn bad_shape_tensor() {
    let e = Paddle::new(&array![[1i32, 2]])
        .infer_shape(&[2])
        .unwrap_err();
    assert!(matches!(e, ReshapeError::BadShapeTensor(_)));
    pin(e, "bad_shape_tensor", Some(0),
        "bad_shape_tensor: a shape tensor must be 1-D, got shape [1, 2]; input shape [2], paddle spec tensor of shape [1, 2], position 0");
    let e = Paddle::new([ShapeItem::from(2), ShapeItem::from(&array![1i64, 2])])
        .infer_shape(&[4])
        .unwrap_err();
    pin(e, "bad_shape_tensor", Some(1),
        "bad_shape_tensor: a shape entry must be a 0-d or one-element integer array, got shape [2]; input shape [4], paddle spec [2, tensor([1, 2])], position 1");
}

#[test]
fn drop_not_one() {
    let e = Npx::new([-3, 6]).infer_shape(&[2, 3]).unwrap_err();
    assert!(matches!(e, ReshapeError::DropNotOne(_)));
    assert_eq!(e.context().origin(), Origin::Npx);
    pin(e, "drop_not_one", Some(0),
        "drop_not_one: -3 drops the input dim 2 at read position 0, which is not 1; input shape [2, 3], mxnet npx spec [-3, 6], position 0");
}

#[test]
fn allowzero_with_infer() {
    let e = Onnx::new([0, -1])
        .allowzero(true)
        .infer_shape(&[2, 0])
        .unwrap_err();
    assert!(matches!(e, ReshapeError::AllowzeroWithInfer(_)));
    assert_eq!(e.context().origin(), Origin::Onnx);
    pin(e, "allowzero_with_infer", Some(0),
        "allowzero_with_infer: with allowzero, a shape may not hold both a 0 and a -1; input shape [2, 0], onnx spec [0, -1] allowzero, position 0");
}

#[test]
fn errors_are_small() {
    // The Ok path stays cheap: the error is one pointer wide plus the tag.
    assert!(std::mem::size_of::<ReshapeError>() <= 16);
    assert!(std::mem::size_of::<Result<(), ReshapeError>>() <= 16);
}

#[test]
fn rank_mismatch() {
    let x = Array::from_iter(0..24)
        .into_shape_with_order((2, 3, 4))
        .unwrap();
    let e = x
        .reshape_with(Mx::new([-1]).dim::<ndarray::Ix2>())
        .unwrap_err();
    assert!(matches!(e, ReshapeError::RankMismatch(_)));
    pin(e, "rank_mismatch", None,
        "rank_mismatch: the spec gives shape [24] of rank 1, the requested dimension type Ix2 has rank 2; input shape [2, 3, 4], mxnet spec [-1]");
    // The rank is checked before the strides: a transposed input asked for the wrong rank in a
    // strict view gets the rank error, not `needs_copy`.
    let e = x
        .t()
        .reshape_view(Np::new([-1], Order::C).dim::<ndarray::Ix3>())
        .unwrap_err();
    assert_eq!(e.category(), "rank_mismatch");
    let e = x
        .t()
        .reshape_view(Np::new([-1], Order::C).dim::<ndarray::Ix1>())
        .unwrap_err();
    assert_eq!(e.category(), "needs_copy");
    // The spec's own errors come first.
    let e = x
        .reshape_owned(Mx::new([5]).dim::<ndarray::Ix2>())
        .unwrap_err();
    assert_eq!(e.category(), "size_mismatch");
}

#[test]
fn allocation_failed() {
    // 2^62 `f32`s (of which 2^20 are stored) copied: 2^64 bytes, past usize::MAX, so the
    // failure is found before any allocator is asked (tests/modes/hostile_sizes.rs asks it too).
    let row = Array::<f32, _>::zeros(1 << 20);
    let x = row.broadcast((1usize << 42, 1 << 20)).unwrap();
    let e = x.reshape_mx([-1]).unwrap_err();
    assert!(matches!(e, ReshapeError::AllocationFailed(_)));
    pin(e, "allocation_failed", None,
        "allocation_failed: cannot allocate the copy's output: 4611686018427387904 elements of 4 bytes, more than 18446744073709551615 bytes; input shape [4398046511104, 1048576], mxnet spec [-1]");
}

#[test]
fn inference_failures_name_the_written_position() {
    // [-4, 2, 3, 4, -1] on [6, 5]: the -1 is output dim 3 but spec entry 4; 2 * 3 * 4 = 24 does
    // not divide 30.
    let e = Mx::new([-4, 2, 3, 4, -1]).infer_shape(&[6, 5]).unwrap_err();
    assert_eq!(e.category(), "infer_not_divisible");
    assert_eq!(e.context().position(), Some(4), "{e}");
    // Reversed, the entries are read from the right: the -1 is output dim 0 but spec entry 2.
    let e = Mx::new([4, 0, -1])
        .reverse(true)
        .infer_shape(&[7, 6, 5])
        .unwrap_err();
    assert_eq!(e.category(), "infer_not_divisible");
    assert_eq!(e.context().position(), Some(2), "{e}");
    // MXNet 2.x: -6 splits, -1 after it.
    let e = Npx::new([-6, 2, 3, 4, -1])
        .infer_shape(&[6, 5])
        .unwrap_err();
    assert_eq!(e.category(), "infer_not_divisible");
    assert_eq!(e.context().position(), Some(4), "{e}");
}

#[test]
fn bad_attribute_has_no_input_shape() {
    let e = Mx::from_attrs([("shape", "(2, x)")]).unwrap_err();
    pin(
        e,
        "bad_attribute",
        Some(1),
        "bad_attribute: expected an integer at \"x)\"; mxnet spec shape=\"(2, x)\", position 1",
    );
    let e = Npx::from_attrs([("newshape", "(2,)"), ("order", "F")]).unwrap_err();
    assert!(!e.to_string().contains("input shape"), "{e}");
    assert!(e.context().input().is_empty() && e.context().symbolic_input().is_none());
}

#[test]
fn backward_inference_shows_the_unknown_dim() {
    let spec = Mx::new([-1, 0]).reverse(true);
    let e = spec
        .infer_input(&[None, Some(3), Some(4)], &[50, 4])
        .unwrap_err();
    pin(
        e,
        "infer_not_divisible",
        None,
        "infer_not_divisible: the known input dims multiply to 12, which does not divide the \
         output's size 200, so input dim 0 cannot be inferred; input shape [?, 3, 4], mxnet spec \
         [-1, 0] reverse",
    );
    let e = spec
        .infer_input(&[None, None, Some(4)], &[50, 4])
        .unwrap_err();
    assert!(e.to_string().contains("input shape [?, ?, 4]"), "{e}");
    // Once filled in, the input is all numbers and shown as such.
    let e = Paddle::new([0, -1])
        .infer_input(&[None, Some(6)], &[3, 4])
        .unwrap_err();
    assert!(e.to_string().contains("input shape [2, 6]"), "{e}");
}

/// The typed spec of `rank_mismatch`'s kind, when the rank is right: it reads in the spec's order
/// (an F-contiguous input in F order is a view with F strides) and gives the untyped values.
#[test]
fn typed_specs_keep_their_order() {
    use ndarray::Ix2;
    let spec = Np::new([3, 2], Order::F).dim::<Ix2>();
    assert_eq!(spec.order(), Order::F);
    let x = Array::from_iter(0..6)
        .into_shape_with_order((2, 3))
        .unwrap();
    let f = x.t();
    let typed = f.reshape_view(&spec).unwrap();
    let plain = f.reshape_view(Np::new([3, 2], Order::F)).unwrap();
    assert_eq!(typed.strides(), plain.strides());
    assert_eq!(typed.strides(), &[1, 3]);
    assert!(typed.iter().eq(plain.iter()));
}

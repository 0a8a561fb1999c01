//! Porting MXNet shape code: the class and box predictions of an SSD detection head, as
//! GluonCV's SSD computes them, step by step, with each step's shape and whether it was a view.
//!
//! Run with `cargo run --example mxnet_port`.

use ndarray::{Array, Array4, ArrayD, IxDyn};
use ndarray_reshape::{Like, Mx, Npx, ReshapeError, ReshapeExt, ShapeSpec};

fn show(step: &str, shape: &[usize], view: bool) {
    let kind = if view { "view" } else { "copy" };
    println!("  {step:<58} -> {shape:?} ({kind})");
}

fn main() -> Result<(), ReshapeError> {
    // One feature map of an SSD head: batch N, A anchors per location, C classes (+1 background).
    let (n, a, c, h, w) = (2usize, 4usize, 20usize, 19usize, 19usize);
    // The class-prediction convolution's output, NCHW: (N, A*(C+1), H, W).
    let cls: Array4<f32> = Array::from_shape_fn((n, a * (c + 1), h, w), |(b, k, y, x)| {
        (b * 1_000_000 + k * 1000 + y * 19 + x) as f32
    });
    println!("class predictions {:?}", cls.shape());

    // mx.nd.transpose(cls, axes=(0, 2, 3, 1)): channels last. A view with permuted strides.
    let t = cls.view().permuted_axes([0, 2, 3, 1]);
    show("transpose(0, 2, 3, 1)", t.shape(), true);

    // reshape(0, 0, 0, -4, A, -1): split the channels into (anchors, classes). The split axis
    // is evenly spaced, so this is still a view of the convolution output.
    let split = t.reshape_mx([0, 0, 0, -4, a as i64, -1])?;
    show(
        "reshape(0, 0, 0, -4, A, -1)",
        split.shape(),
        split.is_view(),
    );

    // reshape(0, -3, -2): merge H and W (contiguous in the transposed layout): a view.
    let merged = split.reshape_mx([0, -3, -2])?;
    show("reshape(0, -3, -2)", merged.shape(), merged.is_view());

    // reshape(0, -1, C+1): every anchor of every location as a row of class scores. The
    // locations and anchors are not evenly spaced in memory any more: MXNet copies, so do we.
    let rows = merged.reshape_mx([0, -1, (c + 1) as i64])?;
    show("reshape(0, -1, C+1)", rows.shape(), rows.is_view());
    // The strict mode says so before any copy is made.
    match merged.reshape_view(Mx::new([0, -1, (c + 1) as i64])) {
        Err(e @ ReshapeError::NeedsCopy(_)) => {
            println!("  strict view refused: {}", e.context().detail())
        }
        other => println!("  unexpected: {other:?}"),
    }
    // The values are those of the transposed layout, read row by row.
    assert_eq!(rows[[0, 1, 0]], cls[[0, c + 1, 0, 0]]);

    // Box predictions (N, A*4, H, W) -> (N, H*W*A*4) as GluonCV flattens them, then
    // reshape_like the anchors (1, H*W*A, 4) past the batch axis: the batch size comes from the
    // predictions (dynamic), the rest from the anchors.
    let boxes: Array4<f32> = Array::zeros((n, a * 4, h, w));
    let boxes_nhwc = boxes.view().permuted_axes([0, 2, 3, 1]);
    let flat = boxes_nhwc.reshape_mx([0, -1])?;
    show(
        "box transpose, reshape(0, -1)",
        flat.shape(),
        flat.is_view(),
    );
    let anchors: ArrayD<f32> = ArrayD::zeros(IxDyn(&[1, h * w * a, 4]));
    let like = Like::new(anchors.shape())
        .lhs(Some(1), None)
        .rhs(Some(1), None);
    let per_anchor = flat.reshape_with(like.clone())?;
    show(
        "reshape_like(anchors, lhs_begin=1, rhs_begin=1)",
        per_anchor.shape(),
        per_anchor.is_view(),
    );

    // A graph compiler can check the whole chain on shapes alone, for any batch size.
    for batch in [1usize, 8, 32] {
        let s = Mx::new([0, -1]).infer_shape(&[batch, h, w, a * 4])?;
        let s = like.infer_shape(&s)?;
        println!("  batch {batch:>2}: box predictions per anchor {s:?}");
    }

    // The same head in MXNet 2.x, where mx.npx.reshape renumbers the special values:
    // -2 copies a dim, -5 merges two, -6 splits one, -4 copies the rest.
    println!("MXNet 2.x (npx.reshape):");
    let split = t.reshape_npx([-2, -2, -2, -6, a as i64, -1])?;
    show(
        "npx.reshape(-2, -2, -2, -6, A, -1)",
        split.shape(),
        split.is_view(),
    );
    let merged = split.reshape_npx([-2, -5, -4])?;
    show("npx.reshape(-2, -5, -4)", merged.shape(), merged.is_view());
    let rows2 = merged.reshape_npx([-2, -1, (c + 1) as i64])?;
    show("npx.reshape(-2, -1, C+1)", rows2.shape(), rows2.is_view());
    assert_eq!(rows2, rows);
    // Exporting the graph to ONNX: each reshape lowered to an explicit ONNX Reshape.
    let spec = Npx::new([-2, -5, -4]);
    let onnx = spec.to_onnx(split.shape())?;
    println!(
        "  lowered to ONNX for input {:?}: shape {:?}, allowzero {}",
        split.shape(),
        onnx.shape_values().unwrap_or_default(),
        onnx.is_allowzero()
    );

    // And a mistake is reported with its evidence, not a crash.
    let err = t.reshape_mx([0, 0, 0, -4, 5, -1]).unwrap_err();
    println!("  expected error: {err}");
    Ok(())
}

//! Every dialect in a few lines: MXNet, reshape_like, Paddle, NumPy; a view, a copy, a strict
//! view refusing to copy, and an error.
//!
//! Run with `cargo run --release --example quickstart`.

use ndarray::{array, Array};
use ndarray_reshape::{Like, Mx, Np, Onnx, Order, Paddle, ReshapeError, ReshapeExt, ShapeSpec};

fn main() -> Result<(), ReshapeError> {
    let x = Array::from_iter(0..24)
        .into_shape_with_order((2, 3, 4))
        .unwrap();
    println!("x: shape {:?}", x.shape());

    // MXNet Reshape: -4 splits the next input dim, -2 copies the rest.
    let y = x.reshape_mx([-4, 1, 2, -2])?;
    println!(
        "mxnet  [-4, 1, 2, -2]          -> {:?} view={}",
        y.shape(),
        y.is_view()
    );
    let y = x.reshape_mx(Mx::new([-1, 0]).reverse(true))?;
    println!(
        "mxnet  [-1, 0] reverse         -> {:?} view={}",
        y.shape(),
        y.is_view()
    );

    // MXNet reshape_like: take the shape of another array (any element type), or part of it.
    let rhs = Array::<u8, _>::zeros((6, 4));
    let y = x.reshape_like(&rhs)?;
    println!(
        "like   rhs (6, 4)              -> {:?} view={}",
        y.shape(),
        y.is_view()
    );
    let like = Like::new([1, 2]).lhs(Some(0), Some(1)).rhs(Some(0), None);
    println!(
        "like   lhs[0..1] <- [1, 2]     -> {:?}",
        x.reshape_with(like)?.shape()
    );

    // Paddle: 0 copies the dim at the same index; the shape may be a tensor.
    let y = x.reshape_paddle([0, -1])?;
    println!(
        "paddle [0, -1]                 -> {:?} view={}",
        y.shape(),
        y.is_view()
    );
    let shape_tensor = array![4i64, 6];
    println!(
        "paddle tensor [4, 6]           -> {:?}",
        x.reshape_paddle(&shape_tensor)?.shape()
    );

    // NumPy with an order. A transposed input: F order is a view, C order a copy.
    let t = x.t();
    let f = t.reshape_np([-1], Order::F)?;
    let c = t.reshape_np([-1], Order::C)?;
    println!(
        "numpy  x.T -> [-1] order F     -> view={} first {:?}",
        f.is_view(),
        &f.as_slice().unwrap()[..4]
    );
    println!(
        "numpy  x.T -> [-1] order C     -> view={} first {:?}",
        c.is_view(),
        &c.as_slice().unwrap()[..4]
    );

    // MXNet 2.x npx.reshape (renumbered values) and ONNX Reshape (0 copies by index).
    let y = x.reshape_npx([-2, -6, 3, 1, -2])?;
    println!(
        "npx    [-2, -6, 3, 1, -2]      -> {:?} view={}",
        y.shape(),
        y.is_view()
    );
    let y = x.reshape_onnx(Onnx::new([0, -1]))?;
    println!(
        "onnx   [0, -1]                 -> {:?} view={}",
        y.shape(),
        y.is_view()
    );
    println!(
        "mxnet  [-3, -2] lowered to ONNX: {:?}",
        Mx::new([-3, -2]).to_onnx(x.shape())?
    );

    // Strict mode: a view or an error, never a copy.
    match t.reshape_view(Np::new([24], Order::C)) {
        Err(e @ ReshapeError::NeedsCopy(_)) => println!("expected error (strict view): {e}"),
        other => println!("unexpected: {other:?}"),
    }

    // Shape inference without data, and an error naming rule, input, spec and position.
    println!(
        "infer  paddle [0, -1] on [2, 0, 3] -> {:?}",
        Paddle::new([0, -1]).infer_shape(&[2, 0, 3])?
    );
    let err = x.reshape_mx([-1, 5, -1]).unwrap_err();
    println!("expected error: {err}");
    Ok(())
}

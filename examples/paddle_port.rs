//! Porting Paddle shape code: a reshape driven by a shape tensor computed at run time (with
//! Paddle's `0` and `-1`), a shape list mixing integers and tensors, and the legacy fluid
//! `reshape` with `actual_shape`, `act` and `inplace`.
//!
//! Run with `cargo run --example paddle_port`.

use ndarray::{arr0, Array, Array1, ArrayD, Axis, IxDyn};
use ndarray_reshape::args::ShapeItem;
use ndarray_reshape::fluid::{Act, Reshape};
use ndarray_reshape::{Paddle, ReshapeError, ReshapeExt};

fn main() -> Result<(), ReshapeError> {
    // Multi-head attention: (batch, seq, hidden) -> (batch, seq, heads, hidden / heads), the
    // target shape built at run time as an int32 tensor, as a Paddle graph does with
    // paddle.concat([paddle.shape(x)[:2], paddle.to_tensor([heads, -1])]).
    let (batch, seq, hidden, heads) = (2usize, 5usize, 64usize, 8i32);
    let x: ArrayD<f32> = Array::from_shape_fn(IxDyn(&[batch, seq, hidden]), |i| {
        (i[0] * 10_000 + i[1] * 100 + i[2]) as f32
    });
    // 0 copies the input dim at the same index; -1 is inferred.
    let shape_tensor: Array1<i32> = Array1::from(vec![0, 0, heads, -1]);
    let y = x.reshape_paddle(&shape_tensor)?;
    println!(
        "x {:?} reshaped by tensor {shape_tensor} -> {:?} (view: {})",
        x.shape(),
        y.shape(),
        y.is_view()
    );

    // The same with a list mixing integers and 0-d / one-element tensors.
    let seq_t = arr0(seq as i64);
    let mixed = Paddle::new([
        ShapeItem::from(0),
        ShapeItem::from(&seq_t),
        ShapeItem::from(heads),
        ShapeItem::from(-1),
    ]);
    println!(
        "mixed list [0, tensor({seq}), {heads}, -1]      -> {:?}",
        x.reshape_with(mixed)?.shape()
    );

    // Paddle 3.x on a zero-size batch: every 0 is a literal zero there, and -1 is solved from
    // the non-zero dims when the spec has as many zeros as the input.
    let empty: ArrayD<f32> = ArrayD::zeros(IxDyn(&[0, seq, hidden]));
    let e = empty.reshape_paddle(&Array1::from(vec![0i32, -1, heads]))?;
    println!(
        "zero-size batch {:?} by [0, -1, {heads}] -> {:?}",
        empty.shape(),
        e.shape()
    );
    let err = empty.reshape_paddle(&shape_tensor).unwrap_err();
    println!(
        "zero-size batch by {shape_tensor}: expected error {}",
        err.category()
    );

    // fluid.layers.reshape(x, shape=[-1, 16], actual_shape=t, act='relu', inplace=True):
    // actual_shape wins over shape, the activation runs over the new shape, and inplace reuses
    // the input's buffer.
    let logits: ArrayD<f32> = Array::from_shape_fn(IxDyn(&[4, 8]), |i| i[1] as f32 - 4.0);
    let ptr = logits.as_ptr();
    let actual: Array1<i64> = Array1::from(vec![2, -1]);
    let relu = Reshape::new([-1, 16])
        .actual_shape(&actual)
        .act(Act::Relu)
        .inplace(true);
    let out = relu.run(logits)?;
    println!(
        "fluid reshape(actual_shape=[2, -1], act=relu, inplace) -> {:?}, same buffer: {}",
        out.shape(),
        out.as_ptr() == ptr
    );
    println!(
        "  first row: {:?}",
        out.index_axis(Axis(0), 0).iter().collect::<Vec<_>>()
    );

    // Softmax over the new last axis, on a borrowed input (a fresh array).
    let scores: ArrayD<f64> = Array::from_shape_fn(IxDyn(&[2, 6]), |i| i[1] as f64);
    let probs = Reshape::new([4, 3]).act(Act::Softmax).run_view(&scores)?;
    println!(
        "fluid reshape([4, 3], act=softmax) rows sum to {:?}",
        probs
            .rows()
            .into_iter()
            .map(|r| (r.sum() * 1e6).round() / 1e6)
            .collect::<Vec<_>>()
    );

    // Errors carry the rule, the input shape, the spec and the offending position.
    let err = x
        .reshape_paddle(&Array1::from(vec![0, 0, 0, 0, -1]))
        .unwrap_err();
    println!("expected error: {err}");
    Ok(())
}

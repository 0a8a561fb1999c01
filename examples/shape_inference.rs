//! Shapes only, no data: what a graph compiler or a model converter does to propagate shapes
//! through reshape nodes of several frameworks, the errors it gets back, and what a reshape does
//! to the axes (for a layout pass moving a transpose).
//!
//! Run with `cargo run --example shape_inference`.

use ndarray_reshape::{Like, Mx, MxTarget, Np, Onnx, Order, Paddle, ReshapeError, ShapeSpec};

/// A reshape node of an imported graph.
enum Node {
    Mx(Mx),
    MxTarget(MxTarget),
    Like(Like),
    Paddle(Paddle),
    Np(Np),
}

impl Node {
    fn infer(&self, input: &[usize]) -> Result<Vec<usize>, ReshapeError> {
        match self {
            Node::Mx(s) => s.infer_shape(input),
            Node::MxTarget(s) => s.infer_shape(input),
            Node::Like(s) => s.infer_shape(input),
            Node::Paddle(s) => s.infer_shape(input),
            Node::Np(s) => s.infer_shape(input),
        }
    }
}

fn main() {
    let graph = [
        (
            "mx: reshape(0, -4, 4, -1, -2)",
            Node::Mx(Mx::new([0, -4, 4, -1, -2])),
        ),
        (
            "mx: reshape(-1, 0) reverse",
            Node::Mx(Mx::new([-1, 0]).reverse(true)),
        ),
        (
            "mx: target_shape=(0, 0), keep_highest",
            Node::MxTarget(Mx::target_shape([0, 0]).keep_highest(true)),
        ),
        (
            "reshape_like((7, 16, 2), 0..1 <- 0..2)",
            Node::Like(
                Like::new([7, 16, 2])
                    .lhs(Some(0), Some(1))
                    .rhs(Some(0), Some(2)),
            ),
        ),
        (
            "paddle: reshape([0, -1])",
            Node::Paddle(Paddle::new([0, -1])),
        ),
        (
            "numpy: reshape(-1, 4, order='F')",
            Node::Np(Np::new([-1, 4], Order::F)),
        ),
    ];
    let mut shape = vec![7usize, 16, 2];
    println!("input {shape:?}");
    for (name, node) in &graph {
        match node.infer(&shape) {
            Ok(s) => {
                println!("  {name:<42} -> {s:?}");
                shape = s;
            }
            Err(e) => println!("  {name:<42} !! {e}"),
        }
    }

    // What a converter sees on bad graphs: the rule, the input shape, the spec, the position.
    println!("expected errors:");
    let bad: [(&str, Result<Vec<usize>, ReshapeError>); 5] = [
        ("mx [-1, -1]", Mx::new([-1, -1]).infer_shape(&[6])),
        (
            "mx [-4, 0, -1] (MXNet divides by zero)",
            Mx::new([-4, 0, -1]).infer_shape(&[6]),
        ),
        (
            "paddle [4294967296, 4294967296] on [0] (Paddle wraps)",
            Paddle::new([4_294_967_296i64, 4_294_967_296]).infer_shape(&[0]),
        ),
        (
            "numpy [-2, 3] (NumPy takes any negative)",
            Np::new([-2, 3], Order::C).infer_shape(&[6]),
        ),
        (
            "reshape_like lhs 2..1",
            Like::new([6]).lhs(Some(2), Some(1)).infer_shape(&[2, 3]),
        ),
    ];
    for (name, r) in bad {
        match r {
            Ok(s) => println!("  {name}: {s:?}"),
            Err(e) => println!("  {name}:\n    expected error: {e}"),
        }
    }

    // A layout pass: attention's [B, S, 768] -> [B, S, 12, 64] -> transpose [0, 2, 1, 3]. What
    // does the reshape keep, and can a transpose before the inverse reshape move after it?
    println!("explain:");
    let split = Onnx::new([0, 0, 12, 64]);
    let e = split.explain(&[8, 128, 768]).expect("a valid reshape");
    for g in e.groups() {
        println!(
            "  input axes {:?} -> output axes {:?}: {:?}",
            g.input, g.output, g.kind
        );
    }
    println!(
        "  passes through unchanged (input, output): {:?}",
        e.unmodified_dims()
    );
    // A vision head: x [N, C, H, W] to NHWC ([0, 2, 3, 1]), then [N, H*W, C]. H and W move
    // together, so the transpose can go after the reshape, onto a smaller tensor or into the
    // next layer's own layout.
    let to_tokens = Onnx::new([0, -1, 256]);
    let e = to_tokens
        .explain(&[2, 14, 14, 256])
        .expect("a valid reshape");
    match e.transpose_through(&[0, 2, 3, 1]) {
        Some((t, after)) => {
            println!("  NHWC then [N, H*W, C] = reshape to {t:?}, then permute {after:?}")
        }
        None => println!("  the transpose cuts a group"),
    }
    // Attention's head merge [B, S, 12, 64] -> [B, S, 768] after [0, 2, 1, 3]: S and 12 would
    // have to trade places inside the merged group, so the transpose stays before it.
    let merge = Onnx::new([0, 0, -1]);
    let e = merge.explain(&[8, 128, 12, 64]).expect("a valid reshape");
    match e.transpose_through(&[0, 2, 1, 3]) {
        Some((t, after)) => println!("  moves through: reshape to {t:?}, then {after:?}"),
        None => println!("  [0, 2, 1, 3] before [B, S, 768] cuts the merged group: it stays"),
    }
}

//! Shapes only, no data: what a graph compiler or a model converter does to propagate shapes
//! through reshape nodes of several frameworks, and the errors it gets back.
//!
//! Run with `cargo run --example shape_inference`.

use ndarray_reshape::{Like, Mx, MxTarget, Np, Order, Paddle, ReshapeError, ShapeSpec};

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
}

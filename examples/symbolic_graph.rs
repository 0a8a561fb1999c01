//! A converter's pass over a transformer-style graph with a dynamic batch `B` and sequence
//! length `T`: infer every reshape symbolically (Paddle, MXNet and ONNX nodes), lower each to
//! one ONNX `Reshape` that keeps `B` and `T` dynamic where one exists, and print the runtime
//! asserts a reshape needs.
//!
//! `cargo run --example symbolic_graph`

use ndarray_reshape::{Mx, Onnx, Paddle, ReshapeError, ShapeSpec, SymDim, SymShape};

/// One reshape node of the graph: its name, its spec, and what it is for.
struct Node {
    name: &'static str,
    spec: Box<dyn ShapeSpec<Rank = ndarray::IxDyn>>,
}

fn main() -> Result<(), ReshapeError> {
    let (b, t) = (SymDim::sym("B"), SymDim::sym("T"));
    let k = SymDim::from;
    let heads = 8;
    let hidden = 512;

    // The graph: split the hidden dim into heads (Paddle), fold the heads into the batch for
    // a batched matmul (MXNet -3), unfold them (MXNet -4), merge the heads back (Paddle), and
    // flatten the tokens for the output projection (ONNX).
    let graph = [
        Node {
            name: "split heads (paddle [0, 0, 8, -1])",
            spec: Box::new(Paddle::new([0, 0, heads, -1])),
        },
        Node {
            name: "fold heads into the batch (mxnet (-3, -2))",
            spec: Box::new(Mx::new([-3, -2])),
        },
        Node {
            name: "unfold (mxnet (-4, -1, 8, -2))",
            spec: Box::new(Mx::new([-4, -1, heads, -2])),
        },
        Node {
            name: "merge heads (paddle [0, 0, -1])",
            spec: Box::new(Paddle::new([0, 0, -1])),
        },
        Node {
            name: "flatten tokens (onnx [-1, 512])",
            spec: Box::new(Onnx::new([-1, hidden])),
        },
    ];

    // The input of each node: the first is the graph input; after "split heads" a transpose
    // [0, 2, 1, 3] (not a reshape) puts the heads before the tokens, and after "unfold" the
    // inverse transpose puts them back.
    let mut x: Vec<SymDim> = vec![b.clone(), t.clone(), k(512)];
    for (i, node) in graph.iter().enumerate() {
        let s: SymShape = node.spec.infer_symbolic(&x)?;
        println!("{}", node.name);
        println!("  {} -> {}", show(&x), s);
        match node.spec.to_onnx_symbolic(&x) {
            Ok(onnx) => println!("  onnx: Reshape {onnx}"),
            Err(e) => println!("  onnx: no single Reshape ({})", e.context().detail()),
        }
        for c in s.conditions() {
            println!("  assert {c}");
        }
        x = s.dims().to_vec();
        if i == 0 || i == 2 {
            x.swap(1, 2); // the transposes between the reshapes
        }
    }
    assert_eq!(x, [b.clone() * t.clone(), k(512)]);

    // The same pass catches a reshape that only some batch sizes allow, and one no size allows.
    let odd = Paddle::new([2, -1, 512]).infer_symbolic(&[b.clone(), t.clone(), k(512)])?;
    println!("pairs of tokens (paddle [2, -1, 512]): {odd}");
    assert_eq!(odd.eval(&[("B", 3), ("T", 5)]), None); // 15 tokens do not pair up
    assert_eq!(odd.eval(&[("B", 2), ("T", 5)]), Some(vec![2, 5, 512]));
    match Paddle::new([0, 0, 3, -1]).infer_symbolic(&[b.clone(), t.clone(), k(512)]) {
        Ok(s) => println!("unexpected: {s}"),
        Err(e) => println!("expected error: {e}"),
    }
    // Evaluated for one batch, the shapes are what the concrete inference gives.
    let concrete = Mx::new([-3, 0]).infer_shape(&[4, 7, 512])?;
    let symbolic = Mx::new([-3, 0]).infer_symbolic(&[b, t, k(512)])?;
    assert_eq!(symbolic.eval(&[("B", 4), ("T", 7)]), Some(concrete));
    Ok(())
}

fn show(dims: &[SymDim]) -> String {
    let v: Vec<String> = dims.iter().map(SymDim::to_string).collect();
    format!("[{}]", v.join(", "))
}

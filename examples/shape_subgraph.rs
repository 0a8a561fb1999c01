//! The reshapes of a PyTorch-exported attention block, whose target shapes the graph computes
//! (`Shape -> Gather -> Unsqueeze -> Concat -> Reshape`), evaluated with a symbolic batch `B`
//! and sequence length `T`: each shape value, the inferred output with its conditions, and the
//! one static ONNX `Reshape` it folds to (what onnxruntime's `ReshapeFusion` does by hand).
//!
//! Run with `cargo run --example shape_subgraph`.

use ndarray_reshape::{Onnx, ReshapeError, ShapeSpec, ShapeValue, SymDim};

/// One `Reshape` node: its data input's shape and its computed shape value.
fn show(name: &str, data: &[SymDim], shape: &ShapeValue) -> Result<(), ReshapeError> {
    let spec = Onnx::new(shape);
    let out = spec.infer_symbolic(data)?;
    let fold = spec.to_onnx_symbolic(data)?;
    let data: Vec<String> = data.iter().map(SymDim::to_string).collect();
    println!("{name}");
    println!("  data     [{}]", data.join(", "));
    println!("  shape    {shape}");
    println!("  output   {out}");
    println!("  static   {:?}", fold.shape_values().unwrap_or_default());
    Ok(())
}

fn main() -> Result<(), ReshapeError> {
    let (b, t) = (SymDim::sym("B"), SymDim::sym("T"));
    let (heads, head_dim, hidden) = (12i64, 64i64, 768usize);
    let k = SymDim::from;
    let index = ShapeValue::scalar;

    // q = self.query(x).view(x.size(0), x.size(1), 12, 64): two Gathers, two Unsqueezes, one
    // Concat with the constant [12, 64].
    let q = [b.clone(), t.clone(), k(hidden)];
    let shape_q = ShapeValue::shape_of(&q);
    let batch = shape_q.gather(&index(0))?;
    let seq = shape_q.gather(&index(1))?;
    let split = ShapeValue::concat(&[
        batch.unsqueeze(0)?,
        seq.unsqueeze(0)?,
        ShapeValue::from(vec![heads, head_dim]),
    ])?;
    show("split heads: q.view(B, T, 12, 64)", &q, &split)?;

    // torch.export writes the same as Shape(q, 0, 2) ++ [12, 64]: a Slice with an open end.
    let sliced = ShapeValue::concat(&[
        shape_q.slice(0, 2, 1)?,
        ShapeValue::from(vec![heads, head_dim]),
    ])?;
    assert_eq!(sliced, split);

    // context.permute(0, 2, 1, 3).reshape(B, -1, 12 * 64): the heads merged back, the hidden
    // size computed with Mul from the context's own shape.
    let ctx = [b.clone(), t.clone(), k(12), k(64)];
    let shape_ctx = ShapeValue::shape_of(&ctx);
    let merged = shape_ctx
        .gather(&index(2))?
        .mul(&shape_ctx.gather(&index(3))?)?;
    let merge = ShapeValue::concat(&[
        shape_ctx.gather(&index(0))?.unsqueeze(0)?,
        ShapeValue::from(vec![-1]),
        merged.unsqueeze(0)?,
    ])?;
    show("merge heads: ctx.reshape(B, -1, 12 * 64)", &ctx, &merge)?;

    // A chunked attention's x.view(B, T // 2, 2, 768): ONNX Div truncates, so the result is
    // T/2 only where T is even; the condition travels with the shape and the output.
    let x = [b, t, k(hidden)];
    let shape_x = ShapeValue::shape_of(&x);
    let half = shape_x.gather(&index(1))?.div(&index(2))?;
    let chunks = ShapeValue::concat(&[
        shape_x.gather(&index(0))?.unsqueeze(0)?,
        half.unsqueeze(0)?,
        ShapeValue::from(vec![2, 768]),
    ])?;
    show("chunk pairs: x.view(B, T // 2, 2, 768)", &x, &chunks)?;
    let out = Onnx::new(&chunks).infer_symbolic(&x)?;
    println!("  at B=2, T=10: {:?}", out.eval(&[("B", 2), ("T", 10)]));
    println!(
        "  at B=2, T=9:  {:?} (T odd: the condition fails)",
        out.eval(&[("B", 2), ("T", 9)])
    );

    // A program that is wrong is an error that names the operation, never a panic.
    let err = shape_q.gather(&index(3)).unwrap_err();
    println!("a bad program: {err}");
    Ok(())
}

//! einops in model code: pooling and averaging with `reduce`, a class token packed beside the
//! patch tokens and split back with `unpack`, detection heads of three scales packed into one
//! set of predictions, lengths named with `parse_shape`, and the same shapes without data for
//! a graph compiler (symbolic dims, ONNX nodes).
//!
//! `cargo run --example einops_models`

use ndarray::{Array, Array2, Array4};
use ndarray_reshape::{
    pack, parse_shape, Pack, Reduce, Reduction, ReshapeError, ReshapeExt, SymDim,
};

fn main() -> Result<(), ReshapeError> {
    // A feature map, NCHW.
    let x = Array::from_shape_fn((2, 16, 8, 8), |(b, c, h, w)| {
        (b * 7 + c * 3 + h * 8 + w) as f32
    });
    let pooled = x.reduce("b c (h 2) (w 2) -> b c h w", Reduction::Max, &[])?;
    println!("2x2 max pooling: {:?} -> {:?}", x.shape(), pooled.shape());
    let gap = x.reduce("b c h w -> b c () ()", Reduction::Mean, &[])?;
    println!(
        "global average pooling: {:?}, first {}",
        gap.shape(),
        gap[[0, 0, 0, 0]]
    );
    // The same on a channels-last tensor, read where it lies.
    let nhwc = x.view().permuted_axes([0, 2, 3, 1]);
    let gap_nhwc = nhwc.reduce("b h w c -> b c () ()", Reduction::Mean, &[])?;
    println!("from NHWC, read in place: equal = {}", gap_nhwc == gap);

    // ViT: a class token beside 16 patch tokens, then split back (views of `tokens`).
    let cls = Array2::<f32>::from_elem((2, 64), -1.0);
    let patches = x
        .rearrange(
            "b d (h p1) (w p2) -> b (h w) (p1 p2 d)",
            &[("p1", 2), ("p2", 2)],
        )?
        .into_owned();
    let (tokens, ps) = pack(&[cls.view().into_dyn(), patches.view()], "b * d")?;
    println!("tokens {:?}, packed shapes {ps:?}", tokens.shape());
    let parts = tokens.unpack("b * d", &ps)?;
    println!(
        "unpacked: {:?} and {:?}",
        parts[0].shape(),
        parts[1].shape()
    );
    let mean = tokens.reduce("b n d -> b d", Reduction::Mean, &[])?;
    println!("mean over tokens: {:?}", mean.shape());

    // Detection heads of three scales: (b, h, w, anchors * 6) each, packed into one set.
    let heads: Vec<Array4<f32>> = [8, 4, 2]
        .iter()
        .map(|&s| Array4::<f32>::zeros((2, s, s, 18)))
        .collect();
    let views: Vec<_> = heads.iter().map(|h| h.view()).collect();
    let (all, shapes) = pack(&views, "b * c")?;
    println!("detection heads packed: {:?} from {shapes:?}", all.shape());
    println!("named: {:?}", parse_shape(all.shape(), "batch boxes _")?);

    // The same without data, for a graph compiler.
    let (b, n) = (SymDim::sym("B"), SymDim::sym("N"));
    let spec = Reduce::new("b c (h 2) (w 2) -> b c h w", Reduction::Max)?;
    let s = spec.infer_symbolic(&[b.clone(), SymDim::from(16), n.clone(), n.clone()])?;
    println!("pooling on [B, 16, N, N]: {s}");
    let ops: Vec<&str> = spec
        .to_onnx_nodes(x.shape(), 18)?
        .iter()
        .map(|n| n.op())
        .collect();
    println!("as ONNX nodes (opset 18): {ops:?}");
    let d = SymDim::from(64);
    let (shape, _) =
        Pack::new("b * d")?.pack_symbolic(&[vec![b.clone(), d.clone()], vec![b, n, d]])?;
    let shape: Vec<String> = shape.iter().map(SymDim::to_string).collect();
    println!("packed symbolically: [{}]", shape.join(", "));
    Ok(())
}

//! einops `rearrange` on the relayouts of converted models, as their Rust ports write them:
//! attention heads split and merged, Swin's window partition and its reverse, PixelShuffle, ViT
//! patches; which are views and which copy, and the typed result an inference call wants.
//!
//! `cargo run --example rearrange_models`

use ndarray::{Array, Array4, Ix4};
use ndarray_reshape::{IntoDim, Rearrange, ReshapeExt, ShapeSpec};

fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    // Attention: (batch, tokens, heads * dim) -> (batch, heads, tokens, dim) and back.
    let qkv = Array::from_shape_fn((2, 197, 12 * 64), |(b, t, d)| (b * 1000 + t + d) as f32);
    let heads = qkv.rearrange("b t (h d) -> b h t d", &[("h", 12)])?;
    println!("heads {:?}: a view? {}", heads.shape(), heads.is_view());
    let merged = heads.rearrange("b h t d -> b t (h d)", &[])?;
    println!(
        "merged back {:?}: a view? {} (the view's strides permit it)",
        merged.shape(),
        merged.is_view()
    );

    // Swin: window partition of (B, H, W, C) into (B * nW, 7, 7, C), a copy, and its reverse.
    let x = Array::from_shape_fn((2, 56, 56, 96), |(b, h, w, c)| (b + h * 56 + w + c) as f32);
    let windows = x.rearrange(
        "b (h p1) (w p2) c -> (b h w) p1 p2 c",
        &[("p1", 7), ("p2", 7)],
    )?;
    let back = windows.rearrange(
        "(b h w) p1 p2 c -> b (h p1) (w p2) c",
        &[("b", 2), ("h", 8), ("w", 8)],
    )?;
    println!(
        "windows {:?} (copied: {}), reversed equal: {}",
        windows.shape(),
        !windows.is_view(),
        back == x.view().into_dyn()
    );

    // PixelShuffle (upscale 2): (N, C * 4, H, W) -> (N, C, 2H, 2W), kept as a spec.
    let shuffle = Rearrange::new("n (c r1 r2) h w -> n c (h r1) (w r2)")?
        .axis("r1", 2)
        .axis("r2", 2);
    let feat = Array::from_shape_fn((1, 12, 32, 32), |(_, c, h, w)| {
        (c * 1024 + h * 32 + w) as f32
    });
    // A pattern's result has a dynamic rank (IxDyn): name the rank for a typed array, with the
    // spec (`.dim::<Ix4>()`) or after the call (`.into_dim()`); `let up: Array4<f32> =
    // feat.rearrange(..)?` alone does not compile (E0308).
    let up: Array4<f32> = feat.reshape_with(shuffle.dim::<Ix4>())?.into_owned();
    println!("PixelShuffle {:?} -> {:?}", feat.shape(), up.shape());

    // ViT patches: (N, 3, 224, 224) -> (N, 196, 768), typed with `into_dim`.
    let img = Array::from_shape_fn((2, 3, 224, 224), |(n, c, h, w)| (n + c + h + w) as f32);
    let patches: ndarray::Array3<f32> = img
        .rearrange(
            "n c (h p1) (w p2) -> n (h w) (p1 p2 c)",
            &[("p1", 16), ("p2", 16)],
        )?
        .into_owned()
        .into_dim()?;
    println!("ViT patches {:?}", patches.dim());
    // The same pattern's shape without data, for a graph compiler.
    let spec = Rearrange::new("n c (h p1) (w p2) -> n (h w) (p1 p2 c)")?
        .axis("p1", 16)
        .axis("p2", 16);
    println!(
        "its shape for [8, 3, 224, 224]: {:?}",
        spec.infer_shape(&[8, 3, 224, 224])?
    );
    Ok(())
}

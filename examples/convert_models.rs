//! Relayouts that convert as they copy, as a model's pre- and post-processing calls them:
//! camera frames to a normalized NCHW tensor (the input of an `ort` or `tract` model), the
//! heads of an attention layer stored in a `bf16` KV cache and read back (as `candle` keeps
//! them), a quantized projection with its last two axes swapped, and a convolution's input in
//! oneDNN's `nChw16c` layout, padded, with the ONNX nodes of each.
//!
//! `cargo run --example convert_models`

use half::bf16;
use ndarray::{Array, Array4};
use ndarray_reshape::convert::{Affine, Blocked, Cast, Dequantize, Quantize};
use ndarray_reshape::{IntoDim, Rearrange, ReshapeExt, SymDim};

fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    // Eight 224x224 RGB frames, as a decoder hands them over: (N, H, W, C) u8.
    let frames = Array::from_shape_fn((8, 224, 224, 3), |(n, h, w, c)| {
        ((n * 31 + h + w * 2 + c * 50) % 256) as u8
    });
    // torchvision's to_tensor + normalize, in one pass: (x / 255 - mean[c]) / std[c].
    let norm = Affine::normalize(1, 255.0, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225])?;
    let input: Array4<f32> = frames
        .convert_with(Rearrange::new("n h w c -> n c h w")?, &norm)?
        .into_dim()?;
    println!(
        "frames {:?} u8 -> input {:?} f32, first value {:.4}",
        frames.shape(),
        input.shape(),
        input[[0, 0, 0, 0]]
    );

    // Attention: (batch, tokens, heads * dim) f32 keys into a bf16 cache of (batch, heads, tokens, dim).
    let keys = Array::from_shape_fn((2, 128, 12 * 64), |(b, t, d)| {
        ((b * 7 + t * 3 + d) as f32).sin()
    });
    let split = Rearrange::new("b t (h d) -> b h t d")?.axis("h", 12);
    let cache: Array4<bf16> = keys.convert_with(&split, &Cast)?.into_dim()?;
    let back: Array4<f32> = cache.convert_layout(ndarray_reshape::Order::C, &Cast)?;
    let worst = keys
        .view()
        .into_shape_with_order((2, 128, 12, 64))
        .unwrap()
        .permuted_axes([0, 2, 1, 3])
        .iter()
        .zip(back.iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!(
        "keys {:?} f32 -> cache {:?} bf16, largest rounding {worst:.2e}",
        keys.shape(),
        cache.shape()
    );

    // A quantized linear layer's input: int8 with its last two axes swapped, and back.
    let x = Array::from_shape_fn((4, 256, 384), |(b, t, d)| {
        ((b + t * d) % 17) as f32 * 0.25 - 2.0
    });
    let q = Quantize::<i8>::new(0.02, 0)?;
    let xq = x.convert_with(Rearrange::new("b t d -> b d t")?, &q)?;
    let xd = xq.convert_with(
        Rearrange::new("b d t -> b t d")?,
        &Dequantize::<i8>::new(0.02, 0)?,
    )?;
    let err = x
        .iter()
        .zip(xd.iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!(
        "x {:?} f32 -> {:?} int8 -> back, largest error {err:.3} (scale 0.02)",
        x.shape(),
        xq.shape()
    );

    // A convolution's input in nChw16c: 3 channels padded to one block of 16.
    let blocked = Blocked::new(16)?;
    let packed = blocked.pack(&input, &Cast, 0.0f32)?;
    let unpacked: Array4<f32> = blocked.unpack(&packed, 3, &Cast)?.into_dim()?;
    assert_eq!(unpacked, input);
    println!(
        "input {:?} -> nChw16c {:?} and back",
        input.shape(),
        packed.shape()
    );
    let nodes = blocked.pack_onnx_nodes(
        input.shape(),
        0.0,
        &Blocked::onnx_nodes::<f32, bf16, _>(&Cast, 5)?,
    )?;
    let ops: Vec<&str> = nodes.iter().map(|n| n.op()).collect();
    println!("as ONNX nodes: {}", ops.join(" -> "));
    let dims = ["N", "C", "H", "W"].map(SymDim::sym);
    let shape: Vec<String> = blocked
        .packed_symbolic(&dims)?
        .dims()
        .iter()
        .map(|d| d.to_string())
        .collect();
    println!("nChw16c of [N, C, H, W]: [{}]", shape.join(", "));
    Ok(())
}

//! `StridedSlice` as a backend without ndarray calls it: a tensor kept as a buffer, a shape,
//! element strides and an offset (as candle's, rten's and burn's CPU tensors are), made
//! contiguous after a transpose or a flip, converted to `f16` on the way, and a view of memory
//! that arrives as a raw pointer (a DLPack capsule, a memory-mapped file).
//!
//! `cargo run --example strided_backend`

use half::f16;
use ndarray_reshape::convert::Cast;
use ndarray_reshape::layout::contiguous_strides;
use ndarray_reshape::{Order, ReshapeError, StridedSlice};

/// A CPU tensor of a backend: element `[i, j, ...]` at `buf[offset + i * strides[0] + ...]`.
struct Tensor<T> {
    buf: Vec<T>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
}

impl<T: Copy + Send + Sync> Tensor<T> {
    fn view(&self) -> Result<StridedSlice<'_, T>, ReshapeError> {
        StridedSlice::new(&self.buf, &self.shape, &self.strides, self.offset)
    }

    /// The same tensor, C-contiguous (what a matmul kernel takes).
    fn contiguous(&self) -> Result<Tensor<T>, ReshapeError> {
        Ok(Tensor {
            buf: self.view()?.to_vec(Order::C)?,
            shape: self.shape.clone(),
            strides: contiguous_strides(&self.shape, Order::C),
            offset: 0,
        })
    }

    /// Axes 0 and 1 swapped, without moving data.
    fn transpose01(&self) -> Tensor<T> {
        let (mut shape, mut strides) = (self.shape.clone(), self.strides.clone());
        shape.swap(0, 1);
        strides.swap(0, 1);
        Tensor {
            buf: self.buf.clone(),
            shape,
            strides,
            offset: self.offset,
        }
    }
}

fn main() -> Result<(), ReshapeError> {
    let t = Tensor {
        buf: (0..2 * 3 * 4).map(|v| v as f32).collect(),
        shape: vec![2, 3, 4],
        strides: vec![12, 4, 1],
        offset: 0,
    };
    let tt = t.transpose01();
    let c = tt.contiguous()?;
    println!("transposed (3, 2, 4) made contiguous: {:?}...", &c.buf[..8]);

    // The last axis flipped: stride -1 from the last element of each row.
    let flipped = Tensor {
        strides: vec![12, 4, -1],
        offset: 3,
        ..t.transpose01().transpose01()
    };
    println!("rows flipped: {:?}...", &flipped.contiguous()?.buf[..8]);

    // Contiguous and half precision in one pass (a KV cache's store).
    let half: Vec<f16> = tt.view()?.convert_to_vec(Order::C, &Cast)?;
    println!("as f16: {:?}...", &half[..4]);

    // Memory that arrives as a pointer and a length (here a boxed slice standing in for it).
    let foreign: Box<[f32]> = (0..12).map(|v| v as f32 * 0.5).collect();
    // SAFETY: the pointer and length of `foreign`, which outlives the view and which nothing
    // writes while the view reads it.
    let raw = unsafe {
        StridedSlice::from_raw_parts(foreign.as_ptr(), foreign.len(), &[4, 3], &[1, 4], 0)?
    };
    println!(
        "a foreign (3, 4) buffer read transposed: {:?}",
        raw.to_vec(Order::C)?
    );

    // A view past its buffer is an error naming the axis, never a read out of bounds.
    let err = StridedSlice::new(&t.buf, &[3, 9], &[9, 1], 0).unwrap_err();
    println!("out of bounds: {err}");
    Ok(())
}

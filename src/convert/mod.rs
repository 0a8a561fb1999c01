//! Conversions a copy applies to each element as it writes it: the element type on the other
//! side of a relayout, in the same pass
//! ([`ReshapeExt::convert_with`](crate::ReshapeExt::convert_with) and the calls beside it).
//!
//! | conversion | writes | like |
//! |---|---|---|
//! | [`Cast`] | `a as B` (Rust's `as`; `f32` to `f16`/`bf16` rounds to nearest even, as the `half` crate) | NumPy `astype`, torch `.to(dtype)` |
//! | [`Saturate`] | the nearest value of `B` (floats rounded half to even, then clamped; NaN is 0) | OpenCV `saturate_cast` |
//! | [`Affine`] | `a as f32 * scale[c] + shift[c]`, `c` the index along one output axis | torchvision `to_tensor` + `normalize`, OpenCV `blobFromImages` |
//! | [`Quantize`] | ONNX `QuantizeLinear`: `saturate(round_half_even(a / scale[c]) + zero_point[c])` | onnxruntime |
//! | [`Dequantize`] | ONNX `DequantizeLinear`: `(a - zero_point[c]) as f32 * scale[c]` | onnxruntime |
//! | [`Map`] | any closure `Fn(&A) -> B` | `mapv` |
//!
//! [`Blocked`] packs channels into blocks (`nChw8c`, `nChw16c`, padded) and back.
//!
//! The conversions with vector kernels (`f32` to and from `f16`/`bf16`, [`Affine`] of `u8` and
//! `f32`, [`Quantize`] to and [`Dequantize`] from `i8`/`u8`) give the same bits as
//! [`Conversion::convert`], their definition, on every machine.
//!
//! ```
//! use ndarray::Array;
//! use ndarray_reshape::convert::Affine;
//! use ndarray_reshape::{Rearrange, ReshapeExt};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! // Two 2x2 RGB pixels to a normalized (1, 3, 2, 2) f32 tensor, in one pass.
//! let pixels = Array::from_shape_vec((1, 2, 2, 3), (0..12u8).map(|v| v * 20).collect()).unwrap();
//! let norm = Affine::normalize(1, 255.0, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225])?;
//! let x = pixels.convert_with(Rearrange::new("n h w c -> n c h w")?, &norm)?;
//! assert_eq!(x.shape(), &[1, 3, 2, 2]);
//! assert!((x[[0, 0, 0, 0]] - (0.0 - 0.485) / 0.229).abs() < 1e-5);
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

mod blocked;
#[cfg(test)]
mod kernel_tests;
mod kinds;

pub use blocked::Blocked;
pub(crate) use kinds::Identity;
pub use kinds::{Affine, Cast, Dequantize, Map, Quantize, Quantized, Saturate};

use crate::copy::{Elementwise, Step};
use crate::error::{Fail, Origin, ReshapeError, Rule};

/// A conversion of elements of `A` into elements of `B` that a copy applies as it writes
/// (sealed: the types of this module implement it; [`Map`] takes any closure).
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::convert::{Conversion, Saturate};
/// use ndarray_reshape::{Order, ReshapeExt};
///
/// // Any conversion goes to any converting copy, or converts one value.
/// fn to_bytes<C: Conversion<f32, u8>>(conv: &C) -> Vec<u8> {
///     let x = array![[0.4f32, 300.0], [-5.0, 254.5]];
///     x.t().convert_layout(Order::C, conv).unwrap().iter().copied().collect()
/// }
/// assert_eq!(to_bytes(&Saturate), [0, 0, 255, 254]);
/// assert_eq!(Conversion::<f32, u8>::convert(&Saturate, &2.5, 0), 2);
/// ```
pub trait Conversion<A, B>: Sync + sealed::Sealed<A, B> {
    /// `a`, at index `at` along the conversion's [`axis`](Self::axis) (0 without one),
    /// converted: the definition the copies match bit for bit. An index past the parameters
    /// wraps around (the copies never pass one: they check the counts first).
    ///
    /// ```
    /// use ndarray_reshape::convert::{Conversion, Quantize};
    /// let q = Quantize::<i8>::new(0.5, 3)?;
    /// assert_eq!(q.convert(&1.25, 0), 5); // round_half_even(2.5) + 3
    /// assert_eq!(q.convert(&1000.0, 0), 127);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn convert(&self, a: &A, at: usize) -> B;

    /// The output axis whose index chooses the parameters and how many there are (one per
    /// index along it), or `None` for one set of parameters for every element.
    ///
    /// ```
    /// use ndarray_reshape::convert::{Affine, Cast, Conversion};
    /// let norm = Affine::per_axis(1, vec![2.0; 3], vec![0.0; 3])?;
    /// assert_eq!(Conversion::<u8, f32>::axis(&norm), Some((1, 3)));
    /// assert_eq!(Conversion::<u8, f32>::axis(&Cast), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn axis(&self) -> Option<(usize, usize)> {
        None
    }
}

pub(crate) mod sealed {
    use crate::copy::Step;
    use crate::dialect::lower::OnnxNode;

    /// Only the crate's conversions implement [`Conversion`](super::Conversion); this side of
    /// each says what the copy engine runs for it and how ONNX writes it.
    pub trait Sealed<A, B> {
        /// What the copy engine runs for this conversion (its vector kernel, if any).
        fn step(&self) -> Step<'_> {
            Step::each()
        }

        /// The conversion as ONNX nodes after the relayout's (`Cast`, `QuantizeLinear`, ...),
        /// for [`Blocked::to_onnx_nodes`](super::Blocked::to_onnx_nodes); `None` where ONNX has
        /// no such node (a closure).
        fn onnx(&self, rank: usize) -> Option<Vec<OnnxNode>> {
            let _ = rank;
            None
        }
    }

    /// Only the crate's integer types implement [`Quantized`](super::Quantized).
    pub trait Integer {}
}

/// Every conversion is a step the copy engine runs.
impl<A, B, C: Conversion<A, B> + ?Sized> Elementwise<A, B> for C {
    #[inline(always)]
    fn each(&self, a: &A, at: usize) -> B {
        self.convert(a, at)
    }

    fn step(&self) -> Step<'_> {
        sealed::Sealed::step(self)
    }
}

/// Whether `A` and `B` are the same type.
pub(crate) fn same<A: 'static, B: 'static>() -> bool {
    std::any::TypeId::of::<A>() == std::any::TypeId::of::<B>()
}

/// Where the parameters of `conv` are found in an output of `shape` (contiguous in C order, or
/// F with `f_order`): the number of output positions one index along the axis covers, and the
/// axis' length; or the error for a conversion whose axis the output does not have or whose
/// parameters are not one per index (`input` and `call` name the call).
pub(crate) fn params_at<A, B, C: Conversion<A, B> + ?Sized>(
    conv: &C,
    shape: &[usize],
    f_order: bool,
    input: &[usize],
    call: &dyn Fn() -> String,
) -> Result<Option<(usize, usize)>, ReshapeError> {
    let Some((axis, n)) = conv.axis() else {
        return Ok(None);
    };
    let fail = |why: String| {
        Err(Fail::at(Rule::ConversionAxis, axis, why).attach(Origin::Convert, input, call()))
    };
    let Some(&len) = shape.get(axis) else {
        return fail(format!(
            "the conversion's parameters run along axis {axis}, past the output's {} axes \
             (output shape {shape:?})",
            shape.len()
        ));
    };
    if len != n {
        return fail(format!(
            "{n} conversion parameters for the output's axis {axis} of length {len} \
             (output shape {shape:?})"
        ));
    }
    let inner = match f_order {
        false => &shape[axis + 1..],
        true => &shape[..axis],
    };
    Ok(Some((inner.iter().product::<usize>().max(1), len)))
}

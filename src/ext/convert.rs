//! The data side of [`Blocked`](crate::convert::Blocked): its packing and unpacking copies
//! on the conversion engine.

use ndarray::{Array, ArrayRef, Dimension, IxDyn};

use crate::convert::{params_at, Blocked, Conversion};
use crate::copy::convert as engine;
use crate::copy::RawArray;
use crate::error::{Fail, Origin, ReshapeError, Rule};

/// The data side of [`Blocked`]: its copies, on the conversion engine (the shapes and nodes are
/// in `convert/blocked.rs`, which knows no engine).
impl Blocked {
    /// `x` packed, each element converted by `conv`, the padding `fill`: a fresh array of
    /// [`packed_shape`](Self::packed_shape), in one pass.
    ///
    /// # Errors
    ///
    /// As [`packed_shape`](Self::packed_shape); [`ReshapeError::ConversionAxis`] for a
    /// conversion's parameters that do not fit the packed shape;
    /// [`ReshapeError::AllocationFailed`].
    pub fn pack<A, B, C, D>(
        &self,
        x: &ArrayRef<A, D>,
        conv: &C,
        fill: B,
    ) -> Result<Array<B, IxDyn>, ReshapeError>
    where
        A: Sync,
        B: Clone + Send + Sync,
        C: Conversion<A, B> + ?Sized,
        D: Dimension,
    {
        let out = self.packed_shape(x.shape())?;
        let channels = x.shape()[self.axis];
        let params = params_at(conv, &out, false, x.shape(), &|| self.name())?;
        let dims = (self.axis, self.block, out[self.axis], channels);
        let data = engine::blocked(RawArray::of(x), dims, true, fill, conv, params)
            .map_err(|e| self.alloc(x.shape(), &e.detail()))?;
        Array::from_shape_vec(IxDyn(&out), data).map_err(|e| self.fail(x.shape(), e.to_string()))
    }

    /// `x` (packed) unpacked into `channels` channels, each element converted by `conv`: a
    /// fresh array of [`unpacked_shape`](Self::unpacked_shape), the padding left out, in one
    /// pass.
    ///
    /// # Errors
    ///
    /// As [`unpacked_shape`](Self::unpacked_shape); [`ReshapeError::ConversionAxis`] for a
    /// conversion's parameters that do not fit the unpacked shape;
    /// [`ReshapeError::AllocationFailed`].
    pub fn unpack<A, B, C, D>(
        &self,
        x: &ArrayRef<A, D>,
        channels: usize,
        conv: &C,
    ) -> Result<Array<B, IxDyn>, ReshapeError>
    where
        A: Sync,
        B: Clone + Send + Sync + Default,
        C: Conversion<A, B> + ?Sized,
        D: Dimension,
    {
        let out = self.unpacked_shape(x.shape(), channels)?;
        let params = params_at(conv, &out, false, x.shape(), &|| self.name())?;
        let dims = (self.axis, self.block, x.shape()[self.axis], channels);
        let data = engine::blocked(RawArray::of(x), dims, false, B::default(), conv, params)
            .map_err(|e| self.alloc(x.shape(), &e.detail()))?;
        Array::from_shape_vec(IxDyn(&out), data).map_err(|e| self.fail(x.shape(), e.to_string()))
    }

    #[cold]
    fn alloc(&self, input: &[usize], why: &str) -> ReshapeError {
        Fail::whole(Rule::AllocationFailed, why).attach(Origin::Convert, input, self.name())
    }
}

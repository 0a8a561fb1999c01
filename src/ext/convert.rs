//! The glue of the converting copies: plan, the conversion's parameters against the output's
//! shape, then the conversion engine.

use ndarray::{Array, ArrayRef, ArrayViewMut, Dimension, IxDyn, ShapeBuilder};

use crate::convert::{params_at, Blocked, Conversion};
use crate::copy::convert as engine;
use crate::copy::RawArray;
use crate::dialect::{reject, ShapeSpec};
use crate::dims::{Order, Reading};
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::layout::reading;
use crate::layout::strides::contiguous_dims;
use crate::view;

/// [`ReshapeExt::convert_with`](crate::ReshapeExt::convert_with).
pub(super) fn convert_with<A, B, C, D, P>(
    a: &ArrayRef<A, D>,
    spec: &P,
    conv: &C,
) -> Result<Array<B, P::Rank>, ReshapeError>
where
    A: Sync,
    B: Clone + Send + Sync,
    C: Conversion<A, B> + ?Sized,
    D: Dimension,
    P: ShapeSpec + ?Sized,
{
    let plan = view::copy_plan(a, spec)?;
    let f = plan.reading == Reading::F;
    let params = params_at(conv, &plan.shape, f, a.shape(), &|| spec.describe().1)?;
    let data = engine::gather(plan.reads().source(), plan.reading, conv, params)
        .map_err(|e| reject(Rule::AllocationFailed, spec, a.shape(), &e.detail()))?;
    let dims = contiguous_dims::<P::Rank>(&plan.shape, plan.reading);
    Array::from_shape_vec(dims, data)
        .map_err(|e| reject(Rule::SizeMismatch, spec, a.shape(), &e.to_string()))
}

/// [`ReshapeExt::convert_layout`](crate::ReshapeExt::convert_layout).
pub(super) fn convert_layout<A, B, C, D>(
    a: &ArrayRef<A, D>,
    order: Order,
    conv: &C,
) -> Result<Array<B, D>, ReshapeError>
where
    A: Sync,
    B: Clone + Send + Sync,
    C: Conversion<A, B> + ?Sized,
    D: Dimension,
{
    let reading = reading(a.shape(), a.strides(), order);
    let call = || format!("convert_layout({:?})", reading.order());
    let fail =
        |rule: Rule, why: String| Fail::whole(rule, why).attach(Origin::Ndarray, a.shape(), call());
    let params = params_at(conv, a.shape(), reading == Reading::F, a.shape(), &call)?;
    let data = engine::gather(RawArray::of(a), reading, conv, params)
        .map_err(|e| fail(Rule::AllocationFailed, e.detail()))?;
    let dims = a.raw_dim().set_f(reading == Reading::F);
    Array::from_shape_vec(dims, data).map_err(|e| fail(Rule::SizeMismatch, e.to_string()))
}

/// [`ReshapeExt::convert_into`](crate::ReshapeExt::convert_into).
pub(super) fn convert_into<'o, A, B, C, D, P>(
    a: &ArrayRef<A, D>,
    spec: &P,
    conv: &C,
    out: &'o mut [B],
) -> Result<ArrayViewMut<'o, B, P::Rank>, ReshapeError>
where
    A: Sync,
    B: Copy + Send + Sync,
    C: Conversion<A, B> + ?Sized,
    D: Dimension,
    P: ShapeSpec + ?Sized,
{
    let plan = view::copy_plan(a, spec)?;
    let f = plan.reading == Reading::F;
    let n = a.len();
    if out.len() != n {
        let (dialect, written) = spec.describe();
        return Err(Fail::output_length(out.len(), n).attach(dialect, a.shape(), written));
    }
    let params = params_at(conv, &plan.shape, f, a.shape(), &|| spec.describe().1)?;
    engine::gather_into(plan.reads().source(), plan.reading, conv, params, out);
    let dims = contiguous_dims::<P::Rank>(&plan.shape, plan.reading);
    ArrayViewMut::from_shape(dims, out)
        .map_err(|e| reject(Rule::SizeMismatch, spec, a.shape(), &e.to_string()))
}

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

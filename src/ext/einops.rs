//! einops' `pack` (one copy into a fresh array) and `unpack` (views of the packed array).

use ndarray::{Array, ArrayView, Axis, Dimension, IxDyn, Slice};

use super::ReshapeExt;
use crate::convert::Identity;
use crate::copy::convert as engine;
use crate::copy::RawArray;
use crate::dialect::np::Np;
use crate::dialect::{Pack, PackedDim};
use crate::dims::Order;
use crate::error::{Fail, Origin, ReshapeError, Rule};

/// einops' `pack(tensors, pattern)`: the arrays joined along the `*` of the pattern (`"b * c"`),
/// each array's `*` dims flattened into one, in one copy into a fresh C-order array; with the
/// packed shapes (each array's `*` dims) that [`ReshapeExt::unpack`] takes to split it back.
///
/// Model code packs the class token beside the patch tokens (`"b * d"`), detection heads of
/// several scales (`"b * c"` over `(b, h, w, c)` maps of different sizes), or flattens a batch
/// of any rank (`"* d"`).
///
/// # Errors
///
/// See [`Pack`]: a bad pattern, no array, an array with too few dims, fixed axes that differ;
/// [`ReshapeError::AllocationFailed`] when the output cannot be allocated.
///
/// # Examples
///
/// ```
/// use ndarray::{Array, Array2, Array3};
/// use ndarray_reshape::{pack, ReshapeExt};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let class_token = Array2::<f32>::ones((8, 768)); // (b, d)
/// let patches = Array3::<f32>::zeros((8, 196, 768)); // (b, n, d)
/// let (tokens, ps) = pack(&[class_token.view().into_dyn(), patches.view().into_dyn()], "b * d")?;
/// assert_eq!(tokens.shape(), &[8, 197, 768]);
/// assert_eq!(ps, vec![vec![], vec![196]]);
/// let parts = tokens.unpack("b * d", &ps)?; // views of `tokens`
/// assert_eq!(parts[0], class_token.view().into_dyn());
/// # Ok(())
/// # }
/// ```
#[allow(clippy::type_complexity)]
pub fn pack<A, D>(
    arrays: &[ArrayView<'_, A, D>],
    pattern: &str,
) -> Result<(Array<A, IxDyn>, Vec<Vec<usize>>), ReshapeError>
where
    A: Clone + Send + Sync,
    D: Dimension,
{
    let p = Pack::new(pattern)?;
    let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
    let (shape, packed) = p.pack_shapes(&shapes)?;
    // One pass: each array's part copied by the engine (its tiles, rows and threads) into
    // its run of the packed axis.
    let parts: Vec<RawArray<'_, A>> = arrays.iter().map(|a| RawArray::of(a)).collect();
    let after = shape.len() - p.axis() - 1;
    let out = engine::joined(&parts, p.axis(), after, &Identity).map_err(|e| {
        Fail::whole(Rule::AllocationFailed, e.detail()).attach(Origin::Rearrange, &shape, &p)
    })?;
    let out = Array::from_shape_vec(IxDyn(&shape), out).map_err(|e| {
        Fail::whole(Rule::SizeMismatch, e.to_string()).attach(Origin::Rearrange, &shape, &p)
    })?;
    Ok((out, packed))
}

/// [`ReshapeExt::unpack`] of the view `a`.
pub(super) fn unpack<'a, A, D, T>(
    a: ArrayView<'a, A, D>,
    pattern: &str,
    shapes: &[Vec<T>],
) -> Result<Vec<ArrayView<'a, A, IxDyn>>, ReshapeError>
where
    D: Dimension,
    T: PackedDim,
{
    let p = Pack::new(pattern)?.for_unpack();
    let axis = Axis(p.axis());
    p.split(a.shape(), shapes)?
        .into_iter()
        .map(|(range, shape)| {
            let part = a
                .clone()
                .slice_axis_move(axis, Slice::from(range))
                .into_dyn();
            // Splitting one axis always leaves a view.
            part.into_reshape(Np::new(shape, Order::C))
        })
        .collect()
}

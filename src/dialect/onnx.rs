//! ONNX `Reshape` (opset 14 and later): the `shape` input and the `allowzero` attribute.

use super::Rules;
use crate::entries::{IntoSpecList, SpecList};
use crate::error::{Fail, Origin};
use crate::infer::{onnx_reshape, Extent};
use crate::small::Small;

/// An ONNX `Reshape` spec (opset 14+): the `shape` input and the `allowzero` attribute.
///
/// | value at index `i` | `allowzero` false | `allowzero` true |
/// |---|---|---|
/// | `d > 0` | `d` | `d` |
/// | `0` | `in[i]`, the input dim at the same index | a literal zero-length dim |
/// | `-1` | inferred from the size; at most one | the same, but never together with a `0` |
///
/// The shape may be a list or a 1-D `int64` array (ONNX's shape tensor).
///
/// # Errors
///
/// In this order: the scan ([`BadValue`](crate::ReshapeError::BadValue) for `< -1`,
/// [`MultipleInfer`](crate::ReshapeError::MultipleInfer),
/// [`ZeroOutOfRank`](crate::ReshapeError::ZeroOutOfRank) for a copying `0` past the input's rank; the
/// first bad entry wins), [`AllowzeroWithInfer`](crate::ReshapeError::AllowzeroWithInfer),
/// [`Overflow`](crate::ReshapeError::Overflow),
/// [`InferZeroProduct`](crate::ReshapeError::InferZeroProduct) (even for an empty input),
/// [`InferNotDivisible`](crate::ReshapeError::InferNotDivisible),
/// [`SizeMismatch`](crate::ReshapeError::SizeMismatch).
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array};
/// use ndarray_reshape::{Onnx, ReshapeExt, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::<f32, _>::zeros((2, 3, 4));
/// let y = x.reshape_onnx(&array![2i64, 0, 1, -1])?; // 0 copies in[1]
/// assert_eq!(y.shape(), &[2, 3, 1, 4]);
/// assert!(y.is_view());
/// assert_eq!(Onnx::new([3, 4, 0]).allowzero(true).infer_shape(&[0, 3, 4])?, vec![3, 4, 0]);
/// assert!(Onnx::new([3, 4, 0]).infer_shape(&[0, 3, 4]).is_err()); // the 0 copies the 4
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Onnx {
    shape: SpecList,
    allowzero: bool,
}

impl Onnx {
    /// A spec from the `shape` input: a list or a 1-D `int64` array.
    ///
    /// ```
    /// use ndarray_reshape::{Onnx, ShapeSpec};
    /// assert_eq!(Onnx::new([-1, 0, 2]).infer_shape(&[2, 3]).unwrap(), vec![1, 3, 2]);
    /// ```
    pub fn new(shape: impl IntoSpecList) -> Self {
        Onnx {
            shape: shape.into_spec_list(),
            allowzero: false,
        }
    }

    /// The `allowzero` attribute: a `0` in the shape is a literal zero-length dim.
    ///
    /// ```
    /// use ndarray_reshape::{Onnx, ShapeSpec};
    /// assert_eq!(Onnx::new([0, 5]).allowzero(true).infer_shape(&[0, 3]).unwrap(), vec![0, 5]);
    /// ```
    pub fn allowzero(mut self, allowzero: bool) -> Self {
        self.allowzero = allowzero;
        self
    }

    /// The `shape` values, as an exporter writes them into the graph (`None` if an entry did
    /// not fit in `i64`).
    ///
    /// ```
    /// use ndarray_reshape::Onnx;
    /// assert_eq!(Onnx::new([2, -1]).shape_values(), Some(&[2i64, -1][..]));
    /// ```
    pub fn shape_values(&self) -> Option<&[i64]> {
        self.shape.values().ok()
    }

    /// The `allowzero` attribute.
    ///
    /// ```
    /// use ndarray_reshape::Onnx;
    /// assert!(Onnx::new([0]).allowzero(true).is_allowzero());
    /// ```
    pub fn is_allowzero(&self) -> bool {
        self.allowzero
    }
}

super::dialect!(Onnx as Origin::Onnx, new, shape allowzero);

impl Rules for Onnx {
    #[inline]
    fn rules<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail> {
        let spec = self.shape.entries()?;
        onnx_reshape(input, spec.iter(), self.allowzero, dims)
    }

    fn list(&self) -> Option<(&SpecList, bool)> {
        Some((&self.shape, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::ShapeSpec;

    #[test]
    fn accessors_give_what_an_exporter_writes() {
        let o = Onnx::new([2, -1, 0]);
        assert_eq!(o.shape_values(), Some(&[2i64, -1, 0][..]));
        assert!(!o.is_allowzero());
        let z = o.clone().allowzero(true);
        assert!(z.is_allowzero());
        assert_eq!(z.shape_values(), Some(&[2i64, -1, 0][..]));
        assert_eq!(Onnx::new([u64::MAX]).shape_values(), None);
        assert_eq!(Onnx::new(Vec::<i64>::new()).shape_values(), Some(&[][..]));
    }

    #[test]
    fn table() {
        let ok: &[(&[usize], &[i64], bool, &[usize])] = &[
            (&[2, 3, 4], &[2, 0, 1, -1], false, &[2, 3, 1, 4]),
            (&[2, 3], &[-1, 0, 2], false, &[1, 3, 2]),
            (&[2, 0, 3], &[2, -1], false, &[2, 0]),
            (&[2, 0, 3], &[2, -1], true, &[2, 0]),
            (&[0, 3, 4], &[3, 4, 0], true, &[3, 4, 0]),
            (&[1], &[], false, &[]),
        ];
        for &(input, spec, az, want) in ok {
            let got = Onnx::new(spec).allowzero(az).infer_shape(input);
            assert_eq!(got.as_deref(), Ok(want), "{input:?} {spec:?} {az}");
        }
        let bad: &[(&[usize], &[i64], bool, &str)] = &[
            (&[], &[0], false, "zero_out_of_rank"),
            (&[0, 3], &[0, -1], false, "infer_zero_product"),
            (&[0, 3, 4], &[3, 4, 0], false, "size_mismatch"),
            (&[2, 0], &[0, -1], true, "allowzero_with_infer"),
            (&[2, 3, 4], &[-2, 12], false, "bad_value"),
            (&[2, 3], &[-1, -1], false, "multiple_infer"),
            (&[2], &[4294967296, 4294967296, -1], false, "overflow"),
        ];
        for &(input, spec, az, want) in bad {
            let e = Onnx::new(spec)
                .allowzero(az)
                .infer_shape(input)
                .unwrap_err();
            assert_eq!(e.category(), want, "{input:?} {spec:?} {az}");
        }
    }
}

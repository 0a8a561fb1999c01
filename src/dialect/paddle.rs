//! Paddle `reshape` (Paddle 3.x rules), with the legacy fluid `actual_shape`.

use std::fmt;

use super::Rules;
use crate::entries::{IntoSpecList, SpecList};
use crate::error::{Fail, Origin};
use crate::infer::Entry;
use crate::infer::{below_minus_one, copy_dim, Extent, Out};
use crate::small::Small;

/// A Paddle `reshape` spec, as in Paddle 3.3.
///
/// | value | meaning |
/// |---|---|
/// | `d > 0` | `d` |
/// | `0` (non-empty input) | copy the input dim at the **same index** |
/// | `0` (zero-size input) | a literal 0 |
/// | `-1` | inferred from the size (at most one) |
///
/// The shape may be a list, a 1-D `i32` / `i64` array (Paddle's shape tensor), or a list that
/// mixes integers with 0-d or one-element arrays ([`ShapeItem`](crate::args::ShapeItem)). The legacy
/// fluid `actual_shape` (a shape tensor that takes priority over the list) is
/// [`actual_shape`](Self::actual_shape). On a zero-size input with both a `-1` and a `0`,
/// Paddle 3.3's rule applies: with as many zeros in the spec as in the input, the `-1` is the
/// ratio of the non-zero products; otherwise it is ambiguous or a mismatch.
///
/// # Errors
///
/// In this order: the scan ([`BadValue`](crate::ReshapeError::BadValue) for `< -1`,
/// [`MultipleInfer`](crate::ReshapeError::MultipleInfer),
/// [`ZeroOutOfRank`](crate::ReshapeError::ZeroOutOfRank)), [`Overflow`](crate::ReshapeError::Overflow), the
/// inference ([`InferNotDivisible`](crate::ReshapeError::InferNotDivisible),
/// [`InferAmbiguous`](crate::ReshapeError::InferAmbiguous),
/// [`ZeroSizeMismatch`](crate::ReshapeError::ZeroSizeMismatch)), then
/// [`SizeMismatch`](crate::ReshapeError::SizeMismatch).
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array, Array1};
/// use ndarray_reshape::{Paddle, ReshapeExt, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::<f32, _>::zeros((2, 4, 6));
/// let y = x.reshape_paddle([-1, 0, 3, 2])?; // 0 copies in[1] = 4
/// assert_eq!(y.shape(), &[2, 4, 3, 2]);
/// assert!(y.is_view());
/// let t: Array1<i64> = array![-1, 12];
/// assert_eq!(x.reshape_paddle(&t)?.shape(), &[4, 12]);
/// assert_eq!(Paddle::new([0, -1]).infer_shape(&[2, 0, 3])?, vec![0, 6]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paddle {
    spec: SpecList,
    actual: Option<SpecList>,
}

impl Paddle {
    /// A spec from a list, a shape tensor, or a list of [`ShapeItem`](crate::args::ShapeItem)s.
    ///
    /// ```
    /// use ndarray_reshape::{Paddle, ShapeSpec};
    /// assert_eq!(Paddle::new([4, -1]).infer_shape(&[2, 4, 6]).unwrap(), vec![4, 12]);
    /// ```
    pub fn new(spec: impl IntoSpecList) -> Self {
        Paddle {
            spec: spec.into_spec_list(),
            actual: None,
        }
    }

    /// The legacy fluid `actual_shape`: a shape tensor that takes priority over the list.
    /// It follows the same rules (0 and -1 included).
    ///
    /// ```
    /// use ndarray::array;
    /// use ndarray_reshape::{Paddle, ShapeSpec};
    /// let p = Paddle::new([-1, 6]).actual_shape(&array![6i32, 4]);
    /// assert_eq!(p.infer_shape(&[2, 12]).unwrap(), vec![6, 4]);
    /// ```
    pub fn actual_shape(mut self, shape: impl IntoSpecList) -> Self {
        self.actual = Some(shape.into_spec_list());
        self
    }
}

impl fmt::Display for Paddle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.spec)?;
        if let Some(a) = &self.actual {
            write!(f, " actual_shape {a}")?;
        }
        Ok(())
    }
}

super::dialect!(Paddle as Origin::Paddle, new);

impl Rules for Paddle {
    #[inline]
    fn rules<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail> {
        let spec = self.actual.as_ref().unwrap_or(&self.spec).entries()?;
        let mut conds = E::Conds::default();
        let size = E::size(input, &mut conds);
        let empty = input.iter().any(|d| d.is(0));
        let mut out = Out::new(dims);
        out.conds = conds;
        let mut spec_zero = false;
        for entry in spec.iter() {
            match entry? {
                (_, Entry::Dim(d)) => out.push(d),
                (_, Entry::Code(0)) if empty => {
                    spec_zero = true;
                    out.push(E::lit(0));
                }
                (i, Entry::Code(0)) => {
                    out.push(copy_dim(input, i)?);
                    spec_zero = true;
                }
                (i, Entry::Code(-1)) => out.push_infer_at(i)?,
                (i, Entry::Code(v)) => return Err(below_minus_one(i, v)),
            }
        }
        let size = size?;
        match out.infer {
            Some(slot) if empty && spec_zero => {
                // The output index is the spec index in Paddle.
                E::paddle_zero_size(input, out.dims, slot, &mut out.conds)?;
                Ok(std::mem::take(&mut out.conds))
            }
            _ => out.finish(size),
        }
    }

    fn list(&self) -> Option<(&SpecList, bool)> {
        Some((self.actual.as_ref().unwrap_or(&self.spec), true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::ShapeSpec;

    #[test]
    fn table() {
        let ok: &[(&[usize], &[i64], &[usize])] = &[
            (&[2, 4, 6], &[6, 8], &[6, 8]),
            (&[2, 4, 6], &[2, 3, -1, 2], &[2, 3, 4, 2]),
            (&[2, 4, 6], &[-1, 0, 3, 2], &[2, 4, 3, 2]),
            (&[2, 0, 3], &[0, -1], &[0, 6]),
            (&[2, 0, 3], &[-1, 5], &[0, 5]),
            (&[], &[], &[]),
            (&[], &[1, -1], &[1, 1]),
            (&[0], &[3, 0, 7], &[3, 0, 7]),
        ];
        for (input, spec, want) in ok {
            assert_eq!(&Paddle::new(*spec).infer_shape(input).unwrap(), want);
        }
        let bad: &[(&[usize], &[i64], &str)] = &[
            (&[2, 4, 6], &[-2, 24], "bad_value"),
            (&[2, 4, 6], &[-1, -1], "multiple_infer"),
            (&[2, 3], &[1, 2, 0], "zero_out_of_rank"),
            (&[2, 0, 3], &[0, 4, -1], "infer_not_divisible"),
            (&[2, 0, 3], &[0, 0, -1], "zero_size_mismatch"),
            (&[0, 0], &[0, -1], "infer_ambiguous"),
            (&[2, 3], &[3, 0], "size_mismatch"),
            (&[0], &[4294967296, 4294967296], "overflow"),
            (&[4], &[1 << 62, 2, -1], "overflow"),
        ];
        for (input, spec, want) in bad {
            let e = Paddle::new(*spec).infer_shape(input).unwrap_err();
            assert_eq!(e.category(), *want, "{input:?} {spec:?}");
        }
    }

    #[test]
    fn actual_shape_takes_priority() {
        let p = Paddle::new([5, 5]).actual_shape([0, -1]);
        assert_eq!(p.infer_shape(&[3, 4]).unwrap(), vec![3, 4]);
    }
}

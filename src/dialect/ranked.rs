//! [`Ranked`]: a spec whose results have a dimension type chosen by the caller
//! ([`ShapeSpec::dim`]). The rank is checked where the shape is inferred, so every mode and
//! [`ShapeSpec::infer_shape`] report a mismatch the same way, before anything is built.

use std::fmt;
use std::marker::PhantomData;

use ndarray::Dimension;

use super::{reject, sealed, Planned, ShapeSpec};
use crate::dims::Order;
use crate::error::{Origin, ReshapeError, Rule};
use crate::small::Small;
use crate::sym::{Condition, SymDim};

/// A spec whose results have the dimension type `E`: what [`ShapeSpec::dim`] returns. It
/// infers what the spec inside infers, and fails with [`ReshapeError::RankMismatch`] when that
/// shape's rank is not `E`'s (any rank fits `IxDyn`).
///
/// ```
/// use ndarray::{Array, Array2, Ix2};
/// use ndarray_reshape::{Paddle, ReshapeExt, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let spec = Paddle::new([0, -1]).dim::<Ix2>();
/// assert_eq!(spec.infer_shape(&[2, 3, 4])?, vec![2, 12]);
/// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
/// let y: Array2<i32> = x.reshape_owned(&spec)?;
/// assert_eq!(y.dim(), (2, 12));
/// assert!(Paddle::new([0, 3, -1]).dim::<Ix2>().infer_shape(&[2, 3, 4]).is_err());
/// # Ok(())
/// # }
/// ```
pub struct Ranked<P, E> {
    spec: P,
    rank: PhantomData<fn() -> E>,
}

impl<P, E> Ranked<P, E> {
    #[inline]
    pub(crate) fn new(spec: P) -> Self {
        Ranked {
            spec,
            rank: PhantomData,
        }
    }

    /// The spec inside.
    ///
    /// ```
    /// use ndarray::Ix2;
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// assert_eq!(Mx::new([0, -1]).dim::<Ix2>().spec(), &Mx::new([0, -1]));
    /// ```
    pub fn spec(&self) -> &P {
        &self.spec
    }
}

impl<P: Clone, E> Clone for Ranked<P, E> {
    fn clone(&self) -> Self {
        Ranked::new(self.spec.clone())
    }
}

impl<P: PartialEq, E> PartialEq for Ranked<P, E> {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
    }
}

impl<P: fmt::Debug, E: Dimension> fmt::Debug for Ranked<P, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match E::NDIM {
            Some(n) => write!(f, "Ranked<Ix{n}>({:?})", self.spec),
            None => write!(f, "Ranked<IxDyn>({:?})", self.spec),
        }
    }
}

impl<P: ShapeSpec, E: Dimension + 'static> sealed::Spec for Ranked<P, E> {
    #[inline]
    fn infer_into(&self, input: &[usize], dims: &mut Small<usize>) -> Result<(), ReshapeError> {
        self.spec.infer_into(input, dims)?;
        match E::NDIM {
            Some(n) if n != dims.len() => Err(self.mismatch(input, dims)),
            _ => Ok(()),
        }
    }

    fn infer_sym(
        &self,
        input: &[SymDim],
        dims: &mut Small<SymDim>,
    ) -> Result<Small<Condition>, ReshapeError> {
        let conds = self.spec.infer_sym(input, dims)?;
        match E::NDIM {
            Some(n) if n != dims.len() => {
                let (dialect, written) = self.spec.describe();
                let shape: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
                let why = rank_detail(&format!("[{}]", shape.join(", ")), dims.len(), n);
                Err(crate::error::Fail::whole(Rule::RankMismatch, why)
                    .attach_sym(dialect, input, written))
            }
            _ => Ok(conds),
        }
    }

    fn describe(&self) -> (Origin, String) {
        self.spec.describe()
    }

    #[inline(always)]
    fn plan_into(&self, input: &[usize], out: Planned<'_>) -> Result<(), ReshapeError> {
        let Planned { dims, arranged } = out;
        let out = Planned {
            dims: &mut *dims,
            arranged,
        };
        self.spec.plan_into(input, out)?;
        match E::NDIM {
            Some(n) if n != dims.len() => Err(self.mismatch(input, dims)),
            _ => Ok(()),
        }
    }

    #[inline(always)]
    fn permutes(&self) -> bool {
        self.spec.permutes()
    }
}

impl<P: ShapeSpec, E: Dimension + 'static> ShapeSpec for Ranked<P, E> {
    type Rank = E;

    #[inline]
    fn order(&self) -> Order {
        self.spec.order()
    }
}

impl<P: ShapeSpec, E: Dimension> Ranked<P, E> {
    #[cold]
    #[inline(never)]
    fn mismatch(&self, input: &[usize], dims: &[usize]) -> ReshapeError {
        let n = E::NDIM.unwrap_or(dims.len());
        let why = rank_detail(&format!("{dims:?}"), dims.len(), n);
        reject(Rule::RankMismatch, &self.spec, input, &why)
    }
}

fn rank_detail(shape: &str, got: usize, want: usize) -> String {
    format!("the spec gives shape {shape} of rank {got}, the requested dimension type Ix{want} has rank {want}")
}

#[cfg(test)]
mod tests {
    use ndarray::{Ix2, IxDyn};

    use super::*;
    use crate::dialect::mx::Mx;
    use crate::sym::SymDim;

    #[test]
    fn the_rank_is_checked_where_the_shape_is_inferred() {
        let spec = Mx::new([-3, 0]).dim::<Ix2>();
        assert_eq!(spec.infer_shape(&[2, 3, 4]).unwrap(), [6, 4]);
        let err = Mx::new([-1]).dim::<Ix2>().infer_shape(&[2, 3]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "rank_mismatch: the spec gives shape [6] of rank 1, the requested dimension type Ix2 \
             has rank 2; input shape [2, 3], mxnet spec [-1]"
        );
        assert_eq!(
            Mx::new([-1]).dim::<IxDyn>().infer_shape(&[2, 3]).unwrap(),
            [6]
        );
        let n = SymDim::sym("N");
        let err = Mx::new([-1])
            .dim::<Ix2>()
            .infer_symbolic(&[n, SymDim::from(3)])
            .unwrap_err();
        assert!(matches!(err, ReshapeError::RankMismatch(_)), "{err}");
        assert_eq!(
            format!("{spec:?}"),
            "Ranked<Ix2>(Mx { spec: [-3, 0], reverse: false })"
        );
    }
}

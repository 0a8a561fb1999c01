//! Typed results and the consuming view-or-copy mode: [`IntoDim`] (a result of dynamic rank as a
//! rank-typed array, with this crate's error) and the [`IntoReshapeClone`] impls of the storage
//! kinds [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone) works on.

use ndarray::{ArrayBase, CowRepr, Dimension, IxDyn, OwnedArcRepr, OwnedRepr, RawData, ViewRepr};

use crate::dialect::ShapeSpec;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::view::{self, sealed, IntoReshapeClone};

use super::impls::copy_or_fail;

/// A result of dynamic rank (`IxDyn`, what the headline methods return) as an array of the
/// rank-typed dimension `E` (`Ix1`, `Ix2`, ...), with a [`ReshapeError`]: ndarray's
/// `into_dimensionality` without a second error type in the caller's `?` chain. Implemented
/// for every `ArrayBase` with `IxDyn` dims; no element is copied.
///
/// A spec checks the rank before reshaping when given one ([`ShapeSpec::dim`]);
/// this conversion is for results already in hand.
///
/// ```
/// use ndarray::{Array, ArrayView2, Ix2, Ix4};
/// use ndarray_reshape::{IntoDim, ReshapeError, ReshapeExt};
///
/// fn total(x: ArrayView2<f32>) -> f32 {
///     x.sum()
/// }
/// let x = Array::<f32, _>::ones((2, 3, 4));
/// let y = x.reshape_mx([0, -1])?.into_dim::<Ix2>()?;
/// assert_eq!(total(y.view()), 24.0);
/// let z = x.reshape_paddle([0, 0, 2, 2])?.into_dim::<Ix4>()?.permuted_axes([0, 2, 1, 3]);
/// assert_eq!(z.dim(), (2, 2, 3, 2));
/// let err = x.reshape_onnx([-1])?.into_dim::<Ix2>().unwrap_err();
/// assert!(matches!(err, ReshapeError::RankMismatch(_)));
/// # Ok::<(), ReshapeError>(())
/// ```
pub trait IntoDim<S: RawData>: super::sealed::Sealed {
    /// This array with dims of type `E`.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::RankMismatch`] when the array's rank is not `E`'s.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{Array, Ix3};
    /// use ndarray_reshape::{IntoDim, ReshapeError, ReshapeExt};
    ///
    /// let x = Array::<u8, _>::zeros((4, 6));
    /// let y = x.reshape_onnx([2, 2, -1])?.into_dim::<Ix3>()?;
    /// assert_eq!(y.dim(), (2, 2, 6));
    /// # Ok::<(), ReshapeError>(())
    /// ```
    fn into_dim<E: Dimension>(self) -> Result<ArrayBase<S, E>, ReshapeError>;
}

impl<S: RawData> IntoDim<S> for ArrayBase<S, IxDyn> {
    fn into_dim<E: Dimension>(self) -> Result<ArrayBase<S, E>, ReshapeError> {
        match E::NDIM {
            Some(n) if n != self.ndim() => Err(wrong_rank(self.shape(), n)),
            // The rank matches: ndarray's conversion cannot fail.
            _ => {
                let shape = self.shape().to_vec();
                let n = E::NDIM.unwrap_or(shape.len());
                self.into_dimensionality::<E>()
                    .map_err(|_| wrong_rank(&shape, n))
            }
        }
    }
}

#[cold]
fn wrong_rank(shape: &[usize], n: usize) -> ReshapeError {
    let why = format!("the array has rank {}, Ix{n} has rank {n}", shape.len());
    Fail::whole(Rule::RankMismatch, why).attach(
        Origin::Ndarray,
        shape,
        format!("into_dim::<Ix{n}>"),
    )
}

/// `IntoReshapeClone` for a storage kind: its result storage, and the function of `view` that
/// does the work.
macro_rules! into_reshape_clone {
    ([$($g:tt)*] $storage:ty => $cloned:ty, $work:path) => {
        impl<$($g)*> IntoReshapeClone for $storage {}
        impl<$($g)*> sealed::CloneStorage for $storage {
            type Cloned = $cloned;

            fn into_reshape_clone<D: Dimension, P: ShapeSpec + ?Sized>(
                a: ArrayBase<Self, D>,
                spec: &P,
            ) -> Result<ArrayBase<$cloned, P::Rank>, ReshapeError>
            where
                Self::Elem: Clone + Send + Sync,
            {
                $work(a, spec, &|a, shape, r| copy_or_fail(a, spec, shape, r))
            }
        }
    };
}

into_reshape_clone!(['a, A] ViewRepr<&'a A> => CowRepr<'a, A>, view::view_into_or);
into_reshape_clone!([A] OwnedRepr<A> => OwnedRepr<A>, view::owned_into_or);
into_reshape_clone!([A: Clone] OwnedArcRepr<A> => OwnedArcRepr<A>, view::arc_into_or);
into_reshape_clone!(['a, A: Clone] CowRepr<'a, A> => CowRepr<'a, A>, view::cow_into_or);

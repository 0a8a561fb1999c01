//! The storage kinds the modes work on, side by side: [`Borrowed`] (what the borrowing modes
//! return for each storage), [`IntoReshapeData`] (the consuming and in-place modes) and
//! [`IntoReshapeClone`] (the consuming view-or-copy). Each is public so that the impls of
//! [`ReshapeExt`](crate::ReshapeExt) can name it, and sealed: the crate's side of each is in
//! [`sealed`], implemented where the work is done (`view`, `view::consuming`, `ext::dim`).

use ndarray::{Array, ArrayBase, Dimension};

use crate::dialect::ShapeSpec;
use crate::dims::Reading;
use crate::error::ReshapeError;

/// The lifetime of what the borrowing modes return, by storage kind: the borrow of the array
/// (`'s`), except for an [`ArrayView`](ndarray::ArrayView), whose results borrow its data
/// (`'a`), so that a result outlives a temporary view (`x.t().reshape_with(..)`). Implemented
/// for every storage that holds readable data; sealed. The crate's side of
/// [`ReshapeExt::Cow`](crate::ReshapeExt::Cow) and [`ReshapeExt::View`](crate::ReshapeExt::View).
///
/// ```
/// use ndarray::{Array2, CowArray, IxDyn};
/// use ndarray_reshape::{ReshapeError, ReshapeExt};
///
/// // The temporary view `x.t()` is gone when this returns; its result borrows `x`'s data.
/// fn flat_t(x: &Array2<f32>) -> Result<CowArray<'_, f32, IxDyn>, ReshapeError> {
///     x.t().reshape_mx([-1])
/// }
/// let x = Array2::<f32>::zeros((2, 3));
/// assert!(!flat_t(&x)?.is_view()); // a transposed read copies
/// # Ok::<(), ReshapeError>(())
/// ```
pub trait Borrowed: ndarray::Data + Sized {
    /// The view-or-copy result of an array of this storage borrowed for `'s`.
    type Cow<'s, E: Dimension + 'static>
    where
        Self: 's;
    /// The strict view of an array of this storage borrowed for `'s`.
    type View<'s, E: Dimension + 'static>
    where
        Self: 's;

    /// A view of `a` reshaped by `spec` when the strides permit, else `copy`.
    fn view_or<'s, D: Dimension, P: ShapeSpec + ?Sized>(
        a: &'s ArrayBase<Self, D>,
        spec: &P,
        copy: impl FnOnce(
            super::Reads<'_, Self::Elem, D>,
            &[usize],
            Reading,
        ) -> Result<Array<Self::Elem, P::Rank>, ReshapeError>,
    ) -> Result<Self::Cow<'s, P::Rank>, ReshapeError>;

    /// A fresh array as this storage's view-or-copy result.
    fn owned<'s, E: Dimension + 'static>(a: Array<Self::Elem, E>) -> Self::Cow<'s, E>
    where
        Self: 's;

    /// The strict view of `a` reshaped by `spec`.
    fn view<'s, D: Dimension, P: ShapeSpec + ?Sized>(
        a: &'s ArrayBase<Self, D>,
        spec: &P,
    ) -> Result<Self::View<'s, P::Rank>, ReshapeError>;
}

/// The storage kinds [`ReshapeExt::into_reshape`](crate::ReshapeExt::into_reshape) and
/// [`ReshapeExt::reshape_in_place`](crate::ReshapeExt::reshape_in_place) work on: owned arrays,
/// views, mutable views, `ArcArray` and `CowArray` (these two of `Clone` elements). Sealed.
///
/// ```
/// use ndarray::{ArcArray, Array};
/// use ndarray_reshape::{Np, Order, ReshapeExt};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let a: ArcArray<i32, _> = Array::from_iter(0..6).into_shared();
/// let b = a.into_reshape(Np::new([2, 3], Order::C))?;
/// assert_eq!(b.shape(), &[2, 3]);
/// # Ok(())
/// # }
/// ```
pub trait IntoReshapeData: sealed::Storage {}

/// The storage kinds [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone)
/// works on, and the storage of its result: a view ([`ArrayView`](ndarray::ArrayView)) gives a
/// [`CowArray`](ndarray::CowArray) of the same lifetime, an owned array an owned array, an
/// [`ArcArray`](ndarray::ArcArray) an `ArcArray`, a `CowArray` a `CowArray`. Sealed.
///
/// ```
/// use ndarray::{Array, ArrayView2, CowArray, IxDyn};
/// use ndarray_reshape::{Mx, ReshapeError, ReshapeExt};
///
/// fn flat<'a>(x: ArrayView2<'a, f64>) -> Result<CowArray<'a, f64, IxDyn>, ReshapeError> {
///     x.into_reshape_clone(Mx::new([-1]))
/// }
/// let a = Array::<f64, _>::zeros((3, 4));
/// assert!(flat(a.view())?.is_view());
/// assert!(!flat(a.t())?.is_view());
/// # Ok::<(), ReshapeError>(())
/// ```
pub trait IntoReshapeClone: IntoReshapeData + sealed::CloneStorage {}

/// The crate's side of the storage traits.
pub(crate) mod sealed {
    use ndarray::{ArrayBase, Data, Dimension, RawData};

    use crate::dialect::ShapeSpec;
    use crate::error::ReshapeError;

    /// The consuming and in-place reshapes of one storage kind: the crate's side of the public
    /// [`IntoReshapeData`](super::IntoReshapeData).
    pub trait Storage: Data + Sized {
        /// Whether the storage owns or mutates its elements, so that a view of it may not
        /// repeat one (an einops `repeat` broadcast): all but a read-only view.
        const UNIQUE: bool = true;

        /// The consuming reshape, with dims of the spec's rank type.
        fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
            a: ArrayBase<Self, D>,
            spec: &P,
        ) -> Result<ArrayBase<Self, P::Rank>, ReshapeError>;

        /// Everything [`into_reshape`](Self::into_reshape) of `a` can refuse, checked without
        /// consuming it: a view plan (and, for a shared array, what sharing forbids).
        fn check<D: Dimension, P: ShapeSpec + ?Sized>(
            a: &ArrayBase<Self, D>,
            spec: &P,
        ) -> Result<(), ReshapeError> {
            crate::view::Plan::empty().compute_view(spec, a.shape(), a.strides(), Self::UNIQUE)
        }

        /// An array of no elements and rank `n`, allocating no element (a shared array's
        /// `Arc` only): what `a` holds for the moment of an in-place reshape.
        fn placeholder<D: Dimension>(n: usize) -> ArrayBase<Self, D>;

        /// The in-place reshape: [`check`](Self::check), then the consuming reshape of the
        /// array taken out of `a` and put back; `a` is untouched on failure.
        fn reshape_in_place<D: Dimension, P: ShapeSpec<Rank = D> + ?Sized>(
            a: &mut ArrayBase<Self, D>,
            spec: &P,
        ) -> Result<(), ReshapeError> {
            Self::check(a, spec)?;
            let taken = std::mem::replace(a, Self::placeholder(a.ndim()));
            // `check` refused everything `into_reshape` refuses, so this succeeds.
            *a = Self::into_reshape(taken, spec)?;
            Ok(())
        }
    }

    /// The consuming view-or-copy reshape of one storage kind, and the storage of its result:
    /// the crate's side of the public [`IntoReshapeClone`](super::IntoReshapeClone).
    pub trait CloneStorage: RawData + Sized {
        /// The storage of the result.
        type Cloned: Data<Elem = Self::Elem>;

        fn into_reshape_clone<D: Dimension, P: ShapeSpec + ?Sized>(
            a: ArrayBase<Self, D>,
            spec: &P,
        ) -> Result<ArrayBase<Self::Cloned, P::Rank>, ReshapeError>
        where
            Self::Elem: Clone + Send + Sync;
    }
}

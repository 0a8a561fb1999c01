//! [`ReshapeExt`], the public trait and its documentation. Its implementations, in `impls`,
//! are thin: the spec gives the target shape, the `view` module a view when the strides permit
//! one, the `copy` module a copy otherwise. Raw pointers stay in those two modules.

mod dim;
mod impls;

pub use dim::{IntoDim, IntoReshapeClone};

use ndarray::{
    Array, ArrayBase, ArrayView, ArrayViewMut, CowArray, Data, DataMut, Dimension, IxDyn, RawData,
};

use crate::error::ReshapeError;
use crate::spec::{IntoSpec, IntoSpecList, ShapeSpec};
use crate::view::IntoReshapeData;
use crate::{IntoLike, Mx, Np, Npx, Onnx, Order, Paddle};

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Reshapes in the MXNet, `reshape_like`, Paddle, NumPy, MXNet 2.x `npx` and ONNX dialects, for
/// every `ndarray` array:
/// owned [`Array`], [`ArrayView`], [`ArrayViewMut`], [`ArcArray`](ndarray::ArcArray) and
/// [`CowArray`], and the [`ArrayRef`](ndarray::ArrayRef) they all dereference to (what ndarray 0.17 functions
/// take as `&ArrayRef<A, D>` or `&mut ArrayRef<A, D>`; every method but `into_reshape`).
///
/// Every method computes the target shape with the spec (see [`ShapeSpec`]), then asks
/// [`layout::view_strides`](crate::layout::view_strides) whether the input's strides allow a view
/// (exactly when NumPy would give one). The modes:
///
/// | method | view possible | copy needed |
/// |---|---|---|
/// | [`reshape_with`](Self::reshape_with) and the headline methods | view (`CowArray::is_view`) | owned copy |
/// | [`reshape_view`](Self::reshape_view), [`reshape_view_mut`](Self::reshape_view_mut) | view | [`ReshapeError::NeedsCopy`] |
/// | [`into_reshape`](Self::into_reshape) | same storage, new shape | [`ReshapeError::NeedsCopy`] |
/// | [`into_reshape_clone`](Self::into_reshape_clone) | same storage, new shape | copy (a view becomes a `CowArray` of its lifetime) |
/// | [`reshape_owned`](Self::reshape_owned) | fresh copy | fresh copy |
/// | [`reshape_copy_into`](Self::reshape_copy_into) | copy into `out` | copy into `out` |
///
/// Copies are contiguous in the reading order (C, or F for [`Order::F`]) and run on rayon when
/// large. The trait is sealed.
///
/// Results have dynamic rank (`IxDyn`). For a rank-typed result (`Ix2`, ...), call the `_dim`
/// variant of a method with a spec value, or convert any result with
/// [`IntoDim::into_dim`](crate::IntoDim::into_dim):
/// `x.reshape_mx([0, -1])?.into_dim::<Ix2>()?`.
///
/// # Examples
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::ReshapeExt;
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
/// let y = x.reshape_mx([-4, 1, 2, -2])?;
/// assert_eq!(y.shape(), &[1, 2, 3, 4]);
/// assert!(y.is_view());
/// # Ok(())
/// # }
/// ```
// The headline methods pass the spec they build to `reshape_with` by reference on purpose: a
// spec moved in by value is copied on the view path (BENCHMARKS.md, "The view path").
#[allow(clippy::needless_borrows_for_generic_args)]
pub trait ReshapeExt<A, S, D>: sealed::Sealed
where
    S: RawData<Elem = A>,
    D: Dimension,
{
    /// Reshape with any spec: a view when the strides permit, otherwise an owned copy
    /// contiguous in the reading order.
    ///
    /// # Errors
    ///
    /// The spec's errors (see its type).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Np, Order, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::from_iter(0..12).into_shape_with_order((3, 4)).unwrap();
    /// assert!(x.reshape_with(Np::new([4, 3], Order::C))?.is_view());
    /// let t = x.t(); // F-contiguous
    /// let y = t.reshape_with(Np::new([-1], Order::C))?;
    /// assert!(!y.is_view());
    /// assert_eq!(y.as_slice().unwrap()[..4], [0, 4, 8, 1]);
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_with<P: ShapeSpec>(&self, spec: P) -> Result<CowArray<'_, A, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data;

    /// MXNet `Reshape`: a list with 0, -1, -2, -3, -4, or an [`Mx`] (for `reverse`).
    ///
    /// # Errors
    ///
    /// See [`Mx`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Mx, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::<f32, _>::zeros((2, 3, 4));
    /// assert_eq!(x.reshape_mx([-3, -2])?.shape(), &[6, 4]);
    /// assert_eq!(x.reshape_mx(Mx::new([-1, 0]).reverse(true))?.shape(), &[6, 4]);
    /// assert!(x.reshape_mx([-1, -1]).is_err());
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_mx<T: IntoSpec<Mx>>(&self, spec: T) -> Result<CowArray<'_, A, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        self.reshape_with(&spec.into_spec())
    }

    /// MXNet `reshape_like`: the shape of another array (any element type), or a [`Like`](crate::Like)
    /// with ranges.
    ///
    /// # Errors
    ///
    /// See [`Like`](crate::Like).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array};
    /// use ndarray_reshape::ReshapeExt;
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::from_iter(0..6);
    /// let rhs = Array::<u8, _>::zeros((3, 2));
    /// assert_eq!(x.reshape_like(&rhs)?, array![[0, 1], [2, 3], [4, 5]].into_dyn());
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_like<T: IntoLike>(&self, rhs: T) -> Result<CowArray<'_, A, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        self.reshape_with(&rhs.into_like())
    }

    /// Paddle `reshape`: a list, a 1-D `i32`/`i64` shape tensor, or a [`Paddle`].
    ///
    /// # Errors
    ///
    /// See [`Paddle`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array};
    /// use ndarray_reshape::ReshapeExt;
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::<f32, _>::zeros((2, 4, 6));
    /// assert_eq!(x.reshape_paddle([-1, 0, 3, 2])?.shape(), &[2, 4, 3, 2]);
    /// assert_eq!(x.reshape_paddle(&array![8i32, 6])?.shape(), &[8, 6]);
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_paddle<T: IntoSpec<Paddle>>(
        &self,
        spec: T,
    ) -> Result<CowArray<'_, A, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        self.reshape_with(&spec.into_spec())
    }

    /// NumPy `reshape(newshape, order)`.
    ///
    /// # Errors
    ///
    /// See [`Np`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array};
    /// use ndarray_reshape::{Order, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let a = Array::from_iter(0..6).into_shape_with_order((3, 2)).unwrap();
    /// let t = a.t();
    /// let y = t.reshape_np([-1], Order::A)?; // F-contiguous input read in F order
    /// assert!(y.is_view());
    /// assert_eq!(y, array![0, 1, 2, 3, 4, 5].into_dyn());
    /// // ndarray's own order works too.
    /// assert!(t.reshape_np([-1], ndarray::Order::ColumnMajor)?.is_view());
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_np<T: IntoSpecList>(
        &self,
        spec: T,
        order: impl Into<Order>,
    ) -> Result<CowArray<'_, A, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        self.reshape_with(&Np::new(spec, order))
    }

    /// MXNet 2.x `npx.reshape`: a list with -1 to -6, or an [`Npx`] (for `reverse`).
    ///
    /// # Errors
    ///
    /// See [`Npx`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::ReshapeExt;
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::<f32, _>::zeros((1, 2, 3));
    /// assert_eq!(x.reshape_npx([-3, -1, -2])?.shape(), &[2, 3]); // drop the 1, infer, copy
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_npx<T: IntoSpec<Npx>>(&self, spec: T) -> Result<CowArray<'_, A, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        self.reshape_with(&spec.into_spec())
    }

    /// ONNX `Reshape`: a list or a 1-D `int64` shape tensor, or an [`Onnx`] (for `allowzero`).
    ///
    /// # Errors
    ///
    /// See [`Onnx`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array};
    /// use ndarray_reshape::{Onnx, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::<f32, _>::zeros((2, 3, 4));
    /// assert_eq!(x.reshape_onnx(&array![0i64, -1])?.shape(), &[2, 12]);
    /// assert!(x.reshape_onnx(Onnx::new([0, -1]).allowzero(true)).is_err());
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_onnx<T: IntoSpec<Onnx>>(
        &self,
        spec: T,
    ) -> Result<CowArray<'_, A, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        self.reshape_with(&spec.into_spec())
    }

    /// A view or nothing: never copies.
    ///
    /// # Errors
    ///
    /// The spec's errors, or [`ReshapeError::NeedsCopy`] when the strides do not permit a view.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Mx, Np, Order, ReshapeError, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ReshapeError> {
    /// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// let v = x.reshape_view(Mx::new([6, 4]))?;
    /// assert_eq!(v.as_ptr(), x.as_ptr());
    /// let err = x.t().reshape_view(Np::new([24], Order::C)).unwrap_err();
    /// assert!(matches!(err, ReshapeError::NeedsCopy(_)));
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_view<P: ShapeSpec>(&self, spec: P) -> Result<ArrayView<'_, A, IxDyn>, ReshapeError>
    where
        S: Data;

    /// A mutable view or nothing: never copies; writes go to the original data.
    ///
    /// # Errors
    ///
    /// The spec's errors, or [`ReshapeError::NeedsCopy`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Paddle, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let mut m = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// m.reshape_view_mut(Paddle::new([4, 6]))?[[3, 5]] = -1;
    /// assert_eq!(m[[1, 2, 3]], -1);
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_view_mut<P: ShapeSpec>(
        &mut self,
        spec: P,
    ) -> Result<ArrayViewMut<'_, A, IxDyn>, ReshapeError>
    where
        S: DataMut;

    /// Consume the array and return the same storage with the new shape: a view keeps the
    /// lifetime of its data, an owned array keeps its buffer. Never copies elements to a new
    /// buffer.
    ///
    /// An owned array whose data no longer starts at the beginning of its buffer (after
    /// `slice_move`) has its elements moved to the front of that same buffer first. An
    /// [`ArcArray`](ndarray::ArcArray) that shares its buffer with others keeps sharing it when
    /// it is contiguous in the reading order; otherwise it must hold the only reference to its
    /// buffer (ndarray's public API gives a shared buffer no other layout).
    ///
    /// # Errors
    ///
    /// The spec's errors, or [`ReshapeError::NeedsCopy`] (strides, or a shared `ArcArray` that
    /// is not contiguous in the reading order).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Mx, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// let ptr = x.as_ptr();
    /// let y = x.into_reshape(Mx::new([-3, -2]))?;
    /// assert_eq!((y.shape(), y.as_ptr()), (&[6, 4][..], ptr));
    /// # Ok(())
    /// # }
    /// ```
    fn into_reshape<P: ShapeSpec>(self, spec: P) -> Result<ArrayBase<S, IxDyn>, ReshapeError>
    where
        S: IntoReshapeData,
        Self: Sized;

    /// Always a fresh array, contiguous in the reading order (C, or F for [`Order::F`]).
    ///
    /// # Errors
    ///
    /// The spec's errors.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Np, Order, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// let c = x.reshape_owned(Np::new([4, 6], Order::F))?;
    /// assert!(c.t().is_standard_layout());
    /// assert_ne!(c.as_ptr(), x.as_ptr());
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_owned<P: ShapeSpec>(&self, spec: P) -> Result<Array<A, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data;

    /// Always a copy, written into the caller's buffer `out` (contiguous in the reading order,
    /// like [`reshape_owned`](Self::reshape_owned)), returned as a mutable view of `out` with
    /// the new shape. For reused outputs (arena-planned graphs, double buffering): no
    /// allocation, no page faults on a warm buffer, the same parallel engine.
    ///
    /// # Errors
    ///
    /// The spec's errors, or [`ReshapeError::OutputLength`] when `out.len()` is not the
    /// array's element count (then `out` is left untouched).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array};
    /// use ndarray_reshape::{Mx, ReshapeError, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ReshapeError> {
    /// let x = Array::from_iter(0..6).into_shape_with_order((2, 3)).unwrap();
    /// let mut buf = vec![0; 6];
    /// let y = x.t().reshape_copy_into(Mx::new([-1]), &mut buf)?;
    /// assert_eq!(y, array![0, 3, 1, 4, 2, 5].into_dyn());
    /// assert_eq!(buf, [0, 3, 1, 4, 2, 5]);
    /// let err = x.reshape_copy_into(Mx::new([-1]), &mut [0; 5]).unwrap_err();
    /// assert!(matches!(err, ReshapeError::OutputLength(_)));
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_copy_into<'o, P: ShapeSpec>(
        &self,
        spec: P,
        out: &'o mut [A],
    ) -> Result<ArrayViewMut<'o, A, IxDyn>, ReshapeError>
    where
        A: Copy + Send + Sync,
        S: Data;

    /// [`reshape_with`](Self::reshape_with) with a rank-typed result: the dimension type `E`
    /// (`Ix1`, `Ix2`, ..., or `IxDyn`) is chosen by the caller, as in ndarray's
    /// `into_dimensionality`. When the target rank is known at compile time this skips the
    /// dynamic-rank shape of the result, which is most of the fixed cost of a small reshape.
    ///
    /// # Errors
    ///
    /// The spec's errors, or [`ReshapeError::RankMismatch`] when the spec gives a shape whose
    /// rank is not `E`'s.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array, Ix1, Ix3};
    /// use ndarray_reshape::{Mx, ReshapeError, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ReshapeError> {
    /// let x = Array::from_iter(0..6).into_shape_with_order((2, 3)).unwrap();
    /// let t = x.t();
    /// let y = t.reshape_with_dim::<Ix1>(Mx::new([-1]))?; // a copy, typed `Ix1`
    /// assert_eq!(y, array![0, 3, 1, 4, 2, 5]);
    /// let v = x.reshape_with_dim::<Ix3>(Mx::new([-4, 1, -1, 3]))?; // a view
    /// assert!(v.is_view() && v.dim() == (1, 2, 3));
    /// let err = x.reshape_with_dim::<Ix3>(Mx::new([-1])).unwrap_err();
    /// assert!(matches!(err, ReshapeError::RankMismatch(_)));
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_with_dim<E: Dimension>(
        &self,
        spec: impl ShapeSpec,
    ) -> Result<CowArray<'_, A, E>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data;

    /// [`reshape_view`](Self::reshape_view) with a rank-typed result (see
    /// [`reshape_with_dim`](Self::reshape_with_dim)).
    ///
    /// # Errors
    ///
    /// The spec's errors, [`ReshapeError::RankMismatch`], or [`ReshapeError::NeedsCopy`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{Array, Ix2};
    /// use ndarray_reshape::{Np, Order, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// let v = x.reshape_view_dim::<Ix2>(Np::new([6, -1], Order::C))?;
    /// assert_eq!((v.dim(), v.as_ptr()), ((6, 4), x.as_ptr()));
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_view_dim<E: Dimension>(
        &self,
        spec: impl ShapeSpec,
    ) -> Result<ArrayView<'_, A, E>, ReshapeError>
    where
        S: Data;

    /// [`reshape_owned`](Self::reshape_owned) with a rank-typed result (see
    /// [`reshape_with_dim`](Self::reshape_with_dim)).
    ///
    /// # Errors
    ///
    /// The spec's errors, or [`ReshapeError::RankMismatch`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array, Ix2};
    /// use ndarray_reshape::{Paddle, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::from_iter(0..6).into_shape_with_order((2, 3)).unwrap();
    /// let y = x.reshape_owned_dim::<Ix2>(Paddle::new([3, -1]))?;
    /// assert_eq!(y, array![[0, 1], [2, 3], [4, 5]]);
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_owned_dim<E: Dimension>(
        &self,
        spec: impl ShapeSpec,
    ) -> Result<Array<A, E>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data;

    /// [`reshape_view_mut`](Self::reshape_view_mut) with a rank-typed result (see
    /// [`reshape_with_dim`](Self::reshape_with_dim)).
    ///
    /// # Errors
    ///
    /// The spec's errors, [`ReshapeError::RankMismatch`], or [`ReshapeError::NeedsCopy`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{Array, Ix2};
    /// use ndarray_reshape::{Mx, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let mut m = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// let mut v = m.reshape_view_mut_dim::<Ix2>(Mx::new([-1, 4]))?;
    /// v.row_mut(5).fill(0);
    /// assert_eq!(m[[1, 2, 3]], 0);
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_view_mut_dim<E: Dimension>(
        &mut self,
        spec: impl ShapeSpec,
    ) -> Result<ArrayViewMut<'_, A, E>, ReshapeError>
    where
        S: DataMut;

    /// [`reshape_copy_into`](Self::reshape_copy_into) with a rank-typed result (see
    /// [`reshape_with_dim`](Self::reshape_with_dim)).
    ///
    /// # Errors
    ///
    /// The spec's errors, [`ReshapeError::RankMismatch`], or [`ReshapeError::OutputLength`]
    /// (then `out` is left untouched).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array, Ix2};
    /// use ndarray_reshape::{Np, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::from_iter(0..6).into_shape_with_order((2, 3)).unwrap();
    /// let mut buf = [0; 6];
    /// let y = x.t().reshape_copy_into_dim::<Ix2>(Np::from([2, 3]), &mut buf)?;
    /// assert_eq!(y, array![[0, 3, 1], [4, 2, 5]]);
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_copy_into_dim<'o, E: Dimension>(
        &self,
        spec: impl ShapeSpec,
        out: &'o mut [A],
    ) -> Result<ArrayViewMut<'o, A, E>, ReshapeError>
    where
        A: Copy + Send + Sync,
        S: Data;

    /// [`into_reshape`](Self::into_reshape) with a rank-typed result (see
    /// [`reshape_with_dim`](Self::reshape_with_dim)): a view keeps its lifetime, as ndarray's
    /// `into_shape_with_order` does.
    ///
    /// # Errors
    ///
    /// The spec's errors, [`ReshapeError::RankMismatch`], or [`ReshapeError::NeedsCopy`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{Array, ArrayView2, ArrayView3, Ix2};
    /// use ndarray_reshape::{Mx, ReshapeError, ReshapeExt};
    ///
    /// fn rows<'a>(x: ArrayView3<'a, f32>) -> Result<ArrayView2<'a, f32>, ReshapeError> {
    ///     x.into_reshape_dim::<Ix2>(Mx::new([-3, -2]))
    /// }
    /// let a = Array::<f32, _>::zeros((2, 3, 4));
    /// assert_eq!(rows(a.view())?.dim(), (6, 4));
    /// # Ok::<(), ReshapeError>(())
    /// ```
    fn into_reshape_dim<E: Dimension>(
        self,
        spec: impl ShapeSpec,
    ) -> Result<ArrayBase<S, E>, ReshapeError>
    where
        S: IntoReshapeData,
        Self: Sized;

    /// Consume the array and reshape it, copying only when the strides require it, like
    /// ndarray's `into_shape_clone`: a view ([`ArrayView`]) becomes a [`CowArray`] of the same
    /// lifetime (the view when the strides permit, else a copy), an owned array keeps its buffer
    /// when it can (else a copy, and the old buffer is freed), an `ArcArray` stays an `ArcArray`
    /// and a `CowArray` a `CowArray`. A mutable view has no such mode: use
    /// [`into_reshape`](Self::into_reshape) or [`reshape_with`](Self::reshape_with).
    ///
    /// # Errors
    ///
    /// The spec's errors, or [`ReshapeError::AllocationFailed`] when a copy is needed and its
    /// buffer cannot be allocated.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Np, Order, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::from_iter(0..6).into_shape_with_order((2, 3)).unwrap();
    /// // A permuted temporary: the result owns its copy, nothing borrows the temporary.
    /// let flat = x.view().permuted_axes([1, 0]).into_reshape_clone(Np::new([-1], Order::C))?;
    /// assert!(!flat.is_view());
    /// assert_eq!(flat.as_slice(), Some(&[0, 3, 1, 4, 2, 5][..]));
    /// // Where a view is possible, it is one, with the lifetime of `x`.
    /// let v = x.view().into_reshape_clone(Np::new([-1], Order::C))?;
    /// assert!(v.is_view());
    /// # Ok(())
    /// # }
    /// ```
    fn into_reshape_clone<P: ShapeSpec>(
        self,
        spec: P,
    ) -> Result<ArrayBase<S::Cloned, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: IntoReshapeClone,
        Self: Sized;

    /// [`into_reshape_clone`](Self::into_reshape_clone) with a rank-typed result (see
    /// [`reshape_with_dim`](Self::reshape_with_dim)).
    ///
    /// # Errors
    ///
    /// The spec's errors, [`ReshapeError::RankMismatch`], or
    /// [`ReshapeError::AllocationFailed`].
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{Array, Array2, Ix2};
    /// use ndarray_reshape::{Paddle, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// let ptr = x.as_ptr();
    /// let y: Array2<i32> = x.into_reshape_clone_dim::<Ix2>(Paddle::new([0, -1]))?;
    /// assert_eq!((y.dim(), y.as_ptr()), ((2, 12), ptr)); // the same buffer
    /// let z = y.reversed_axes().into_reshape_clone_dim::<Ix2>(Paddle::new([4, -1]))?;
    /// assert_eq!(z[[0, 1]], 12); // a copy in C order of the transpose
    /// # Ok(())
    /// # }
    /// ```
    fn into_reshape_clone_dim<E: Dimension>(
        self,
        spec: impl ShapeSpec,
    ) -> Result<ArrayBase<S::Cloned, E>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: IntoReshapeClone,
        Self: Sized;
}

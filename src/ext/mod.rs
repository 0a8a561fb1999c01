//! [`ReshapeExt`], the public trait and its documentation, and the doors behind it. Its
//! implementations (`impls`) are thin: the spec gives the target shape, `view` plans the call
//! (a view where the strides permit one, else what the copy reads) and `copy` runs every copy;
//! the converting calls and `Blocked`'s copies are in `convert.rs`, the einops calls (`pack`,
//! `unpack`, `reduce`) in `einops.rs`, the typed dims of the results in `dim.rs`. No unsafe
//! code: raw pointers stay in `view` and `copy`.
#![forbid(unsafe_code)]

mod convert;
mod dim;
mod einops;
mod impls;

pub use dim::IntoDim;
pub use einops::pack;

use ndarray::{
    Array, ArrayBase, ArrayRef, ArrayView, ArrayViewMut, Data, DataMut, Dimension, IxDyn, RawData,
    ShapeBuilder,
};

use crate::convert::{params_at, Conversion};
use crate::copy;
use crate::copy::convert as engine;
use crate::copy::fold::Reducible;
use crate::copy::RawArray;
use crate::dialect::einops::Function;
use crate::dialect::einops::Rearrange;
use crate::dialect::like::IntoLike;
use crate::dialect::mx::Mx;
use crate::dialect::np::Np;
use crate::dialect::npx::Npx;
use crate::dialect::onnx::Onnx;
use crate::dialect::paddle::Paddle;
use crate::dialect::PackedDim;
use crate::dialect::Reduce;
use crate::dialect::{reject, IntoSpec, ShapeSpec};
use crate::dims::{typed_dim, Order, Reading};
use crate::entries::IntoSpecList;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::layout::reading;
use crate::layout::strides::contiguous_dims;
use crate::reduction::Reduction;
use crate::view;
use crate::view::{IntoReshapeClone, IntoReshapeData};

pub(crate) mod sealed {
    use ndarray::{ArrayRef, Data, RawData};

    pub trait Sealed {}

    /// The array a [`ReshapeExt`](super::ReshapeExt) method works on: an `ArrayBase`
    /// dereferenced (a pointer cast), or the `ArrayRef` itself.
    pub trait Arrays<A, S: RawData<Elem = A>, D>: Sealed {
        fn array_ref(&self) -> &ArrayRef<A, D>
        where
            S: Data;
    }
}

/// Reshapes in the MXNet, `reshape_like`, Paddle, NumPy, MXNet 2.x `npx` and ONNX dialects, einops
/// (`rearrange`, `repeat`, `reduce`, `unpack`, through [`Rearrange`](crate::Rearrange) and
/// [`Reduce`](crate::Reduce)), contiguous copies in either order, and copies that convert the
/// element type as they write ([`convert`](crate::convert)), for every `ndarray` array: owned [`Array`],
/// [`ArrayView`](ndarray::ArrayView), [`ArrayViewMut`], [`ArcArray`](ndarray::ArcArray) and [`CowArray`](ndarray::CowArray), and the
/// [`ArrayRef`](ndarray::ArrayRef) they all dereference to (what ndarray 0.17 functions take as
/// `&ArrayRef<A, D>` or `&mut ArrayRef<A, D>`; every method but the consuming and in-place
/// ones).
///
/// Generic code names the bounds of the modes it calls: `A: Clone + Send + Sync` wherever a
/// copy can happen (the view-or-copy and copy modes, `to_layout`), `A: Copy + Send + Sync` for
/// the `_into` modes that write a caller's buffer, none for the strict views:
///
/// ```
/// use ndarray::{ArrayBase, Data, Dimension, IxDyn};
/// use ndarray_reshape::{Mx, ReshapeError, ReshapeExt};
///
/// fn flat<A, S, D>(x: &ArrayBase<S, D>) -> Result<Vec<A>, ReshapeError>
/// where
///     A: Clone + Send + Sync,
///     S: Data<Elem = A>,
///     D: Dimension,
/// {
///     Ok(x.reshape_with(Mx::new([-1]))?.iter().cloned().collect())
/// }
/// assert_eq!(flat(&ndarray::array![[1, 2], [3, 4]].t())?, [1, 3, 2, 4]);
/// # Ok::<(), ReshapeError>(())
/// ```
///
/// Every reshape computes the target shape with the spec (see [`ShapeSpec`]); the modes that may
/// return a view then ask [`layout::view_strides`](crate::layout::view_strides) whether the
/// input's strides allow one (exactly when NumPy would give one), and the copying modes plan the
/// copy without asking. The modes:
///
/// A headline method of a dialect: [`ReshapeExt::reshape_with`] of the spec `spec` becomes.
macro_rules! spec_method {
    ($(#[$doc:meta])* $name:ident, $dialect:ty) => {
        $(#[$doc])*
        fn $name<T: IntoSpec<$dialect>>(
            &self,
            spec: T,
        ) -> Result<Self::Cow<'_, <T::Spec as ShapeSpec>::Rank>, ReshapeError>
        where
            A: Clone + Send + Sync,
            S: Data,
        {
            self.reshape_with(&spec.into_spec())
        }
    };
}

/// An einops method that reshapes by its pattern (`rearrange`, `repeat`), the pattern parsed
/// once per thread.
macro_rules! pattern_method {
    ($(#[$doc:meta])* $name:ident, $function:expr) => {
        $(#[$doc])*
        fn $name(
            &self,
            pattern: &str,
            lengths: &[(&str, usize)],
        ) -> Result<Self::Cow<'_, IxDyn>, ReshapeError>
        where
            A: Clone + Send + Sync,
            S: Data,
        {
            self.reshape_with(&*Rearrange::recent($function, pattern, lengths)?)
        }
    };
}

#[doc = include_str!("../../docs/modes.md")]
///
/// Copies are contiguous in the reading order (C, or F for [`Order::F`]) and run on rayon when
/// large. [`to_layout`](Self::to_layout) is the same copy engine without a reshape: the array
/// made C- or F-contiguous. The trait is sealed.
///
/// Results have dynamic rank (`IxDyn`) for a dialect's spec, and the rank of `E` for
/// [`spec.dim::<E>()`](ShapeSpec::dim), in every mode: `x.reshape_view(Mx::new([0, -1]).dim::<Ix2>())`
/// is an `ArrayView2`. A result in hand converts with
/// [`IntoDim::into_dim`].
///
/// # Examples
///
/// ```
/// use ndarray::{Array, Ix2};
/// use ndarray_reshape::{Mx, ReshapeExt, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
/// let y = x.reshape_mx([-4, 1, 2, -2])?;
/// assert_eq!(y.shape(), &[1, 2, 3, 4]);
/// assert!(y.is_view());
/// let rows = x.reshape_mx(Mx::new([-3, 0]).dim::<Ix2>())?; // typed: a CowArray<'_, i32, Ix2>
/// assert_eq!(rows.dim(), (6, 4));
/// # Ok(())
/// # }
/// ```
// The headline methods pass the spec they build to `reshape_with` by reference on purpose: a
// spec moved in by value is copied on the view path (BENCHMARKS.md, "The view path").
#[allow(clippy::needless_borrows_for_generic_args)]
pub trait ReshapeExt<A, S, D>: sealed::Arrays<A, S, D>
where
    S: RawData<Elem = A>,
    D: Dimension,
{
    /// What [`reshape_with`](Self::reshape_with) and the headline methods return: a
    /// [`CowArray`](ndarray::CowArray) of dims `E` (the view when the strides permit, else an owned copy) that
    /// borrows this array, or, for an [`ArrayView`](ndarray::ArrayView), the data of the view, so that the result
    /// outlives a temporary view (`x.t().reshape_with(..)`).
    type Cow<'s, E: Dimension + 'static>
    where
        Self: 's;

    /// What [`reshape_view`](Self::reshape_view) returns: an [`ArrayView`](ndarray::ArrayView) of dims `E` that
    /// borrows this array, or, for an `ArrayView`, the data of the view.
    type View<'s, E: Dimension + 'static>
    where
        Self: 's;

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
    /// let x = Array::from_iter(0..12).into_shape_with_order((3, 4)).unwrap();
    /// assert!(x.reshape_with(Np::new([4, 3], Order::C))?.is_view());
    /// let t = x.t(); // F-contiguous
    /// let y = t.reshape_with(Np::new([-1], Order::C))?;
    /// assert!(!y.is_view());
    /// assert_eq!(y.as_slice().unwrap()[..4], [0, 4, 8, 1]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn reshape_with<P: ShapeSpec>(&self, spec: P) -> Result<Self::Cow<'_, P::Rank>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data;

    spec_method!(
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
        /// let x = Array::<f32, _>::zeros((2, 3, 4));
        /// assert_eq!(x.reshape_mx([-3, -2])?.shape(), &[6, 4]);
        /// assert_eq!(x.reshape_mx(Mx::new([-1, 0]).reverse(true))?.shape(), &[6, 4]);
        /// assert!(x.reshape_mx([-1, -1]).is_err());
        /// # Ok::<(), ndarray_reshape::ReshapeError>(())
        /// ```
        reshape_mx, Mx
    );

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
    /// let x = Array::from_iter(0..6);
    /// let rhs = Array::<u8, _>::zeros((3, 2));
    /// assert_eq!(x.reshape_like(&rhs)?, array![[0, 1], [2, 3], [4, 5]].into_dyn());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn reshape_like<T: IntoLike>(&self, rhs: T) -> Result<Self::Cow<'_, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        self.reshape_with(&rhs.into_like())
    }

    spec_method!(
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
        /// let x = Array::<f32, _>::zeros((2, 4, 6));
        /// assert_eq!(x.reshape_paddle([-1, 0, 3, 2])?.shape(), &[2, 4, 3, 2]);
        /// assert_eq!(x.reshape_paddle(&array![8i32, 6])?.shape(), &[8, 6]);
        /// # Ok::<(), ndarray_reshape::ReshapeError>(())
        /// ```
        reshape_paddle, Paddle
    );

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
    /// let a = Array::from_iter(0..6).into_shape_with_order((3, 2)).unwrap();
    /// let t = a.t();
    /// let y = t.reshape_np([-1], Order::A)?; // F-contiguous input read in F order
    /// assert!(y.is_view());
    /// assert_eq!(y, array![0, 1, 2, 3, 4, 5].into_dyn());
    /// // ndarray's own order works too.
    /// assert!(t.reshape_np([-1], ndarray::Order::ColumnMajor)?.is_view());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn reshape_np<T: IntoSpecList>(
        &self,
        spec: T,
        order: impl Into<Order>,
    ) -> Result<Self::Cow<'_, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        self.reshape_with(&Np::new(spec, order))
    }

    spec_method!(
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
        /// let x = Array::<f32, _>::zeros((1, 2, 3));
        /// assert_eq!(x.reshape_npx([-3, -1, -2])?.shape(), &[2, 3]); // drop the 1, infer, copy
        /// # Ok::<(), ndarray_reshape::ReshapeError>(())
        /// ```
        reshape_npx, Npx
    );

    spec_method!(
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
        /// let x = Array::<f32, _>::zeros((2, 3, 4));
        /// assert_eq!(x.reshape_onnx(&array![0i64, -1])?.shape(), &[2, 12]);
        /// assert!(x.reshape_onnx(Onnx::new([0, -1]).allowzero(true)).is_err());
        /// # Ok::<(), ndarray_reshape::ReshapeError>(())
        /// ```
        reshape_onnx, Onnx
    );

    pattern_method!(
        /// einops' `rearrange(x, pattern, **lengths)`: a view whenever one strided view expresses
        /// the result (axes split, permuted, unit axes added or removed, merges whose strides
        /// chain), otherwise one parallel copy read straight from the input, never the
        /// reshape-transpose-reshape chain of copies. The same as
        /// `reshape_with(Rearrange::new(pattern)?.axis(..))`; every other mode takes a
        /// [`Rearrange`](crate::Rearrange) too. The result is `IxDyn` (the rank is in the text):
        /// `.into_dim()?` ([`IntoDim`](crate::IntoDim)) names it for a typed binding. For an owned,
        /// contiguous result, [`rearrange_owned`](Self::rearrange_owned): a view's `into_owned` is
        /// ndarray's element-by-element copy.
        ///
        /// # Errors
        ///
        /// See [`Rearrange`](crate::Rearrange).
        ///
        /// # Examples
        ///
        /// ```
        /// use ndarray::Array;
        /// use ndarray_reshape::ReshapeExt;
        ///
        /// let x = Array::from_iter(0..2 * 49 * 3).into_shape_with_order((2, 49, 3)).unwrap();
        /// let y = x.rearrange("b (h w) c -> b h w c", &[("h", 7)])?;
        /// assert_eq!(y.shape(), &[2, 7, 7, 3]);
        /// assert!(y.is_view());
        /// let t = x.rearrange("b n c -> b (c n)", &[])?; // a transposed merge: one copy
        /// assert_eq!(t[[1, 49]], x[[1, 0, 1]]);
        /// assert!(!t.is_view());
        /// # Ok::<(), ndarray_reshape::ReshapeError>(())
        /// ```
        rearrange, Function::Rearrange
    );

    /// [`rearrange`](Self::rearrange) into a fresh array, contiguous in C order: the owned
    /// result of a pattern in one copy with the engine's tiles and threads, as fast as
    /// [`to_layout`](Self::to_layout) (the same as `reshape_owned(Rearrange::new(pattern)?)`).
    /// The view `rearrange` returns turns owned through ndarray's element-by-element
    /// `into_owned` instead, 14x slower on a permuted `(4, 22, 2100)` `f32` view
    /// (BENCHMARKS.md, "einops relayouts").
    ///
    /// # Errors
    ///
    /// See [`Rearrange`](crate::Rearrange).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{s, Array};
    /// use ndarray_reshape::ReshapeExt;
    ///
    /// let x = Array::from_iter(0..4 * 84 * 5).into_shape_with_order((4, 84, 5)).unwrap();
    /// let boxes = x.slice(s![.., ..4, ..]).rearrange_owned("b k n -> b n k", &[])?;
    /// assert_eq!(boxes.shape(), &[4, 5, 4]);
    /// assert!(boxes.is_standard_layout());
    /// assert_eq!(boxes[[1, 2, 3]], x[[1, 3, 2]]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn rearrange_owned(
        &self,
        pattern: &str,
        lengths: &[(&str, usize)],
    ) -> Result<Array<A, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        self.reshape_owned(&*Rearrange::recent(Function::Rearrange, pattern, lengths)?)
    }

    pattern_method!(
        /// einops' `repeat(x, pattern, **lengths)`: new axes (`c` with a length, or a number) and
        /// repeated groups (`(h 2)`) on the right. New axes are broadcasts, stride 0, where one
        /// view expresses the result; otherwise one copy.
        ///
        /// # Errors
        ///
        /// See [`Rearrange`](crate::Rearrange).
        ///
        /// # Examples
        ///
        /// ```
        /// use ndarray::array;
        /// use ndarray_reshape::ReshapeExt;
        ///
        /// let x = array![[1, 2], [3, 4]];
        /// let c = x.repeat("h w -> h w c", &[("c", 3)])?;
        /// assert!(c.is_view()); // a broadcast
        /// assert_eq!(c[[1, 0, 2]], 3);
        /// let up = x.repeat("h w -> (h 2) (w 2)", &[])?;
        /// assert_eq!(up.shape(), &[4, 4]);
        /// assert_eq!(up.iter().skip(12).copied().collect::<Vec<_>>(), [3, 3, 4, 4]);
        /// # Ok::<(), ndarray_reshape::ReshapeError>(())
        /// ```
        repeat, Function::Repeat
    );

    /// einops' `reduce(x, pattern, reduction, **lengths)`: the axes named on the left and not
    /// on the right are folded by `reduction` (max pooling `"b c (h 2) (w 2) -> b c h w"`,
    /// global average pooling `"b c h w -> b c"`, a mean over tokens `"b n d -> b d"`), read in
    /// place whatever the strides (a transposed or strided view is not copied first), on
    /// the caller's rayon pool when large. A pattern that reduces nothing is a rearrangement
    /// and gives a view where the strides permit, as in einops; otherwise the result is a fresh
    /// array, contiguous in C order. The same as
    /// [`reduce_with`](Self::reduce_with)`(&Reduce::new(pattern, reduction)?.axis(..))`, with
    /// the pattern parsed once per thread (einops caches its recipes the same way).
    ///
    /// Values are NumPy's (see [`Reducible`](crate::Reducible) and [`Reduction`](crate::Reduction)).
    ///
    /// # Errors
    ///
    /// See [`Reduce`](crate::Reduce) and [`Reducible`](crate::Reducible).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Reduction, ReshapeExt};
    ///
    /// let x = Array::from_shape_fn((2, 3, 4, 4), |(b, c, h, w)| (b * 48 + c * 16 + h * 4 + w) as f32);
    /// let pooled = x.reduce("b c (h 2) (w 2) -> b c h w", Reduction::Max, &[])?;
    /// assert_eq!(pooled.shape(), &[2, 3, 2, 2]);
    /// assert_eq!(pooled[[0, 0, 0, 0]], 5.0);
    /// let gap = x.reduce("b c h w -> b c", Reduction::Mean, &[])?;
    /// assert_eq!(gap[[0, 0]], 7.5);
    /// let nhwc = x.view().permuted_axes([0, 2, 3, 1]); // strided: read in place
    /// assert_eq!(nhwc.reduce("b h w c -> b c", Reduction::Mean, &[])?, gap);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn reduce(
        &self,
        pattern: &str,
        reduction: Reduction,
        lengths: &[(&str, usize)],
    ) -> Result<Self::Cow<'_, IxDyn>, ReshapeError>
    where
        A: Reducible,
        S: Data,
    {
        let spec = Rearrange::recent(Function::Reduce, pattern, lengths)?;
        self.reduce_with(&Reduce::from_pattern(spec, reduction))
    }

    /// [`reduce`](Self::reduce) with a kept [`Reduce`](crate::Reduce).
    ///
    /// # Errors
    ///
    /// See [`Reduce`](crate::Reduce).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Reduce, Reduction, ReshapeExt};
    ///
    /// let tokens = Array::from_elem((2, 197, 8), 0.5f32);
    /// let mean = Reduce::new("b n d -> b d", Reduction::Mean)?;
    /// assert_eq!(tokens.reduce_with(&mean)?, Array::from_elem((2, 8), 0.5f32).into_dyn());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn reduce_with(&self, spec: &Reduce) -> Result<Self::Cow<'_, IxDyn>, ReshapeError>
    where
        A: Reducible,
        S: Data;

    /// einops' `unpack(x, packed_shapes, pattern)`: the packed array split back along the
    /// `*` of the pattern into arrays of the packed shapes (one of which may hold one `-1`,
    /// inferred), each a view of this array (the packed axis sliced, then split), as einops
    /// gives on NumPy arrays.
    ///
    /// # Errors
    ///
    /// See [`Pack::unpack_shapes`](crate::Pack::unpack_shapes).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::ReshapeExt;
    ///
    /// let packed = Array::from_iter(0..2 * 10 * 3).into_shape_with_order((2, 10, 3)).unwrap();
    /// let parts = packed.unpack("b * c", &[vec![2i64, 2], vec![-1]])?;
    /// assert_eq!(parts[0].shape(), &[2, 2, 2, 3]);
    /// assert_eq!(parts[1].shape(), &[2, 6, 3]);
    /// assert_eq!(parts[1][[1, 0, 0]], packed[[1, 4, 0]]); // a view of `packed`
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn unpack<T: PackedDim>(
        &self,
        pattern: &str,
        shapes: &[Vec<T>],
    ) -> Result<Vec<ArrayView<'_, A, IxDyn>>, ReshapeError>
    where
        S: Data;

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
    /// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// let v = x.reshape_view(Mx::new([6, 4]))?;
    /// assert_eq!(v.as_ptr(), x.as_ptr());
    /// let err = x.t().reshape_view(Np::new([24], Order::C)).unwrap_err();
    /// assert!(matches!(err, ReshapeError::NeedsCopy(_)));
    /// # Ok::<(), ReshapeError>(())
    /// ```
    fn reshape_view<P: ShapeSpec>(&self, spec: P) -> Result<Self::View<'_, P::Rank>, ReshapeError>
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
    /// let mut m = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// m.reshape_view_mut(Paddle::new([4, 6]))?[[3, 5]] = -1;
    /// assert_eq!(m[[1, 2, 3]], -1);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn reshape_view_mut<P: ShapeSpec>(
        &mut self,
        spec: P,
    ) -> Result<ArrayViewMut<'_, A, P::Rank>, ReshapeError>
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
    /// A failed consuming reshape has taken the array: it is dropped with the error. To keep
    /// the array on failure, reshape it where it stands with
    /// [`reshape_in_place`](Self::reshape_in_place) (Paddle's `reshape_`), or borrow it with
    /// [`reshape_view`](Self::reshape_view).
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
    /// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// let ptr = x.as_ptr();
    /// let y = x.into_reshape(Mx::new([-3, -2]))?;
    /// assert_eq!((y.shape(), y.as_ptr()), (&[6, 4][..], ptr));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn into_reshape<P: ShapeSpec>(self, spec: P) -> Result<ArrayBase<S, P::Rank>, ReshapeError>
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
    /// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
    /// let c = x.reshape_owned(Np::new([4, 6], Order::F))?;
    /// assert!(c.t().is_standard_layout());
    /// assert_ne!(c.as_ptr(), x.as_ptr());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn reshape_owned<P: ShapeSpec>(&self, spec: P) -> Result<Array<A, P::Rank>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        let plan = view::copy_plan(self.array_ref(), &spec)?;
        impls::copy_or_fail(plan.reads(), &spec, &plan.shape, plan.reading)
    }

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
    /// let x = Array::from_iter(0..6).into_shape_with_order((2, 3)).unwrap();
    /// let mut buf = vec![0; 6];
    /// let y = x.t().reshape_copy_into(Mx::new([-1]), &mut buf)?;
    /// assert_eq!(y, array![0, 3, 1, 4, 2, 5].into_dyn());
    /// assert_eq!(buf, [0, 3, 1, 4, 2, 5]);
    /// let err = x.reshape_copy_into(Mx::new([-1]), &mut [0; 5]).unwrap_err();
    /// assert!(matches!(err, ReshapeError::OutputLength(_)));
    /// # Ok::<(), ReshapeError>(())
    /// ```
    fn reshape_copy_into<'o, P: ShapeSpec>(
        &self,
        spec: P,
        out: &'o mut [A],
    ) -> Result<ArrayViewMut<'o, A, P::Rank>, ReshapeError>
    where
        A: Copy + Send + Sync,
        S: Data,
    {
        let a = self.array_ref();
        let plan = view::copy_plan(a, &spec)?;
        let dims = typed_dim::<P::Rank>(&plan.shape);
        let src = (plan.reads().source(), a.shape());
        impls::copy_into(src, dims, plan.reading, out, || spec.describe())
    }

    /// Consume the array and reshape it, copying only when the strides require it, like
    /// ndarray's `into_shape_clone`: a view ([`ArrayView`](ndarray::ArrayView)) becomes a [`CowArray`](ndarray::CowArray) of the same
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
    /// let x = Array::from_iter(0..6).into_shape_with_order((2, 3)).unwrap();
    /// // A permuted temporary: the result owns its copy, nothing borrows the temporary.
    /// let flat = x.view().permuted_axes([1, 0]).into_reshape_clone(Np::new([-1], Order::C))?;
    /// assert!(!flat.is_view());
    /// assert_eq!(flat.as_slice(), Some(&[0, 3, 1, 4, 2, 5][..]));
    /// // Where a view is possible, it is one, with the lifetime of `x`.
    /// let v = x.view().into_reshape_clone(Np::new([-1], Order::C))?;
    /// assert!(v.is_view());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn into_reshape_clone<P: ShapeSpec>(
        self,
        spec: P,
    ) -> Result<ArrayBase<S::Cloned, P::Rank>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: IntoReshapeClone,
        Self: Sized;

    /// Reshape the array where it stands (Paddle's in-place `reshape_`): it takes the new shape
    /// over the same elements, in the same buffer, when the strides permit a view; otherwise
    /// it is an error and the array is exactly as it was. The spec's rank type must be the
    /// array's: any spec for an `ArrayD`, `spec.dim::<E>()` for an array of dimension `E`.
    ///
    /// Works on owned arrays, views, mutable views, `CowArray`s, and on an `ArcArray` (a
    /// shared one when it is contiguous in the reading order, as for
    /// [`into_reshape`](Self::into_reshape)). Nothing is allocated and no element moves, except
    /// for an owned array whose data does not start its buffer (after `slice_move`): its
    /// elements move to the front of the same buffer.
    ///
    /// # Errors
    ///
    /// The spec's errors, or [`ReshapeError::NeedsCopy`]; the array is unchanged.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{Array, ArrayD, Ix2};
    /// use ndarray_reshape::{Mx, Paddle, ReshapeExt, ShapeSpec};
    ///
    /// let mut x: ArrayD<f32> = ArrayD::zeros(vec![2, 3, 4]);
    /// let ptr = x.as_ptr();
    /// x.reshape_in_place(Paddle::new([0, -1]))?;
    /// assert_eq!((x.shape(), x.as_ptr()), (&[2, 12][..], ptr));
    /// assert!(x.reshape_in_place(Paddle::new([5, -1])).is_err());
    /// assert_eq!(x.shape(), &[2, 12]); // unchanged
    /// // A typed array keeps its dimension type.
    /// let mut m = Array::<f32, _>::zeros((6, 4));
    /// m.reshape_in_place(Mx::new([4, -1]).dim::<Ix2>())?;
    /// assert_eq!(m.dim(), (4, 6));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn reshape_in_place<P: ShapeSpec<Rank = D>>(&mut self, spec: P) -> Result<(), ReshapeError>
    where
        S: IntoReshapeData,
        Self: Sized;

    /// The same array (shape, dimension type, elements in the same logical order) in memory
    /// contiguous in `order`: C (row-major, ndarray's standard layout), F (column-major, what
    /// LAPACK takes), or [`Order::A`] (F when the input is F-contiguous and not C-contiguous,
    /// else C). Always a fresh array, written by the parallel copy engine: a memcpy when the
    /// input is already contiguous in that order, the cache-blocked transposes otherwise. The
    /// fast form of ndarray's `as_standard_layout().into_owned()` (BENCHMARKS.md, "Contiguous
    /// copies").
    ///
    /// # Errors
    ///
    /// [`ReshapeError::AllocationFailed`] when the output cannot be allocated.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array2};
    /// use ndarray_reshape::{Order, ReshapeExt};
    ///
    /// let a = array![[0, 1, 2], [3, 4, 5]];
    /// let c: Array2<i32> = a.t().to_layout(Order::C)?;
    /// assert!(c.is_standard_layout());
    /// assert_eq!(c, a.t());
    /// let f = a.to_layout(Order::F)?;
    /// assert!(f.t().is_standard_layout());
    /// assert_eq!(f, a);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn to_layout(&self, order: impl Into<Order>) -> Result<Array<A, D>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: Data,
    {
        let a = self.array_ref();
        let reading = reading(a.shape(), a.strides(), order.into());
        copy::copy_as(a, reading).map_err(|e| {
            impls::layout_error(Rule::AllocationFailed, a.shape(), reading, &e.detail())
        })
    }

    /// [`to_layout`](Self::to_layout) into the caller's buffer `out`, returned as a mutable
    /// view of `out` with this array's shape: no allocation, no page faults on a warm buffer.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::OutputLength`] when `out.len()` is not the array's element count (then
    /// `out` is left untouched).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use ndarray_reshape::{Order, ReshapeExt};
    ///
    /// let a = array![[0, 1, 2], [3, 4, 5]];
    /// let mut buf = [0; 6];
    /// let f = a.to_layout_into(Order::F, &mut buf)?;
    /// assert_eq!(f, a);
    /// assert_eq!(buf, [0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn to_layout_into<'o>(
        &self,
        order: impl Into<Order>,
        out: &'o mut [A],
    ) -> Result<ArrayViewMut<'o, A, D>, ReshapeError>
    where
        A: Copy + Send + Sync,
        S: Data,
    {
        let a = self.array_ref();
        let reading = reading(a.shape(), a.strides(), order.into());
        impls::copy_into(
            (RawArray::of(a), a.shape()),
            a.raw_dim(),
            reading,
            out,
            || (Origin::Ndarray, format!("to_layout({:?})", reading.order())),
        )
    }

    /// Reshape with any spec (a dialect's, an einops [`Rearrange`](crate::Rearrange)) into a fresh
    /// array of another element type, each element converted by `conv` as the copy writes it: one pass
    /// over the data, with the copy engine's tiles, vector kernels and threads
    /// ([`convert`](crate::convert) lists the conversions). Always a copy, contiguous in the reading
    /// order; the element type `B` usually follows from the conversion (`Cast` names it with
    /// `convert_with::<_, half::bf16, _>` or the result's type).
    ///
    /// # Errors
    ///
    /// The spec's errors; [`ReshapeError::ConversionAxis`] when the conversion's parameters run along
    /// an axis the output does not have or number other than its length;
    /// [`ReshapeError::AllocationFailed`] when the output cannot be allocated.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{Array, Array4};
    /// use ndarray_reshape::convert::{Affine, Quantize};
    /// use ndarray_reshape::{IntoDim, Rearrange, ReshapeExt};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// // A batch of HWC u8 images into a normalized NCHW f32 tensor, one pass.
    /// let images = Array::from_shape_fn((2, 4, 4, 3), |(n, h, w, c)| (n + h * 7 + w * 3 + c) as u8);
    /// let norm = Affine::normalize(1, 255.0, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225])?;
    /// let x: Array4<f32> = images
    ///     .convert_with(Rearrange::new("n h w c -> n c h w")?, &norm)?
    ///     .into_dim()?;
    /// assert_eq!(x.dim(), (2, 3, 4, 4));
    /// assert_eq!(x[[1, 2, 3, 0]], (images[[1, 3, 0, 2]] as f32) * (1.0 / (255.0 * 0.225)) - 0.406 / 0.225);
    ///
    /// // Attention heads split and quantized to int8 in the same pass.
    /// let q = Array::from_shape_fn((2, 8, 6), |(b, t, d)| (b + t + d) as f32 / 8.0);
    /// let split = Rearrange::new("b t (h d) -> b h t d")?.axis("h", 2);
    /// let heads = q.convert_with(&split, &Quantize::<i8>::new(1.0 / 64.0, 0)?)?;
    /// assert_eq!(heads.shape(), &[2, 2, 8, 3]);
    /// assert_eq!(heads[[0, 1, 2, 0]], 40); // q[0, 2, 3] = 0.625, times 64
    /// # Ok(())
    /// # }
    /// ```
    fn convert_with<P: ShapeSpec, B, C: Conversion<A, B> + ?Sized>(
        &self,
        spec: P,
        conv: &C,
    ) -> Result<Array<B, P::Rank>, ReshapeError>
    where
        A: Sync,
        B: Clone + Send + Sync,
        S: Data,
    {
        let (plan, params) = converting(self.array_ref(), &spec, conv)?;
        let fail = |rule: Rule, why: &str| reject(rule, &spec, self.array_ref().shape(), why);
        let data = engine::gather(plan.reads().source(), plan.reading, conv, params)
            .map_err(|e| fail(Rule::AllocationFailed, &e.detail()))?;
        let dims = contiguous_dims::<P::Rank>(&plan.shape, plan.reading);
        Array::from_shape_vec(dims, data).map_err(|e| fail(Rule::SizeMismatch, &e.to_string()))
    }

    /// [`to_layout`](Self::to_layout) with a conversion: a fresh array of the same shape, contiguous
    /// in `order`, of another element type, each element converted by `conv` as the copy writes it
    /// (NumPy's `a.astype(t, order=o)`, torch's `.contiguous().to(dtype)`, in one pass).
    ///
    /// # Errors
    ///
    /// [`ReshapeError::ConversionAxis`] when the conversion's parameters run along an axis the array
    /// does not have or number other than its length; [`ReshapeError::AllocationFailed`] when the
    /// output cannot be allocated.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::{array, Array2};
    /// use ndarray_reshape::convert::Cast;
    /// use ndarray_reshape::{Order, ReshapeExt};
    ///
    /// let a = array![[0.5f32, 1.5], [2.5, -3.5]];
    /// // The transpose, as f64, C-contiguous.
    /// let c: Array2<f64> = a.t().convert_layout(Order::C, &Cast)?;
    /// assert!(c.is_standard_layout());
    /// assert_eq!(c, array![[0.5, 2.5], [1.5, -3.5]]);
    /// // To i32, truncating toward zero as NumPy's astype.
    /// assert_eq!(a.convert_layout::<i32, _>(Order::C, &Cast)?, array![[0, 1], [2, -3]]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn convert_layout<B, C: Conversion<A, B> + ?Sized>(
        &self,
        order: impl Into<Order>,
        conv: &C,
    ) -> Result<Array<B, D>, ReshapeError>
    where
        A: Sync,
        B: Clone + Send + Sync,
        S: Data,
    {
        let a = self.array_ref();
        let reading = reading(a.shape(), a.strides(), order.into());
        let call = || format!("convert_layout({:?})", reading.order());
        let fail = |rule: Rule, why: String| {
            Fail::whole(rule, why).attach(Origin::Ndarray, a.shape(), call())
        };
        let params = params_at(conv, a.shape(), reading == Reading::F, a.shape(), &call)?;
        let data = engine::gather(RawArray::of(a), reading, conv, params)
            .map_err(|e| fail(Rule::AllocationFailed, e.detail()))?;
        let dims = a.raw_dim().set_f(reading == Reading::F);
        Array::from_shape_vec(dims, data).map_err(|e| fail(Rule::SizeMismatch, e.to_string()))
    }

    /// [`convert_with`](Self::convert_with) into the caller's buffer `out`, returned as a mutable view
    /// of `out` with the spec's target shape: no allocation (a reused staging buffer, a KV cache's
    /// slot).
    ///
    /// # Errors
    ///
    /// As [`convert_with`](Self::convert_with), and [`ReshapeError::OutputLength`] when `out.len()` is
    /// not the array's element count (then `out` is left untouched).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::array;
    /// use ndarray_reshape::convert::Cast;
    /// use ndarray_reshape::{Np, Order, ReshapeExt};
    ///
    /// let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
    /// let mut buf = [0u8; 6];
    /// let v = a.t().convert_into(Np::new([-1], Order::C), &Cast, &mut buf)?;
    /// assert_eq!(v.len(), 6);
    /// assert_eq!(buf, [1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    fn convert_into<'o, P: ShapeSpec, B, C: Conversion<A, B> + ?Sized>(
        &self,
        spec: P,
        conv: &C,
        out: &'o mut [B],
    ) -> Result<ArrayViewMut<'o, B, P::Rank>, ReshapeError>
    where
        A: Sync,
        B: Copy + Send + Sync,
        S: Data,
    {
        let a = self.array_ref();
        let (plan, params) = converting(a, &spec, conv)?;
        if out.len() != a.len() {
            let (dialect, written) = spec.describe();
            let wrong = Fail::output_length(out.len(), a.len());
            return Err(wrong.attach(dialect, a.shape(), written));
        }
        engine::gather_into(plan.reads().source(), plan.reading, conv, params, out);
        let dims = contiguous_dims::<P::Rank>(&plan.shape, plan.reading);
        ArrayViewMut::from_shape(dims, out)
            .map_err(|e| reject(Rule::SizeMismatch, &spec, a.shape(), &e.to_string()))
    }
}

/// Where a conversion's parameters are found along the output: an axis and its length.
type ParamsAt = Option<(usize, usize)>;

/// The plan of a converting copy of `a` by `spec`, and `conv`'s parameters along the output
/// it gives.
fn converting<'a, A, B, C, D, P>(
    a: &'a ArrayRef<A, D>,
    spec: &P,
    conv: &C,
) -> Result<(view::CopyPlan<'a, A, D>, ParamsAt), ReshapeError>
where
    C: Conversion<A, B> + ?Sized,
    D: Dimension,
    P: ShapeSpec + ?Sized,
{
    let plan = view::copy_plan(a, spec)?;
    let f = plan.reading == Reading::F;
    let params = params_at(conv, &plan.shape, f, a.shape(), &|| spec.describe().1)?;
    Ok((plan, params))
}

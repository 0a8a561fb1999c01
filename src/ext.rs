//! [`ReshapeExt`]: thin methods that glue spec -> layout -> view or copy.

use ndarray::{
    Array, ArrayBase, ArrayRef, ArrayView, ArrayViewMut, Axis, CowArray, CowRepr, Data, DataMut,
    Dimension, IxDyn, OwnedArcRepr, OwnedRepr, RawArrayView, RawArrayViewMut, RawData,
    ShapeBuilder, ViewRepr,
};

use crate::error::{ErrorContext, ReshapeError, Rule};
use crate::layout::{
    contiguous_shape_in, fill_contiguous_strides, is_c_contiguous, is_f_contiguous, resolve_order,
    solve, typed_dim, Order,
};
use crate::small::Small;
use crate::spec::{IntoSpec, ShapeSpec, SpecValues};
use crate::{IntoLike, Mx, Np, Npx, Onnx, Paddle};

mod sealed {
    pub trait Sealed {}
}

/// What a reshape will do: the target shape, the resolved reading order (`C` or `F`), and
/// whether the strides permit a view (then `strides` holds them). Built in place in the
/// caller's frame, so nothing large moves on the view path.
pub(crate) struct Plan {
    pub shape: Small<usize>,
    /// The view strides, when `view` and not `contiguous`.
    pub strides: Small<isize>,
    pub order: Order,
    pub view: bool,
    /// The input is contiguous in the reading order: the view has ndarray's default strides
    /// for `shape` in that order (what the solver would find, length-1 axes included), and is
    /// built from the shape alone.
    pub contiguous: bool,
}

impl Plan {
    /// An empty plan, to be filled in place by [`compute`](Self::compute) (a `Plan` returned
    /// by value through a `Result` costs two copies of it on the view path).
    #[inline]
    pub(crate) fn empty() -> Plan {
        Plan {
            shape: Small::new(),
            strides: Small::new(),
            order: Order::C,
            view: false,
            contiguous: false,
        }
    }

    #[inline]
    pub(crate) fn compute<P: ShapeSpec + ?Sized>(
        &mut self,
        spec: &P,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<(), ReshapeError> {
        spec.infer_into(shape, &mut self.shape)?;
        let new = &self.shape;
        self.order = resolve_order(shape, strides, spec.order());
        self.contiguous = match self.order {
            Order::F => is_f_contiguous(shape, strides),
            _ => is_c_contiguous(shape, strides),
        };
        self.view = self.contiguous || {
            // The spec guarantees equal, bounded sizes: the solver needs no checks of its own.
            self.strides.fill(0isize, new.len());
            solve(
                shape,
                strides,
                new,
                self.order,
                shape.contains(&0),
                &mut self.strides,
            )
        };
        Ok(())
    }

    /// The view strides, signed (the contiguous ones computed on demand).
    pub(crate) fn signed_strides(&self) -> Small<isize> {
        if self.contiguous {
            let mut s = Small::filled(0isize, self.shape.len());
            fill_contiguous_strides(&self.shape, self.order, &mut s);
            s
        } else {
            self.strides.clone()
        }
    }

    /// The view this plan describes, of the array whose first element is at `ptr`.
    /// (Always inlined: measured ~5 ns faster for `reshape_with` and the headline methods,
    /// median of 9 runs, where the view is wrapped in a `CowArray` right away.)
    ///
    /// # Safety
    ///
    /// `self.view` must hold, and the plan must have been computed for that live array, whose
    /// elements are readable for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn view<'a, A>(&self, ptr: *const A) -> ArrayView<'a, A, IxDyn> {
        // SAFETY: the caller's contract.
        unsafe { self.view_in(ptr, IxDyn) }
    }

    /// As [`view`](Self::view), with the dims built by `mk` (of the plan's rank).
    ///
    /// # Safety
    ///
    /// As [`view`](Self::view).
    #[inline(always)]
    pub(crate) unsafe fn view_in<'a, A, E: Dimension>(
        &self,
        ptr: *const A,
        mk: impl Fn(&[usize]) -> E,
    ) -> ArrayView<'a, A, E> {
        if self.contiguous && !self.shape.contains(&0) {
            let shape = contiguous_shape_in(&self.shape, self.order, mk);
            // SAFETY: the array is contiguous in this order from `ptr` (its lowest address), so
            // these strides (ndarray's defaults) address exactly its elements.
            unsafe { ArrayView::from_shape_ptr(shape, ptr) }
        } else {
            // SAFETY: solver strides for this array (caller's contract).
            unsafe { view_from_parts(ptr, &self.shape, &self.strides, mk) }
        }
    }

    /// As [`view`](Self::view), mutable.
    ///
    /// # Safety
    ///
    /// As [`view`](Self::view), and the elements must be writable and unaliased for `'a`.
    #[inline]
    pub(crate) unsafe fn view_mut<'a, A>(&self, ptr: *mut A) -> ArrayViewMut<'a, A, IxDyn> {
        if self.contiguous && !self.shape.contains(&0) {
            let shape = contiguous_shape_in(&self.shape, self.order, IxDyn);
            // SAFETY: as in `view_in`; uniqueness is the caller's contract.
            unsafe { ArrayViewMut::from_shape_ptr(shape, ptr) }
        } else {
            // SAFETY: solver strides for this array (caller's contract).
            unsafe { view_mut_from_parts(ptr, &self.shape, &self.strides) }
        }
    }

    /// [`ReshapeError::RankMismatch`] unless the planned shape has the rank of `E` (any rank
    /// for `IxDyn`).
    #[inline]
    fn check_rank<E: Dimension, P: ShapeSpec + ?Sized>(
        &self,
        spec: &P,
        input: &[usize],
    ) -> Result<(), ReshapeError> {
        match E::NDIM {
            Some(n) if n != self.shape.len() => Err(reject(
                Rule::RankMismatch,
                spec,
                input,
                &format!(
                    "the spec gives shape {:?} of rank {}, the requested dimension type has rank {n}",
                    &*self.shape,
                    self.shape.len()
                ),
            )),
            _ => Ok(()),
        }
    }

    /// [`compute`](Self::compute) for the strict modes: a view, or [`ReshapeError::NeedsCopy`].
    #[inline]
    fn compute_strict<P: ShapeSpec + ?Sized>(
        &mut self,
        spec: &P,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<(), ReshapeError> {
        self.compute(spec, shape, strides)?;
        self.require_view(spec, shape, strides)
    }

    /// [`ReshapeError::NeedsCopy`] unless the computed plan is a view.
    #[inline]
    fn require_view<P: ShapeSpec + ?Sized>(
        &self,
        spec: &P,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<(), ReshapeError> {
        if self.view {
            return Ok(());
        }
        Err(reject(
            Rule::NeedsCopy,
            spec,
            shape,
            &format!(
                "strides {strides:?} cannot be read as shape {:?} in {:?} order without a copy",
                &*self.shape, self.order
            ),
        ))
    }
}

/// A signed layout as ndarray wants it: the offset from the first element to the lowest
/// address, the non-negative strides (as a dim of type `E`), and whether any axis must be
/// inverted afterwards.
#[inline]
fn unsigned_layout<E: Dimension>(shape: &[usize], strides: &[isize]) -> (isize, E, bool) {
    let mut low = 0isize;
    let mut negative = false;
    let abs = dim_filled(strides.len(), |abs| {
        for ((a, &s), &d) in abs.iter_mut().zip(strides).zip(shape) {
            *a = s.unsigned_abs();
            if s < 0 && d > 1 {
                low += s * (d as isize - 1);
                negative = true;
            }
        }
    });
    (low, abs, negative)
}

/// A dim of rank `n` whose entries `fill` writes in place: in registers for a fixed rank, in
/// the inline (or boxed) storage for `IxDyn`. (An `IxDyn` built from a stack buffer just
/// filled, `IxDyn(&buf)`, copies it with a wide `memcpy` load across the buffer's narrow stores,
/// a store-forwarding stall: the `IxDyn` contiguous view took 54 ns that way, 43 ns filled in
/// place, min of 9 process runs of 3M calls.)
#[inline(always)]
pub(crate) fn dim_filled<E: Dimension>(n: usize, fill: impl FnOnce(&mut [usize])) -> E {
    let mut d = E::zeros(n);
    fill(d.slice_mut());
    d
}

/// A read-only view with signed strides at `ptr` (the element at index `[0, ..., 0]`), with
/// the dims built by `mk` (`IxDyn`, or [`typed_dim`] of rank `shape.len()`).
///
/// # Safety
///
/// `ptr` must be the non-null, aligned data pointer of a live array, and every index within
/// `shape` must address, through `strides`, an element of it that is readable for `'a` (as when
/// the layout is a solver reshape of that array), or the shape must be empty.
#[inline]
pub(crate) unsafe fn view_from_parts<'a, A, E: Dimension>(
    ptr: *const A,
    shape: &[usize],
    strides: &[isize],
    mk: impl Fn(&[usize]) -> E,
) -> ArrayView<'a, A, E> {
    if shape.contains(&0) {
        // SAFETY: with ndarray's default strides (all zero for an empty shape) no element is
        // addressed and the pointer is never offset; `ptr` is non-null and aligned.
        return unsafe { ArrayView::from_shape_ptr(mk(shape), ptr) };
    }
    let (low, abs, negative) = unsigned_layout(shape, strides);
    if !negative {
        // SAFETY: non-negative strides addressing live elements readable for `'a`.
        return unsafe { ArrayView::from_shape_ptr(mk(shape).strides(abs), ptr) };
    }
    // SAFETY: every element of the layout lies in the live array; `low` (<= 0) is the offset
    // of the lowest of them, so `base` and every offset from it by the non-negative strides
    // stay inside it. Inverting the axes brings the logical first element back to `ptr`.
    let raw = unsafe {
        let base = ptr.offset(low);
        let mut raw = RawArrayView::from_shape_ptr(mk(shape).strides(abs), base);
        for i in (0..shape.len()).filter(|&i| strides[i] < 0 && shape[i] > 1) {
            raw.invert_axis(Axis(i));
        }
        raw
    };
    // SAFETY: the elements are readable for `'a` (caller's contract).
    unsafe { raw.deref_into_view() }
}

/// A mutable view with signed strides at `ptr`.
///
/// # Safety
///
/// As [`view_from_parts`], and the elements must be writable and not otherwise accessed for
/// `'a`, each addressed by one index only.
#[inline]
pub(crate) unsafe fn view_mut_from_parts<'a, A>(
    ptr: *mut A,
    shape: &[usize],
    strides: &[isize],
) -> ArrayViewMut<'a, A, IxDyn> {
    if shape.contains(&0) {
        // SAFETY: as in `view_from_parts`: default (zero) strides on an empty shape.
        return unsafe { ArrayViewMut::from_shape_ptr(IxDyn(shape), ptr) };
    }
    let (low, abs, negative) = unsigned_layout::<IxDyn>(shape, strides);
    if !negative {
        // SAFETY: non-negative strides addressing live, unaliased, writable elements for `'a`.
        return unsafe { ArrayViewMut::from_shape_ptr(IxDyn(shape).strides(abs), ptr) };
    }
    // SAFETY: as in `view_from_parts`; uniqueness of the elements is the caller's contract.
    let raw = unsafe {
        let base = ptr.offset(low);
        let mut raw = RawArrayViewMut::from_shape_ptr(IxDyn(shape).strides(abs), base);
        for i in (0..shape.len()).filter(|&i| strides[i] < 0 && shape[i] > 1) {
            raw.invert_axis(Axis(i));
        }
        raw
    };
    // SAFETY: writable and unaliased for `'a` (caller's contract).
    unsafe { raw.deref_into_view_mut() }
}

/// Reshapes in the MXNet, `reshape_like`, Paddle, NumPy, MXNet 2.x `npx` and ONNX dialects, for
/// every `ndarray` array:
/// owned [`Array`], [`ArrayView`], [`ArrayViewMut`], [`ArcArray`](ndarray::ArcArray) and
/// [`CowArray`], and the [`ArrayRef`] they all dereference to (what ndarray 0.17 functions
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
/// | [`reshape_owned`](Self::reshape_owned) | fresh copy | fresh copy |
/// | [`reshape_copy_into`](Self::reshape_copy_into) | copy into `out` | copy into `out` |
///
/// Copies are contiguous in the reading order (C, or F for [`Order::F`]) and run on rayon when
/// large. The trait is sealed.
///
/// # Examples
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::ReshapeExt;
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
/// let y = x.reshape_mx(&[-4, 1, 2, -2])?;
/// assert_eq!(y.shape(), &[1, 2, 3, 4]);
/// assert!(y.is_view());
/// # Ok(())
/// # }
/// ```
// The headline methods pass the spec they build to `reshape_with` by reference on purpose:
// moving it in by value measured ~14 ns on the view path.
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
    /// assert!(x.reshape_with(Np::new(&[4, 3], Order::C))?.is_view());
    /// let t = x.t(); // F-contiguous
    /// let y = t.reshape_with(Np::new(&[-1], Order::C))?;
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
    /// assert_eq!(x.reshape_mx(Mx::new(&[-1, 0]).reverse(true))?.shape(), &[6, 4]);
    /// assert!(x.reshape_mx(&[-1, -1]).is_err());
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
    /// assert_eq!(x.reshape_paddle(&[-1, 0, 3, 2])?.shape(), &[2, 4, 3, 2]);
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
    /// let y = t.reshape_np(&[-1], Order::A)?; // F-contiguous input read in F order
    /// assert!(y.is_view());
    /// assert_eq!(y, array![0, 1, 2, 3, 4, 5].into_dyn());
    /// # Ok(())
    /// # }
    /// ```
    fn reshape_np<T: SpecValues>(
        &self,
        spec: T,
        order: Order,
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
    /// let v = x.reshape_view(Mx::new(&[6, 4]))?;
    /// assert_eq!(v.as_ptr(), x.as_ptr());
    /// let err = x.t().reshape_view(Np::new(&[24], Order::C)).unwrap_err();
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
    /// m.reshape_view_mut(Paddle::new(&[4, 6]))?[[3, 5]] = -1;
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
    /// let y = x.into_reshape(Mx::new(&[-3, -2]))?;
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
    /// let c = x.reshape_owned(Np::new(&[4, 6], Order::F))?;
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
    /// let y = x.t().reshape_copy_into(Mx::new(&[-1]), &mut buf)?;
    /// assert_eq!(y, array![0, 3, 1, 4, 2, 5].into_dyn());
    /// assert_eq!(buf, [0, 3, 1, 4, 2, 5]);
    /// let err = x.reshape_copy_into(Mx::new(&[-1]), &mut [0; 5]).unwrap_err();
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
    /// let y = t.reshape_with_dim::<Ix1>(Mx::new(&[-1]))?; // a copy, typed `Ix1`
    /// assert_eq!(y, array![0, 3, 1, 4, 2, 5]);
    /// let v = x.reshape_with_dim::<Ix3>(Mx::new(&[-4, 1, -1, 3]))?; // a view
    /// assert!(v.is_view() && v.dim() == (1, 2, 3));
    /// let err = x.reshape_with_dim::<Ix3>(Mx::new(&[-1])).unwrap_err();
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
    /// let v = x.reshape_view_dim::<Ix2>(Np::new(&[6, -1], Order::C))?;
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
    /// let y = x.reshape_owned_dim::<Ix2>(Paddle::new(&[3, -1]))?;
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
}

impl<A, S, D> sealed::Sealed for ArrayBase<S, D>
where
    S: RawData<Elem = A>,
    D: Dimension,
{
}

/// The methods both impls share, each a call of the function doing the work on an
/// [`ArrayRef`] (an `ArrayBase` dereferences to it: a pointer cast). `$data` and `$data_mut`
/// are the storage bounds the `ArrayBase` impl needs for that (none for `ArrayRef`).
macro_rules! borrowing_methods {
    ([$($data:tt)*], [$($data_mut:tt)*]) => {
        fn reshape_with<P: ShapeSpec>(
            &self,
            spec: P,
        ) -> Result<CowArray<'_, A, IxDyn>, ReshapeError>
        where
            A: Clone + Send + Sync,
            $($data)*
        {
            with_in(self, &spec, IxDyn)
        }

        fn reshape_view<P: ShapeSpec>(
            &self,
            spec: P,
        ) -> Result<ArrayView<'_, A, IxDyn>, ReshapeError>
        where
            $($data)*
        {
            view_in(self, &spec, IxDyn)
        }

        fn reshape_view_mut<P: ShapeSpec>(
            &mut self,
            spec: P,
        ) -> Result<ArrayViewMut<'_, A, IxDyn>, ReshapeError>
        where
            $($data_mut)*
        {
            // An `ArrayBase`'s `DerefMut` makes shared (Arc) data unique first.
            view_mut_in(self, &spec)
        }

        fn reshape_owned<P: ShapeSpec>(&self, spec: P) -> Result<Array<A, IxDyn>, ReshapeError>
        where
            A: Clone + Send + Sync,
            $($data)*
        {
            owned_in(self, &spec, IxDyn)
        }

        fn reshape_copy_into<'o, P: ShapeSpec>(
            &self,
            spec: P,
            out: &'o mut [A],
        ) -> Result<ArrayViewMut<'o, A, IxDyn>, ReshapeError>
        where
            A: Copy + Send + Sync,
            $($data)*
        {
            copy_into_in(self, &spec, out)
        }

        fn reshape_with_dim<E: Dimension>(
            &self,
            spec: impl ShapeSpec,
        ) -> Result<CowArray<'_, A, E>, ReshapeError>
        where
            A: Clone + Send + Sync,
            $($data)*
        {
            with_in(self, &spec, typed_dim::<E>)
        }

        fn reshape_view_dim<E: Dimension>(
            &self,
            spec: impl ShapeSpec,
        ) -> Result<ArrayView<'_, A, E>, ReshapeError>
        where
            $($data)*
        {
            view_in(self, &spec, typed_dim::<E>)
        }

        fn reshape_owned_dim<E: Dimension>(
            &self,
            spec: impl ShapeSpec,
        ) -> Result<Array<A, E>, ReshapeError>
        where
            A: Clone + Send + Sync,
            $($data)*
        {
            owned_in(self, &spec, typed_dim::<E>)
        }
    };
}

impl<A, S, D> ReshapeExt<A, S, D> for ArrayBase<S, D>
where
    S: RawData<Elem = A>,
    D: Dimension,
{
    borrowing_methods!([S: Data,], [S: DataMut,]);

    fn into_reshape<P: ShapeSpec>(self, spec: P) -> Result<ArrayBase<S, IxDyn>, ReshapeError>
    where
        S: IntoReshapeData,
        Self: Sized,
    {
        S::into_reshape(self, &spec)
    }
}

impl<A, D: Dimension> sealed::Sealed for ArrayRef<A, D> {}

/// The borrowed array type of ndarray 0.17 (what `&Array`, `&ArrayView` and the others
/// dereference to, and what functions written for any storage take): every method but
/// [`into_reshape`](ReshapeExt::into_reshape), which needs the array by value. The storage
/// parameter (`OwnedRepr`) only names the access an `ArrayRef` gives (read, and write through
/// `&mut`); no method moves or owns the data.
///
/// ```
/// use ndarray::{Array, ArrayRef2};
/// use ndarray_reshape::ReshapeExt;
///
/// fn flatten_rows(a: &ArrayRef2<f32>) -> usize {
///     a.reshape_mx([-1]).map_or(0, |v| v.len())
/// }
/// let x = Array::<f32, _>::zeros((3, 4));
/// assert_eq!(flatten_rows(&x), 12);
/// assert_eq!(flatten_rows(&x.t()), 12); // a copy
/// ```
impl<A, D: Dimension> ReshapeExt<A, OwnedRepr<A>, D> for ArrayRef<A, D> {
    borrowing_methods!([], []);

    // Never called: an `ArrayRef` exists only behind a reference, so `Self: Sized` does not
    // hold. (Recent compilers let an impl for an unsized type leave such a method out; the
    // 1.80 this crate supports does not.)
    #[allow(dead_code)]
    fn into_reshape<P: ShapeSpec>(self, spec: P) -> Result<Array<A, IxDyn>, ReshapeError>
    where
        Self: Sized,
    {
        Err(reject(
            Rule::NeedsCopy,
            &spec,
            self.shape(),
            "an ArrayRef is borrowed: reshape the array it belongs to",
        ))
    }
}

/// [`ReshapeExt::reshape_view_mut`]: a mutable view, or [`ReshapeError::NeedsCopy`].
#[inline(always)]
fn view_mut_in<'a, A, D, P>(
    a: &'a mut ArrayRef<A, D>,
    spec: &P,
) -> Result<ArrayViewMut<'a, A, IxDyn>, ReshapeError>
where
    D: Dimension,
    P: ShapeSpec + ?Sized,
{
    let mut plan = Plan::empty();
    plan.compute_strict(spec, a.shape(), a.strides())?;
    let ptr = a.as_mut_ptr();
    // SAFETY: a view plan for the layout of `a`, borrowed uniquely (an `&mut ArrayRef` is
    // unshared data) for the returned lifetime; the reshape is a bijection onto its elements,
    // so each element is still addressed by one index only.
    Ok(unsafe { plan.view_mut(ptr) })
}

/// [`ReshapeExt::reshape_copy_into`].
#[inline(always)]
fn copy_into_in<'o, A, D, P>(
    a: &ArrayRef<A, D>,
    spec: &P,
    out: &'o mut [A],
) -> Result<ArrayViewMut<'o, A, IxDyn>, ReshapeError>
where
    A: Copy + Send + Sync,
    D: Dimension,
    P: ShapeSpec + ?Sized,
{
    let mut plan = Plan::empty();
    plan.compute(spec, a.shape(), a.strides())?;
    let n = a.len();
    let wrong_length = |len: usize| {
        reject(
            Rule::OutputLength,
            spec,
            a.shape(),
            &format!("the output buffer holds {len} elements, the reshape writes {n}"),
        )
    };
    if out.len() != n {
        return Err(wrong_length(out.len()));
    }
    crate::copy::copy_into(a, plan.order, out);
    let len = out.len();
    let shape = IxDyn(&plan.shape).set_f(plan.order == Order::F);
    // The length matches the shape (checked above), so this cannot fail.
    ArrayViewMut::from_shape(shape, out).map_err(|_| wrong_length(len))
}

/// [`ReshapeExt::reshape_with`] with the result's dims built by `mk`: `IxDyn`, or
/// [`typed_dim`] for the rank-typed methods (the rank checked first; a no-op for `IxDyn`).
#[inline(always)]
fn with_in<'a, A, D, E, P>(
    a: &'a ArrayRef<A, D>,
    spec: &P,
    mk: impl Fn(&[usize]) -> E,
) -> Result<CowArray<'a, A, E>, ReshapeError>
where
    A: Clone + Send + Sync,
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    let mut plan = Plan::empty();
    plan.compute(spec, a.shape(), a.strides())?;
    plan.check_rank::<E, _>(spec, a.shape())?;
    match plan.view {
        // SAFETY: a view plan for this array's layout, of `E`'s rank (checked): the view
        // addresses exactly this array's elements, borrowed for the returned lifetime.
        true => Ok(CowArray::from(unsafe { plan.view_in(a.as_ptr(), mk) })),
        false => Ok(CowArray::from(crate::copy::copy_to_in(
            a,
            &plan.shape,
            plan.order,
            mk,
        ))),
    }
}

/// [`ReshapeExt::reshape_view`] with the result's dims built by `mk` (see [`with_in`]); the
/// rank is checked before the strides.
#[inline(always)]
fn view_in<'a, A, D, E, P>(
    a: &'a ArrayRef<A, D>,
    spec: &P,
    mk: impl Fn(&[usize]) -> E,
) -> Result<ArrayView<'a, A, E>, ReshapeError>
where
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    let mut plan = Plan::empty();
    plan.compute(spec, a.shape(), a.strides())?;
    plan.check_rank::<E, _>(spec, a.shape())?;
    plan.require_view(spec, a.shape(), a.strides())?;
    // SAFETY: a view plan for this layout, of `E`'s rank (checked), borrowed for the returned
    // lifetime.
    Ok(unsafe { plan.view_in(a.as_ptr(), mk) })
}

/// [`ReshapeExt::reshape_owned`] with the result's dims built by `mk` (see [`with_in`]).
#[inline(always)]
fn owned_in<A, D, E, P>(
    a: &ArrayRef<A, D>,
    spec: &P,
    mk: impl Fn(&[usize]) -> E,
) -> Result<Array<A, E>, ReshapeError>
where
    A: Clone + Send + Sync,
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    let mut plan = Plan::empty();
    plan.compute(spec, a.shape(), a.strides())?;
    plan.check_rank::<E, _>(spec, a.shape())?;
    Ok(crate::copy::copy_to_in(a, &plan.shape, plan.order, mk))
}

mod sealed_data {
    pub trait Sealed {}
}

/// The storage kinds [`ReshapeExt::into_reshape`] works on: owned arrays, views, mutable views,
/// `ArcArray` and `CowArray` (these two of `Clone` elements). Sealed.
///
/// ```
/// use ndarray::{ArcArray, Array};
/// use ndarray_reshape::{Np, Order, ReshapeExt};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let a: ArcArray<i32, _> = Array::from_iter(0..6).into_shared();
/// let b = a.into_reshape(Np::new(&[2, 3], Order::C))?;
/// assert_eq!(b.shape(), &[2, 3]);
/// # Ok(())
/// # }
/// ```
pub trait IntoReshapeData: RawData + sealed_data::Sealed {
    #[doc(hidden)]
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        a: ArrayBase<Self, D>,
        spec: &P,
    ) -> Result<ArrayBase<Self, IxDyn>, ReshapeError>
    where
        Self: Sized;
}

impl<A> sealed_data::Sealed for ViewRepr<&A> {}
impl<'a, A> IntoReshapeData for ViewRepr<&'a A> {
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        a: ArrayView<'a, A, D>,
        spec: &P,
    ) -> Result<ArrayView<'a, A, IxDyn>, ReshapeError> {
        let mut plan = Plan::empty();
        plan.compute_strict(spec, a.shape(), a.strides())?;
        // SAFETY: a view plan for the layout of `a`, whose elements are borrowed for `'a`.
        Ok(unsafe { plan.view(a.as_ptr()) })
    }
}

impl<A> sealed_data::Sealed for ViewRepr<&mut A> {}
impl<'a, A> IntoReshapeData for ViewRepr<&'a mut A> {
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        mut a: ArrayViewMut<'a, A, D>,
        spec: &P,
    ) -> Result<ArrayViewMut<'a, A, IxDyn>, ReshapeError> {
        let mut plan = Plan::empty();
        plan.compute_strict(spec, a.shape(), a.strides())?;
        let ptr = a.as_mut_ptr();
        drop(a);
        // SAFETY: a view plan for the layout of `a`, a unique view of its elements for `'a`,
        // consumed here: the new view is the only one.
        Ok(unsafe { plan.view_mut(ptr) })
    }
}

impl<A> sealed_data::Sealed for OwnedRepr<A> {}
impl<A> IntoReshapeData for OwnedRepr<A> {
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        a: Array<A, D>,
        spec: &P,
    ) -> Result<Array<A, IxDyn>, ReshapeError> {
        let mut plan = Plan::empty();
        plan.compute_strict(spec, a.shape(), a.strides())?;
        Ok(crate::copy::owned_with_layout(
            a,
            &plan.shape,
            &plan.signed_strides(),
        ))
    }
}

impl<A> sealed_data::Sealed for OwnedArcRepr<A> {}
impl<A: Clone> IntoReshapeData for OwnedArcRepr<A> {
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        a: ArrayBase<OwnedArcRepr<A>, D>,
        spec: &P,
    ) -> Result<ArrayBase<OwnedArcRepr<A>, IxDyn>, ReshapeError> {
        // Validate first, so a shared buffer is reported only for a reshape that is otherwise fine.
        let mut plan = Plan::empty();
        plan.compute_strict(spec, a.shape(), a.strides())?;
        if !a.is_unique() {
            let shape = a.shape().to_vec();
            let shared = |why: &str| reject(Rule::NeedsCopy, spec, &shape, why);
            if !plan.contiguous {
                // ndarray's public API reshapes a shared buffer only when it is contiguous.
                return Err(shared(
                    "the ArcArray's buffer is shared and not contiguous in the reading order; \
                     into_reshape would have to copy it",
                ));
            }
            // Contiguous in the reading order: the same shared buffer with ndarray's default
            // strides for the new shape in that order, which is what the plan is.
            let order = match plan.order {
                Order::F => ndarray::Order::ColumnMajor,
                _ => ndarray::Order::RowMajor,
            };
            return a
                .into_shape_with_order((IxDyn(&plan.shape), order))
                .map_err(|e| shared(&format!("ndarray refused the contiguous reshape: {e}")));
        }
        // Unique: `into_owned` unwraps the Arc without cloning the elements.
        OwnedRepr::into_reshape(a.into_owned(), spec).map(Array::into_shared)
    }
}

impl<A> sealed_data::Sealed for CowRepr<'_, A> {}
impl<'a, A: Clone> IntoReshapeData for CowRepr<'a, A> {
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        a: CowArray<'a, A, D>,
        spec: &P,
    ) -> Result<CowArray<'a, A, IxDyn>, ReshapeError> {
        if a.is_view() {
            let mut plan = Plan::empty();
            plan.compute_strict(spec, a.shape(), a.strides())?;
            // SAFETY: `a` is the view variant, which borrows its elements for `'a`; the view
            // plan addresses exactly those elements.
            Ok(CowArray::from(unsafe { plan.view(a.as_ptr()) }))
        } else {
            // The owned variant: `into_owned` moves the array out without copying.
            OwnedRepr::into_reshape(a.into_owned(), spec).map(CowArray::from)
        }
    }
}

fn reject<P: ShapeSpec + ?Sized>(rule: Rule, spec: &P, input: &[usize], why: &str) -> ReshapeError {
    let (dialect, written) = spec.describe();
    ReshapeError::from_rule(
        rule,
        ErrorContext {
            dialect,
            input: input.to_vec(),
            spec: written,
            position: None,
            detail: why.to_string(),
        },
    )
}

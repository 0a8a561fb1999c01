//! The no-copy path: the [`Plan`] of a reshape (target shape, reading order, view strides) and
//! the construction of views from it, for the strict, mutable and consuming modes.
//!
//! This module and `copy/` are the only ones with `unsafe` code: here, building views over an
//! array's elements from strides the solver found. Every entry point takes the array it plans
//! for, so no caller can pair a plan with another array.

use ndarray::{
    Array, ArrayBase, ArrayRef, ArrayView, ArrayViewMut, Axis, CowArray, CowRepr, Dimension,
    OwnedArcRepr, OwnedRepr, RawArrayView, RawArrayViewMut, RawData, ShapeBuilder, ViewRepr,
};

use crate::dims::{
    axis_low, contiguous_dims, dim_filled, fill_contiguous_strides, low_offset, typed_dim, Reading,
};
use crate::error::{ReshapeError, Rule};
use crate::layout::{is_contiguous, reading, solve};
use crate::small::Small;
use crate::spec::{reject, ShapeSpec};

/// What a reshape will do: the target shape, the reading order, and whether the strides permit
/// a view (then `strides` holds them). Filled in place in the caller's frame: a plan returned
/// by value through a `Result` is copied twice on the view path.
pub(crate) struct Plan {
    pub(crate) shape: Small<usize>,
    /// The view strides, when `view` and not `contiguous`.
    strides: Small<isize>,
    pub(crate) reading: Reading,
    view: bool,
    /// The input is contiguous in the reading order: the view has ndarray's default strides
    /// for `shape` in that order (what the solver would find, length-1 axes included), and is
    /// built from the shape alone.
    contiguous: bool,
}

impl Plan {
    /// An empty plan, for [`compute`](Self::compute) to fill.
    #[inline]
    pub(crate) fn empty() -> Plan {
        Plan {
            shape: Small::new(),
            strides: Small::new(),
            reading: Reading::C,
            view: false,
            contiguous: false,
        }
    }

    /// Plan `spec` for an input of `shape` and `strides`.
    #[inline]
    pub(crate) fn compute<P: ShapeSpec + ?Sized>(
        &mut self,
        spec: &P,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<(), ReshapeError> {
        spec.infer_into(shape, &mut self.shape)?;
        self.reading = reading(shape, strides, spec.order());
        self.contiguous = is_contiguous(shape, strides, self.reading);
        self.view = self.contiguous || {
            // The spec guarantees equal, bounded sizes: the solver needs no checks of its own.
            self.strides.fill(0isize, self.shape.len());
            let empty = shape.contains(&0);
            solve(
                shape,
                strides,
                &self.shape,
                self.reading,
                empty,
                &mut self.strides,
            )
        };
        Ok(())
    }

    /// [`compute`](Self::compute), then [`ReshapeError::RankMismatch`] unless the planned shape
    /// has the rank of `E` (any rank for `IxDyn`).
    #[inline]
    pub(crate) fn compute_for<E: Dimension, P: ShapeSpec + ?Sized>(
        &mut self,
        spec: &P,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<(), ReshapeError> {
        self.compute(spec, shape, strides)?;
        match E::NDIM {
            Some(n) if n != self.shape.len() => Err(reject(
                Rule::RankMismatch,
                spec,
                shape,
                &format!(
                    "the spec gives shape {:?} of rank {}, the requested dimension type has rank {n}",
                    &*self.shape,
                    self.shape.len()
                ),
            )),
            _ => Ok(()),
        }
    }

    /// [`compute_for`](Self::compute_for), then [`ReshapeError::NeedsCopy`] unless the plan is
    /// a view: the strict modes.
    #[inline]
    fn compute_view<E: Dimension, P: ShapeSpec + ?Sized>(
        &mut self,
        spec: &P,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<(), ReshapeError> {
        self.compute_for::<E, _>(spec, shape, strides)?;
        if self.view {
            return Ok(());
        }
        Err(reject(
            Rule::NeedsCopy,
            spec,
            shape,
            &format!(
                "strides {strides:?} cannot be read as shape {:?} in {:?} order without a copy",
                &*self.shape,
                self.reading.order()
            ),
        ))
    }

    /// The view strides, signed (the contiguous ones computed on demand).
    fn signed_strides(&self) -> Small<isize> {
        if self.contiguous {
            let mut s = Small::filled(0isize, self.shape.len());
            fill_contiguous_strides(&self.shape, self.reading, &mut s);
            s
        } else {
            self.strides.clone()
        }
    }

    /// The view this plan describes, of the array whose first element is at `ptr`, with the
    /// dims built by `mk` (of the plan's rank). Always inlined: the view path wraps it in a
    /// `CowArray` right away (BENCHMARKS.md, "The view path").
    ///
    /// # Safety
    ///
    /// `self.view` must hold, and the plan must have been computed for that live array, whose
    /// elements are readable for `'a`.
    #[inline(always)]
    unsafe fn view<'a, A, E: Dimension>(
        &self,
        ptr: *const A,
        mk: impl Fn(&[usize]) -> E,
    ) -> ArrayView<'a, A, E> {
        if self.contiguous && !self.shape.contains(&0) {
            let shape = contiguous_dims(&self.shape, self.reading, mk);
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
    unsafe fn view_mut<'a, A, E: Dimension>(
        &self,
        ptr: *mut A,
        mk: impl Fn(&[usize]) -> E,
    ) -> ArrayViewMut<'a, A, E> {
        if self.contiguous && !self.shape.contains(&0) {
            let shape = contiguous_dims(&self.shape, self.reading, mk);
            // SAFETY: as in `view`; uniqueness is the caller's contract.
            unsafe { ArrayViewMut::from_shape_ptr(shape, ptr) }
        } else {
            // SAFETY: solver strides for this array (caller's contract).
            unsafe { view_mut_from_parts(ptr, &self.shape, &self.strides, mk) }
        }
    }
}

/// A view of `a` reshaped by `spec` when the strides permit one, otherwise `copy(a, shape,
/// reading, mk)`: the view-or-copy modes, with the result's dims built by `mk` (the rank checked
/// first). The copy comes in as a function so that this module does not depend on `copy/`.
#[inline(always)]
pub(crate) fn view_or<'a, A, D, E, P, M>(
    a: &'a ArrayRef<A, D>,
    spec: &P,
    mk: M,
    copy: impl FnOnce(&'a ArrayRef<A, D>, &[usize], Reading, M) -> Result<Array<A, E>, ReshapeError>,
) -> Result<CowArray<'a, A, E>, ReshapeError>
where
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
    M: Fn(&[usize]) -> E,
{
    let mut plan = Plan::empty();
    plan.compute_for::<E, _>(spec, a.shape(), a.strides())?;
    match plan.view {
        // SAFETY: a view plan for this array's layout, of `E`'s rank (checked): the view
        // addresses exactly this array's elements, borrowed for the returned lifetime.
        true => Ok(CowArray::from(unsafe { plan.view(a.as_ptr(), mk) })),
        false => copy(a, &plan.shape, plan.reading, mk).map(CowArray::from),
    }
}

/// The strict view ([`ReshapeExt::reshape_view`](crate::ReshapeExt::reshape_view)): the rank is
/// checked before the strides.
#[inline(always)]
pub(crate) fn view<'a, A, D, E, P>(
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
    plan.compute_view::<E, _>(spec, a.shape(), a.strides())?;
    // SAFETY: a view plan for this layout, of `E`'s rank (checked), borrowed for the returned
    // lifetime.
    Ok(unsafe { plan.view(a.as_ptr(), mk) })
}

/// The strict mutable view ([`ReshapeExt::reshape_view_mut`](crate::ReshapeExt::reshape_view_mut)).
#[inline(always)]
pub(crate) fn view_mut<'a, A, D, E, P>(
    a: &'a mut ArrayRef<A, D>,
    spec: &P,
    mk: impl Fn(&[usize]) -> E,
) -> Result<ArrayViewMut<'a, A, E>, ReshapeError>
where
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    let mut plan = Plan::empty();
    plan.compute_view::<E, _>(spec, a.shape(), a.strides())?;
    let ptr = a.as_mut_ptr();
    // SAFETY: a view plan for the layout of `a`, borrowed uniquely (an `&mut ArrayRef` is
    // unshared data) for the returned lifetime; the reshape is a bijection onto its elements,
    // so each element is still addressed by one index only.
    Ok(unsafe { plan.view_mut(ptr, mk) })
}

/// A read-only view with signed strides at `ptr` (the element at index `[0, ..., 0]`), with
/// the dims built by `mk` (`IxDyn`, or [`typed_dim`](crate::dims::typed_dim)).
///
/// # Safety
///
/// `ptr` must be the non-null, aligned data pointer of a live array, and every index within
/// `shape` must address, through `strides`, an element of it that is readable for `'a` (as when
/// the layout is a solver reshape of that array), or the shape must be empty.
#[inline]
unsafe fn view_from_parts<'a, A, E: Dimension>(
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
    let (low, abs) = unsigned_layout::<E>(shape, strides);
    if low == 0 {
        // SAFETY: non-negative strides addressing live elements readable for `'a`.
        return unsafe { ArrayView::from_shape_ptr(mk(shape).strides(abs), ptr) };
    }
    // SAFETY: every element of the layout lies in the live array; `low` (< 0) is the offset
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
unsafe fn view_mut_from_parts<'a, A, E: Dimension>(
    ptr: *mut A,
    shape: &[usize],
    strides: &[isize],
    mk: impl Fn(&[usize]) -> E,
) -> ArrayViewMut<'a, A, E> {
    if shape.contains(&0) {
        // SAFETY: as in `view_from_parts`: default (zero) strides on an empty shape.
        return unsafe { ArrayViewMut::from_shape_ptr(mk(shape), ptr) };
    }
    let (low, abs) = unsigned_layout::<E>(shape, strides);
    if low == 0 {
        // SAFETY: non-negative strides addressing live, unaliased, writable elements for `'a`.
        return unsafe { ArrayViewMut::from_shape_ptr(mk(shape).strides(abs), ptr) };
    }
    // SAFETY: as in `view_from_parts`; uniqueness of the elements is the caller's contract.
    let raw = unsafe {
        let base = ptr.offset(low);
        let mut raw = RawArrayViewMut::from_shape_ptr(mk(shape).strides(abs), base);
        for i in (0..shape.len()).filter(|&i| strides[i] < 0 && shape[i] > 1) {
            raw.invert_axis(Axis(i));
        }
        raw
    };
    // SAFETY: writable and unaliased for `'a` (caller's contract).
    unsafe { raw.deref_into_view_mut() }
}

/// A signed layout as ndarray's constructors want it: the [`low_offset`] from the first element
/// to the lowest address (negative exactly when some axis must be inverted afterwards) and the
/// strides' magnitudes (as a dim of type `E`).
#[inline]
fn unsigned_layout<E: Dimension>(shape: &[usize], strides: &[isize]) -> (isize, E) {
    let mut low = 0isize;
    let abs = dim_filled(strides.len(), |abs| {
        for ((a, &s), &d) in abs.iter_mut().zip(strides).zip(shape) {
            *a = s.unsigned_abs();
            low += axis_low(d, s);
        }
    });
    (low, abs)
}

/// The owned array `a` with a new layout (`shape`, signed `strides`) over the same elements,
/// keeping its buffer.
///
/// `shape`/`strides` must be a view reshape of `a` found by the solver: a bijection onto the
/// same elements, so the lowest address is the same too.
fn owned_with_layout<A, D: Dimension, E: Dimension>(
    a: Array<A, D>,
    shape: &[usize],
    strides: &[isize],
    mk: impl Fn(&[usize]) -> E,
) -> Array<A, E> {
    let empty = a.is_empty();
    let to_low = low_offset(a.shape(), a.strides());
    let (mut vec, offset) = a.into_raw_vec_and_offset();
    if empty {
        let zeros = E::zeros(shape.len());
        // SAFETY: an empty array with zero strides never offsets its pointer: conditions 3-5 of
        // `from_shape_vec_unchecked` hold for any vector.
        return unsafe { Array::from_shape_vec_unchecked(mk(shape).strides(zeros), vec) };
    }
    let low = offset.unwrap_or(0) as isize + to_low;
    if low > 0 {
        // Elements before the lowest one are not part of the array (it was sliced): move the
        // array's elements to the front of the same buffer, so the lowest is at index 0.
        vec.drain(..low as usize);
    }
    // ndarray stores strides as `usize`, negative ones in two's complement.
    let ustrides: E = dim_filled(strides.len(), |u| {
        u.iter_mut()
            .zip(strides)
            .for_each(|(u, &s)| *u = s as usize)
    });
    // SAFETY: the new layout addresses exactly the elements of `a` (a solver view of it), whose
    // lowest is now at index 0; `from_shape_vec_unchecked` puts the logical first element at
    // the offset of the negative strides, which is where it was relative to the lowest. The
    // elements are distinct and in bounds, as they were in `a`.
    unsafe { Array::from_shape_vec_unchecked(mk(shape).strides(ustrides), vec) }
}

mod sealed {
    pub trait Sealed {}
}

/// The storage kinds [`ReshapeExt::into_reshape`](crate::ReshapeExt::into_reshape) works on:
/// owned arrays, views, mutable views, `ArcArray` and `CowArray` (these two of `Clone`
/// elements). Sealed.
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
pub trait IntoReshapeData: RawData + sealed::Sealed {
    /// The consuming reshape to dims of type `E` (`IxDyn` for
    /// [`into_reshape`](crate::ReshapeExt::into_reshape)).
    #[doc(hidden)]
    fn into_reshape<D: Dimension, E: Dimension, P: ShapeSpec + ?Sized>(
        a: ArrayBase<Self, D>,
        spec: &P,
    ) -> Result<ArrayBase<Self, E>, ReshapeError>
    where
        Self: Sized;
}

impl<A> sealed::Sealed for ViewRepr<&A> {}
impl<'a, A> IntoReshapeData for ViewRepr<&'a A> {
    fn into_reshape<D: Dimension, E: Dimension, P: ShapeSpec + ?Sized>(
        a: ArrayView<'a, A, D>,
        spec: &P,
    ) -> Result<ArrayView<'a, A, E>, ReshapeError> {
        let mut plan = Plan::empty();
        plan.compute_view::<E, _>(spec, a.shape(), a.strides())?;
        // SAFETY: a view plan for the layout of `a`, whose elements are borrowed for `'a`.
        Ok(unsafe { plan.view(a.as_ptr(), typed_dim::<E>) })
    }
}

impl<A> sealed::Sealed for ViewRepr<&mut A> {}
impl<'a, A> IntoReshapeData for ViewRepr<&'a mut A> {
    fn into_reshape<D: Dimension, E: Dimension, P: ShapeSpec + ?Sized>(
        mut a: ArrayViewMut<'a, A, D>,
        spec: &P,
    ) -> Result<ArrayViewMut<'a, A, E>, ReshapeError> {
        let mut plan = Plan::empty();
        plan.compute_view::<E, _>(spec, a.shape(), a.strides())?;
        let ptr = a.as_mut_ptr();
        drop(a);
        // SAFETY: a view plan for the layout of `a`, a unique view of its elements for `'a`,
        // consumed here: the new view is the only one.
        Ok(unsafe { plan.view_mut(ptr, typed_dim::<E>) })
    }
}

impl<A> sealed::Sealed for OwnedRepr<A> {}
impl<A> IntoReshapeData for OwnedRepr<A> {
    fn into_reshape<D: Dimension, E: Dimension, P: ShapeSpec + ?Sized>(
        a: Array<A, D>,
        spec: &P,
    ) -> Result<Array<A, E>, ReshapeError> {
        let mut plan = Plan::empty();
        plan.compute_view::<E, _>(spec, a.shape(), a.strides())?;
        Ok(owned_with_layout(
            a,
            &plan.shape,
            &plan.signed_strides(),
            typed_dim::<E>,
        ))
    }
}

impl<A> sealed::Sealed for OwnedArcRepr<A> {}
impl<A: Clone> IntoReshapeData for OwnedArcRepr<A> {
    fn into_reshape<D: Dimension, E: Dimension, P: ShapeSpec + ?Sized>(
        a: ArrayBase<OwnedArcRepr<A>, D>,
        spec: &P,
    ) -> Result<ArrayBase<OwnedArcRepr<A>, E>, ReshapeError> {
        // Validate first, so a shared buffer is reported only for a reshape that is otherwise fine.
        let mut plan = Plan::empty();
        plan.compute_view::<E, _>(spec, a.shape(), a.strides())?;
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
            return shared_contiguous(a, &plan).map_err(|e| shared(&e));
        }
        // Unique: `into_owned` unwraps the Arc without cloning the elements. The plan is
        // computed again for the owned array: ndarray does not promise that `into_owned` keeps
        // the layout.
        OwnedRepr::into_reshape(a.into_owned(), spec).map(Array::into_shared)
    }
}

/// A shared `ArcArray` contiguous in the plan's reading order, reshaped to the plan's shape
/// over the same shared buffer (ndarray's default strides for that shape and order, which is
/// what the plan is), or why ndarray refused.
fn shared_contiguous<A: Clone, D: Dimension, E: Dimension>(
    a: ArrayBase<OwnedArcRepr<A>, D>,
    plan: &Plan,
) -> Result<ArrayBase<OwnedArcRepr<A>, E>, String> {
    a.into_shape_with_order((typed_dim::<E>(&plan.shape), plan.reading.ndarray()))
        .map_err(|e| format!("ndarray refused the contiguous reshape: {e}"))
}

impl<A> sealed::Sealed for CowRepr<'_, A> {}
impl<'a, A: Clone> IntoReshapeData for CowRepr<'a, A> {
    fn into_reshape<D: Dimension, E: Dimension, P: ShapeSpec + ?Sized>(
        a: CowArray<'a, A, D>,
        spec: &P,
    ) -> Result<CowArray<'a, A, E>, ReshapeError> {
        if a.is_view() {
            let mut plan = Plan::empty();
            plan.compute_view::<E, _>(spec, a.shape(), a.strides())?;
            // SAFETY: `a` is the view variant, which borrows its elements for `'a`; the view
            // plan addresses exactly those elements.
            Ok(CowArray::from(unsafe {
                plan.view(a.as_ptr(), typed_dim::<E>)
            }))
        } else {
            // The owned variant: `into_owned` moves the array out without copying.
            OwnedRepr::into_reshape(a.into_owned(), spec).map(CowArray::from)
        }
    }
}

/// The copy function of the consuming view-or-copy modes: the input, the planned shape and
/// reading order, and the dims builder of the result.
pub(crate) type CopyFn<'c, A, D, E> =
    &'c dyn Fn(&ArrayRef<A, D>, &[usize], Reading) -> Result<Array<A, E>, ReshapeError>;

/// [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone) of a view: a view
/// with the input's lifetime when the strides permit, else `copy`.
pub(crate) fn view_into_or<'a, A, D, E, P>(
    a: ArrayView<'a, A, D>,
    spec: &P,
    copy: CopyFn<'_, A, D, E>,
) -> Result<CowArray<'a, A, E>, ReshapeError>
where
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    // SAFETY: the elements of the view `a` are borrowed for `'a`.
    unsafe { borrowed_view_or(&a, spec, copy) }
}

/// A view of `a` with the lifetime `'a` when the strides permit, else `copy`: the consuming
/// modes of the storages that borrow their elements (a view, a `CowArray`'s view variant).
///
/// # Safety
///
/// The elements of `a` must be borrowed for `'a`.
unsafe fn borrowed_view_or<'a, A, D, E, P>(
    a: &ArrayRef<A, D>,
    spec: &P,
    copy: CopyFn<'_, A, D, E>,
) -> Result<CowArray<'a, A, E>, ReshapeError>
where
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    let mut plan = Plan::empty();
    plan.compute_for::<E, _>(spec, a.shape(), a.strides())?;
    if plan.view {
        // SAFETY: a view plan for the layout of `a`, of `E`'s rank (checked), whose elements
        // are borrowed for `'a` (the caller's contract).
        return Ok(CowArray::from(unsafe {
            plan.view(a.as_ptr(), typed_dim::<E>)
        }));
    }
    copy(a, &plan.shape, plan.reading).map(CowArray::from)
}

/// [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone) of an owned
/// array: its own buffer with the new layout when the strides permit, else `copy`.
pub(crate) fn owned_into_or<A, D, E, P>(
    a: Array<A, D>,
    spec: &P,
    copy: CopyFn<'_, A, D, E>,
) -> Result<Array<A, E>, ReshapeError>
where
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    let mut plan = Plan::empty();
    plan.compute_for::<E, _>(spec, a.shape(), a.strides())?;
    if plan.view {
        return Ok(owned_with_layout(
            a,
            &plan.shape,
            &plan.signed_strides(),
            typed_dim::<E>,
        ));
    }
    copy(&a, &plan.shape, plan.reading)
}

/// [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone) of an `ArcArray`:
/// its own buffer when unique (as [`owned_into_or`]), the shared buffer when contiguous in the
/// reading order, else `copy` into a new one.
pub(crate) fn arc_into_or<A, D, E, P>(
    a: ArrayBase<OwnedArcRepr<A>, D>,
    spec: &P,
    copy: CopyFn<'_, A, D, E>,
) -> Result<ArrayBase<OwnedArcRepr<A>, E>, ReshapeError>
where
    A: Clone,
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    if a.is_unique() {
        // `into_owned` unwraps the Arc without cloning the elements; the plan is computed for
        // the owned array, whose layout ndarray does not promise to keep.
        return owned_into_or(a.into_owned(), spec, copy).map(Array::into_shared);
    }
    let mut plan = Plan::empty();
    plan.compute_for::<E, _>(spec, a.shape(), a.strides())?;
    if plan.contiguous {
        let shape = a.shape().to_vec();
        return shared_contiguous(a, &plan).map_err(|e| reject(Rule::NeedsCopy, spec, &shape, &e));
    }
    copy(&a, &plan.shape, plan.reading).map(Array::into_shared)
}

/// [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone) of a `CowArray`:
/// [`view_into_or`] for the view variant, [`owned_into_or`] for the owned one.
pub(crate) fn cow_into_or<'a, A, D, E, P>(
    a: CowArray<'a, A, D>,
    spec: &P,
    copy: CopyFn<'_, A, D, E>,
) -> Result<CowArray<'a, A, E>, ReshapeError>
where
    A: Clone,
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    if !a.is_view() {
        return owned_into_or(a.into_owned(), spec, copy).map(CowArray::from);
    }
    // SAFETY: `a` is the view variant, which borrows its elements for `'a`.
    unsafe { borrowed_view_or(&a, spec, copy) }
}

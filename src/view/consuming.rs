//! The consuming modes: [`IntoReshapeData`] (`into_reshape`, `reshape_in_place`) of each
//! storage kind, and the view-or-copy consuming reshapes behind `into_reshape_clone`. A reshape
//! here keeps the array's storage: the same buffer for an owned array, the same borrow for a
//! view.

use std::ptr::NonNull;

use ndarray::{
    Array, ArrayBase, ArrayView, ArrayViewMut, CowArray, CowRepr, Dimension, OwnedArcRepr,
    OwnedRepr, RawArrayViewMut, ShapeBuilder, ViewRepr,
};

use super::{sealed, view_or, IntoReshapeData, Plan, Reads};
use crate::dialect::{reject, ShapeSpec};
use crate::dims::{dim_filled, typed_dim, Reading};
use crate::error::{ReshapeError, Rule};
use crate::layout::strides::low_offset;

/// The owned array `a` with a new layout (`shape`, signed `strides`) over the same elements,
/// keeping its buffer, with dims of type `E` (of rank `shape.len()`).
///
/// `shape`/`strides` must be a view reshape of `a` found by the solver: a bijection onto the
/// same elements, so the lowest address is the same too.
fn owned_with_layout<A, D: Dimension, E: Dimension + 'static>(
    a: Array<A, D>,
    shape: &[usize],
    strides: &[isize],
) -> Array<A, E> {
    let empty = a.is_empty();
    let to_low = low_offset(a.shape(), a.strides());
    let (mut vec, offset) = a.into_raw_vec_and_offset();
    if empty {
        let zeros = E::zeros(shape.len());
        // SAFETY: an empty array with zero strides never offsets its pointer: conditions 3-5 of
        // `from_shape_vec_unchecked` hold for any vector.
        return unsafe {
            Array::from_shape_vec_unchecked(typed_dim::<E>(shape).strides(zeros), vec)
        };
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
    unsafe { Array::from_shape_vec_unchecked(typed_dim::<E>(shape).strides(ustrides), vec) }
}

/// An owned array of no elements and rank `n`, allocating nothing: what an array taken out of
/// a `&mut` leaves behind for the moment of an in-place reshape.
fn empty_owned<A, D: Dimension>(n: usize) -> Array<A, D> {
    // SAFETY: a shape of zeros has no elements and zero strides: an empty vector fits it.
    unsafe { Array::from_shape_vec_unchecked(D::zeros(n), Vec::new()) }
}

/// A raw view of no elements and rank `n` at a dangling, aligned pointer.
fn empty_raw<A, D: Dimension>(n: usize) -> RawArrayViewMut<A, D> {
    // SAFETY: a shape of zeros addresses no element; the pointer is non-null and aligned.
    unsafe { RawArrayViewMut::from_shape_ptr(D::zeros(n), NonNull::<A>::dangling().as_ptr()) }
}

impl<A> IntoReshapeData for ViewRepr<&A> {}
impl<'a, A> sealed::Storage for ViewRepr<&'a A> {
    const UNIQUE: bool = false;

    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        a: ArrayView<'a, A, D>,
        spec: &P,
    ) -> Result<ArrayView<'a, A, P::Rank>, ReshapeError> {
        let mut plan = Plan::empty();
        plan.compute_view(spec, a.shape(), a.strides(), Self::UNIQUE)?;
        // SAFETY: a view plan for the layout of `a`, whose elements are borrowed for `'a`.
        Ok(unsafe { plan.view(a.as_ptr()) })
    }

    fn placeholder<D: Dimension>(n: usize) -> ArrayView<'a, A, D> {
        // SAFETY: no element is addressed.
        unsafe { empty_raw::<A, D>(n).deref_into_view() }
    }
}

impl<A> IntoReshapeData for ViewRepr<&mut A> {}
impl<'a, A> sealed::Storage for ViewRepr<&'a mut A> {
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        mut a: ArrayViewMut<'a, A, D>,
        spec: &P,
    ) -> Result<ArrayViewMut<'a, A, P::Rank>, ReshapeError> {
        let mut plan = Plan::empty();
        plan.compute_view(spec, a.shape(), a.strides(), Self::UNIQUE)?;
        let ptr = a.as_mut_ptr();
        drop(a);
        // SAFETY: a view plan for the layout of `a`, a unique view of its elements for `'a`,
        // consumed here: the new view is the only one.
        Ok(unsafe { plan.view_mut(ptr) })
    }

    fn placeholder<D: Dimension>(n: usize) -> ArrayViewMut<'a, A, D> {
        // SAFETY: no element is addressed.
        unsafe { empty_raw(n).deref_into_view_mut() }
    }
}

impl<A> IntoReshapeData for OwnedRepr<A> {}
impl<A> sealed::Storage for OwnedRepr<A> {
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        a: Array<A, D>,
        spec: &P,
    ) -> Result<Array<A, P::Rank>, ReshapeError> {
        let mut plan = Plan::empty();
        plan.compute_view(spec, a.shape(), a.strides(), Self::UNIQUE)?;
        Ok(owned_with_layout(a, &plan.shape, &plan.signed_strides()))
    }

    fn placeholder<D: Dimension>(n: usize) -> Array<A, D> {
        empty_owned(n)
    }
}

impl<A: Clone> IntoReshapeData for OwnedArcRepr<A> {}
impl<A: Clone> sealed::Storage for OwnedArcRepr<A> {
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        a: ArrayBase<OwnedArcRepr<A>, D>,
        spec: &P,
    ) -> Result<ArrayBase<OwnedArcRepr<A>, P::Rank>, ReshapeError> {
        if !a.is_unique() {
            let plan = arc_plan(&a, spec)?;
            let shape = a.shape().to_vec();
            return shared_contiguous(a, &plan)
                .map_err(|e| reject(Rule::NeedsCopy, spec, &shape, &e));
        }
        // Unique: `into_owned` unwraps the Arc without cloning the elements. The plan is
        // computed for the owned array: ndarray does not promise that `into_owned` keeps the
        // layout.
        OwnedRepr::into_reshape(a.into_owned(), spec).map(Array::into_shared)
    }

    fn check<D: Dimension, P: ShapeSpec + ?Sized>(
        a: &ArrayBase<OwnedArcRepr<A>, D>,
        spec: &P,
    ) -> Result<(), ReshapeError> {
        arc_plan(a, spec).map(drop)
    }

    fn placeholder<D: Dimension>(n: usize) -> ArrayBase<OwnedArcRepr<A>, D> {
        empty_owned(n).into_shared()
    }
}

/// The view plan of an `ArcArray`, or why it has none: the strides, or a shared buffer that
/// is not contiguous in the reading order (ndarray's public API reshapes a shared buffer only
/// then). A shape that fits the strides is checked first, so a shared buffer is reported only
/// for a reshape that is otherwise fine.
fn arc_plan<A, D: Dimension, P: ShapeSpec + ?Sized>(
    a: &ArrayBase<OwnedArcRepr<A>, D>,
    spec: &P,
) -> Result<Plan, ReshapeError> {
    let mut plan = Plan::empty();
    plan.compute_view(spec, a.shape(), a.strides(), true)?;
    if !plan.contiguous && !a.is_unique() {
        return Err(reject(
            Rule::NeedsCopy,
            spec,
            a.shape(),
            "the ArcArray's buffer is shared and not contiguous in the reading order; \
             into_reshape would have to copy it",
        ));
    }
    Ok(plan)
}

/// A shared `ArcArray` contiguous in the plan's reading order, reshaped to the plan's shape
/// over the same shared buffer (ndarray's default strides for that shape and order, which is
/// what the plan is), or why ndarray refused.
fn shared_contiguous<A: Clone, D: Dimension, E: Dimension + 'static>(
    a: ArrayBase<OwnedArcRepr<A>, D>,
    plan: &Plan,
) -> Result<ArrayBase<OwnedArcRepr<A>, E>, String> {
    a.into_shape_with_order((typed_dim::<E>(&plan.shape), plan.reading.ndarray()))
        .map_err(|e| format!("ndarray refused the contiguous reshape: {e}"))
}

impl<A: Clone> IntoReshapeData for CowRepr<'_, A> {}
impl<'a, A: Clone> sealed::Storage for CowRepr<'a, A> {
    fn into_reshape<D: Dimension, P: ShapeSpec + ?Sized>(
        a: CowArray<'a, A, D>,
        spec: &P,
    ) -> Result<CowArray<'a, A, P::Rank>, ReshapeError> {
        if a.is_view() {
            let mut plan = Plan::empty();
            plan.compute_view(spec, a.shape(), a.strides(), false)?;
            // SAFETY: `a` is the view variant, which borrows its elements for `'a`; the view
            // plan addresses exactly those elements.
            Ok(CowArray::from(unsafe { plan.view(a.as_ptr()) }))
        } else {
            // The owned variant: `into_owned` moves the array out without copying.
            OwnedRepr::into_reshape(a.into_owned(), spec).map(CowArray::from)
        }
    }

    fn placeholder<D: Dimension>(n: usize) -> CowArray<'a, A, D> {
        CowArray::from(empty_owned(n))
    }
}

/// The copy function of the consuming view-or-copy modes: what the plan reads, the planned
/// shape and reading order.
pub(crate) type CopyFn<'c, A, D, E> =
    &'c dyn Fn(Reads<'_, A, D>, &[usize], Reading) -> Result<Array<A, E>, ReshapeError>;

/// [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone) of a view: a view
/// with the input's lifetime when the strides permit, else `copy`.
pub(crate) fn view_into_or<'a, A, D: Dimension, P: ShapeSpec + ?Sized>(
    a: ArrayView<'a, A, D>,
    spec: &P,
    copy: CopyFn<'_, A, D, P::Rank>,
) -> Result<CowArray<'a, A, P::Rank>, ReshapeError> {
    // SAFETY: the elements of the view `a` are borrowed for `'a`.
    unsafe { view_or(&a, spec, copy) }
}

/// [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone) of an owned
/// array: its own buffer with the new layout when the strides permit, else `copy`.
pub(crate) fn owned_into_or<A, D: Dimension, P: ShapeSpec + ?Sized>(
    a: Array<A, D>,
    spec: &P,
    copy: CopyFn<'_, A, D, P::Rank>,
) -> Result<Array<A, P::Rank>, ReshapeError> {
    let mut plan = Plan::empty();
    plan.compute_unique(spec, a.shape(), a.strides())?;
    if plan.view {
        return Ok(owned_with_layout(a, &plan.shape, &plan.signed_strides()));
    }
    copy(plan.reads(&a), &plan.shape, plan.reading)
}

/// [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone) of an `ArcArray`:
/// its own buffer when unique (as [`owned_into_or`]), the shared buffer when contiguous in the
/// reading order, else `copy` into a new one.
pub(crate) fn arc_into_or<A, D, P>(
    a: ArrayBase<OwnedArcRepr<A>, D>,
    spec: &P,
    copy: CopyFn<'_, A, D, P::Rank>,
) -> Result<ArrayBase<OwnedArcRepr<A>, P::Rank>, ReshapeError>
where
    A: Clone,
    D: Dimension,
    P: ShapeSpec + ?Sized,
{
    if a.is_unique() {
        // `into_owned` unwraps the Arc without cloning the elements; the plan is computed for
        // the owned array, whose layout ndarray does not promise to keep.
        return owned_into_or(a.into_owned(), spec, copy).map(Array::into_shared);
    }
    let mut plan = Plan::empty();
    plan.compute_unique(spec, a.shape(), a.strides())?;
    if plan.contiguous {
        let shape = a.shape().to_vec();
        return shared_contiguous(a, &plan).map_err(|e| reject(Rule::NeedsCopy, spec, &shape, &e));
    }
    copy(plan.reads(&a), &plan.shape, plan.reading).map(Array::into_shared)
}

/// [`ReshapeExt::into_reshape_clone`](crate::ReshapeExt::into_reshape_clone) of a `CowArray`:
/// [`view_into_or`] for the view variant, [`owned_into_or`] for the owned one.
pub(crate) fn cow_into_or<'a, A, D, P>(
    a: CowArray<'a, A, D>,
    spec: &P,
    copy: CopyFn<'_, A, D, P::Rank>,
) -> Result<CowArray<'a, A, P::Rank>, ReshapeError>
where
    A: Clone,
    D: Dimension,
    P: ShapeSpec + ?Sized,
{
    if !a.is_view() {
        return owned_into_or(a.into_owned(), spec, copy).map(CowArray::from);
    }
    // SAFETY: `a` is the view variant, which borrows its elements for `'a`.
    unsafe { view_or(&a, spec, copy) }
}

//! The [`Plan`] of every reshape (target shape, reading order, view strides where the input's
//! strides permit, an einops pattern's arrangement of the axes) and what is built from it: the
//! views of the borrowing, mutable and consuming modes, and the [`Reads`] a copy takes to the
//! engine when no view exists.
//!
//! This module and `copy/` hold the crate's `unsafe` code (besides `strided`'s raw-pointer
//! constructor): here, building views over an array's elements from strides the solver found.
//! Every entry point takes the array it plans for, so no caller can pair a plan with another
//! array.

use ndarray::{
    Array, ArrayBase, ArrayRef, ArrayView, ArrayViewMut, Axis, CowArray, CowRepr, Dimension, IxDyn,
    OwnedArcRepr, OwnedRepr, ShapeBuilder, StrideShape, ViewRepr,
};

use crate::copy::RawArray;
use crate::dialect::{reject, Planned, ShapeSpec};
use crate::dims::{dim_filled, typed_dim, Reading};
use crate::error::{ReshapeError, Rule};
use crate::layout::strides::{axis_low, contiguous_dims, fill_contiguous_strides};
use crate::layout::{is_contiguous, reading, solve, Arrangement};
use crate::small::Small;

mod consuming;
mod storage;

pub(crate) use consuming::{arc_into_or, cow_into_or, owned_into_or, view_into_or};
pub(crate) use storage::sealed;

pub use storage::{Borrowed, IntoReshapeClone, IntoReshapeData};

/// What a reshape will do: the target shape, the reading order, and whether the strides permit
/// a view (then `strides` holds them). Filled in place in the caller's frame: a plan returned
/// by value through a `Result` is copied twice on the view path.
pub(crate) struct Plan {
    pub(crate) shape: Small<usize>,
    /// The view strides, when `view` and not `contiguous` (made only then: an inline buffer
    /// written on every call costs the contiguous views a dozen stores).
    strides: Option<Small<isize>>,
    pub(crate) reading: Reading,
    view: bool,
    /// The input is contiguous in the reading order: the view has ndarray's default strides
    /// for `shape` in that order (what the solver would find, length-1 axes included), and is
    /// built from the shape alone.
    contiguous: bool,
    /// The view repeats elements (an einops `repeat` broadcast): no mutable or owning view may
    /// take it.
    aliased: bool,
    /// The input's axes as an einops pattern arranges them (split, permuted, broadcast):
    /// their lengths and strides, which the solver reads in C order for the view and the copy
    /// reads for a copy. `None` when the reshape reads the input as it is.
    arranged: Option<(Small<usize>, Small<isize>)>,
}

impl Plan {
    /// An empty plan, for [`compute`](Self::compute) to fill.
    #[inline]
    pub(crate) fn empty() -> Plan {
        Plan {
            shape: Small::new(),
            strides: None,
            reading: Reading::C,
            view: false,
            contiguous: false,
            aliased: false,
            arranged: None,
        }
    }

    /// Plan `spec` for an input of `shape` and `strides`. Always inlined: out of line, the typed
    /// and untyped plans of one spec reach the dialect's inference through a call, about 30
    /// instructions more on the view path (BENCHMARKS.md, "The view path").
    #[inline(always)]
    pub(crate) fn compute<P: ShapeSpec + ?Sized>(
        &mut self,
        spec: &P,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<(), ReshapeError> {
        let mut arrangement = None;
        spec.plan_into(shape, Planned::new(&mut self.shape, &mut arrangement))?;
        if let Some(arrangement) = arrangement {
            self.compute_arranged(&arrangement, strides);
            return Ok(());
        }
        self.reading = reading(shape, strides, spec.order());
        self.contiguous = is_contiguous(shape, strides, self.reading);
        self.view = self.contiguous || {
            // The spec guarantees equal, bounded sizes: the solver needs no checks of its own.
            let out = self.strides.get_or_insert_with(Small::new);
            out.fill(0isize, self.shape.len());
            let empty = shape.contains(&0);
            solve(shape, strides, &self.shape, self.reading, empty, out)
        };
        Ok(())
    }

    /// The plan of an input rearranged before the reshape (an einops pattern): the input's
    /// strides split and permuted as `arranged` says, then read in C order as the target shape.
    #[inline(never)]
    fn compute_arranged(&mut self, arrangement: &Arrangement, strides: &[isize]) {
        let mut split: Small<isize> = Small::new();
        arrangement.strides(strides, &mut split);
        let shape = &arrangement.shape;
        self.reading = Reading::C;
        self.aliased = arrangement.aliases();
        self.contiguous = is_contiguous(shape, &split, Reading::C);
        self.view = self.contiguous || {
            let out = self.strides.get_or_insert_with(Small::new);
            out.fill(0isize, self.shape.len());
            let empty = shape.contains(&0);
            solve(shape, &split, &self.shape, Reading::C, empty, out)
        };
        self.arranged = Some((shape.clone(), split));
    }

    /// What a copy by this plan reads, for `a`, the array it was computed for: `a` itself, or
    /// the view of its arranged axes (read in C order).
    #[inline(always)]
    pub(crate) fn reads<'a, A, D: Dimension>(&'a self, a: &'a ArrayRef<A, D>) -> Reads<'a, A, D> {
        Reads {
            a,
            arranged: self.arranged.as_ref(),
        }
    }

    /// [`compute`](Self::compute) for a result that owns or mutates its elements: a view that
    /// repeats elements is a copy instead.
    #[inline(always)]
    pub(crate) fn compute_unique<P: ShapeSpec + ?Sized>(
        &mut self,
        spec: &P,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<(), ReshapeError> {
        self.compute(spec, shape, strides)?;
        self.view &= !self.aliased;
        Ok(())
    }

    /// [`compute`](Self::compute), then [`ReshapeError::NeedsCopy`] unless the plan is a view
    /// (and, when `unique`, one that repeats no element): the strict modes.
    #[inline]
    fn compute_view<P: ShapeSpec + ?Sized>(
        &mut self,
        spec: &P,
        shape: &[usize],
        strides: &[isize],
        unique: bool,
    ) -> Result<(), ReshapeError> {
        self.compute(spec, shape, strides)?;
        if self.view && !(unique && self.aliased) {
            return Ok(());
        }
        Err(reject(
            Rule::NeedsCopy,
            spec,
            shape,
            &match self.view {
                // A view, but one that repeats elements.
                true => format!(
                    "shape {:?} repeats elements of the input: a result that owns or mutates them \
                     needs a copy",
                    &*self.shape
                ),
                false => format!(
                    "strides {strides:?} cannot be read as shape {:?} in {:?} order without a copy",
                    &*self.shape,
                    self.reading.order()
                ),
            },
        ))
    }

    /// The view strides, signed (the contiguous ones computed on demand).
    fn signed_strides(&self) -> Small<isize> {
        if self.contiguous {
            let mut s = Small::filled(0isize, self.shape.len());
            fill_contiguous_strides(&self.shape, self.reading, &mut s);
            s
        } else {
            self.strides.clone().unwrap_or_default()
        }
    }

    /// The view this plan describes, of the array whose first element is at `ptr`, with dims
    /// of type `E` (of the plan's rank), read-only or mutable (`V`). Always inlined: the view
    /// path wraps it in a `CowArray` right away (BENCHMARKS.md, "The view path").
    ///
    /// # Safety
    ///
    /// `self.view` must hold, and the plan must have been computed for that live array, whose
    /// elements must be readable (for a mutable view: writable and unaliased) for the view's
    /// lifetime.
    #[inline(always)]
    unsafe fn build<A, E: Dimension + 'static, V: ViewKind<A, E>>(&self, ptr: *mut A) -> V {
        if self.contiguous && !self.shape.contains(&0) {
            let shape = contiguous_dims::<E>(&self.shape, self.reading);
            // SAFETY: the array is contiguous in this order from `ptr` (its lowest address), so
            // these strides (ndarray's defaults) address exactly its elements.
            unsafe { V::from_shape_ptr(shape, ptr) }
        } else {
            let strides = self.strides.as_deref().unwrap_or_default();
            // SAFETY: solver strides for this array (caller's contract), or an empty shape.
            unsafe { from_parts(ptr, &self.shape, strides) }
        }
    }

    /// The view this plan describes, read-only, borrowed for `'a`.
    ///
    /// # Safety
    ///
    /// As [`build`](Self::build).
    #[inline(always)]
    unsafe fn view<'a, A, E: Dimension + 'static>(&self, ptr: *const A) -> ArrayView<'a, A, E> {
        // SAFETY: the caller's contract; the view is only read through.
        unsafe { self.build(ptr.cast_mut()) }
    }

    /// The view this plan describes, mutable, borrowed for `'a`.
    ///
    /// # Safety
    ///
    /// As [`build`](Self::build); the reshape is a bijection onto the array's elements, so each
    /// is still addressed by one index only.
    #[inline]
    unsafe fn view_mut<'a, A, E: Dimension + 'static>(
        &self,
        ptr: *mut A,
    ) -> ArrayViewMut<'a, A, E> {
        // SAFETY: the caller's contract.
        unsafe { self.build(ptr) }
    }
}

/// What a copy reads, from its plan: the input, or its axes as an einops pattern arranges
/// them, read in C order. Built only from a plan and the array it was computed for.
/// (`pub` only because the sealed storage trait names it; the module is private, so it cannot
/// be named outside the crate.)
pub struct Reads<'a, A, D> {
    a: &'a ArrayRef<A, D>,
    /// The arranged axes' lengths and strides, from the plan for `a`.
    arranged: Option<&'a (Small<usize>, Small<isize>)>,
}

impl<'a, A, D: Dimension> Reads<'a, A, D> {
    /// The input the plan was computed for.
    #[inline(always)]
    pub(crate) fn input(&self) -> &'a ArrayRef<A, D> {
        self.a
    }

    /// What the engine reads: the input, or its axes as the plan arranges them.
    #[inline(always)]
    pub(crate) fn source(&self) -> RawArray<'a, A> {
        match self.arranged {
            None => RawArray::of(self.a),
            // SAFETY: the arranged axes split and permute the axes of `a` and add broadcast
            // ones (stride 0, a repeat's) as the plan for `a` found, so they address only its
            // elements, readable for `'a`; their lengths multiply to the output's size, which
            // the plan bounded.
            Some((shape, strides)) => unsafe {
                RawArray::from_parts(self.a.as_ptr(), shape, strides, shape.iter().product())
            },
        }
    }
}

/// The two kinds of view a plan builds, read-only and mutable, through one builder
/// ([`from_parts`]): ndarray's constructors of each.
trait ViewKind<A, E: Dimension + 'static>: Sized {
    /// ndarray's `from_shape_ptr` of this kind.
    ///
    /// # Safety
    ///
    /// As ndarray's.
    unsafe fn from_shape_ptr(shape: StrideShape<E>, ptr: *mut A) -> Self;

    fn invert_axis(&mut self, axis: Axis);
}

impl<A, E: Dimension + 'static> ViewKind<A, E> for ArrayView<'_, A, E> {
    #[inline(always)]
    unsafe fn from_shape_ptr(shape: StrideShape<E>, ptr: *mut A) -> Self {
        // SAFETY: the caller's contract.
        unsafe { ArrayView::from_shape_ptr(shape, ptr.cast_const()) }
    }

    #[inline(always)]
    fn invert_axis(&mut self, axis: Axis) {
        ArrayBase::invert_axis(self, axis);
    }
}

impl<A, E: Dimension + 'static> ViewKind<A, E> for ArrayViewMut<'_, A, E> {
    #[inline(always)]
    unsafe fn from_shape_ptr(shape: StrideShape<E>, ptr: *mut A) -> Self {
        // SAFETY: the caller's contract.
        unsafe { ArrayViewMut::from_shape_ptr(shape, ptr) }
    }

    #[inline(always)]
    fn invert_axis(&mut self, axis: Axis) {
        ArrayBase::invert_axis(self, axis);
    }
}

/// A view of `a` reshaped by `spec` when the strides permit one, otherwise `copy(a, shape,
/// reading)`: the view-or-copy modes, with dims of the spec's rank type and the lifetime `'r`.
/// The copy comes in as a function so that this module does not depend on `copy/`.
///
/// # Safety
///
/// The elements of `a` must be readable for `'r`.
#[inline(always)]
unsafe fn view_or<'r, A, D: Dimension, P: ShapeSpec + ?Sized>(
    a: &ArrayRef<A, D>,
    spec: &P,
    copy: impl FnOnce(Reads<'_, A, D>, &[usize], Reading) -> Result<Array<A, P::Rank>, ReshapeError>,
) -> Result<CowArray<'r, A, P::Rank>, ReshapeError> {
    let mut plan = Plan::empty();
    plan.compute(spec, a.shape(), a.strides())?;
    match plan.view {
        // SAFETY: a view plan for this array's layout, of the spec's rank: the view addresses
        // exactly this array's elements, readable for `'r` (the caller's contract).
        true => Ok(CowArray::from(unsafe { plan.view(a.as_ptr()) })),
        false => copy(plan.reads(a), &plan.shape, plan.reading).map(CowArray::from),
    }
}

/// The strict view of `a` reshaped by `spec`, with the lifetime `'r`.
///
/// # Safety
///
/// The elements of `a` must be readable for `'r`.
#[inline(always)]
unsafe fn view<'r, A, D: Dimension, P: ShapeSpec + ?Sized>(
    a: &ArrayRef<A, D>,
    spec: &P,
) -> Result<ArrayView<'r, A, P::Rank>, ReshapeError> {
    let mut plan = Plan::empty();
    plan.compute_view(spec, a.shape(), a.strides(), false)?;
    // SAFETY: a view plan for this layout, of the spec's rank, readable for `'r` (the caller's
    // contract).
    Ok(unsafe { plan.view(a.as_ptr()) })
}

/// `Borrowed` for a storage whose results borrow the array.
macro_rules! borrowed_by_the_array {
    ([$($g:tt)*] $storage:ty, $elem:ty) => {
        impl<$($g)*> Borrowed for $storage {
            type Cow<'s, E: Dimension + 'static> = CowArray<'s, $elem, E> where Self: 's;
            type View<'s, E: Dimension + 'static> = ArrayView<'s, $elem, E> where Self: 's;

            #[inline(always)]
            fn view_or<'s, D: Dimension, P: ShapeSpec + ?Sized>(
                a: &'s ArrayBase<Self, D>,
                spec: &P,
                copy: impl FnOnce(Reads<'_, $elem, D>, &[usize], Reading) -> Result<Array<$elem, P::Rank>, ReshapeError>,
            ) -> Result<CowArray<'s, $elem, P::Rank>, ReshapeError> {
                view_or_ref(a, spec, copy)
            }

            fn owned<'s, E: Dimension + 'static>(a: Array<$elem, E>) -> CowArray<'s, $elem, E>
            where
                Self: 's,
            {
                CowArray::from(a)
            }

            #[inline(always)]
            fn view<'s, D: Dimension, P: ShapeSpec + ?Sized>(
                a: &'s ArrayBase<Self, D>,
                spec: &P,
            ) -> Result<ArrayView<'s, $elem, P::Rank>, ReshapeError> {
                view_ref(a, spec)
            }
        }
    };
}

borrowed_by_the_array!([A] OwnedRepr<A>, A);
borrowed_by_the_array!([A] OwnedArcRepr<A>, A);
borrowed_by_the_array!(['a, A] CowRepr<'a, A>, A);
borrowed_by_the_array!(['a, A] ViewRepr<&'a mut A>, A);

impl<'a, A> Borrowed for ViewRepr<&'a A> {
    type Cow<'s, E: Dimension + 'static>
        = CowArray<'a, A, E>
    where
        Self: 's;
    type View<'s, E: Dimension + 'static>
        = ArrayView<'a, A, E>
    where
        Self: 's;

    #[inline(always)]
    fn view_or<'s, D: Dimension, P: ShapeSpec + ?Sized>(
        a: &'s ArrayView<'a, A, D>,
        spec: &P,
        copy: impl FnOnce(Reads<'_, A, D>, &[usize], Reading) -> Result<Array<A, P::Rank>, ReshapeError>,
    ) -> Result<CowArray<'a, A, P::Rank>, ReshapeError> {
        // SAFETY: a view's elements are borrowed for `'a`, however briefly the view itself is.
        unsafe { view_or(a, spec, copy) }
    }

    fn owned<'s, E: Dimension + 'static>(a: Array<A, E>) -> CowArray<'a, A, E>
    where
        Self: 's,
    {
        CowArray::from(a)
    }

    #[inline(always)]
    fn view<'s, D: Dimension, P: ShapeSpec + ?Sized>(
        a: &'s ArrayView<'a, A, D>,
        spec: &P,
    ) -> Result<ArrayView<'a, A, P::Rank>, ReshapeError> {
        // SAFETY: a view's elements are borrowed for `'a`.
        unsafe { view(a, spec) }
    }
}

/// [`view_or`] for an [`ArrayRef`] (what every array dereferences to), whose results borrow
/// it: the storages other than a view, and `ArrayRef` itself.
#[inline(always)]
pub(crate) fn view_or_ref<'s, A, D: Dimension, P: ShapeSpec + ?Sized>(
    a: &'s ArrayRef<A, D>,
    spec: &P,
    copy: impl FnOnce(Reads<'_, A, D>, &[usize], Reading) -> Result<Array<A, P::Rank>, ReshapeError>,
) -> Result<CowArray<'s, A, P::Rank>, ReshapeError> {
    // SAFETY: the elements are borrowed (through `a`) for `'s`.
    unsafe { view_or(a, spec, copy) }
}

/// [`view`] for an [`ArrayRef`], whose views borrow it (see [`view_or_ref`]).
#[inline(always)]
pub(crate) fn view_ref<'s, A, D: Dimension, P: ShapeSpec + ?Sized>(
    a: &'s ArrayRef<A, D>,
    spec: &P,
) -> Result<ArrayView<'s, A, P::Rank>, ReshapeError> {
    // SAFETY: the elements are borrowed (through `a`) for `'s`.
    unsafe { view(a, spec) }
}

/// A copy's plan without the stride solver: the target shape, the reading order and what the
/// copy reads, for `a`.
pub(crate) struct CopyPlan<'a, A, D> {
    a: &'a ArrayRef<A, D>,
    pub(crate) shape: Small<usize>,
    pub(crate) reading: Reading,
    arranged: Option<(Small<usize>, Small<isize>)>,
}

impl<'a, A, D: Dimension> CopyPlan<'a, A, D> {
    /// What the copy reads.
    #[inline(always)]
    pub(crate) fn reads(&self) -> Reads<'_, A, D> {
        Reads {
            a: self.a,
            arranged: self.arranged.as_ref(),
        }
    }
}

/// The plan of `spec` for `a` without the stride solver, for the modes that always copy: the
/// target shape, the reading order, and what the copy reads.
#[inline(always)]
pub(crate) fn copy_plan<'a, A, D: Dimension, P: ShapeSpec + ?Sized>(
    a: &'a ArrayRef<A, D>,
    spec: &P,
) -> Result<CopyPlan<'a, A, D>, ReshapeError> {
    let (mut shape, mut arrangement) = (Small::new(), None);
    spec.plan_into(a.shape(), Planned::new(&mut shape, &mut arrangement))?;
    let Some(arrangement) = arrangement else {
        let reading = reading(a.shape(), a.strides(), spec.order());
        return Ok(CopyPlan {
            a,
            shape,
            reading,
            arranged: None,
        });
    };
    let mut strides = Small::new();
    arrangement.strides(a.strides(), &mut strides);
    Ok(CopyPlan {
        a,
        shape,
        reading: Reading::C,
        arranged: Some((arrangement.shape, strides)),
    })
}

/// `a` with its axes split as `split` says (each input axis into consecutive axes, in input
/// order, as an einops pattern's left side splits it), or `None` when `split` is not such a
/// split of `a` (checked: the view is only built from a valid one).
pub(crate) fn split_view<'a, A, D: Dimension>(
    a: &'a ArrayRef<A, D>,
    split: &Arrangement,
) -> Option<ArrayView<'a, A, IxDyn>> {
    // Each input axis must be the product of its split axes, listed outer to inner with the
    // `inner` factors of a C-order split.
    let mut k = 0;
    for (axis, &len) in a.shape().iter().enumerate() {
        let mut product = 1usize;
        let start = k;
        while k < split.from.len() && matches!(split.from[k], Some((i, _)) if i == axis) {
            k += 1;
        }
        for j in (start..k).rev() {
            if split.from[j] != Some((axis, product)) {
                return None;
            }
            product = product.checked_mul(split.shape[j])?;
        }
        if product != len && !(len == 0 && split.shape[start..k].contains(&0)) {
            return None;
        }
    }
    if k != split.from.len() || split.shape.len() != k {
        return None;
    }
    let mut strides = Small::new();
    split.strides(a.strides(), &mut strides);
    // SAFETY: checked above: the split axes of each input axis multiply to its length with
    // C-order factors, so every index of the split addresses an element of `a`, readable for
    // `'a`.
    Some(unsafe { from_parts(a.as_ptr().cast_mut(), &split.shape, &strides) })
}

/// The strict mutable view ([`ReshapeExt::reshape_view_mut`](crate::ReshapeExt::reshape_view_mut)).
#[inline(always)]
pub(crate) fn view_mut<'a, A, D: Dimension, P: ShapeSpec + ?Sized>(
    a: &'a mut ArrayRef<A, D>,
    spec: &P,
) -> Result<ArrayViewMut<'a, A, P::Rank>, ReshapeError> {
    let mut plan = Plan::empty();
    plan.compute_view(spec, a.shape(), a.strides(), true)?;
    let ptr = a.as_mut_ptr();
    // SAFETY: a view plan for the layout of `a`, borrowed uniquely (an `&mut ArrayRef` is
    // unshared data) for the returned lifetime.
    Ok(unsafe { plan.view_mut(ptr) })
}

/// A view of kind `V` with signed strides at `ptr` (the element at index `[0, ..., 0]`), with
/// dims of type `E`.
///
/// # Safety
///
/// `ptr` must be the non-null, aligned data pointer of a live array, and every index within
/// `shape` must address, through `strides`, an element of it (as when the layout is a solver
/// reshape of that array), or the shape must be empty; the elements must be readable (for a
/// mutable view: writable and unaliased) for the view's lifetime.
#[inline]
unsafe fn from_parts<A, E: Dimension + 'static, V: ViewKind<A, E>>(
    ptr: *mut A,
    shape: &[usize],
    strides: &[isize],
) -> V {
    if shape.contains(&0) {
        // SAFETY: with ndarray's default strides (all zero for an empty shape) no element is
        // addressed and the pointer is never offset; `ptr` is non-null and aligned.
        return unsafe { V::from_shape_ptr(typed_dim::<E>(shape).into(), ptr) };
    }
    let (low, abs) = unsigned_layout::<E>(shape, strides);
    if low == 0 {
        // SAFETY: non-negative strides addressing live elements.
        return unsafe { V::from_shape_ptr(typed_dim::<E>(shape).strides(abs), ptr) };
    }
    // SAFETY: every element of the layout lies in the live array; `low` (< 0) is the offset
    // of the lowest of them, so `base` and every offset from it by the non-negative strides
    // stay inside it, and the view from `base` addresses the same elements.
    let mut view = unsafe {
        let base = ptr.offset(low);
        V::from_shape_ptr(typed_dim::<E>(shape).strides(abs), base)
    };
    // Inverting the axes brings the logical first element back to `ptr`.
    for i in (0..shape.len()).filter(|&i| strides[i] < 0 && shape[i] > 1) {
        view.invert_axis(Axis(i));
    }
    view
}

/// A signed layout as ndarray's constructors want it: the [`low_offset`](crate::layout::strides::low_offset) from the first element
/// to the lowest address (negative exactly when some axis must be inverted afterwards) and the
/// strides' magnitudes (as a dim of type `E`).
#[inline]
fn unsigned_layout<E: Dimension + 'static>(shape: &[usize], strides: &[isize]) -> (isize, E) {
    let mut low = 0isize;
    let abs = dim_filled(strides.len(), |abs| {
        for ((a, &s), &d) in abs.iter_mut().zip(strides).zip(shape) {
            *a = s.unsigned_abs();
            low += axis_low(d, s);
        }
    });
    (low, abs)
}

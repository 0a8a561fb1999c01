//! The implementations of [`ReshapeExt`] for `ArrayBase` and `ArrayRef`, and the thin glue
//! each method calls: plan, then view or copy.

use ndarray::{
    Array, ArrayBase, ArrayRef, ArrayView, ArrayViewMut, CowArray, Data, DataMut, Dimension, IxDyn,
    OwnedRepr, RawData, ShapeBuilder,
};

use super::{sealed, ReshapeExt};
use crate::copy;
use crate::copy::fold::Reducible;
use crate::copy::RawArray;
use crate::dialect::{reject, ShapeSpec};
use crate::dialect::{PackedDim, Reduce};
use crate::dims::Reading;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::layout::Arrangement;
use crate::small::Small;
use crate::view::sealed::CloneStorage;
use crate::view::{self, Borrowed, IntoReshapeClone, IntoReshapeData, Reads};

impl<A, S, D> sealed::Sealed for ArrayBase<S, D>
where
    S: RawData<Elem = A>,
    D: Dimension,
{
}

impl<A, S, D> sealed::Arrays<A, S, D> for ArrayBase<S, D>
where
    S: RawData<Elem = A>,
    D: Dimension,
{
    #[inline(always)]
    fn array_ref(&self) -> &ArrayRef<A, D>
    where
        S: Data,
    {
        self
    }
}

/// The methods whose results borrow the array, which the two impls give different types
/// (the trait's default methods serve the rest): `$data`
/// and `$data_mut` are the storage bounds the `ArrayBase` impl needs (none for `ArrayRef`);
/// `$view_or` and `$view` give the view-or-copy and strict
/// results (of types `$cow` and `$view_ty`, spelled out for `ArrayRef`) their lifetime.
macro_rules! borrowing_methods {
    ([$($data:tt)*], [$($data_mut:tt)*], $view_or:path => $cow:ty, $view:path => $view_ty:ty, $owned:path => $cow_dyn:ty) => {
        fn unpack<T: PackedDim>(
            &self,
            pattern: &str,
            shapes: &[Vec<T>],
        ) -> Result<Vec<ArrayView<'_, A, IxDyn>>, ReshapeError>
        where
            $($data)*
        {
            super::einops::unpack(self.view(), pattern, shapes)
        }

        fn reshape_view_mut<P: ShapeSpec>(
            &mut self,
            spec: P,
        ) -> Result<ArrayViewMut<'_, A, P::Rank>, ReshapeError>
        where
            $($data_mut)*
        {
            // An `ArrayBase`'s `DerefMut` makes shared (Arc) data unique first.
            view::view_mut(self, &spec)
        }

        fn reduce_with(&self, spec: &Reduce) -> Result<$cow_dyn, ReshapeError>
        where
            A: Reducible,
            $($data)*
        {
            match reduced(self, spec)? {
                Some(r) => Ok($owned(r)),
                None => self.reshape_with(spec.as_rearrange()),
            }
        }

        fn reshape_with<P: ShapeSpec>(
            &self,
            spec: P,
        ) -> Result<$cow, ReshapeError>
        where
            A: Clone + Send + Sync,
            $($data)*
        {
            $view_or(self, &spec, |reads, shape, reading| copy_or_fail(reads, &spec, shape, reading))
        }

        fn reshape_view<P: ShapeSpec>(
            &self,
            spec: P,
        ) -> Result<$view_ty, ReshapeError>
        where
            $($data)*
        {
            $view(self, &spec)
        }

    };
}

impl<A, S, D> ReshapeExt<A, S, D> for ArrayBase<S, D>
where
    S: Borrowed<Elem = A>,
    D: Dimension,
{
    type Cow<'s, E: Dimension + 'static>
        = S::Cow<'s, E>
    where
        Self: 's;
    type View<'s, E: Dimension + 'static>
        = S::View<'s, E>
    where
        Self: 's;

    borrowing_methods!(
        [S: Data,],
        [S: DataMut,],
        S::view_or => Self::Cow<'_, P::Rank>,
        S::view => Self::View<'_, P::Rank>,
        S::owned => Self::Cow<'_, IxDyn>
    );

    fn into_reshape<P: ShapeSpec>(self, spec: P) -> Result<ArrayBase<S, P::Rank>, ReshapeError>
    where
        S: IntoReshapeData,
        Self: Sized,
    {
        S::into_reshape(self, &spec)
    }

    fn reshape_in_place<P: ShapeSpec<Rank = D>>(&mut self, spec: P) -> Result<(), ReshapeError>
    where
        S: IntoReshapeData,
        Self: Sized,
    {
        S::reshape_in_place(self, &spec)
    }

    fn into_reshape_clone<P: ShapeSpec>(
        self,
        spec: P,
    ) -> Result<ArrayBase<S::Cloned, P::Rank>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: IntoReshapeClone,
        Self: Sized,
    {
        S::into_reshape_clone(self, &spec)
    }
}

impl<A, D: Dimension> sealed::Sealed for ArrayRef<A, D> {}

impl<A, D: Dimension> sealed::Arrays<A, OwnedRepr<A>, D> for ArrayRef<A, D> {
    #[inline(always)]
    fn array_ref(&self) -> &ArrayRef<A, D> {
        self
    }
}

/// The borrowed array type of ndarray 0.17 (what `&Array`, `&ArrayView` and the others
/// dereference to, and what functions written for any storage take): every method but the
/// three that need the array itself, [`into_reshape`](ReshapeExt::into_reshape) and
/// [`into_reshape_clone`](ReshapeExt::into_reshape_clone) (by value) and
/// [`reshape_in_place`](ReshapeExt::reshape_in_place) (its shape changed). The storage
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
    type Cow<'s, E: Dimension + 'static>
        = CowArray<'s, A, E>
    where
        Self: 's;
    type View<'s, E: Dimension + 'static>
        = ArrayView<'s, A, E>
    where
        Self: 's;

    borrowing_methods!(
        [],
        [],
        view::view_or_ref => CowArray<'_, A, P::Rank>,
        view::view_ref => ArrayView<'_, A, P::Rank>,
        CowArray::from => CowArray<'_, A, IxDyn>
    );

    // Never called: an `ArrayRef` exists only behind a reference, so `Self: Sized` does not
    // hold. (Recent compilers let an impl for an unsized type leave such a method out; the
    // 1.80 this crate supports does not.)
    #[allow(dead_code)]
    fn into_reshape<P: ShapeSpec>(self, spec: P) -> Result<Array<A, P::Rank>, ReshapeError>
    where
        Self: Sized,
    {
        Err(borrowed(&spec, self.shape()))
    }

    #[allow(dead_code)]
    fn reshape_in_place<P: ShapeSpec<Rank = D>>(&mut self, spec: P) -> Result<(), ReshapeError>
    where
        Self: Sized,
    {
        Err(borrowed(&spec, self.shape()))
    }

    #[allow(dead_code)]
    fn into_reshape_clone<P: ShapeSpec>(
        self,
        spec: P,
    ) -> Result<ArrayBase<<OwnedRepr<A> as CloneStorage>::Cloned, P::Rank>, ReshapeError>
    where
        A: Clone + Send + Sync,
        Self: Sized,
    {
        Err(borrowed(&spec, self.shape()))
    }
}

/// The error of the consuming methods on an [`ArrayRef`], which exists only behind a reference.
#[cold]
fn borrowed<P: ShapeSpec + ?Sized>(spec: &P, shape: &[usize]) -> ReshapeError {
    reject(
        Rule::NeedsCopy,
        spec,
        shape,
        "an ArrayRef is borrowed: reshape the array it belongs to",
    )
}

/// A fresh copy of `a` read in `reading` as `shape` (the planned target of `spec`), with dims
/// of the spec's rank type, or [`ReshapeError::AllocationFailed`].
#[inline(always)]
pub(super) fn copy_or_fail<A, D, P>(
    reads: Reads<'_, A, D>,
    spec: &P,
    shape: &[usize],
    reading: Reading,
) -> Result<Array<A, P::Rank>, ReshapeError>
where
    A: Clone + Send + Sync,
    D: Dimension,
    P: ShapeSpec + ?Sized,
{
    copy::copy_to(reads.source(), shape, reading)
        .map_err(|e| out_of_memory(spec, reads.input().shape(), e))
}

/// The reduction of `a` by `spec` into a fresh array, or `None` when the pattern reduces nothing
/// (then it is a rearrangement, a view where the strides permit).
fn reduced<A, D>(a: &ArrayRef<A, D>, spec: &Reduce) -> Result<Option<Array<A, IxDyn>>, ReshapeError>
where
    A: Reducible,
    D: Dimension,
{
    let (mut dims, mut split, mut kept) = (Small::new(), Arrangement::default(), Small::new());
    spec.plan(a.shape(), &mut dims, &mut split, &mut kept)?;
    if kept.len() == split.shape.len() {
        return Ok(None);
    }
    let fail =
        |rule: Rule, why: &str| Fail::whole(rule, why).attach(Origin::Rearrange, a.shape(), spec);
    let r = spec.reduction();
    if let Some(why) = A::refuses(r) {
        return Err(fail(Rule::ReductionType, why));
    }
    let Some(v) = view::split_view(a, &split) else {
        return Err(fail(
            Rule::BadPattern,
            "the pattern does not split the input's axes",
        ));
    };
    let data = copy::reduce(&v, &kept, r).map_err(|e| fail(Rule::AllocationFailed, &e.detail()))?;
    Array::from_shape_vec(IxDyn(&dims), data)
        .map(Some)
        .map_err(|e| fail(Rule::SizeMismatch, &e.to_string()))
}

/// [`ReshapeError::AllocationFailed`] for a copy of an input of `shape` by `spec`.
#[cold]
#[inline(never)]
fn out_of_memory<P: ShapeSpec + ?Sized>(
    spec: &P,
    shape: &[usize],
    e: copy::AllocError,
) -> ReshapeError {
    reject(Rule::AllocationFailed, spec, shape, &e.detail())
}

/// An error of [`ReshapeExt::to_layout`] or [`ReshapeExt::to_layout_into`], which have no spec:
/// named as the call (`to_layout(F)`).
#[cold]
#[inline(never)]
pub(super) fn layout_error(
    rule: Rule,
    shape: &[usize],
    reading: Reading,
    why: &str,
) -> ReshapeError {
    let call = format!("to_layout({:?})", reading.order());
    Fail::whole(rule, why).attach(Origin::Ndarray, shape, call)
}

/// The copy into the caller's buffer of [`ReshapeExt::reshape_copy_into`] and
/// [`ReshapeExt::to_layout_into`]: `a` (read from the input of shape `input`) read in
/// `reading` into `out`, viewed with the dims `dims` (of `a.len()` elements); `describe` names
/// the call for the error.
#[inline(always)]
pub(super) fn copy_into<'o, A, E>(
    (a, input): (RawArray<'_, A>, &[usize]),
    dims: E,
    reading: Reading,
    out: &'o mut [A],
    describe: impl Fn() -> (Origin, String),
) -> Result<ArrayViewMut<'o, A, E>, ReshapeError>
where
    A: Copy + Send + Sync,
    E: Dimension,
{
    let n = a.len();
    let wrong_length = |len: usize| {
        let (dialect, written) = describe();
        Fail::output_length(len, n).attach(dialect, input, written)
    };
    if out.len() != n {
        return Err(wrong_length(out.len()));
    }
    copy::copy_into(a, reading, out);
    let len = out.len();
    // The length matches the shape (checked above), so this cannot fail.
    ArrayViewMut::from_shape(dims.set_f(reading == Reading::F), out).map_err(|_| wrong_length(len))
}

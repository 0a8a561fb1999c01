//! The implementations of [`ReshapeExt`] for `ArrayBase` and `ArrayRef`, and the thin glue
//! each method calls: plan, then view or copy.

use ndarray::{
    Array, ArrayBase, ArrayRef, ArrayView, ArrayViewMut, CowArray, Data, DataMut, Dimension, IxDyn,
    OwnedRepr, RawData, ShapeBuilder,
};

use super::{sealed, IntoReshapeClone, ReshapeExt};
use crate::copy;
use crate::dims::{typed_dim, Reading};
use crate::error::{ReshapeError, Rule};
use crate::spec::{reject, ShapeSpec};
use crate::view::{self, IntoReshapeData, Plan};

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
            view_or_copy(self, &spec, IxDyn)
        }

        fn reshape_view<P: ShapeSpec>(
            &self,
            spec: P,
        ) -> Result<ArrayView<'_, A, IxDyn>, ReshapeError>
        where
            $($data)*
        {
            view::view(self, &spec, IxDyn)
        }

        fn reshape_view_mut<P: ShapeSpec>(
            &mut self,
            spec: P,
        ) -> Result<ArrayViewMut<'_, A, IxDyn>, ReshapeError>
        where
            $($data_mut)*
        {
            // An `ArrayBase`'s `DerefMut` makes shared (Arc) data unique first.
            view::view_mut(self, &spec, IxDyn)
        }

        fn reshape_view_mut_dim<E: Dimension>(
            &mut self,
            spec: impl ShapeSpec,
        ) -> Result<ArrayViewMut<'_, A, E>, ReshapeError>
        where
            $($data_mut)*
        {
            view::view_mut(self, &spec, typed_dim::<E>)
        }

        fn reshape_owned<P: ShapeSpec>(&self, spec: P) -> Result<Array<A, IxDyn>, ReshapeError>
        where
            A: Clone + Send + Sync,
            $($data)*
        {
            owned(self, &spec, IxDyn)
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
            copy_into(self, &spec, out, IxDyn)
        }

        fn reshape_copy_into_dim<'o, E: Dimension>(
            &self,
            spec: impl ShapeSpec,
            out: &'o mut [A],
        ) -> Result<ArrayViewMut<'o, A, E>, ReshapeError>
        where
            A: Copy + Send + Sync,
            $($data)*
        {
            copy_into(self, &spec, out, typed_dim::<E>)
        }

        fn reshape_with_dim<E: Dimension>(
            &self,
            spec: impl ShapeSpec,
        ) -> Result<CowArray<'_, A, E>, ReshapeError>
        where
            A: Clone + Send + Sync,
            $($data)*
        {
            view_or_copy(self, &spec, typed_dim::<E>)
        }

        fn reshape_view_dim<E: Dimension>(
            &self,
            spec: impl ShapeSpec,
        ) -> Result<ArrayView<'_, A, E>, ReshapeError>
        where
            $($data)*
        {
            view::view(self, &spec, typed_dim::<E>)
        }

        fn reshape_owned_dim<E: Dimension>(
            &self,
            spec: impl ShapeSpec,
        ) -> Result<Array<A, E>, ReshapeError>
        where
            A: Clone + Send + Sync,
            $($data)*
        {
            owned(self, &spec, typed_dim::<E>)
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

    fn into_reshape_dim<E: Dimension>(
        self,
        spec: impl ShapeSpec,
    ) -> Result<ArrayBase<S, E>, ReshapeError>
    where
        S: IntoReshapeData,
        Self: Sized,
    {
        S::into_reshape(self, &spec)
    }

    fn into_reshape_clone<P: ShapeSpec>(
        self,
        spec: P,
    ) -> Result<ArrayBase<S::Cloned, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: IntoReshapeClone,
        Self: Sized,
    {
        S::into_reshape_clone(self, &spec)
    }

    fn into_reshape_clone_dim<E: Dimension>(
        self,
        spec: impl ShapeSpec,
    ) -> Result<ArrayBase<S::Cloned, E>, ReshapeError>
    where
        A: Clone + Send + Sync,
        S: IntoReshapeClone,
        Self: Sized,
    {
        S::into_reshape_clone(self, &spec)
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
        Err(borrowed(&spec, self.shape()))
    }

    #[allow(dead_code)]
    fn into_reshape_dim<E: Dimension>(
        self,
        spec: impl ShapeSpec,
    ) -> Result<Array<A, E>, ReshapeError>
    where
        Self: Sized,
    {
        Err(borrowed(&spec, self.shape()))
    }

    #[allow(dead_code)]
    fn into_reshape_clone<P: ShapeSpec>(
        self,
        spec: P,
    ) -> Result<ArrayBase<<OwnedRepr<A> as IntoReshapeClone>::Cloned, IxDyn>, ReshapeError>
    where
        A: Clone + Send + Sync,
        Self: Sized,
    {
        Err(borrowed(&spec, self.shape()))
    }

    #[allow(dead_code)]
    fn into_reshape_clone_dim<E: Dimension>(
        self,
        spec: impl ShapeSpec,
    ) -> Result<ArrayBase<<OwnedRepr<A> as IntoReshapeClone>::Cloned, E>, ReshapeError>
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

/// [`ReshapeExt::reshape_with`] with the result's dims built by `mk`: `IxDyn`, or
/// [`typed_dim`] for the rank-typed methods (the rank checked first; a no-op for `IxDyn`).
#[inline(always)]
fn view_or_copy<'a, A, D, E, P>(
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
    view::view_or(a, spec, mk, |a, shape, reading, mk| {
        copy::copy_to(a, shape, reading, mk).map_err(|e| out_of_memory(spec, a.shape(), e))
    })
}

/// [`ReshapeExt::reshape_owned`] with the result's dims built by `mk` (see [`view_or_copy`]).
#[inline(always)]
fn owned<A, D, E, P>(
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
    plan.compute_for::<E, _>(spec, a.shape(), a.strides())?;
    copy::copy_to(a, &plan.shape, plan.reading, mk).map_err(|e| out_of_memory(spec, a.shape(), e))
}

/// [`ReshapeError::AllocationFailed`] for a copy of an input of `shape` by `spec`.
#[cold]
#[inline(never)]
pub(super) fn out_of_memory<P: ShapeSpec + ?Sized>(
    spec: &P,
    shape: &[usize],
    e: copy::AllocError,
) -> ReshapeError {
    reject(Rule::AllocationFailed, spec, shape, &e.detail())
}

/// [`ReshapeExt::reshape_copy_into`].
#[inline(always)]
fn copy_into<'o, A, D, E, P>(
    a: &ArrayRef<A, D>,
    spec: &P,
    out: &'o mut [A],
    mk: impl Fn(&[usize]) -> E,
) -> Result<ArrayViewMut<'o, A, E>, ReshapeError>
where
    A: Copy + Send + Sync,
    D: Dimension,
    E: Dimension,
    P: ShapeSpec + ?Sized,
{
    let mut plan = Plan::empty();
    plan.compute_for::<E, _>(spec, a.shape(), a.strides())?;
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
    copy::copy_into(a, plan.reading, out);
    let len = out.len();
    let shape = mk(&plan.shape).set_f(plan.reading == Reading::F);
    // The length matches the shape (checked above), so this cannot fail.
    ArrayViewMut::from_shape(shape, out).map_err(|_| wrong_length(len))
}

//! The engine's safe door for a strided view of a plain slice: [`SliceView`], which exists only
//! once every index the view reaches lies inside the slice (the bounds rule, here and nowhere
//! else), and whose copies then call the raw entries of the engine. The public
//! [`StridedSlice`](crate::StridedSlice) words the errors and calls these.

use super::convert::Elementwise;
use super::{convert as conv_engine, copy_into, gather, AllocError, RawArray};
use crate::dims::Reading;

/// A strided view of `data` from `offset`, checked by [`SliceView::new`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct SliceView<'a, A> {
    data: &'a [A],
    shape: &'a [usize],
    strides: &'a [isize],
    offset: usize,
    len: usize,
}

/// Where a view leaves its slice: at axis `Some(k)` (index `reached`), or with `offset` itself
/// (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutOfBounds {
    pub(crate) axis: Option<usize>,
    pub(crate) reached: i128,
}

impl<'a, A> SliceView<'a, A> {
    /// The view of `len` elements (the product of `shape`, checked by the caller, with as many
    /// `strides`), or where it leaves `data`. An empty view reads nothing and is always valid;
    /// a non-empty one reaches from `offset` down by the negative strides' spans and up by the
    /// positive ones, added axis by axis (in `i128`, which no sum of in-range bounds and one
    /// span leaves), so that the first axis that takes the view out is named.
    pub(crate) fn new(
        data: &'a [A],
        shape: &'a [usize],
        strides: &'a [isize],
        offset: usize,
        len: usize,
    ) -> Result<Self, OutOfBounds> {
        let view = SliceView {
            data,
            shape,
            strides,
            offset,
            len,
        };
        if len == 0 {
            return Ok(view);
        }
        let n = data.len() as i128;
        if offset as i128 >= n || shape.len() != strides.len() {
            return Err(OutOfBounds {
                axis: None,
                reached: offset as i128,
            });
        }
        let (mut low, mut high) = (offset as i128, offset as i128);
        for (k, (&d, &s)) in shape.iter().zip(strides).enumerate() {
            let span = (d as i128 - 1) * s as i128;
            if span < 0 {
                low += span;
            } else {
                high += span;
            }
            if low < 0 || high >= n {
                let reached = if low < 0 { low } else { high };
                return Err(OutOfBounds {
                    axis: Some(k),
                    reached,
                });
            }
        }
        Ok(view)
    }

    /// The view as the engine reads it.
    fn raw(&self) -> RawArray<'_, A> {
        // SAFETY: `new` checked that every index the view reaches is inside `data`, borrowed
        // shared for as long as the view (element `[0, ...]` at `offset`, never read when the
        // view is empty), and took `len`, the product of `shape`, from the caller.
        unsafe {
            RawArray::from_parts(
                self.data.as_ptr().wrapping_add(self.offset),
                self.shape,
                self.strides,
                self.len,
            )
        }
    }
}

impl<A: Copy + Send + Sync> SliceView<'_, A> {
    /// The elements read in `reading` into `out`, as long as the view.
    pub(crate) fn copy_into(&self, reading: Reading, out: &mut [A]) {
        copy_into(self.raw(), reading, out);
    }
}

impl<A: Clone + Send + Sync> SliceView<'_, A> {
    /// The elements read in `reading`, in a fresh `Vec`.
    pub(crate) fn to_vec(&self, reading: Reading) -> Result<Vec<A>, AllocError> {
        gather(self.raw(), reading)
    }
}

impl<A: Sync> SliceView<'_, A> {
    /// The elements read in `reading`, converted by `conv` (its parameters as `params` says),
    /// into `out`, as long as the view.
    pub(crate) fn convert_into<B, C>(
        &self,
        reading: Reading,
        conv: &C,
        params: Option<(usize, usize)>,
        out: &mut [B],
    ) where
        B: Copy + Send + Sync,
        C: Elementwise<A, B> + ?Sized,
    {
        conv_engine::gather_into(self.raw(), reading, conv, params, out);
    }

    /// [`convert_into`](Self::convert_into) into a fresh `Vec`.
    pub(crate) fn convert_vec<B, C>(
        &self,
        reading: Reading,
        conv: &C,
        params: Option<(usize, usize)>,
    ) -> Result<Vec<B>, AllocError>
    where
        B: Clone + Send + Sync,
        C: Elementwise<A, B> + ?Sized,
    {
        conv_engine::gather(self.raw(), reading, conv, params)
    }
}

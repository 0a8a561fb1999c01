//! The door for backends without ndarray: [`StridedSlice`], a strided view given as a buffer, a
//! shape, element strides and an offset (the way candle, rten and burn's CPU backends hold a
//! tensor), checked once against the buffer and then copied by the copy engine, with the same
//! planning, kernels and threads as [`ReshapeExt::to_layout`](crate::ReshapeExt::to_layout).
//! Its one unsafe item is the constructor from a raw pointer
//! ([`StridedSlice::from_raw_parts`]); the bounds check and the copies are the engine's
//! (`copy::SliceView`), this room words the errors.

use crate::convert::Conversion;
use crate::copy::{OutOfBounds, SliceView};
use crate::dims::{checked_size, Order};
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::layout;

/// A strided view of a slice: element `[i0, i1, ...]` at `data[offset + i0 * strides[0] +
/// i1 * strides[1] + ...]`, strides in elements, negative (a flipped axis) and zero (a
/// broadcast axis) allowed. [`new`](Self::new) checks that every index the view can reach is
/// inside `data`, once, in time linear in the rank; after that the copies read nothing else.
///
/// For a backend without `ndarray` that keeps a tensor as a buffer, a shape, strides and an
/// offset, and needs it contiguous (before a matmul, or to hand it to a kernel that takes
/// contiguous input only):
///
/// ```
/// use ndarray_reshape::{Order, ReshapeError, StridedSlice};
///
/// struct Tensor {
///     buf: Vec<f32>,
///     shape: Vec<usize>,
///     strides: Vec<isize>,
///     offset: usize,
/// }
///
/// impl Tensor {
///     /// The same tensor, C-contiguous.
///     fn contiguous(&self) -> Result<Tensor, ReshapeError> {
///         let view = StridedSlice::new(&self.buf, &self.shape, &self.strides, self.offset)?;
///         Ok(Tensor {
///             buf: view.to_vec(Order::C)?,
///             shape: self.shape.clone(),
///             strides: ndarray_reshape::layout::contiguous_strides(&self.shape, Order::C),
///             offset: 0,
///         })
///     }
/// }
///
/// // A 2 x 3 tensor, transposed and its rows flipped: shape [3, 2], strides [-1, 3], offset 2.
/// let t = Tensor {
///     buf: vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
///     shape: vec![3, 2],
///     strides: vec![-1, 3],
///     offset: 2,
/// };
/// let c = t.contiguous()?;
/// assert_eq!(c.buf, [2.0, 5.0, 1.0, 4.0, 0.0, 3.0]);
/// assert_eq!(c.strides, [2, 1]);
///
/// // A view that reaches past its buffer is an error, not a read out of bounds.
/// let err = StridedSlice::new(&t.buf, &[3, 2], &[1, 3], 2).unwrap_err();
/// assert_eq!(err.category(), "view_out_of_bounds");
/// assert_eq!(err.context().position(), Some(1));
/// # Ok::<(), ReshapeError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct StridedSlice<'a, A> {
    /// The checked view the engine copies.
    view: SliceView<'a, A>,
    data_len: usize,
    shape: &'a [usize],
    strides: &'a [isize],
    offset: usize,
    len: usize,
}

impl<'a, A> StridedSlice<'a, A> {
    /// The view of `data` with `shape`, `strides` (in elements, one per axis) and `offset`
    /// (the index of element `[0, 0, ...]`), checked: a view with no elements reads nothing
    /// and is always valid; any other reaches only indices of `data`.
    ///
    /// # Errors
    ///
    /// - [`ReshapeError::RankMismatch`]: `strides` and `shape` differ in length.
    /// - [`ReshapeError::Overflow`]: the dims multiply past `isize::MAX` (at the axis where
    ///   the product leaves the range).
    /// - [`ReshapeError::ViewOutOfBounds`]: an index the view reaches lies outside `data`:
    ///   the position is the axis that takes the view out, none when `offset` itself is.
    ///
    /// ```
    /// use ndarray_reshape::StridedSlice;
    ///
    /// let data = [0u8, 1, 2, 3, 4, 5];
    /// // Every other element, backwards from the last: 5, 3, 1.
    /// assert!(StridedSlice::new(&data, &[3], &[-2], 5).is_ok());
    /// // One step further back reaches index -1.
    /// let err = StridedSlice::new(&data, &[4], &[-2], 5).unwrap_err();
    /// assert_eq!(err.category(), "view_out_of_bounds");
    /// // A zero stride repeats an element; nothing to check in an empty view.
    /// assert!(StridedSlice::new(&data, &[1000, 2], &[0, 1], 4).is_ok());
    /// assert!(StridedSlice::new(&data, &[0, 9], &[99, 99], 99).is_ok());
    /// assert!(StridedSlice::new(&data, &[0, usize::MAX, 7], &[1, 1, 1], 0)?.is_empty());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn new(
        data: &'a [A],
        shape: &'a [usize],
        strides: &'a [isize],
        offset: usize,
    ) -> Result<Self, ReshapeError> {
        let fail = |f: Fail| f.attach(Origin::Strided, shape, Written(strides, offset, data.len()));
        if strides.len() != shape.len() {
            let why = format!(
                "{} strides for a shape of rank {}",
                strides.len(),
                shape.len()
            );
            return Err(fail(Fail::whole(Rule::RankMismatch, why)));
        }
        // A view with no elements reads nothing: valid whatever its other dims (the product
        // of the rest may pass `isize::MAX`).
        let len = match shape.contains(&0) {
            true => 0,
            false => size(shape).map_err(fail)?,
        };
        let view = SliceView::new(data, shape, strides, offset, len)
            .map_err(|e| fail(outside(e, shape, strides, offset, data.len())))?;
        Ok(StridedSlice {
            view,
            data_len: data.len(),
            shape,
            strides,
            offset,
            len,
        })
    }

    /// [`new`](Self::new) of the `len` elements at `ptr`: memory the backend holds as a raw
    /// pointer rather than a slice (a DLPack tensor handed over from Python, a memory-mapped
    /// file, an accelerator runtime's host buffer). After this call it is checked and copied as
    /// any other view; the view borrows the memory for `'a`.
    ///
    /// # Safety
    ///
    /// The contract of [`std::slice::from_raw_parts`]: `ptr` is non-null and aligned for `A`
    /// (a dangling, aligned pointer when `len` is 0), the `len` elements from it are
    /// initialized values of `A` in one allocation, nothing writes them for the whole lifetime
    /// `'a` (the view and every copy read them then), and `len * size_of::<A>()` is at most
    /// `isize::MAX`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    ///
    /// ```
    /// use ndarray_reshape::{Order, StridedSlice};
    ///
    /// // A buffer a foreign runtime owns, reached through its pointer and length.
    /// let foreign: Box<[f32]> = (0..6).map(|v| v as f32).collect();
    /// let (ptr, len) = (foreign.as_ptr(), foreign.len());
    /// // SAFETY: `ptr` and `len` describe `foreign`, which outlives the view and which
    /// // nothing writes while it is read.
    /// let view = unsafe { StridedSlice::from_raw_parts(ptr, len, &[3, 2], &[1, 3], 0)? };
    /// assert_eq!(view.to_vec(Order::C)?, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub unsafe fn from_raw_parts(
        ptr: *const A,
        len: usize,
        shape: &'a [usize],
        strides: &'a [isize],
        offset: usize,
    ) -> Result<Self, ReshapeError> {
        // SAFETY: the caller's contract is `slice::from_raw_parts`'s, for the lifetime `'a`.
        let data = unsafe { std::slice::from_raw_parts(ptr, len) };
        Self::new(data, shape, strides, offset)
    }

    /// The shape of the view.
    ///
    /// ```
    /// use ndarray_reshape::StridedSlice;
    /// let data = [1, 2, 3, 4];
    /// let view = StridedSlice::new(&data, &[2, 2], &[1, 2], 0)?;
    /// assert_eq!(view.shape(), &[2, 2]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn shape(&self) -> &'a [usize] {
        self.shape
    }

    /// The number of elements of the view (the product of its shape), which a copy writes.
    ///
    /// ```
    /// use ndarray_reshape::StridedSlice;
    /// let data = [7; 3];
    /// let view = StridedSlice::new(&data, &[4, 5], &[0, 0], 1)?;
    /// assert_eq!(view.len(), 20);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no elements.
    ///
    /// ```
    /// use ndarray_reshape::StridedSlice;
    /// let data: [f32; 0] = [];
    /// let view = StridedSlice::new(&data, &[3, 0], &[1, 1], 0)?;
    /// assert!(view.is_empty());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The order `order` reads this view in (`A`: F when the view is F-contiguous and not
    /// C-contiguous, C otherwise).
    fn reading(&self, order: Order) -> crate::dims::Reading {
        layout::reading(self.shape, self.strides, order)
    }

    /// An error of a copy of this view.
    #[cold]
    fn fail(&self, f: Fail) -> ReshapeError {
        let spec = Written(self.strides, self.offset, self.data_len);
        f.attach(Origin::Strided, self.shape, spec)
    }
}

impl<A: Copy + Send + Sync> StridedSlice<'_, A> {
    /// Copy the view's elements, read in `order`, into `out`, which is then the view
    /// contiguous in that order (C: the last index fastest; F: the first; A: F when the view
    /// is F-contiguous and not C-contiguous). Large copies run on the caller's thread and the
    /// other threads of its rayon pool, as [`ReshapeExt::to_layout`](crate::ReshapeExt::to_layout)
    /// does.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::OutputLength`] when `out.len()` is not [`len`](Self::len); `out` is
    /// then left as it was.
    ///
    /// ```
    /// use ndarray_reshape::{Order, StridedSlice};
    ///
    /// // The 2 x 3 matrix [[0, 1, 2], [3, 4, 5]] stored column by column.
    /// let data = [0, 3, 1, 4, 2, 5];
    /// let view = StridedSlice::new(&data, &[2, 3], &[1, 2], 0)?;
    /// let mut out = [0; 6];
    /// view.copy_into(Order::C, &mut out)?;
    /// assert_eq!(out, [0, 1, 2, 3, 4, 5]);
    /// view.copy_into(Order::F, &mut out)?;
    /// assert_eq!(out, data);
    /// assert!(view.copy_into(Order::C, &mut [0; 5]).is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn copy_into(&self, order: impl Into<Order>, out: &mut [A]) -> Result<(), ReshapeError> {
        if out.len() != self.len {
            return Err(self.fail(Fail::output_length(out.len(), self.len)));
        }
        self.view.copy_into(self.reading(order.into()), out);
        Ok(())
    }
}

impl<A: Sync> StridedSlice<'_, A> {
    /// [`copy_into`](Self::copy_into) with a conversion: the view's elements, read in `order`,
    /// each converted by `conv` ([`convert`](crate::convert)) as they are written into `out`.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::OutputLength`] when `out.len()` is not [`len`](Self::len);
    /// [`ReshapeError::ConversionAxis`] when the conversion's parameters do not fit the view's
    /// shape; `out` is then left as it was.
    ///
    /// ```
    /// use ndarray_reshape::convert::Dequantize;
    /// use ndarray_reshape::{Order, StridedSlice};
    ///
    /// // An int8 tensor of 2 x 3 stored column by column, dequantized in row order.
    /// let data = [0i8, 30, 10, 40, 20, 50];
    /// let view = StridedSlice::new(&data, &[2, 3], &[1, 2], 0)?;
    /// let mut out = [0.0f32; 6];
    /// view.convert_into(Order::C, &Dequantize::new(0.5, 10)?, &mut out)?;
    /// assert_eq!(out, [-5.0, 0.0, 5.0, 10.0, 15.0, 20.0]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn convert_into<B, C>(
        &self,
        order: impl Into<Order>,
        conv: &C,
        out: &mut [B],
    ) -> Result<(), ReshapeError>
    where
        B: Copy + Send + Sync,
        C: Conversion<A, B> + ?Sized,
    {
        if out.len() != self.len {
            return Err(self.fail(Fail::output_length(out.len(), self.len)));
        }
        let reading = self.reading(order.into());
        let params = self.params(conv, reading)?;
        self.view.convert_into(reading, conv, params, out);
        Ok(())
    }

    /// [`to_vec`](Self::to_vec) with a conversion, as
    /// [`convert_into`](Self::convert_into) writes it.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::ConversionAxis`] as [`convert_into`](Self::convert_into);
    /// [`ReshapeError::AllocationFailed`] when the output cannot be allocated.
    ///
    /// ```
    /// use ndarray_reshape::convert::Cast;
    /// use ndarray_reshape::{Order, StridedSlice};
    ///
    /// let data = [1.5f64, -2.5, 3.5];
    /// let view = StridedSlice::new(&data, &[3], &[-1], 2)?;
    /// assert_eq!(view.convert_to_vec::<f32, _>(Order::C, &Cast)?, [3.5, -2.5, 1.5]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn convert_to_vec<B, C>(
        &self,
        order: impl Into<Order>,
        conv: &C,
    ) -> Result<Vec<B>, ReshapeError>
    where
        B: Clone + Send + Sync,
        C: Conversion<A, B> + ?Sized,
    {
        let reading = self.reading(order.into());
        let params = self.params(conv, reading)?;
        let converted = self.view.convert_vec(reading, conv, params);
        converted.map_err(|e| self.fail(Fail::whole(Rule::AllocationFailed, e.detail())))
    }

    /// Where `conv`'s parameters are in the view read in `reading`, or its error.
    fn params<B, C: Conversion<A, B> + ?Sized>(
        &self,
        conv: &C,
        reading: crate::dims::Reading,
    ) -> Result<Option<(usize, usize)>, ReshapeError> {
        let call = || Written(self.strides, self.offset, self.data_len).to_string();
        let f = reading == crate::dims::Reading::F;
        crate::convert::params_at(conv, self.shape, f, self.shape, &call)
    }
}

impl<A: Clone + Send + Sync> StridedSlice<'_, A> {
    /// The view's elements, read in `order`, in a fresh `Vec`: the view contiguous in that
    /// order, as [`copy_into`](Self::copy_into) writes it.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::AllocationFailed`] when the output cannot be allocated.
    ///
    /// ```
    /// use ndarray_reshape::{Order, StridedSlice};
    ///
    /// // A row broadcast to three rows and read backwards along it.
    /// let row = ["a", "b", "c"];
    /// let view = StridedSlice::new(&row, &[3, 3], &[0, -1], 2)?;
    /// assert_eq!(view.to_vec(Order::C)?, ["c", "b", "a", "c", "b", "a", "c", "b", "a"]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn to_vec(&self, order: impl Into<Order>) -> Result<Vec<A>, ReshapeError> {
        if self.len == 0 {
            return Ok(Vec::new());
        }
        let reading = self.reading(order.into());
        let copied = self.view.to_vec(reading);
        copied.map_err(|e| self.fail(Fail::whole(Rule::AllocationFailed, e.detail())))
    }
}

/// The element count of `shape` ([`checked_size`]), or the [`Rule::Overflow`] at the first
/// axis where the product passes `isize::MAX`.
fn size(shape: &[usize]) -> Result<usize, Fail> {
    checked_size(shape.iter().copied()).ok_or_else(|| {
        let k = (0..shape.len())
            .find(|&k| checked_size(shape[..=k].iter().copied()).is_none())
            .unwrap_or(0);
        let why = format!("the dims up to axis {k} multiply past {}", isize::MAX);
        Fail::at(Rule::Overflow, k, why)
    })
}

/// The error of a view that leaves its slice of `len` elements where the engine's check
/// ([`SliceView::new`]) found it: `offset` itself, or the first axis that takes it out.
fn outside(e: OutOfBounds, shape: &[usize], strides: &[isize], offset: usize, len: usize) -> Fail {
    match e.axis {
        None if shape.len() != strides.len() => {
            let why = format!(
                "{} strides for a shape of rank {}",
                strides.len(),
                shape.len()
            );
            Fail::whole(Rule::RankMismatch, why)
        }
        None => {
            let why =
                format!("element [0, ...] at index {offset} is past the slice's {len} elements");
            Fail::whole(Rule::ViewOutOfBounds, why)
        }
        Some(k) => {
            let (d, s, reached) = (shape[k], strides[k], e.reached);
            let why = format!(
                "axis {k} (length {d}, stride {s}) takes the view to index {reached}, outside \
                 the slice's {len} elements"
            );
            Fail::at(Rule::ViewOutOfBounds, k, why)
        }
    }
}

/// A view's layout as its errors show it: `strides [1, 3], offset 2, slice of 6`.
struct Written<'s>(&'s [isize], usize, usize);

impl std::fmt::Display for Written<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Written(strides, offset, len) = *self;
        write!(f, "strides {strides:?}, offset {offset}, slice of {len}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The view's elements, index by index: the reference the copies are checked against.
    fn reference<A: Copy>(
        data: &[A],
        shape: &[usize],
        strides: &[isize],
        offset: usize,
        f: bool,
    ) -> Vec<A> {
        let n: usize = shape.iter().product();
        let nd = shape.len();
        let mut idx = vec![0usize; nd];
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let at = offset as isize
                + idx
                    .iter()
                    .zip(strides)
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>();
            out.push(data[at as usize]);
            // The next index, the last (C) or the first (F) axis fastest.
            for j in 0..nd {
                let k = if f { j } else { nd - 1 - j };
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        out
    }

    fn check(data: &[u32], shape: &[usize], strides: &[isize], offset: usize) {
        let view = StridedSlice::new(data, shape, strides, offset).unwrap();
        for (order, f) in [(Order::C, false), (Order::F, true)] {
            let want = reference(data, shape, strides, offset, f);
            assert_eq!(
                view.to_vec(order).unwrap(),
                want,
                "{shape:?} {strides:?} {offset} {order:?}"
            );
            let mut out = vec![u32::MAX; want.len()];
            view.copy_into(order, &mut out).unwrap();
            assert_eq!(out, want, "into: {shape:?} {strides:?} {offset} {order:?}");
        }
    }

    #[test]
    fn layouts() {
        let data: Vec<u32> = (0..4096).collect();
        check(&data, &[], &[], 17);
        check(&data, &[5], &[-3], 20);
        check(&data, &[4, 6], &[1, 4], 0);
        check(&data, &[4, 6], &[-6, -1], 23);
        check(&data, &[3, 1, 5], &[0, 99, 2], 7);
        check(
            &data,
            &[2, 3, 2, 3, 2, 3, 2, 3, 2],
            &[1, 2, 6, 12, 36, 72, 216, 432, 1296],
            0,
        );
        // Large enough for tiles and the parallel path (1 MiB of u32 output, strided input).
        if !cfg!(miri) {
            let big: Vec<u32> = (0..(1 << 20) as u32).collect();
            check(&big, &[512, 512], &[1, -1024], 511 * 1024);
            check(&big, &[64, 64, 64], &[-16384, 1, 64], 63 * 16384);
        }
    }

    #[test]
    fn bad_views_are_errors() {
        let data = [0u8; 10];
        let e = StridedSlice::new(&data, &[2, 3], &[3], 0).unwrap_err();
        assert_eq!(e.category(), "rank_mismatch");
        assert_eq!(
            e.to_string(),
            "rank_mismatch: 1 strides for a shape of rank 2; input shape [2, 3], strided slice \
             strides [3], offset 0, slice of 10"
        );
        let e = StridedSlice::new(&data, &[2, 5], &[5, 1], 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "view_out_of_bounds: axis 1 (length 5, stride 1) takes the view to index 10, outside \
             the slice's 10 elements; input shape [2, 5], strided slice strides [5, 1], offset 1, \
             slice of 10, axis 1"
        );
        let e = StridedSlice::new(&data, &[2, 2], &[1, -2], 1).unwrap_err();
        assert_eq!(e.context().position(), Some(1));
        let e = StridedSlice::new(&data, &[1], &[1], 10).unwrap_err();
        assert_eq!(e.category(), "view_out_of_bounds");
        assert_eq!(e.context().position(), None);
        let e = StridedSlice::new(&data, &[usize::MAX, 2], &[0, 0], 0).unwrap_err();
        assert_eq!(
            (e.category(), e.context().position()),
            ("overflow", Some(0))
        );
        let e = StridedSlice::new(&data, &[1 << 40, 1 << 40], &[0, 0], 0).unwrap_err();
        assert_eq!(
            (e.category(), e.context().position()),
            ("overflow", Some(1))
        );
        // Extreme strides: no overflow in the check, an error at the axis.
        let e = StridedSlice::new(&data, &[3, 3], &[isize::MIN, isize::MAX], 5).unwrap_err();
        assert_eq!(e.context().position(), Some(0));
        let e = StridedSlice::new(&data, &[1, 3], &[isize::MIN, isize::MAX], 5).unwrap_err();
        assert_eq!(e.context().position(), Some(1));
        // A length-1 axis reaches nothing whatever its stride; zero dims empty the view.
        assert!(StridedSlice::new(&data, &[1, 2], &[isize::MIN, 9], 0).is_ok());
        let huge = isize::MAX as usize;
        assert!(StridedSlice::new(&data, &[0, huge], &[isize::MIN, 9], 99).is_ok());
        // Every empty view is valid, a dim past `isize::MAX` beside the zero included.
        assert!(StridedSlice::new(&data, &[0, huge + 1], &[1, 1], 0)
            .unwrap()
            .is_empty());
        let e = StridedSlice::new(&data, &[2, huge], &[0, 0], 0).unwrap_err();
        assert_eq!(
            (e.category(), e.context().position()),
            ("overflow", Some(1))
        );
        // The output's length is checked before anything is written.
        let view = StridedSlice::new(&data, &[2, 5], &[5, 1], 0).unwrap();
        let mut out = [7u8; 9];
        let e = view.copy_into(Order::C, &mut out).unwrap_err();
        assert_eq!(e.category(), "output_length");
        assert_eq!(out, [7; 9]);
    }

    #[test]
    fn order_a_follows_the_layout() {
        let data: Vec<u32> = (0..6).collect();
        let f = StridedSlice::new(&data, &[2, 3], &[1, 2], 0).unwrap();
        assert_eq!(f.to_vec(Order::A).unwrap(), data);
        let c = StridedSlice::new(&data, &[2, 3], &[3, 1], 0).unwrap();
        assert_eq!(c.to_vec(Order::A).unwrap(), data);
        assert_eq!(c.to_vec(Order::F).unwrap(), [0, 3, 1, 4, 2, 5]);
    }

    /// A view of memory reached through a raw pointer reads as a view of the slice does, and
    /// refuses what `new` refuses; an empty one may have any other dims.
    #[test]
    fn views_from_raw_parts() {
        let data: Vec<u32> = (0..24).collect();
        // SAFETY: `data`'s pointer and length, borrowed for the views below.
        let raw =
            unsafe { StridedSlice::from_raw_parts(data.as_ptr(), data.len(), &[4, 3], &[1, 4], 0) };
        let view = StridedSlice::new(&data, &[4, 3], &[1, 4], 0).unwrap();
        assert_eq!(
            raw.unwrap().to_vec(Order::C).unwrap(),
            view.to_vec(Order::C).unwrap()
        );
        let mut out = [0.0f32; 12];
        // SAFETY: as above.
        let raw =
            unsafe { StridedSlice::from_raw_parts(data.as_ptr(), data.len(), &[4, 3], &[1, 4], 0) };
        raw.unwrap()
            .convert_into(Order::F, &crate::convert::Cast, &mut out)
            .unwrap();
        assert_eq!(out, std::array::from_fn(|i| i as f32));
        // SAFETY: as above.
        let far =
            unsafe { StridedSlice::from_raw_parts(data.as_ptr(), data.len(), &[5, 5], &[5, 1], 0) };
        assert_eq!(far.unwrap_err().category(), "view_out_of_bounds");
        let dangling = std::ptr::NonNull::<u64>::dangling().as_ptr();
        // SAFETY: no elements, at an aligned dangling pointer.
        let empty = unsafe {
            StridedSlice::from_raw_parts(dangling, 0, &[usize::MAX, 0, 3], &[1, 1, 1], 0)
        };
        let empty = empty.unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.to_vec(Order::C).unwrap(), Vec::<u64>::new());
        // The other dims multiply past `usize` before the 0: still no elements to read.
        // SAFETY: as above.
        let wide = unsafe {
            StridedSlice::from_raw_parts(dangling, 0, &[usize::MAX, 3, 0], &[1, 1, 1], 0)
        };
        let wide = wide.unwrap();
        assert_eq!(wide.to_vec(Order::F).unwrap(), Vec::<u64>::new());
        wide.copy_into(Order::C, &mut []).unwrap();
        // Past `isize::MAX` elements with none empty: an overflow still.
        let big = StridedSlice::new(&data, &[usize::MAX, 2], &[0, 0], 0).unwrap_err();
        assert_eq!(big.category(), "overflow");
    }
}

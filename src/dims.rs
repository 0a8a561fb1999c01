//! Dims and reading orders: the size limit, checked sizes, [`Order`] and [`Reading`], and dims
//! of a chosen dimension type, with no knowledge of specs, strides or array data.
#![forbid(unsafe_code)]

use ndarray::Dimension;

/// The largest element count (and the largest product of non-zero dims) an `ndarray` shape may
/// have: `isize::MAX`.
pub(crate) const LIMIT: usize = isize::MAX as usize;

/// The order in which a reshape reads the input's elements and writes the output's.
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::{Order, ReshapeExt};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let a = array![[0, 1], [2, 3], [4, 5]];
/// assert_eq!(a.reshape_np([2, 3], Order::C)?, array![[0, 1, 2], [3, 4, 5]].into_dyn());
/// assert_eq!(a.reshape_np([2, 3], Order::F)?, array![[0, 4, 3], [2, 1, 5]].into_dyn());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// Row-major: the last index changes fastest.
    #[default]
    C,
    /// Column-major (Fortran): the first index changes fastest.
    F,
    /// `F` if the input is F-contiguous and not C-contiguous, `C` otherwise (NumPy's `'A'`).
    A,
}

impl From<ndarray::Order> for Order {
    /// `RowMajor` is [`Order::C`], `ColumnMajor` is [`Order::F`].
    ///
    /// ```
    /// use ndarray_reshape::Order;
    /// assert_eq!(Order::from(ndarray::Order::ColumnMajor), Order::F);
    /// assert_eq!(Order::from(ndarray::Order::RowMajor), Order::C);
    /// ```
    fn from(o: ndarray::Order) -> Self {
        match o {
            ndarray::Order::ColumnMajor => Order::F,
            _ => Order::C,
        }
    }
}

/// The order a reshape actually reads in: an [`Order`] with `A` resolved against the input's
/// layout ([`layout::reading`](crate::layout::reading)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Row-major: the last axis is read fastest.
    C,
    /// Column-major: the first axis is read fastest.
    F,
}

impl Reading {
    /// The public [`Order`] of the same name.
    #[inline]
    pub(crate) fn order(self) -> Order {
        match self {
            Reading::C => Order::C,
            Reading::F => Order::F,
        }
    }

    /// The index of the `i`-th axis read, outermost first, among `n` axes.
    #[inline(always)]
    pub(crate) fn axis(self, i: usize, n: usize) -> usize {
        match self {
            Reading::C => i,
            Reading::F => n - 1 - i,
        }
    }

    /// ndarray's name for this order.
    #[inline]
    pub(crate) fn ndarray(self) -> ndarray::Order {
        match self {
            Reading::C => ndarray::Order::RowMajor,
            Reading::F => ndarray::Order::ColumnMajor,
        }
    }
}

/// The element count of a shape, or `None` past [`LIMIT`]. Zero dims are left out of the
/// bound: `[0, usize::MAX / 2]` has 0 elements, `[0, usize::MAX]` is still too large for
/// ndarray.
#[inline]
pub(crate) fn checked_size(dims: impl IntoIterator<Item = usize>) -> Option<usize> {
    let mut nonzero: usize = 1;
    let mut zero = false;
    for d in dims {
        if d == 0 {
            zero = true;
        } else {
            nonzero = nonzero.checked_mul(d).filter(|&p| p <= LIMIT)?;
        }
    }
    Some(if zero { 0 } else { nonzero })
}

/// A dim of rank `n` whose entries `fill` writes in place: in registers for a fixed rank, in
/// the inline (or boxed) storage for `IxDyn`. Filling in place avoids a store-forwarding stall
/// that `IxDyn(&buf)` of a just-written buffer costs (BENCHMARKS.md, "The view path").
#[inline(always)]
pub(crate) fn dim_filled<E: Dimension>(n: usize, fill: impl FnOnce(&mut [usize])) -> E {
    let mut d = E::zeros(n);
    fill(d.slice_mut());
    d
}

/// `v` as a dimension of type `E`, whose rank the caller has checked to be `v.len()`: built
/// from the slice for `IxDyn` (one copy), filled in place for a fixed rank.
#[inline(always)]
pub(crate) fn typed_dim<E: Dimension + 'static>(v: &[usize]) -> E {
    debug_assert!(E::NDIM.unwrap_or(v.len()) == v.len());
    if E::NDIM.is_none() {
        // `E` is `IxDyn`: `IxDyn(v)` copies once, where `zeros` and a fill copy twice
        // (BENCHMARKS.md, "The view path").
        let mut d = Some(ndarray::IxDyn(v));
        if let Some(e) = (&mut d as &mut dyn std::any::Any).downcast_mut::<Option<E>>() {
            if let Some(e) = e.take() {
                return e;
            }
        }
    }
    dim_filled(v.len(), |d| d.copy_from_slice(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndarray_orders() {
        assert_eq!(Order::from(ndarray::Order::RowMajor), Order::C);
        assert_eq!(Order::from(ndarray::Order::ColumnMajor), Order::F);
    }

    #[test]
    fn checked_size_skips_zeros_and_bounds_the_rest() {
        assert_eq!(checked_size([2, 3, 4]), Some(24));
        assert_eq!(checked_size([0, usize::MAX / 2]), Some(0));
        assert_eq!(checked_size([0, usize::MAX]), None);
        assert_eq!(checked_size([LIMIT]), Some(LIMIT));
        assert_eq!(checked_size([LIMIT, 2]), None);
        assert_eq!(checked_size([]), Some(1));
    }
}

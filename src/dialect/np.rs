//! NumPy / NLCPy `reshape(newshape, order)`.

use std::fmt;

use super::Rules;
use crate::dims::Order;
use crate::entries::{IntoSpecList, SpecList};
use crate::error::{Fail, Origin, Rule};
use crate::infer::Entry;
use crate::infer::{Extent, Out};
use crate::small::Small;

/// A NumPy `reshape(newshape, order)` spec.
///
/// At most one `-1`, inferred from the size; every other value is a literal dim. The order says
/// how the elements are read from the input and written to the output: [`Order::C`] row-major,
/// [`Order::F`] column-major, [`Order::A`] column-major iff the input is F-contiguous and not
/// C-contiguous (NumPy's relaxed flags).
///
/// Unlike NumPy, only `-1` means "unknown": NumPy takes any negative entry for it
/// (`reshape(-2, 3)` works there); here it is [`BadValue`](crate::ReshapeError::BadValue).
///
/// # Errors
///
/// In this order: the scan ([`MultipleInfer`](crate::ReshapeError::MultipleInfer),
/// [`BadValue`](crate::ReshapeError::BadValue); the first bad entry wins),
/// [`Overflow`](crate::ReshapeError::Overflow),
/// [`InferZeroProduct`](crate::ReshapeError::InferZeroProduct) (even for an empty array),
/// [`InferNotDivisible`](crate::ReshapeError::InferNotDivisible),
/// [`SizeMismatch`](crate::ReshapeError::SizeMismatch).
///
/// # Examples
///
/// ```
/// use ndarray::{array, Array};
/// use ndarray_reshape::{Np, Order, ReshapeExt};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let a = Array::from_iter(0..6).into_shape_with_order((3, 2)).unwrap();
/// let f = a.reshape_with(Np::new([2, 3], Order::F))?;
/// assert_eq!(f, array![[0, 4, 3], [2, 1, 5]].into_dyn());
/// assert!(!f.is_view()); // a C-contiguous input read in F order is copied
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Np {
    spec: SpecList,
    order: Order,
}

impl Np {
    /// A spec with its order: this crate's [`Order`] (NumPy's C, F or A), or
    /// `ndarray::Order` (`RowMajor` is C, `ColumnMajor` is F).
    ///
    /// ```
    /// use ndarray_reshape::{Np, Order, ShapeSpec};
    /// assert_eq!(Np::new([3, -1], Order::F).infer_shape(&[6]).unwrap(), vec![3, 2]);
    /// assert_eq!(Np::new([3, -1], ndarray::Order::ColumnMajor), Np::new([3, -1], Order::F));
    /// ```
    pub fn new(spec: impl IntoSpecList, order: impl Into<Order>) -> Self {
        Np {
            spec: spec.into_spec_list(),
            order: order.into(),
        }
    }
}

/// A NumPy spec in C order, NumPy's and ndarray's default: `Np::from([3, -1])`.
///
/// ```
/// use ndarray_reshape::{Np, Order};
/// assert_eq!(Np::from([3, -1]), Np::new([3, -1], Order::C));
/// assert_eq!(Np::from((3, -1)), Np::new([3, -1], Order::C));
/// ```
impl<T: IntoSpecList> From<T> for Np {
    fn from(spec: T) -> Self {
        Np::new(spec, Order::C)
    }
}

impl fmt::Display for Np {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} order {:?}", self.spec, self.order)
    }
}

super::dialect!(Np as Origin::Np);

impl Rules for Np {
    #[inline]
    fn rules<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail> {
        let spec = self.spec.entries()?;
        let mut out = Out::new(dims);
        for entry in spec.iter() {
            match entry? {
                (_, Entry::Dim(d)) => out.push(d),
                (_, Entry::Code(0)) => out.push(E::lit(0)),
                (i, Entry::Code(-1)) => out.push_infer_at(i)?,
                (i, Entry::Code(v)) => return Err(bad_value(i, v)),
            }
        }
        let size = E::size(input, &mut out.conds)?;
        out.finish(size)
    }

    fn list(&self) -> Option<(&SpecList, bool)> {
        Some((&self.spec, true))
    }

    fn order(&self) -> Order {
        self.order
    }
}

#[cold]
#[inline(never)]
fn bad_value(i: usize, v: i64) -> Fail {
    Fail::at(
        Rule::BadValue,
        i,
        format!("value {v} is negative; only -1 means unknown"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::ShapeSpec;

    #[test]
    fn table() {
        let ok: &[(&[usize], &[i64], &[usize])] = &[
            (&[6], &[3, -1], &[3, 2]),
            (&[2, 3], &[6], &[6]),
            (&[0, 3], &[3, 0], &[3, 0]),
            (&[0, 3], &[0, 5, 7], &[0, 5, 7]),
            (&[], &[1, 1, -1], &[1, 1, 1]),
        ];
        for (input, spec, want) in ok {
            assert_eq!(&Np::new(*spec, Order::C).infer_shape(input).unwrap(), want);
        }
        let bad: &[(&[usize], &[i64], &str)] = &[
            (&[6], &[-1, -1], "multiple_infer"),
            (&[6], &[-2, 3], "bad_value"),
            (&[0, 3], &[0, -1], "infer_zero_product"),
            (&[6], &[4, -1], "infer_not_divisible"),
            (&[6], &[4], "size_mismatch"),
            (&[0], &[i64::MAX, 3], "overflow"),
        ];
        for (input, spec, want) in bad {
            let e = Np::new(*spec, Order::C).infer_shape(input).unwrap_err();
            assert_eq!(e.category(), *want, "{input:?} {spec:?}");
        }
    }
}

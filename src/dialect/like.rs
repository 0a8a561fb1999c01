//! MXNet `reshape_like` with `lhs_begin/lhs_end/rhs_begin/rhs_end`.

use std::fmt;

use ndarray::{ArrayBase, Dimension, RawData};

use super::fmt_range;
use super::Rules;
use crate::entries::{IntoSpecList, SpecList};
use crate::error::{Fail, Origin, Rule};
use crate::infer::Entry;
use crate::infer::Extent;
use crate::small::Small;

/// An MXNet `reshape_like` spec: take (part of) the shape of another array.
///
/// The output is `lhs[..lb] ++ rhs[rb..re] ++ lhs[le..]`, where each range is made canonical on
/// its own: `begin` defaults to 0 and `end` to the rank, a negative bound gets the rank added
/// once, and then `0 <= begin < end <= rank` must hold. With no bounds at all the output is the
/// rhs shape (0-d operands included, a deliberate extension of MXNet).
///
/// # Errors
///
/// In this order: [`RangeInvalid`](crate::ReshapeError::RangeInvalid) for the lhs range, then for the
/// rhs range, [`Overflow`](crate::ReshapeError::Overflow), [`SizeMismatch`](crate::ReshapeError::SizeMismatch),
/// and [`BadValue`](crate::ReshapeError::BadValue) / [`ValueDoesNotFit`](crate::ReshapeError::ValueDoesNotFit)
/// for an rhs shape given as integers that are not dims.
///
/// # Examples
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::{Like, ReshapeExt};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let lhs = Array::<f64, _>::zeros((30, 12));
/// let rhs = Array::<u8, _>::zeros((4, 2, 2, 3));
/// let like = Like::new(rhs.shape()).lhs(Some(-1), None).rhs(Some(1), None);
/// let y = lhs.reshape_with(like)?;
/// assert_eq!(y.shape(), &[30, 2, 2, 3]);
/// assert!(y.is_view());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Like {
    rhs: SpecList,
    lhs_begin: Option<i64>,
    lhs_end: Option<i64>,
    rhs_begin: Option<i64>,
    rhs_end: Option<i64>,
}

impl Like {
    /// Reshape like an array of shape `rhs` (`rhs.shape()`, or a list of dims).
    ///
    /// ```
    /// use ndarray_reshape::{Like, ShapeSpec};
    /// assert_eq!(Like::new([3, 2]).infer_shape(&[6]).unwrap(), vec![3, 2]);
    /// ```
    pub fn new(rhs: impl IntoSpecList) -> Self {
        Like {
            rhs: rhs.into_spec_list(),
            lhs_begin: None,
            lhs_end: None,
            rhs_begin: None,
            rhs_end: None,
        }
    }

    /// The lhs range replaced (MXNet's `lhs_begin`, `lhs_end`; `None` for an open end).
    ///
    /// ```
    /// use ndarray_reshape::{Like, ShapeSpec};
    /// let like = Like::new([15, 2, 4]).lhs(Some(0), Some(1)).rhs(Some(0), Some(2));
    /// assert_eq!(like.infer_shape(&[30, 7]).unwrap(), vec![15, 2, 7]);
    /// ```
    pub fn lhs(mut self, begin: Option<i64>, end: Option<i64>) -> Self {
        self.lhs_begin = begin;
        self.lhs_end = end;
        self
    }

    /// The rhs range taken (MXNet's `rhs_begin`, `rhs_end`; `None` for an open end).
    ///
    /// ```
    /// use ndarray_reshape::{Like, ShapeSpec};
    /// let like = Like::new([1, 15, 4]).lhs(Some(0), Some(2)).rhs(Some(1), Some(2));
    /// assert_eq!(like.infer_shape(&[3, 5]).unwrap(), vec![15]);
    /// ```
    pub fn rhs(mut self, begin: Option<i64>, end: Option<i64>) -> Self {
        self.rhs_begin = begin;
        self.rhs_end = end;
        self
    }
}

impl fmt::Display for Like {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The bounds that are set, as MXNet names them; the others are `None`.
        write!(f, "rhs shape {}", self.rhs)?;
        let bounds = [
            ("lhs_begin", self.lhs_begin),
            ("lhs_end", self.lhs_end),
            ("rhs_begin", self.rhs_begin),
            ("rhs_end", self.rhs_end),
        ];
        for (name, v) in bounds {
            if let Some(v) = v {
                write!(f, " {name} {v}")?;
            }
        }
        Ok(())
    }
}

/// Conversion into a [`Like`] spec: an array (of any element type) whose shape to take, a
/// plain shape (`[3, 2]`, `&[usize]`, `Vec<usize>`), or a `Like` itself.
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::ReshapeExt;
///
/// let x = Array::from_iter(0..6);
/// let rhs = Array::<u8, _>::zeros((3, 2));
/// assert_eq!(x.reshape_like(&rhs).unwrap().shape(), &[3, 2]);
/// assert_eq!(x.reshape_like([2, 3]).unwrap().shape(), &[2, 3]);
/// assert_eq!(x.reshape_like(rhs.shape()).unwrap().shape(), &[3, 2]);
/// ```
pub trait IntoLike {
    /// Convert into a [`Like`] spec.
    fn into_like(self) -> Like;
}

impl IntoLike for Like {
    fn into_like(self) -> Like {
        self
    }
}
impl IntoLike for &Like {
    fn into_like(self) -> Like {
        self.clone()
    }
}
impl<S: RawData, D: Dimension> IntoLike for &ArrayBase<S, D> {
    fn into_like(self) -> Like {
        Like::new(self.shape())
    }
}
/// A plain shape.
impl<const N: usize> IntoLike for [usize; N] {
    fn into_like(self) -> Like {
        Like::new(self)
    }
}
/// A plain shape.
impl<const N: usize> IntoLike for &[usize; N] {
    fn into_like(self) -> Like {
        Like::new(self)
    }
}
/// A plain shape, such as another array's `shape()`.
impl IntoLike for &[usize] {
    fn into_like(self) -> Like {
        Like::new(self)
    }
}
/// A plain shape.
impl IntoLike for Vec<usize> {
    fn into_like(self) -> Like {
        Like::new(self)
    }
}
/// A plain shape.
impl IntoLike for &Vec<usize> {
    fn into_like(self) -> Like {
        Like::new(self)
    }
}
/// The shape of an array borrowed as ndarray 0.17's [`ArrayRef`](ndarray::ArrayRef).
impl<A, D: Dimension> IntoLike for &ndarray::ArrayRef<A, D> {
    fn into_like(self) -> Like {
        Like::new(self.shape())
    }
}

super::dialect!(Like as Origin::Like);

impl Rules for Like {
    #[inline]
    fn rules<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail> {
        self.infer_rhs(input, dims)
    }

    fn list(&self) -> Option<(&SpecList, bool)> {
        // The rhs entries stand for output dims, not at the input's indices.
        Some((&self.rhs, false))
    }
}

impl Like {
    fn infer_rhs<E: Extent>(&self, lhs: &[E], out: &mut Small<E>) -> Result<E::Conds, Fail> {
        let rhs = self.rhs.entries()?;
        if let Some((p, v)) = rhs.first_negative() {
            return Err(Fail::at(
                Rule::BadValue,
                p,
                format!("the rhs shape has a negative dim {v}"),
            ));
        }
        let no_bounds = self.lhs_begin.is_none()
            && self.lhs_end.is_none()
            && self.rhs_begin.is_none()
            && self.rhs_end.is_none();
        let (lb, le, rb, re) = if no_bounds {
            (0, lhs.len(), 0, rhs.len())
        } else {
            let (lb, le) = canonical("lhs", self.lhs_begin, self.lhs_end, lhs.len())?;
            let (rb, re) = canonical("rhs", self.rhs_begin, self.rhs_end, rhs.len())?;
            (lb, le, rb, re)
        };
        out.clear();
        lhs[..lb].iter().for_each(|d| out.push(d.clone()));
        for p in rb..re {
            match rhs.get(p) {
                Ok(Entry::Dim(d)) => out.push(d),
                Ok(Entry::Code(v)) => out.push(E::lit(v)),
                Err(f) => {
                    out.clear();
                    return Err(f);
                }
            }
        }
        lhs[le..].iter().for_each(|d| out.push(d.clone()));
        let mut conds = E::Conds::default();
        match E::same_size(out, lhs, &mut conds) {
            Ok(()) => Ok(conds),
            Err(f) => {
                out.clear();
                Err(f)
            }
        }
    }
}

/// `begin` defaults to 0, `end` to `rank`; a negative bound gets `rank` added once; then
/// `0 <= begin < end <= rank`.
fn canonical(
    side: &str,
    begin: Option<i64>,
    end: Option<i64>,
    rank: usize,
) -> Result<(usize, usize), Fail> {
    let r = rank as i128;
    let fix = |v: i64| {
        let v = v as i128;
        if v < 0 {
            v + r
        } else {
            v
        }
    };
    let b = begin.map_or(0, fix);
    let e = end.map_or(r, fix);
    if !(0 <= b && b < e && e <= r) {
        return Err(Fail::whole(
            Rule::RangeInvalid,
            format!(
                "the {side} range {} (as {b}..{e}) is empty or out of range for rank {rank}",
                fmt_range(begin, end)
            ),
        ));
    }
    Ok((b as usize, e as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::ShapeSpec;

    fn like(
        rhs: &[usize],
        lb: Option<i64>,
        le: Option<i64>,
        rb: Option<i64>,
        re: Option<i64>,
    ) -> Like {
        Like::new(rhs).lhs(lb, le).rhs(rb, re)
    }

    #[test]
    fn table() {
        let ok: &[(&[usize], &[usize], [Option<i64>; 4], &[usize])] = &[
            (&[6], &[3, 2], [None; 4], &[3, 2]),
            (
                &[30, 7],
                &[15, 2, 4],
                [Some(0), Some(1), Some(0), Some(2)],
                &[15, 2, 7],
            ),
            (
                &[3, 5],
                &[1, 15, 4],
                [Some(0), Some(2), Some(1), Some(2)],
                &[15],
            ),
            (
                &[30, 12],
                &[4, 2, 2, 3],
                [Some(-1), None, Some(1), None],
                &[30, 2, 2, 3],
            ),
            (&[], &[1], [None; 4], &[1]),
            (&[1], &[], [None; 4], &[]),
        ];
        for (lhs, rhs, b, want) in ok {
            let got = like(rhs, b[0], b[1], b[2], b[3]).infer_shape(lhs).unwrap();
            assert_eq!(&got, want);
        }
        let bad: &[(&[usize], &[usize], [Option<i64>; 4], &str)] = &[
            (&[6], &[4, 2], [None; 4], "size_mismatch"),
            (
                &[6],
                &[3, 2],
                [Some(1), Some(1), None, None],
                "range_invalid",
            ),
            (&[6], &[3, 2], [None, None, Some(-3), None], "range_invalid"),
            (&[], &[1], [Some(0), None, None, None], "range_invalid"),
            (
                &[6],
                &[3, 2],
                [Some(0), Some(2), None, None],
                "range_invalid",
            ),
        ];
        for (lhs, rhs, b, want) in bad {
            let got = like(rhs, b[0], b[1], b[2], b[3])
                .infer_shape(lhs)
                .unwrap_err();
            assert_eq!(got.category(), *want, "{lhs:?} {rhs:?} {b:?}");
        }
    }

    #[test]
    fn a_symbolic_rhs_entry_outside_the_range_is_never_read() {
        use crate::graph::ShapeValue;
        use crate::sym::SymDim;
        // rhs [B, 6, 4] with only entries 1.. used: numbers alone decide.
        let rhs = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::from(6), SymDim::from(4)]);
        let spec = Like::new(&rhs).lhs(Some(1), None).rhs(Some(1), None);
        assert_eq!(spec.infer_shape(&[2, 24]).unwrap(), vec![2, 6, 4]);
        // Read, the symbol needs a number.
        let err = Like::new(&rhs).infer_shape(&[2, 24]).unwrap_err();
        assert_eq!(err.category(), "needs_number");
    }
}

//! MXNet `Reshape`: the special values 0, -1, -2, -3, -4, `reverse`, and the deprecated
//! `target_shape` / `keep_highest`.

use super::Rules;
use crate::entries::{IntoSpecList, SpecList};
use crate::error::{Fail, Origin, Rule};
use crate::infer::{input_reading, read, reading, split_pair, Extent, Out, Track};
use crate::small::Small;

/// An MXNet `Reshape` spec (`shape`, `reverse`), as in MXNet 1.9.1 with zero-size dims real
/// (its NumPy-shape mode).
///
/// The spec is read left to right while a read position walks the input dims:
///
/// | value | output | read position |
/// |---|---|---|
/// | `d > 0` | `d` | +1 |
/// | `0` | the input dim at the read position | +1 |
/// | `-1` | inferred from the size, at its own output position (at most one) | +1 |
/// | `-2` | all remaining input dims, possibly none | to the end |
/// | `-3` | the product of the next two input dims | +2 |
/// | `-4 a b` | splits the next input dim into `a, b` (one of them may be `-1`) | +1 |
///
/// With `reverse(true)` the input dims and the spec are reversed, the rules applied, and the
/// result reversed back: special values are then inferred from the right.
///
/// # Errors
///
/// In this order: the scan in reading order ([`BadValue`](crate::ReshapeError::BadValue) for `< -4`,
/// [`MultipleInfer`](crate::ReshapeError::MultipleInfer),
/// [`OutOfInput`](crate::ReshapeError::OutOfInput),
/// [`SplitIncomplete`](crate::ReshapeError::SplitIncomplete),
/// [`SplitBothInfer`](crate::ReshapeError::SplitBothInfer),
/// [`SplitMismatch`](crate::ReshapeError::SplitMismatch)), then
/// [`Overflow`](crate::ReshapeError::Overflow),
/// [`InferZeroProduct`](crate::ReshapeError::InferZeroProduct),
/// [`InferNotDivisible`](crate::ReshapeError::InferNotDivisible),
/// [`SizeMismatch`](crate::ReshapeError::SizeMismatch).
///
/// # Examples
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::{Mx, ReshapeExt, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::<f32, _>::zeros((10, 5, 4));
/// let y = x.reshape_mx([-1, 0])?; // 0 copies the dim at the read position
/// assert_eq!(y.shape(), &[40, 5]);
/// assert!(y.is_view());
/// assert_eq!(x.reshape_mx(Mx::new([-1, 0]).reverse(true))?.shape(), &[50, 4]);
/// assert_eq!(Mx::new([-4, 1, 2, -2]).infer_shape(&[2, 3, 4])?, vec![1, 2, 3, 4]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mx {
    spec: SpecList,
    reverse: bool,
}

impl Mx {
    /// A spec from a list of values (`&[i32]`, `[i64; N]`, `Vec<isize>`, ...).
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// assert_eq!(Mx::new(vec![-3i64, -2]).infer_shape(&[2, 3, 4]).unwrap(), vec![6, 4]);
    /// ```
    pub fn new(spec: impl IntoSpecList) -> Self {
        Mx {
            spec: spec.into_spec_list(),
            reverse: false,
        }
    }

    /// Infer the special values from right to left (MXNet's `reverse=True`).
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// let m = Mx::new([16, -1, -4]).reverse(true); // a split written `a b -4`
    /// assert_eq!(m.infer_shape(&[64]).unwrap(), vec![16, 4]);
    /// ```
    pub fn reverse(mut self, reverse: bool) -> Self {
        self.reverse = reverse;
        self
    }

    /// The deprecated `target_shape` form of MXNet `Reshape` (see [`MxTarget`]).
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// assert_eq!(Mx::target_shape([2, 0]).infer_shape(&[2, 3, 5, 5]).unwrap(), vec![2, 75]);
    /// ```
    pub fn target_shape(target: impl IntoSpecList) -> MxTarget {
        MxTarget {
            target: target.into_spec_list(),
            keep_highest: false,
        }
    }
}

super::dialect!(Mx as Origin::Mx, new, spec reverse);

impl Rules for Mx {
    #[inline]
    fn rules<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail> {
        let (spec, reverse) = (self.spec.values()?, self.reverse);
        read(
            dims,
            input,
            reverse,
            |out, src| scan(input, spec, reverse, out, src),
            |out, src| scan(input, spec, reverse, out, src),
        )
    }
}

/// The read of the spec against the input (before the products are checked); `src` records
/// the written-spec position of each output dim.
#[inline]
fn scan<E: Extent, T: Track>(
    input: &[E],
    spec: &[i64],
    reverse: bool,
    out: &mut Out<'_, E>,
    src: &mut T,
) -> Result<(), Fail> {
    let n = spec.len();
    let at = reading(spec, reverse);
    let rank = input.len();
    let dim = input_reading(input, reverse);
    let mut pos = 0usize; // read position in the input dims
    let mut i = 0usize;
    while i < n {
        let (v, p) = at(i);
        match v {
            d if d > 0 => {
                out.push(E::lit(d));
                src.record(p);
                pos += 1;
            }
            0 => {
                if pos >= rank {
                    return Err(past("0 copies the input dim", pos, rank, p));
                }
                out.push(dim(pos));
                src.record(p);
                pos += 1;
            }
            -1 => {
                out.push_infer_at(p)?;
                src.record(p);
                pos += 1;
            }
            -2 => {
                while pos < rank {
                    out.push(dim(pos));
                    src.record(p);
                    pos += 1;
                }
            }
            -3 => {
                if pos + 2 > rank {
                    return Err(past_pair(pos, rank, p));
                }
                // An overflow is reported after the scan, in the dialect's error order.
                out.push(dim(pos).merge(dim(pos + 1)));
                src.record(p);
                pos += 2;
            }
            -4 => {
                if i + 2 >= n {
                    return Err(incomplete(p));
                }
                if pos >= rank {
                    return Err(past("-4 splits the input dim", pos, rank, p));
                }
                let (a, pa) = at(i + 1);
                let (b, pb) = at(i + 2);
                if a == -1 && b == -1 {
                    return Err(both_infer(p));
                }
                let (a, b) = split_pair("-4", dim(pos), (a, pa), (b, pb), p, &mut out.conds)?;
                out.push(a);
                src.record(pa);
                out.push(b);
                src.record(pb);
                pos += 1;
                i += 2;
            }
            _ => return Err(below(v, p)),
        }
        i += 1;
    }
    Ok(())
}

// The scan's failures, out of line.

#[cold]
#[inline(never)]
fn past(what: &str, pos: usize, rank: usize, p: usize) -> Fail {
    Fail::at(
        Rule::OutOfInput,
        p,
        format!("{what} at read position {pos}, past the input's rank {rank}"),
    )
}

#[cold]
#[inline(never)]
fn past_pair(pos: usize, rank: usize, p: usize) -> Fail {
    Fail::at(
        Rule::OutOfInput,
        p,
        format!(
            "-3 merges the input dims at read positions {pos} and {}, past the input's rank {rank}",
            pos + 1
        ),
    )
}

#[cold]
#[inline(never)]
fn incomplete(p: usize) -> Fail {
    Fail::at(Rule::SplitIncomplete, p, "-4 needs two values after it")
}

#[cold]
#[inline(never)]
fn below(v: i64, p: usize) -> Fail {
    Fail::at(Rule::BadValue, p, format!("value {v} is below -4"))
}

/// A `-4 -1 -1`: MXNet's split takes at most one `-1`.
#[cold]
#[inline(never)]
fn both_infer(p: usize) -> Fail {
    Fail::at(
        Rule::SplitBothInfer,
        p,
        "-4 -1 -1 leaves both halves unknown",
    )
}

/// MXNet `Reshape`'s deprecated `target_shape` / `keep_highest` parameters.
///
/// - The output starts as `target_shape`.
/// - With `keep_highest`, the first output dim is the input's first dim, whatever
///   `target_shape[0]` says.
/// - Among the other positions, exactly one `0` is inferred from the size; two or more zeros
///   stay literal zero-length dims.
///
/// # Errors
///
/// In this order: [`KeepHighestEmpty`](crate::ReshapeError::KeepHighestEmpty) (empty `target_shape`
/// or 0-d input with `keep_highest`), [`BadValue`](crate::ReshapeError::BadValue) (any negative left),
/// [`Overflow`](crate::ReshapeError::Overflow),
/// [`InferZeroProduct`](crate::ReshapeError::InferZeroProduct),
/// [`InferNotDivisible`](crate::ReshapeError::InferNotDivisible),
/// [`SizeMismatch`](crate::ReshapeError::SizeMismatch).
///
/// # Examples
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::{Mx, ReshapeExt};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::<f32, _>::zeros((2, 3, 4));
/// let y = x.reshape_with(Mx::target_shape([0, 0]).keep_highest(true))?;
/// assert_eq!(y.shape(), &[2, 12]);
/// assert!(y.is_view());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MxTarget {
    target: SpecList,
    keep_highest: bool,
}

impl MxTarget {
    /// Keep the input's first dim (MXNet's `keep_highest=True`).
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// let m = Mx::target_shape([5, 0]).keep_highest(true);
    /// assert_eq!(m.infer_shape(&[2, 3, 4]).unwrap(), vec![2, 12]);
    /// ```
    pub fn keep_highest(mut self, keep: bool) -> Self {
        self.keep_highest = keep;
        self
    }
}

super::dialect!(MxTarget as Origin::MxLegacy, target keep_highest);

impl Rules for MxTarget {
    #[inline]
    fn rules<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail> {
        let (target, keep_highest) = (self.target.values()?, self.keep_highest);
        if keep_highest && (target.is_empty() || input.is_empty()) {
            return Err(Fail::whole(
                Rule::KeepHighestEmpty,
                "keep_highest needs a non-empty target_shape and an input of rank at least 1",
            ));
        }
        let first = usize::from(keep_highest);
        if let Some(p) = (first..target.len()).find(|&p| target[p] < 0) {
            return Err(Fail::at(
                Rule::BadValue,
                p,
                format!("value {} is negative", target[p]),
            ));
        }
        // Exactly one zero (past the kept first dim) is inferred; more stay literal zeros.
        let mut zeros = (first..target.len()).filter(|&p| target[p] == 0);
        let single_zero = match (zeros.next(), zeros.next()) {
            (Some(z), None) => Some(z),
            _ => None,
        };
        let mut out = Out::new(dims);
        for (p, &v) in target.iter().enumerate() {
            if p == 0 && keep_highest {
                out.push(input[0].clone());
            } else if single_zero == Some(p) {
                out.push_infer();
            } else {
                out.push(E::lit(v));
            }
        }
        let size = E::size(input, &mut out.conds)?;
        out.finish(size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::ShapeSpec;

    fn ok(input: &[usize], spec: &[i64], rev: bool) -> Vec<usize> {
        Mx::new(spec).reverse(rev).infer_shape(input).unwrap()
    }
    fn err(input: &[usize], spec: &[i64], rev: bool) -> &'static str {
        Mx::new(spec)
            .reverse(rev)
            .infer_shape(input)
            .unwrap_err()
            .category()
    }

    #[test]
    fn documented_examples() {
        let table: &[(&[usize], &[i64], bool, &[usize])] = &[
            (&[2, 3, 4], &[4, 0, 2], false, &[4, 3, 2]),
            (&[2, 3, 4], &[2, 0, 0], false, &[2, 3, 4]),
            (&[2, 3, 4], &[6, 1, -1], false, &[6, 1, 4]),
            (&[2, 3, 4], &[3, -1, 8], false, &[3, 1, 8]),
            (&[2, 3, 4], &[-1], false, &[24]),
            (&[2, 3, 4], &[-2], false, &[2, 3, 4]),
            (&[2, 3, 4], &[2, -2], false, &[2, 3, 4]),
            (&[2, 3, 4, 5], &[-3, -3], false, &[6, 20]),
            (&[2, 3, 4], &[-3, -2], false, &[6, 4]),
            (&[2, 3, 4], &[-4, 1, 2, -2], false, &[1, 2, 3, 4]),
            (&[2, 3, 4], &[2, -4, -1, 3, -2], false, &[2, 1, 3, 4]),
            (&[10, 5, 4], &[-1, 0], false, &[40, 5]),
            (&[10, 5, 4], &[-1, 0], true, &[50, 4]),
            (&[64], &[16, -1, -4], true, &[16, 4]),
            (&[2, 3, 4], &[-2, -1], false, &[2, 3, 4, 1]),
            (&[6, 4], &[-4, 2, 3, -1], false, &[2, 3, 4]),
            (&[2, 0, 3], &[-1], false, &[0]),
            (&[2, 0, 3], &[0, -1], false, &[2, 0]),
            (&[], &[], false, &[]),
            (&[1, 1], &[], false, &[]),
        ];
        for &(input, spec, rev, want) in table {
            assert_eq!(ok(input, spec, rev), want, "{input:?} {spec:?} {rev}");
        }
    }

    #[test]
    fn error_rules() {
        let table: &[(&[usize], &[i64], bool, &str)] = &[
            (&[2, 3, 4], &[-1, -1], false, "multiple_infer"),
            (&[2, 3, 4], &[-5], false, "bad_value"),
            (&[2, 3, 4], &[0, 0, 0, 0], false, "out_of_input"),
            (&[2, 3, 4], &[2, 3, -3], false, "out_of_input"),
            (&[2, 3, 4], &[-4, 1], false, "split_incomplete"),
            (&[2, 3, 4], &[-4, -1, -1, -2], false, "split_both_infer"),
            (&[2, 3, 4], &[-4, 3, -1, -2], false, "split_mismatch"),
            (&[6], &[-4, 0, -1], false, "split_mismatch"),
            (&[2, 3, 4], &[-4, -2, 1, -2], false, "bad_value"),
            (&[2, 0, 3], &[-1, 0], false, "infer_zero_product"),
            (&[2, 3, 4], &[5, -1], false, "infer_not_divisible"),
            (&[2, 3, 4], &[5, 5], false, "size_mismatch"),
            (&[2], &[i64::MAX, i64::MAX, -1], false, "overflow"),
            (&[], &[-3], false, "out_of_input"),
            (&[2], &[], false, "size_mismatch"),
        ];
        for &(input, spec, rev, want) in table {
            assert_eq!(err(input, spec, rev), want, "{input:?} {spec:?} {rev}");
        }
    }

    #[test]
    fn error_positions_are_in_the_written_spec() {
        let e = Mx::new([-1, 2, -1])
            .reverse(true)
            .infer_shape(&[2, 3, 4])
            .unwrap_err();
        assert_eq!(e.context().position(), Some(0));
        let e = Mx::new([-1, 2, -1]).infer_shape(&[2, 3, 4]).unwrap_err();
        assert_eq!(e.context().position(), Some(2));
    }

    #[test]
    fn legacy_target_shape() {
        let t = |input: &[usize], t: &[i64], k: bool| {
            Mx::target_shape(t).keep_highest(k).infer_shape(input)
        };
        assert_eq!(t(&[2, 3, 4], &[0, 4], false).unwrap(), vec![6, 4]);
        assert_eq!(t(&[2, 3, 4], &[0, 0], true).unwrap(), vec![2, 12]);
        assert_eq!(t(&[2, 3, 4], &[5, 0], true).unwrap(), vec![2, 12]);
        assert_eq!(t(&[2, 3, 4], &[-1, 0], true).unwrap(), vec![2, 12]);
        assert_eq!(
            t(&[2, 3, 4], &[0, 0], false).unwrap_err().category(),
            "size_mismatch"
        );
        assert_eq!(
            t(&[2, 3, 4], &[], true).unwrap_err().category(),
            "keep_highest_empty"
        );
        assert_eq!(
            t(&[2, 3, 4], &[2, -3], false).unwrap_err().category(),
            "bad_value"
        );
    }
}

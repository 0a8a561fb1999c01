//! MXNet 2.x `npx.reshape` (and `np.reshape`, which calls it): renumbered special values.

use super::Rules;
use crate::entries::{IntoSpecList, SpecList};
use crate::error::{Fail, Origin, Rule};
use crate::infer::{input_reading, read, reading, split_pair, Extent, Out, Track};
use crate::small::Small;

/// An MXNet 2.x `npx.reshape(a, newshape, reverse)` spec.
///
/// The special values are renumbered from MXNet's legacy `Reshape` ([`Mx`](crate::Mx)), and `0`
/// is a literal zero-length dim. The spec is read left to right with a read position in the
/// input dims:
///
/// | value | output | read position |
/// |---|---|---|
/// | `d >= 0` | `d` (`0` is a zero-length dim) | +1, without reading |
/// | `-1` | inferred from the size, at its own position (at most one) | +1, without reading |
/// | `-2` | the input dim at the read position | +1 |
/// | `-3` | nothing: drops the input dim at the read position, which must be 1 | +1 |
/// | `-4` | all remaining input dims, possibly none | to the end |
/// | `-5` | the product of the next two input dims | +2 |
/// | `-6 a b` | splits the input dim at the read position into `a, b` (one may be `-1`) | +1 |
///
/// With `reverse(true)` the input dims and the spec are reversed, the rules applied and the
/// result reversed back; a split is then written `a b -6`.
///
/// # Errors
///
/// First, on the spec as written: [`BadValue`](crate::ReshapeError::BadValue) (`< -6`),
/// [`MultipleInfer`](crate::ReshapeError::MultipleInfer) (two `-1`, the operands of `-6` included).
/// Then the read, in reading order: [`OutOfInput`](crate::ReshapeError::OutOfInput),
/// [`DropNotOne`](crate::ReshapeError::DropNotOne), and for a `-6`
/// [`SplitIncomplete`](crate::ReshapeError::SplitIncomplete), `OutOfInput`, `BadValue` (an operand
/// neither `>= 0` nor `-1`), [`SplitMismatch`](crate::ReshapeError::SplitMismatch). Then
/// [`Overflow`](crate::ReshapeError::Overflow),
/// [`InferZeroProduct`](crate::ReshapeError::InferZeroProduct),
/// [`InferNotDivisible`](crate::ReshapeError::InferNotDivisible),
/// [`SizeMismatch`](crate::ReshapeError::SizeMismatch).
///
/// # Examples
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::{Npx, ReshapeExt, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::<f32, _>::zeros((8, 3, 3, 3, 4, 4));
/// let y = x.reshape_npx([-6, 2, -1, -4])?; // split 8 into (2, 4), keep the rest
/// assert_eq!(y.shape(), &[2, 4, 3, 3, 3, 4, 4]);
/// assert!(y.is_view());
/// assert_eq!(Npx::new([-5, -4]).infer_shape(&[8, 3, 3, 3, 4, 4])?, vec![24, 3, 3, 4, 4]);
/// assert_eq!(Npx::new([-4, -1, 2, -6]).reverse(true).infer_shape(&[8, 3, 2, 4, 8])?, vec![8, 3, 2, 4, 4, 2]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Npx {
    spec: SpecList,
    reverse: bool,
}

impl Npx {
    /// A spec from a list of values (`&[i32]`, `[i64; N]`, `Vec<isize>`, ...).
    ///
    /// ```
    /// use ndarray_reshape::{Npx, ShapeSpec};
    /// assert_eq!(Npx::new([-2, -2, 2, -1]).infer_shape(&[2, 3, 8]).unwrap(), vec![2, 3, 2, 4]);
    /// ```
    pub fn new(spec: impl IntoSpecList) -> Self {
        Npx {
            spec: spec.into_spec_list(),
            reverse: false,
        }
    }

    /// Read the special values from the right (`reverse=True`).
    ///
    /// ```
    /// use ndarray_reshape::{Npx, ShapeSpec};
    /// assert_eq!(Npx::new([16, -1, -6]).reverse(true).infer_shape(&[64]).unwrap(), vec![16, 4]);
    /// ```
    pub fn reverse(mut self, reverse: bool) -> Self {
        self.reverse = reverse;
        self
    }
}

super::dialect!(Npx as Origin::Npx, new, spec reverse);

impl Rules for Npx {
    #[inline]
    fn rules<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail> {
        let (spec, reverse) = (self.spec.values()?, self.reverse);
        // The first check, on the spec as written.
        let mut infer_seen = false;
        for (p, &v) in spec.iter().enumerate() {
            if v < -6 {
                return Err(Fail::at(
                    Rule::BadValue,
                    p,
                    format!("value {v} is below -6"),
                ));
            }
            if v == -1 {
                if infer_seen {
                    return Err(Fail::at(Rule::MultipleInfer, p, "a second -1"));
                }
                infer_seen = true;
            }
        }
        read(
            dims,
            input,
            reverse,
            |out, src| scan(input, spec, reverse, out, src),
            |out, src| scan(input, spec, reverse, out, src),
        )
    }
}

/// The read of the spec against the input, after the first check (before the products are
/// checked); `src` records the written-spec position of each output dim.
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
    let past = |what: &str, pos: usize, p: usize| {
        Fail::at(
            Rule::OutOfInput,
            p,
            format!("{what} the input dim at read position {pos}, past the input's rank {rank}"),
        )
    };
    let mut pos = 0usize;
    let mut i = 0usize;
    while i < n {
        let (v, p) = at(i);
        match v {
            d if d >= 0 => {
                out.push(E::lit(d));
                src.record(p);
                pos += 1;
            }
            -1 => {
                out.push_infer();
                src.record(p);
                pos += 1;
            }
            -2 => {
                if pos >= rank {
                    return Err(past("-2 copies", pos, p));
                }
                out.push(dim(pos));
                src.record(p);
                pos += 1;
            }
            -3 => {
                if pos >= rank {
                    return Err(past("-3 drops", pos, p));
                }
                E::drop_one(dim(pos), pos, p, &mut out.conds)?;
                pos += 1;
            }
            -4 => {
                while pos < rank {
                    out.push(dim(pos));
                    src.record(p);
                    pos += 1;
                }
            }
            -5 => {
                if pos + 2 > rank {
                    return Err(past("-5 merges", pos, p));
                }
                // An overflow is reported after the scan, in the dialect's error order.
                out.push(dim(pos).merge(dim(pos + 1)));
                src.record(p);
                pos += 2;
            }
            _ => {
                // -6 a b
                if i + 2 >= n {
                    return Err(Fail::at(
                        Rule::SplitIncomplete,
                        p,
                        "-6 needs two values after it",
                    ));
                }
                if pos >= rank {
                    return Err(past("-6 splits", pos, p));
                }
                let (a, pa) = at(i + 1);
                let (b, pb) = at(i + 2);
                let (x, y) = split_pair("-6", dim(pos), (a, pa), (b, pb), p, &mut out.conds)?;
                out.push(x);
                src.record(pa);
                out.push(y);
                src.record(pb);
                pos += 1;
                i += 2;
            }
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::ShapeSpec;

    #[test]
    fn documented_examples() {
        let ok: &[(&[usize], &[i64], bool, &[usize])] = &[
            (&[2, 3, 8], &[-2, -2, 2, -1], false, &[2, 3, 2, 4]),
            (
                &[8, 3, 3, 3, 4, 4],
                &[-6, 2, -1, -4],
                false,
                &[2, 4, 3, 3, 3, 4, 4],
            ),
            (&[8, 3, 3, 3, 4, 4], &[-5, -4], false, &[24, 3, 3, 4, 4]),
            (&[0], &[-6, 0, 5], false, &[0, 5]),
            (&[0], &[-6, 2, -1], false, &[2, 0]),
            (&[64], &[-6, 16, -1], false, &[16, 4]),
            (&[2, 3, 5, 6], &[6, 1, -4], false, &[6, 1, 5, 6]),
            (&[2, 3, 5, 4], &[-1, -2, -2], false, &[8, 3, 5]),
            (&[6, 4], &[-6, 2, 3, -1], false, &[2, 3, 4]),
            (&[1, 2, 3], &[-3, -1, -2], false, &[2, 3]),
            (&[2, 0, 3], &[-2, -1], false, &[2, 0]),
            (&[2, 3, 1], &[-2, -2], false, &[2, 3]),
            (
                &[8, 3, 2, 4, 8],
                &[-4, -1, 2, -6],
                true,
                &[8, 3, 2, 4, 4, 2],
            ),
            (&[], &[-4], false, &[]),
        ];
        for &(input, spec, rev, want) in ok {
            let got = Npx::new(spec).reverse(rev).infer_shape(input);
            assert_eq!(got.as_deref(), Ok(want), "{input:?} {spec:?} {rev}");
        }
        let bad: &[(&[usize], &[i64], bool, &str)] = &[
            (&[2, 3, 4], &[-6, 2, -1, -1], false, "multiple_infer"),
            (&[6], &[-6, 4, -1], false, "split_mismatch"),
            (&[2, 0, 3], &[-2, -2, -1], false, "infer_zero_product"),
            (&[2, 3], &[-2], false, "size_mismatch"),
            (&[2, 0, 3], &[-2, -1], true, "infer_zero_product"),
            (&[6], &[-6, -1, 0], false, "split_mismatch"),
            (&[6], &[-6, -2, -3], false, "bad_value"),
            (&[2], &[-7], false, "bad_value"),
            (&[2, 3], &[-3, 6], false, "drop_not_one"),
            (&[], &[-2], false, "out_of_input"),
            (&[6], &[-6, 2], false, "split_incomplete"),
            (&[2], &[4294967296, 4294967296, -1], false, "overflow"),
        ];
        for &(input, spec, rev, want) in bad {
            let e = Npx::new(spec).reverse(rev).infer_shape(input).unwrap_err();
            assert_eq!(e.category(), want, "{input:?} {spec:?} {rev}");
        }
    }
}

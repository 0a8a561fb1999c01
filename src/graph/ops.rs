//! The structural shape operations on [`ShapeValue`]s, with each framework's semantics: ONNX
//! `Gather`, `Slice`, `Concat`, `Unsqueeze`, `Squeeze`, and Paddle's `stack`. The arithmetic is
//! in `arith`.

use std::fmt;

use super::value::{broadcast, joined, joined_ty, sizes, MAX_ENTRIES};
use super::ShapeValue;
use crate::error::{Fail, Origin, ReshapeError, Rule};

/// The operation in a shape-op error: its name and its operands as written.
pub(super) struct Written<'a> {
    pub(super) name: &'a str,
    pub(super) operands: &'a [&'a dyn fmt::Display],
}

impl Written<'_> {
    #[cold]
    #[inline(never)]
    pub(super) fn fail(&self, rule: Rule, operand: Option<usize>, detail: String) -> ReshapeError {
        let args: Vec<String> = self.operands.iter().map(|o| o.to_string()).collect();
        let written = format!("{}({})", self.name, args.join(", "));
        Fail::new(rule, operand, detail).attach_no_input(Origin::ShapeOp, written)
    }

    /// The length operands of `lens` broadcast to ([`broadcast`]), or the error naming the
    /// first that does not.
    pub(super) fn broadcast(&self, lens: &[usize]) -> Result<usize, ReshapeError> {
        broadcast(lens).map_err(|p| {
            self.fail(
                Rule::LengthMismatch,
                Some(p),
                format!("lengths {lens:?} do not broadcast"),
            )
        })
    }
}

/// A list of values, written as `[v1, v2]` in an error.
pub(super) struct List<'a>(pub(super) &'a [ShapeValue]);

impl fmt::Display for List<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v: Vec<String> = self.0.iter().map(|v| v.to_string()).collect();
        write!(f, "{}", v.join(", "))
    }
}

impl ShapeValue {
    /// ONNX `Gather` on axis 0 (Paddle `gather`): the entries at `indices`, a 0-D index giving
    /// a 0-D value and a 1-D index a 1-D value. A negative index counts from the end.
    ///
    /// # Errors
    ///
    /// [`ValueRank`](ReshapeError::ValueRank) when `self` is 0-D,
    /// [`NeedsNumber`](ReshapeError::NeedsNumber) for a symbolic index,
    /// [`IndexOutOfRange`](ReshapeError::IndexOutOfRange) outside `-len..len`.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::sym("T"), SymDim::from(768)]);
    /// assert_eq!(v.gather(&ShapeValue::scalar(-1))?.to_string(), "768");
    /// assert_eq!(v.gather(&ShapeValue::from(vec![1, 0]))?.to_string(), "[T, B]");
    /// assert!(v.gather(&ShapeValue::scalar(3)).is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn gather(&self, indices: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        let op = Written {
            name: "gather",
            operands: &[self, indices],
        };
        self.need_vector(&op, 0)?;
        if indices.len() > MAX_ENTRIES {
            return Err(op.fail(
                Rule::ValueTooLong,
                Some(1),
                format!(
                    "{} indices; shape values hold at most {MAX_ENTRIES}",
                    indices.len()
                ),
            ));
        }
        let n = self.entries.len();
        let mut out = Vec::with_capacity(indices.entries.len());
        for e in &indices.entries {
            let i = match e.constant() {
                Some(i) => i,
                None => {
                    return Err(op.fail(
                        Rule::NeedsNumber,
                        Some(1),
                        format!("the index {e} is symbolic"),
                    ))
                }
            };
            let at = if i < 0 {
                i as i128 + n as i128
            } else {
                i as i128
            };
            if !(0..n as i128).contains(&at) {
                return Err(op.fail(
                    Rule::IndexOutOfRange,
                    Some(1),
                    format!("index {i} is out of range for length {n}"),
                ));
            }
            out.push(self.entries[at as usize].clone());
        }
        Ok(ShapeValue {
            scalar: indices.scalar,
            entries: out,
            conditions: joined(&[self, indices]),
            sizes: sizes(&[self, indices]),
            ty: self.ty,
        })
    }

    /// ONNX `Slice` on axis 0 (Paddle `slice`, `strided_slice`): the entries from `start`
    /// towards `end` (excluded) by `step`. Bounds are clamped as ONNX does: a negative bound
    /// counts from the end, then `start` and `end` are clamped into range (`i64::MIN` and
    /// `i64::MAX` are the open ends); a negative step walks backwards.
    ///
    /// # Errors
    ///
    /// [`ValueRank`](ReshapeError::ValueRank) when `self` is 0-D,
    /// [`ZeroStep`](ReshapeError::ZeroStep) for `step == 0`.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::sym("T"), SymDim::from(768)]);
    /// assert_eq!(v.slice(0, -1, 1)?.to_string(), "[B, T]");
    /// assert_eq!(v.slice(-1, i64::MAX, 1)?.to_string(), "[768]");
    /// assert_eq!(v.slice(-1, i64::MIN, -1)?.to_string(), "[768, T, B]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn slice(&self, start: i64, end: i64, step: i64) -> Result<ShapeValue, ReshapeError> {
        let op = Written {
            name: "slice",
            operands: &[self, &start, &end, &step],
        };
        self.need_vector(&op, 0)?;
        if step == 0 {
            return Err(op.fail(Rule::ZeroStep, Some(3), "the step is 0".into()));
        }
        let n = self.entries.len() as i128;
        let resolve = |v: i64| {
            let v = v as i128;
            if v < 0 {
                v + n
            } else {
                v
            }
        };
        let (s, e) = (resolve(start), resolve(end));
        let mut out = Vec::new();
        if step > 0 {
            let (mut i, e) = (s.clamp(0, n), e.clamp(0, n));
            while i < e {
                out.push(self.entries[i as usize].clone());
                i += step as i128;
            }
        } else if n > 0 {
            let (mut i, e) = (s.clamp(0, n - 1), e.clamp(-1, n - 1));
            while i > e {
                out.push(self.entries[i as usize].clone());
                i += step as i128;
            }
        }
        let mut v = ShapeValue::vector(out);
        v.conditions.clone_from(&self.conditions);
        v.sizes.clone_from(&self.sizes);
        v.ty = self.ty;
        Ok(v)
    }

    /// ONNX `Concat` on axis 0 (Paddle `concat`): the 1-D values one after the other.
    ///
    /// # Errors
    ///
    /// [`ValueRank`](ReshapeError::ValueRank) for a 0-D value (the position is its index).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let b = ShapeValue::shape_of(&[SymDim::sym("B")]);
    /// let v = ShapeValue::concat(&[b, ShapeValue::from(vec![-1, 64])])?;
    /// assert_eq!(v.to_string(), "[B, -1, 64]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn concat(values: &[ShapeValue]) -> Result<ShapeValue, ReshapeError> {
        same_rank(values, "concat", false)?;
        let len: usize = values.iter().map(ShapeValue::len).sum();
        if len > MAX_ENTRIES {
            let list = List(values);
            let op = Written {
                name: "concat",
                operands: &[&list],
            };
            return Err(op.fail(
                Rule::ValueTooLong,
                None,
                format!("{len} entries; shape values hold at most {MAX_ENTRIES}"),
            ));
        }
        let entries = values.iter().flat_map(|v| v.entries.iter().cloned());
        let mut v = ShapeValue::vector(entries.collect());
        let all: Vec<&ShapeValue> = values.iter().collect();
        v.conditions = joined(&all);
        v.sizes = sizes(&all);
        v.ty = joined_ty(&all);
        Ok(v)
    }

    /// Paddle `stack` on axis 0 (of the 0-D scalars `builtin.combine` gathers): a 1-D value.
    ///
    /// # Errors
    ///
    /// [`ValueRank`](ReshapeError::ValueRank) for a 1-D value (stacking it would give rank 2).
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// let v = ShapeValue::stack(&[ShapeValue::scalar(0), ShapeValue::scalar(-1)])?;
    /// assert_eq!(v.to_string(), "[0, -1]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn stack(values: &[ShapeValue]) -> Result<ShapeValue, ReshapeError> {
        same_rank(values, "stack", true)?;
        ShapeValue::concat(&values.iter().map(ShapeValue::as_vector).collect::<Vec<_>>())
    }

    /// ONNX `Unsqueeze` (Paddle `unsqueeze`): a 0-D value as a 1-D value of one entry; `axis`
    /// is 0 or -1.
    ///
    /// # Errors
    ///
    /// [`ValueRank`](ReshapeError::ValueRank) when `self` is 1-D (shape values have rank 0 or
    /// 1), [`IndexOutOfRange`](ReshapeError::IndexOutOfRange) for another axis.
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// assert_eq!(ShapeValue::scalar(4).unsqueeze(0)?.to_string(), "[4]");
    /// assert!(ShapeValue::from(vec![4]).unsqueeze(0).is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn unsqueeze(&self, axis: i64) -> Result<ShapeValue, ReshapeError> {
        let op = Written {
            name: "unsqueeze",
            operands: &[self, &axis],
        };
        if !self.scalar {
            return Err(op.fail(
                Rule::ValueRank,
                Some(0),
                "the value is 1-D; unsqueezing it gives rank 2".into(),
            ));
        }
        if axis != 0 && axis != -1 {
            return Err(op.fail(
                Rule::IndexOutOfRange,
                Some(1),
                format!("axis {axis} is out of range for a 1-D result"),
            ));
        }
        Ok(self.as_vector())
    }

    /// ONNX `Squeeze` (Paddle `squeeze`, `slice` with `decrease_axis`): a 1-D value of one
    /// entry as a 0-D value; `axis` is 0 or -1.
    ///
    /// # Errors
    ///
    /// [`ValueRank`](ReshapeError::ValueRank) when `self` is 0-D,
    /// [`IndexOutOfRange`](ReshapeError::IndexOutOfRange) for another axis,
    /// [`LengthMismatch`](ReshapeError::LengthMismatch) when the length is not 1.
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// assert_eq!(ShapeValue::from(vec![4]).squeeze(0)?, ShapeValue::scalar(4));
    /// assert!(ShapeValue::from(vec![4, 5]).squeeze(0).is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn squeeze(&self, axis: i64) -> Result<ShapeValue, ReshapeError> {
        let op = Written {
            name: "squeeze",
            operands: &[self, &axis],
        };
        self.need_vector(&op, 0)?;
        if axis != 0 && axis != -1 {
            return Err(op.fail(
                Rule::IndexOutOfRange,
                Some(1),
                format!("axis {axis} is out of range for a 1-D value"),
            ));
        }
        if self.entries.len() != 1 {
            return Err(op.fail(
                Rule::LengthMismatch,
                Some(0),
                format!("the length is {}, not 1", self.entries.len()),
            ));
        }
        let mut v = self.clone();
        v.scalar = true;
        Ok(v)
    }

    /// The 1-D value of one entry of a 0-D value (itself when 1-D).
    pub(super) fn as_vector(&self) -> ShapeValue {
        let mut v = self.clone();
        v.scalar = false;
        v
    }

    fn need_vector(&self, op: &Written<'_>, operand: usize) -> Result<(), ReshapeError> {
        if self.scalar {
            return Err(op.fail(
                Rule::ValueRank,
                Some(operand),
                format!("{} takes a 1-D value, got the 0-D {self}", op.name),
            ));
        }
        Ok(())
    }
}

/// The failure of the first of `values` that is not 0-D (`scalar`) or not 1-D, for `name`
/// (`stack` takes scalars, `concat` 1-D values).
fn same_rank(values: &[ShapeValue], name: &'static str, scalar: bool) -> Result<(), ReshapeError> {
    let Some(p) = values.iter().position(|v| v.scalar != scalar) else {
        return Ok(());
    };
    let why = match scalar {
        true => format!("value {p} ({}) is 1-D; stacking it gives rank 2", values[p]),
        false => format!("value {p} ({}) is 0-D; concat takes 1-D values", values[p]),
    };
    let list = List(values);
    let op = Written {
        name,
        operands: &[&list],
    };
    Err(op.fail(Rule::ValueRank, Some(p), why))
}

//! The shape operations on [`ShapeValue`]s, with each framework's semantics: ONNX `Gather`,
//! `Slice`, `Concat`, `Unsqueeze`, `Squeeze`, `Mul`, `Div`, and Paddle's `stack` and
//! `floor_divide`. Arithmetic on symbolic entries is exact or carries the [`Condition`] it
//! needs; it never rounds.

use std::fmt;

use super::value::{add, joined, Entry};
use super::{integer, Condition, Exact, ShapeValue, SymDim};
use crate::error::{Dialect, Fail, ReshapeError, Rule};

/// The operation in a shape-op error: its name and its operands as written.
struct Op<'a> {
    name: &'static str,
    operands: &'a [&'a dyn fmt::Display],
}

impl Op<'_> {
    #[cold]
    #[inline(never)]
    fn fail(&self, rule: Rule, operand: Option<usize>, detail: String) -> ReshapeError {
        let args: Vec<String> = self.operands.iter().map(|o| o.to_string()).collect();
        let written = format!("{}({})", self.name, args.join(", "));
        Fail::new(rule, operand, detail).attach_no_input(Dialect::ShapeOp, written)
    }
}

/// A list of values, written as `[v1, v2]` in an error.
struct List<'a>(&'a [ShapeValue]);

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
        let op = Op {
            name: "gather",
            operands: &[self, indices],
        };
        self.need_vector(&op, 0)?;
        let n = self.entries.len();
        let mut out = Vec::with_capacity(indices.entries.len());
        for e in &indices.entries {
            let i = match *e {
                Entry::Int(i) => i,
                Entry::Sym(d) => {
                    return Err(op.fail(
                        Rule::NeedsNumber,
                        Some(1),
                        format!("the index {d} is symbolic"),
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
            out.push(self.entries[at as usize]);
        }
        Ok(ShapeValue {
            scalar: indices.scalar,
            entries: out,
            conditions: joined(&[self, indices]),
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
        let op = Op {
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
                out.push(self.entries[i as usize]);
                i += step as i128;
            }
        } else if n > 0 {
            let (mut i, e) = (s.clamp(0, n - 1), e.clamp(-1, n - 1));
            while i > e {
                out.push(self.entries[i as usize]);
                i += step as i128;
            }
        }
        let mut v = ShapeValue::vector(out);
        v.conditions.clone_from(&self.conditions);
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
        let list = List(values);
        let op = Op {
            name: "concat",
            operands: &[&list],
        };
        if let Some(p) = values.iter().position(|v| v.scalar) {
            return Err(op.fail(
                Rule::ValueRank,
                Some(p),
                format!("value {p} ({}) is 0-D; concat takes 1-D values", values[p]),
            ));
        }
        let entries = values.iter().flat_map(|v| v.entries.iter().copied());
        let mut v = ShapeValue::vector(entries.collect());
        v.conditions = joined(&values.iter().collect::<Vec<_>>());
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
        let list = List(values);
        let op = Op {
            name: "stack",
            operands: &[&list],
        };
        if let Some(p) = values.iter().position(|v| !v.scalar) {
            return Err(op.fail(
                Rule::ValueRank,
                Some(p),
                format!("value {p} ({}) is 1-D; stacking it gives rank 2", values[p]),
            ));
        }
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
        let op = Op {
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
        let op = Op {
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

    /// ONNX `Mul` (Paddle `multiply`): entry by entry, with broadcasting (a 0-D value or a
    /// single entry against any length).
    ///
    /// # Errors
    ///
    /// [`LengthMismatch`](ReshapeError::LengthMismatch) for lengths that do not broadcast,
    /// [`Overflow`](ReshapeError::Overflow) past `i64`,
    /// [`NeedsNumber`](ReshapeError::NeedsNumber) for a negative number times a symbolic size,
    /// [`SymbolLimit`](ReshapeError::SymbolLimit) past the symbolic range.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::from(12)]);
    /// assert_eq!(v.mul(&ShapeValue::scalar(64))?.to_string(), "[64*B, 768]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn mul(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        let op = Op {
            name: "mul",
            operands: &[self, other],
        };
        self.zip(other, &op, |a, b| match (a, b) {
            (Entry::Int(x), Entry::Int(y)) => x
                .checked_mul(y)
                .map(|v| (Entry::Int(v), None))
                .ok_or_else(|| (Rule::Overflow, format!("{x} * {y} overflows i64"))),
            (Entry::Int(0), Entry::Sym(_)) | (Entry::Sym(_), Entry::Int(0)) => {
                Ok((Entry::Int(0), None))
            }
            (Entry::Int(k), Entry::Sym(d)) | (Entry::Sym(d), Entry::Int(k)) if k < 0 => {
                Err(negative(k, d))
            }
            (a, b) => sym_result(as_sym(a) * as_sym(b)).map(|e| (e, None)),
        })
    }

    /// ONNX `Div` on integers: entry by entry with broadcasting, truncating toward zero. On
    /// symbolic entries the quotient is exact, or holds under the condition that it is an
    /// integer (`T % 2 == 0`), which joins [`conditions`](Self::conditions).
    ///
    /// # Errors
    ///
    /// [`DivisionByZero`](ReshapeError::DivisionByZero),
    /// [`InexactDivision`](ReshapeError::InexactDivision) for a symbolic quotient that is an
    /// integer for no value of the symbols, [`Overflow`](ReshapeError::Overflow)
    /// (`i64::MIN / -1`), [`NeedsNumber`](ReshapeError::NeedsNumber) for a negative number
    /// with a symbolic size, and as for [`mul`](Self::mul).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let n = ShapeValue::from(SymDim::from(64) * SymDim::sym("B"));
    /// assert_eq!(n.div(&ShapeValue::scalar(64))?, ShapeValue::from(SymDim::sym("B")));
    /// assert_eq!(ShapeValue::scalar(-7).div(&ShapeValue::scalar(2))?, ShapeValue::scalar(-3));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn div(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.divide(other, "div", false)
    }

    /// Paddle `floor_divide` (NumPy `//`): as [`div`](Self::div), rounding toward negative
    /// infinity on integers.
    ///
    /// # Errors
    ///
    /// As for [`div`](Self::div).
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// assert_eq!(ShapeValue::scalar(-7).floor_div(&ShapeValue::scalar(2))?, ShapeValue::scalar(-4));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn floor_div(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.divide(other, "floor_div", true)
    }

    fn divide(
        &self,
        other: &ShapeValue,
        name: &'static str,
        floor: bool,
    ) -> Result<ShapeValue, ReshapeError> {
        let op = Op {
            name,
            operands: &[self, other],
        };
        self.zip(other, &op, |a, b| match (a, b) {
            (_, Entry::Int(0)) => Err((Rule::DivisionByZero, format!("{a} / 0"))),
            (Entry::Int(x), Entry::Int(y)) => {
                let q = x
                    .checked_div(y)
                    .ok_or_else(|| (Rule::Overflow, format!("{x} / {y} overflows i64")))?;
                let down = floor && x % y != 0 && ((x < 0) != (y < 0));
                Ok((Entry::Int(if down { q - 1 } else { q }), None))
            }
            (Entry::Int(0), Entry::Sym(_)) => Ok((Entry::Int(0), None)),
            (Entry::Int(k), Entry::Sym(d)) | (Entry::Sym(d), Entry::Int(k)) if k < 0 => {
                Err(negative(k, d))
            }
            (a, b) => {
                let q = as_sym(a) / as_sym(b);
                let e = sym_result(q)?;
                match integer(q) {
                    Exact::Always => Ok((e, None)),
                    Exact::Sometimes(c) => Ok((e, Some(c))),
                    Exact::Never => Err((
                        Rule::InexactDivision,
                        format!("{a} / {b} is an integer for no value of the symbols"),
                    )),
                }
            }
        })
    }

    /// The 1-D value of one entry of a 0-D value (itself when 1-D).
    fn as_vector(&self) -> ShapeValue {
        let mut v = self.clone();
        v.scalar = false;
        v
    }

    fn need_vector(&self, op: &Op<'_>, operand: usize) -> Result<(), ReshapeError> {
        if self.scalar {
            return Err(op.fail(
                Rule::ValueRank,
                Some(operand),
                format!("{} takes a 1-D value, got the 0-D {self}", op.name),
            ));
        }
        Ok(())
    }

    /// `f` entry by entry with broadcasting (0-D, or one entry, against any length); the
    /// result is 0-D when both are. The conditions are both operands' and `f`'s.
    fn zip(
        &self,
        other: &ShapeValue,
        op: &Op<'_>,
        f: impl Fn(Entry, Entry) -> Result<(Entry, Option<Condition>), (Rule, String)>,
    ) -> Result<ShapeValue, ReshapeError> {
        let (m, n) = (self.entries.len(), other.entries.len());
        let len = match (m, n) {
            _ if m == n => m,
            (1, _) => n,
            (_, 1) => m,
            _ => {
                return Err(op.fail(
                    Rule::LengthMismatch,
                    Some(1),
                    format!("lengths {m} and {n} do not broadcast"),
                ))
            }
        };
        let mut out = ShapeValue {
            scalar: self.scalar && other.scalar,
            entries: Vec::with_capacity(len),
            conditions: joined(&[self, other]),
        };
        for i in 0..len {
            let a = self.entries[if m == 1 { 0 } else { i }];
            let b = other.entries[if n == 1 { 0 } else { i }];
            let (e, c) = f(a, b).map_err(|(rule, detail)| op.fail(rule, Some(1), detail))?;
            out.entries.push(e);
            if let Some(c) = c {
                add(&mut out.conditions, c);
            }
        }
        Ok(out)
    }
}

/// A known integer `k >= 0` or a symbolic entry as a [`SymDim`].
fn as_sym(e: Entry) -> SymDim {
    match e {
        // `k >= 0` here: the callers deal with negative numbers first.
        Entry::Int(k) => SymDim::from(k as usize),
        Entry::Sym(d) => d,
    }
}

/// A symbolic result as an entry, or the failure of a product past the symbolic range.
fn sym_result(d: SymDim) -> Result<Entry, (Rule, String)> {
    if !d.is_valid() {
        return Err((
            Rule::SymbolLimit,
            "the result passes the symbolic range (a coefficient past isize::MAX, more than 4 \
             symbols or a power past 127)"
                .into(),
        ));
    }
    Ok(Entry::of(d))
}

/// The failure of a negative number met with a symbolic size (whose result has no sign a
/// [`SymDim`] can hold).
fn negative(k: i64, d: SymDim) -> (Rule, String) {
    (
        Rule::NeedsNumber,
        format!("the negative {k} meets the symbolic {d}; symbolic entries are sizes"),
    )
}

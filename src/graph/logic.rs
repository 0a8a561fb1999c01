//! Comparisons, logic and selection on shape values: ONNX `Equal`, `Less`, `Greater`,
//! `LessOrEqual`, `GreaterOrEqual`, `Not`, `And`, `Or`, `Xor`, `Where` and Paddle's `equal`,
//! `not_equal`, `less_than`, `logical_*` and `where`. Results are 0/1 entries, decided where the
//! symbols' bounds decide them and exact expressions otherwise.

use super::ops::Written;
use super::value::{joined, joined_ty, sizes};
use super::ShapeValue;
use crate::error::ReshapeError;
use crate::sym::SymDim;

/// `1` where `d` is non-zero, else `0`: how the logic operators read an entry.
fn truthy(d: SymDim) -> SymDim {
    SymDim::from(1) - d.equal(&SymDim::from(0))
}

impl ShapeValue {
    /// ONNX `Equal` (Paddle `equal`): 1 where the entries are equal, else 0; decided where
    /// the symbols' bounds decide it (a size is never `-1`).
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::from(64)]);
    /// assert_eq!(v.equal(&ShapeValue::scalar(-1))?.to_string(), "[0, 0]");
    /// assert_eq!(v.equal(&ShapeValue::scalar(64))?.to_string(), "[(64 == B), 1]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn equal(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "equal", |a, b| Ok(a.equal(&b)))
    }

    /// ONNX `Less` (Paddle `less_than`): 1 where `self < other`, else 0.
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let b = ShapeValue::from(SymDim::sym("B"));
    /// assert_eq!(ShapeValue::scalar(0).less(&b)?, ShapeValue::scalar(1));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn less(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "less", |a, b| Ok(a.less(&b)))
    }

    /// ONNX `Not(Equal)` (Paddle `not_equal`): 1 where the entries differ, else 0.
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let b = ShapeValue::from(SymDim::sym("B"));
    /// assert_eq!(b.not_equal(&ShapeValue::scalar(0))?, ShapeValue::scalar(1));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn not_equal(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "not_equal", |a, b| Ok(SymDim::from(1) - a.equal(&b)))
    }

    /// ONNX `LessOrEqual` (Paddle `less_equal`): 1 where `self <= other`, else 0.
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let b = ShapeValue::from(SymDim::sym("B"));
    /// assert_eq!(ShapeValue::scalar(1).less_equal(&b)?, ShapeValue::scalar(1));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn less_equal(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "less_equal", |a, b| Ok(a.less_equal(&b)))
    }

    /// ONNX `Greater` (Paddle `greater_than`): 1 where `self > other`, else 0.
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let t = ShapeValue::from(SymDim::sym("T"));
    /// let long = t.greater(&ShapeValue::scalar(512))?;
    /// assert_eq!(long.eval(&[("T", 600)]), Some(vec![1]));
    /// assert_eq!(long.eval(&[("T", 12)]), Some(vec![0]));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn greater(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "greater", |a, b| Ok(b.less(&a)))
    }

    /// ONNX `GreaterOrEqual` (Paddle `greater_equal`): 1 where `self >= other`, else 0.
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let b = ShapeValue::from(SymDim::sym("B"));
    /// assert_eq!(b.greater_equal(&ShapeValue::scalar(1))?, ShapeValue::scalar(1));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn greater_equal(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "greater_equal", |a, b| Ok(b.less_equal(&a)))
    }

    /// ONNX `Not` (Paddle `logical_not`): 1 where the entry is 0, else 0.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::from(vec![0, 1, 5]);
    /// assert_eq!(v.logical_not(), ShapeValue::from(vec![1, 0, 0]));
    /// let b = ShapeValue::from(SymDim::sym("B"));
    /// assert_eq!(b.logical_not(), ShapeValue::scalar(0)); // a size is never 0
    /// ```
    pub fn logical_not(&self) -> ShapeValue {
        let mut v = self.clone();
        for e in &mut v.entries {
            *e = e.equal(&SymDim::from(0));
        }
        v
    }

    /// ONNX `And` (Paddle `logical_and`): 1 where both entries are non-zero, else 0, with
    /// broadcasting.
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let t = ShapeValue::from(SymDim::sym("T"));
    /// let inside = t.greater(&ShapeValue::scalar(2))?.logical_and(&t.less(&ShapeValue::scalar(9))?)?;
    /// assert_eq!(inside.eval(&[("T", 5)]), Some(vec![1]));
    /// assert_eq!(inside.eval(&[("T", 9)]), Some(vec![0]));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn logical_and(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "logical_and", |a, b| Ok(truthy(a) * truthy(b)))
    }

    /// ONNX `Or` (Paddle `logical_or`): 1 where either entry is non-zero, else 0.
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// let v = ShapeValue::from(vec![0, 0, 3]).logical_or(&ShapeValue::from(vec![0, 2, 0]))?;
    /// assert_eq!(v, ShapeValue::from(vec![0, 1, 1]));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn logical_or(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "logical_or", |a, b| {
            Ok(SymDim::from(1) - a.equal(&SymDim::from(0)) * b.equal(&SymDim::from(0)))
        })
    }

    /// ONNX `Xor` (Paddle `logical_xor`): 1 where exactly one entry is non-zero, else 0.
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// let v = ShapeValue::from(vec![0, 4, 3]).logical_xor(&ShapeValue::from(vec![0, 2, 0]))?;
    /// assert_eq!(v, ShapeValue::from(vec![0, 0, 1]));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn logical_xor(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "logical_xor", |a, b| {
            Ok(SymDim::from(1) - truthy(a).equal(&truthy(b)))
        })
    }

    /// ONNX `Where`: `if_true` where `cond` is non-zero, else `if_false`, entry by entry with
    /// broadcasting; decided where the symbols' bounds decide `cond`.
    ///
    /// # Errors
    ///
    /// [`LengthMismatch`](ReshapeError::LengthMismatch) for lengths that do not broadcast.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// // TorchScript's expand guard, Where(Equal(s, -1), 1, s): a size is never -1.
    /// let s = ShapeValue::concat(&[ShapeValue::shape_of(&[SymDim::sym("B")]), ShapeValue::from(vec![-1])])?;
    /// let guarded = ShapeValue::select(&s.equal(&ShapeValue::scalar(-1))?, &ShapeValue::scalar(1), &s)?;
    /// assert_eq!(guarded.to_string(), "[B, 1]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn select(
        cond: &ShapeValue,
        if_true: &ShapeValue,
        if_false: &ShapeValue,
    ) -> Result<ShapeValue, ReshapeError> {
        let lens = [cond.len(), if_true.len(), if_false.len()];
        let op = Written {
            name: "select",
            operands: &[cond, if_true, if_false],
        };
        let len = op.broadcast(&lens)?;
        let entries = (0..len)
            .map(|i| cond.at(i).select(if_true.at(i), if_false.at(i)))
            .collect();
        let all = [cond, if_true, if_false];
        Ok(ShapeValue {
            scalar: cond.scalar && if_true.scalar && if_false.scalar,
            entries,
            conditions: joined(&all),
            sizes: sizes(&all),
            ty: joined_ty(&[if_true, if_false]),
        })
    }
}

//! The one error type of the crate, [`ReshapeError`].

use std::fmt;

/// The reshape dialect a spec belongs to, named in every error message.
///
/// ```
/// use ndarray_reshape::{Dialect, Paddle, ShapeSpec};
///
/// let err = Paddle::new(&[-2]).infer_shape(&[2]).unwrap_err();
/// assert_eq!(err.context().dialect, Dialect::Paddle);
/// assert!(err.to_string().contains("paddle spec [-2]"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// MXNet `Reshape` with `shape` / `reverse` ([`Mx`](crate::Mx)).
    Mx,
    /// MXNet `Reshape` with the deprecated `target_shape` / `keep_highest`
    /// ([`MxTarget`](crate::MxTarget)).
    MxLegacy,
    /// MXNet `reshape_like` ([`Like`](crate::Like)).
    Like,
    /// Paddle `reshape` ([`Paddle`](crate::Paddle)).
    Paddle,
    /// NumPy `reshape` ([`Np`](crate::Np)).
    Np,
    /// MXNet 2.x `npx.reshape` ([`Npx`](crate::Npx)).
    Npx,
    /// ONNX `Reshape` ([`Onnx`](crate::Onnx)).
    Onnx,
}

impl Dialect {
    /// The short lowercase name used in messages (`"mxnet"`, `"paddle"`, ...).
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::Dialect::Np.name(), "numpy");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Mx => "mxnet",
            Dialect::MxLegacy => "mxnet target_shape",
            Dialect::Like => "reshape_like",
            Dialect::Paddle => "paddle",
            Dialect::Np => "numpy",
            Dialect::Npx => "mxnet npx",
            Dialect::Onnx => "onnx",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The evidence an error carries: what was asked, of what, and where it went wrong.
///
/// ```
/// use ndarray_reshape::{Mx, ShapeSpec};
///
/// let err = Mx::new(&[2, -1, -1]).infer_shape(&[2, 3, 4]).unwrap_err();
/// let ctx = err.context();
/// assert_eq!(ctx.input, vec![2, 3, 4]);
/// assert_eq!(ctx.spec, "[2, -1, -1]");
/// assert_eq!(ctx.position, Some(2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorContext {
    /// The dialect of the spec.
    pub dialect: Dialect,
    /// The input shape the spec was applied to.
    pub input: Vec<usize>,
    /// The spec as the caller wrote it (with its flags, e.g. `reverse`).
    pub spec: String,
    /// The index in the written spec of the entry that broke the rule, when one entry did.
    pub position: Option<usize>,
    /// What exactly went wrong, in a few words.
    pub detail: String,
}

impl fmt::Display for ErrorContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; input shape {:?}, {} spec {}",
            self.detail, self.input, self.dialect, self.spec
        )?;
        if let Some(p) = self.position {
            write!(f, ", position {p}")?;
        }
        Ok(())
    }
}

/// Every way a reshape can fail. One variant per broken rule.
///
/// Each variant carries a boxed [`ErrorContext`] (so the `Ok` path stays small) with the input
/// shape, the spec, the offending position and a short detail. The message starts with the rule's
/// name, which is also returned by [`category`](Self::category).
///
/// ```
/// use ndarray_reshape::{Np, Order, ReshapeError, ShapeSpec};
///
/// let err = Np::new(&[5, -1], Order::C).infer_shape(&[2, 3]).unwrap_err();
/// assert!(matches!(err, ReshapeError::InferNotDivisible(_)));
/// assert_eq!(err.category(), "infer_not_divisible");
/// assert_eq!(
///     err.to_string(),
///     "infer_not_divisible: the other dims multiply to 5, which does not divide the size 6; \
///      input shape [2, 3], numpy spec [5, -1] order C, position 1"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReshapeError {
    /// A spec value the dialect does not accept (e.g. MXNet `< -4`, NumPy or Paddle `< -1`).
    #[error("bad_value: {0}")]
    BadValue(Box<ErrorContext>),
    /// More than one top-level `-1`.
    #[error("multiple_infer: {0}")]
    MultipleInfer(Box<ErrorContext>),
    /// MXNet `0`, `-3` or `-4` needing an input dim that is not there.
    #[error("out_of_input: {0}")]
    OutOfInput(Box<ErrorContext>),
    /// MXNet `-4` without two values after it.
    #[error("split_incomplete: {0}")]
    SplitIncomplete(Box<ErrorContext>),
    /// MXNet `-4 -1 -1`.
    #[error("split_both_infer: {0}")]
    SplitBothInfer(Box<ErrorContext>),
    /// MXNet `-4 a b` that does not split the input dim.
    #[error("split_mismatch: {0}")]
    SplitMismatch(Box<ErrorContext>),
    /// MXNet `keep_highest` with an empty `target_shape` or a 0-d input.
    #[error("keep_highest_empty: {0}")]
    KeepHighestEmpty(Box<ErrorContext>),
    /// Paddle `0` at an index at or past the input rank, on a non-empty input.
    #[error("zero_out_of_rank: {0}")]
    ZeroOutOfRank(Box<ErrorContext>),
    /// A product of dims exceeds `isize::MAX` (zero dims left out).
    #[error("overflow: {0}")]
    Overflow(Box<ErrorContext>),
    /// A `-1` (or the single legacy `0`) whose other dims multiply to 0.
    #[error("infer_zero_product: {0}")]
    InferZeroProduct(Box<ErrorContext>),
    /// A `-1` (or the single legacy `0`) whose other dims do not divide the size.
    #[error("infer_not_divisible: {0}")]
    InferNotDivisible(Box<ErrorContext>),
    /// Paddle: zero-size input with a `-1` and a `0`, where the inferred dim could be anything.
    #[error("infer_ambiguous: {0}")]
    InferAmbiguous(Box<ErrorContext>),
    /// Paddle: zero-size input with a `-1` and more `0`s than the input has, non-zero dims differ.
    #[error("zero_size_mismatch: {0}")]
    ZeroSizeMismatch(Box<ErrorContext>),
    /// `reshape_like` begin/end out of range, or an empty range.
    #[error("range_invalid: {0}")]
    RangeInvalid(Box<ErrorContext>),
    /// The output's element count differs from the input's.
    #[error("size_mismatch: {0}")]
    SizeMismatch(Box<ErrorContext>),
    /// MXNet `npx.reshape` `-3` on an input dim that is not 1.
    #[error("drop_not_one: {0}")]
    DropNotOne(Box<ErrorContext>),
    /// ONNX with `allowzero`: the shape holds both a `0` and a `-1`.
    #[error("allowzero_with_infer: {0}")]
    AllowzeroWithInfer(Box<ErrorContext>),
    /// A strict method (`reshape_view`, `reshape_view_mut`, `into_reshape`) was asked for a
    /// reshape that needs a copy with these strides.
    #[error("needs_copy: {0}")]
    NeedsCopy(Box<ErrorContext>),
    /// A spec value of the caller's integer type that does not fit in `i64`.
    #[error("value_does_not_fit: {0}")]
    ValueDoesNotFit(Box<ErrorContext>),
    /// A shape tensor entry that is not a 0-d or one-element integer array.
    #[error("bad_shape_tensor: {0}")]
    BadShapeTensor(Box<ErrorContext>),
    /// [`reshape_copy_into`](crate::ReshapeExt::reshape_copy_into) was given an output buffer
    /// whose length is not the array's element count.
    #[error("output_length: {0}")]
    OutputLength(Box<ErrorContext>),
    /// A rank-typed method (such as
    /// [`reshape_with_dim`](crate::ReshapeExt::reshape_with_dim)) was asked for a dimension
    /// type whose rank differs from the rank the spec gives.
    #[error("rank_mismatch: {0}")]
    RankMismatch(Box<ErrorContext>),
}

/// The rule a spec broke, without the evidence. Internal: the dialects report a [`Fail`] and the
/// spec type wraps it with its context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    BadValue,
    MultipleInfer,
    OutOfInput,
    SplitIncomplete,
    SplitBothInfer,
    SplitMismatch,
    KeepHighestEmpty,
    ZeroOutOfRank,
    Overflow,
    InferZeroProduct,
    InferNotDivisible,
    InferAmbiguous,
    ZeroSizeMismatch,
    RangeInvalid,
    SizeMismatch,
    DropNotOne,
    AllowzeroWithInfer,
    NeedsCopy,
    ValueDoesNotFit,
    BadShapeTensor,
    OutputLength,
    RankMismatch,
}

/// A broken rule found by a dialect's inference, before the context is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fail {
    pub rule: Rule,
    pub position: Option<usize>,
    pub detail: String,
}

impl Fail {
    pub(crate) fn new(rule: Rule, position: Option<usize>, detail: impl Into<String>) -> Self {
        Fail {
            rule,
            position,
            detail: detail.into(),
        }
    }

    pub(crate) fn at(rule: Rule, position: usize, detail: impl Into<String>) -> Self {
        Fail::new(rule, Some(position), detail)
    }

    pub(crate) fn whole(rule: Rule, detail: impl Into<String>) -> Self {
        Fail::new(rule, None, detail)
    }
}

impl ReshapeError {
    pub(crate) fn from_rule(rule: Rule, ctx: ErrorContext) -> Self {
        let b = Box::new(ctx);
        match rule {
            Rule::BadValue => ReshapeError::BadValue(b),
            Rule::MultipleInfer => ReshapeError::MultipleInfer(b),
            Rule::OutOfInput => ReshapeError::OutOfInput(b),
            Rule::SplitIncomplete => ReshapeError::SplitIncomplete(b),
            Rule::SplitBothInfer => ReshapeError::SplitBothInfer(b),
            Rule::SplitMismatch => ReshapeError::SplitMismatch(b),
            Rule::KeepHighestEmpty => ReshapeError::KeepHighestEmpty(b),
            Rule::ZeroOutOfRank => ReshapeError::ZeroOutOfRank(b),
            Rule::Overflow => ReshapeError::Overflow(b),
            Rule::InferZeroProduct => ReshapeError::InferZeroProduct(b),
            Rule::InferNotDivisible => ReshapeError::InferNotDivisible(b),
            Rule::InferAmbiguous => ReshapeError::InferAmbiguous(b),
            Rule::ZeroSizeMismatch => ReshapeError::ZeroSizeMismatch(b),
            Rule::RangeInvalid => ReshapeError::RangeInvalid(b),
            Rule::SizeMismatch => ReshapeError::SizeMismatch(b),
            Rule::DropNotOne => ReshapeError::DropNotOne(b),
            Rule::AllowzeroWithInfer => ReshapeError::AllowzeroWithInfer(b),
            Rule::NeedsCopy => ReshapeError::NeedsCopy(b),
            Rule::ValueDoesNotFit => ReshapeError::ValueDoesNotFit(b),
            Rule::BadShapeTensor => ReshapeError::BadShapeTensor(b),
            Rule::OutputLength => ReshapeError::OutputLength(b),
            Rule::RankMismatch => ReshapeError::RankMismatch(b),
        }
    }

    /// The evidence: input shape, spec, offending position, detail.
    ///
    /// ```
    /// use ndarray_reshape::{Paddle, ShapeSpec};
    ///
    /// let err = Paddle::new(&[-2, 24]).infer_shape(&[2, 4, 6]).unwrap_err();
    /// assert_eq!(err.context().position, Some(0));
    /// ```
    pub fn context(&self) -> &ErrorContext {
        match self {
            ReshapeError::BadValue(c)
            | ReshapeError::MultipleInfer(c)
            | ReshapeError::OutOfInput(c)
            | ReshapeError::SplitIncomplete(c)
            | ReshapeError::SplitBothInfer(c)
            | ReshapeError::SplitMismatch(c)
            | ReshapeError::KeepHighestEmpty(c)
            | ReshapeError::ZeroOutOfRank(c)
            | ReshapeError::Overflow(c)
            | ReshapeError::InferZeroProduct(c)
            | ReshapeError::InferNotDivisible(c)
            | ReshapeError::InferAmbiguous(c)
            | ReshapeError::ZeroSizeMismatch(c)
            | ReshapeError::RangeInvalid(c)
            | ReshapeError::SizeMismatch(c)
            | ReshapeError::DropNotOne(c)
            | ReshapeError::AllowzeroWithInfer(c)
            | ReshapeError::NeedsCopy(c)
            | ReshapeError::ValueDoesNotFit(c)
            | ReshapeError::BadShapeTensor(c)
            | ReshapeError::OutputLength(c)
            | ReshapeError::RankMismatch(c) => c,
        }
    }

    /// The name of the broken rule, as used in the conformance files (`"bad_value"`,
    /// `"size_mismatch"`, ...). It is also the first word of the message.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    ///
    /// let err = Mx::new(&[5, 5]).infer_shape(&[2, 3, 4]).unwrap_err();
    /// assert_eq!(err.category(), "size_mismatch");
    /// ```
    pub fn category(&self) -> &'static str {
        match self {
            ReshapeError::BadValue(_) => "bad_value",
            ReshapeError::MultipleInfer(_) => "multiple_infer",
            ReshapeError::OutOfInput(_) => "out_of_input",
            ReshapeError::SplitIncomplete(_) => "split_incomplete",
            ReshapeError::SplitBothInfer(_) => "split_both_infer",
            ReshapeError::SplitMismatch(_) => "split_mismatch",
            ReshapeError::KeepHighestEmpty(_) => "keep_highest_empty",
            ReshapeError::ZeroOutOfRank(_) => "zero_out_of_rank",
            ReshapeError::Overflow(_) => "overflow",
            ReshapeError::InferZeroProduct(_) => "infer_zero_product",
            ReshapeError::InferNotDivisible(_) => "infer_not_divisible",
            ReshapeError::InferAmbiguous(_) => "infer_ambiguous",
            ReshapeError::ZeroSizeMismatch(_) => "zero_size_mismatch",
            ReshapeError::RangeInvalid(_) => "range_invalid",
            ReshapeError::SizeMismatch(_) => "size_mismatch",
            ReshapeError::DropNotOne(_) => "drop_not_one",
            ReshapeError::AllowzeroWithInfer(_) => "allowzero_with_infer",
            ReshapeError::NeedsCopy(_) => "needs_copy",
            ReshapeError::ValueDoesNotFit(_) => "value_does_not_fit",
            ReshapeError::BadShapeTensor(_) => "bad_shape_tensor",
            ReshapeError::OutputLength(_) => "output_length",
            ReshapeError::RankMismatch(_) => "rank_mismatch",
        }
    }
}

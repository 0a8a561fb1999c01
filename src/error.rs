//! The one error type of the crate, [`ReshapeError`].
#![forbid(unsafe_code)]

use std::fmt;

/// Where an error comes from, named in every message: the dialect of a reshape spec, an
/// operation on shape values, or ndarray's conversion of a result.
///
/// ```
/// use ndarray_reshape::{Origin, Paddle, ShapeSpec};
///
/// let err = Paddle::new([-2]).infer_shape(&[2]).unwrap_err();
/// assert_eq!(err.context().origin(), Origin::Paddle);
/// assert!(err.to_string().contains("paddle spec [-2]"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Origin {
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
    /// An einops pattern ([`Rearrange`](crate::Rearrange)).
    Rearrange,
    /// No reshape spec: an operation on [`ShapeValue`](crate::ShapeValue)s (`gather`, `slice`,
    /// ...), named with its operands in the message.
    ShapeOp,
    /// No reshape spec: ndarray's conversion of a result's dimension type
    /// ([`IntoDim::into_dim`](crate::IntoDim::into_dim)).
    Ndarray,
    /// No reshape spec: a strided view of a plain slice ([`StridedSlice`](crate::StridedSlice)),
    /// named by its strides, offset and slice length, its axis as the position.
    Strided,
    /// No reshape spec: symbols bound to a concrete shape ([`SymDim::bind`](crate::SymDim::bind))
    /// or assumptions applied ([`Assumptions`](crate::Assumptions)).
    Symbols,
    /// No reshape spec: a conversion's parameters or a blocked layout
    /// ([`convert`](crate::convert)), named by the call.
    Convert,
    /// No reshape spec: a node of a whole graph walked for its tensors' shapes
    /// ([`Graph::infer`](crate::Graph::infer)), named as `name (OpType)` with its input
    /// shapes; the position is the node's input or output.
    Graph,
}

impl Origin {
    /// The short lowercase name used in messages (`"mxnet"`, `"paddle"`, ...).
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::Origin::Np.name(), "numpy");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Origin::Mx => "mxnet",
            Origin::MxLegacy => "mxnet target_shape",
            Origin::Like => "reshape_like",
            Origin::Paddle => "paddle",
            Origin::Np => "numpy",
            Origin::Npx => "mxnet npx",
            Origin::Onnx => "onnx",
            Origin::Rearrange => "einops",
            Origin::ShapeOp => "shape op",
            Origin::Ndarray => "ndarray",
            Origin::Strided => "strided slice",
            Origin::Symbols => "symbols",
            Origin::Convert => "convert",
            Origin::Graph => "graph node",
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The evidence an error carries: what was asked, of what, and where it went wrong.
///
/// ```
/// use ndarray_reshape::{Mx, ShapeSpec};
///
/// let err = Mx::new([2, -1, -1]).infer_shape(&[2, 3, 4]).unwrap_err();
/// let ctx = err.context();
/// assert_eq!(ctx.input(), &[2, 3, 4]);
/// assert_eq!(ctx.spec(), "[2, -1, -1]");
/// assert_eq!(ctx.position(), Some(2));
/// ```
///
/// Each part is read through its accessor, so that more evidence can be added without breaking
/// code that reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorContext {
    origin: Origin,
    input: Vec<usize>,
    spec: String,
    position: Option<usize>,
    detail: String,
    /// How the input is shown in the message.
    shown: Shown,
}

/// The input of an error as its message shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shown {
    /// All numbers: [`ErrorContext::input`].
    Concrete,
    /// Written out, not all numbers: a symbolic inference's (`[N, 3, 5]`) or a backward
    /// inference's with its unknown dim (`[?, 5, 4]`); `input` is empty.
    Written(String),
    /// No input: a spec that fails before it meets one (an attribute that does not parse).
    Absent,
}

impl ErrorContext {
    /// Where the error comes from: the spec's dialect, a shape-value operation, or ndarray.
    ///
    /// ```
    /// use ndarray_reshape::{Origin, Paddle, ShapeSpec};
    /// let err = Paddle::new([-2]).infer_shape(&[2]).unwrap_err();
    /// assert_eq!(err.context().origin(), Origin::Paddle);
    /// ```
    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// The input shape the spec was applied to.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// let err = Mx::new([5]).infer_shape(&[2, 3]).unwrap_err();
    /// assert_eq!(err.context().input(), &[2, 3]);
    /// ```
    pub fn input(&self) -> &[usize] {
        &self.input
    }

    /// The spec as the caller wrote it, with its flags.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// let err = Mx::new([5]).reverse(true).infer_shape(&[2, 3]).unwrap_err();
    /// assert_eq!(err.context().spec(), "[5] reverse");
    /// ```
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// The index in the written spec of the entry that broke the rule, when one entry did.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// let err = Mx::new([2, -1, -1]).infer_shape(&[2, 3, 4]).unwrap_err();
    /// assert_eq!(err.context().position(), Some(2));
    /// ```
    pub fn position(&self) -> Option<usize> {
        self.position
    }

    /// What exactly went wrong, in a few words.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// let err = Mx::new([2, -1, -1]).infer_shape(&[2, 3, 4]).unwrap_err();
    /// assert_eq!(err.context().detail(), "a second -1");
    /// ```
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// The input shape as written when it is not all numbers: that of a failed symbolic
    /// inference ([`ShapeSpec::infer_symbolic`](crate::ShapeSpec::infer_symbolic), `[N, 3, 5]`)
    /// or of a backward one with its unknown dim
    /// ([`ShapeSpec::infer_input`](crate::ShapeSpec::infer_input), `[?, 5, 4]`); then
    /// [`input`](Self::input) is empty. `None` when the input is all numbers, or when there is
    /// no input (an attribute that does not parse).
    ///
    /// ```
    /// use ndarray_reshape::{Mx, SymDim, Onnx, ShapeSpec};
    /// let n = SymDim::sym("N");
    /// let err = Onnx::new([0, 4, -1]).infer_symbolic(&[n, SymDim::from(3), SymDim::from(5)]).unwrap_err();
    /// assert_eq!(err.context().symbolic_input(), Some("[N, 3, 5]"));
    /// assert!(err.context().input().is_empty());
    /// let err = Mx::new([-1, 0]).infer_input(&[None, Some(3), Some(4)], &[50, 4]).unwrap_err();
    /// assert_eq!(err.context().symbolic_input(), Some("[?, 3, 4]"));
    /// ```
    pub fn symbolic_input(&self) -> Option<&str> {
        match &self.shown {
            Shown::Written(s) => Some(s),
            Shown::Concrete | Shown::Absent => None,
        }
    }
}

impl fmt::Display for ErrorContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.shown {
            Shown::Written(input) => write!(f, "{}; input shape {input}, ", self.detail)?,
            Shown::Concrete => write!(f, "{}; input shape {:?}, ", self.detail, self.input)?,
            Shown::Absent => write!(f, "{}; ", self.detail)?,
        }
        match self.origin {
            Origin::ShapeOp | Origin::Strided | Origin::Convert | Origin::Graph => {
                write!(f, "{} {}", self.origin, self.spec)?;
            }
            _ => write!(f, "{} spec {}", self.origin, self.spec)?,
        }
        match (self.position, self.origin) {
            (Some(p), Origin::ShapeOp | Origin::Graph) => write!(f, ", operand {p}")?,
            (Some(p), Origin::Strided | Origin::Convert) => write!(f, ", axis {p}")?,
            (Some(p), _) => write!(f, ", position {p}")?,
            (None, _) => {}
        }
        Ok(())
    }
}

/// Writes [`ReshapeError`] (a variant per rule, each with its doc and its name), the crate's
/// internal [`Rule`], and everything that maps between them, from the one table below.
macro_rules! rules {
    ($($(#[doc = $doc:literal])* $variant:ident => $name:literal,)*) => {
        /// Every way a reshape can fail. One variant per broken rule.
        ///
        /// Each variant carries a boxed [`ErrorContext`] (so the `Ok` path stays small) with the input
        /// shape, the spec, the offending position and a short detail. The message starts with the rule's
        /// name, which is also returned by [`category`](Self::category).
        ///
        /// ```
        /// use ndarray_reshape::{Np, Order, ReshapeError, ShapeSpec};
        ///
        /// let err = Np::new([5, -1], Order::C).infer_shape(&[2, 3]).unwrap_err();
        /// assert!(matches!(err, ReshapeError::InferNotDivisible(_)));
        /// assert_eq!(err.category(), "infer_not_divisible");
        /// assert_eq!(
        ///     err.to_string(),
        ///     "infer_not_divisible: the other dims multiply to 5, which does not divide the size 6; \
        ///      input shape [2, 3], numpy spec [5, -1] order C, position 1"
        /// );
        /// ```
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum ReshapeError {
            $($(#[doc = $doc])* $variant(Box<ErrorContext>),)*
        }

        /// The rule a spec broke, without the evidence: the dialects report a [`Fail`], which
        /// [`Fail::attach`] turns into a [`ReshapeError`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Rule {
            $($variant,)*
        }

        impl ReshapeError {
            fn from_rule(rule: Rule, ctx: ErrorContext) -> Self {
                let b = Box::new(ctx);
                match rule {
                    $(Rule::$variant => ReshapeError::$variant(b),)*
                }
            }

        /// The evidence: input shape, spec, offending position, detail.
        ///
        /// ```
        /// use ndarray_reshape::{Paddle, ShapeSpec};
        ///
        /// let err = Paddle::new([-2, 24]).infer_shape(&[2, 4, 6]).unwrap_err();
        /// assert_eq!(err.context().position(), Some(0));
        /// ```
            pub fn context(&self) -> &ErrorContext {
                match self {
                    $(ReshapeError::$variant(c) => c,)*
                }
            }

        /// The name of the broken rule, as used in the conformance files (`"bad_value"`,
        /// `"size_mismatch"`, ...). It is also the first word of the message.
        ///
        /// ```
        /// use ndarray_reshape::{Mx, ShapeSpec};
        ///
        /// let err = Mx::new([5, 5]).infer_shape(&[2, 3, 4]).unwrap_err();
        /// assert_eq!(err.category(), "size_mismatch");
        /// ```
            pub fn category(&self) -> &'static str {
                match self {
                    $(ReshapeError::$variant(_) => $name,)*
                }
            }

            /// The broken rule.
            pub(crate) fn rule(&self) -> Rule {
                match self {
                    $(ReshapeError::$variant(_) => Rule::$variant,)*
                }
            }
        }
    };
}

rules! {
    /// A spec value the dialect does not accept (e.g. MXNet `< -4`, NumPy or Paddle `< -1`).
    BadValue => "bad_value",
    /// More than one top-level `-1`.
    MultipleInfer => "multiple_infer",
    /// MXNet `0`, `-3` or `-4` needing an input dim that is not there.
    OutOfInput => "out_of_input",
    /// MXNet `-4` without two values after it.
    SplitIncomplete => "split_incomplete",
    /// MXNet `-4 -1 -1`.
    SplitBothInfer => "split_both_infer",
    /// MXNet `-4 a b` that does not split the input dim.
    SplitMismatch => "split_mismatch",
    /// MXNet `keep_highest` with an empty `target_shape` or a 0-d input.
    KeepHighestEmpty => "keep_highest_empty",
    /// Paddle `0` at an index at or past the input rank, on a non-empty input.
    ZeroOutOfRank => "zero_out_of_rank",
    /// A product of dims exceeds `isize::MAX` (zero dims left out).
    Overflow => "overflow",
    /// A `-1` (or the single legacy `0`) whose other dims multiply to 0.
    InferZeroProduct => "infer_zero_product",
    /// A `-1` (or the single legacy `0`) whose other dims do not divide the size.
    InferNotDivisible => "infer_not_divisible",
    /// Paddle: zero-size input with a `-1` and a `0`, where the inferred dim could be anything.
    InferAmbiguous => "infer_ambiguous",
    /// Paddle: zero-size input with a `-1` and more `0`s than the input has, non-zero dims differ.
    ZeroSizeMismatch => "zero_size_mismatch",
    /// `reshape_like` begin/end out of range, or an empty range.
    RangeInvalid => "range_invalid",
    /// The output's element count differs from the input's.
    SizeMismatch => "size_mismatch",
    /// MXNet `npx.reshape` `-3` on an input dim that is not 1.
    DropNotOne => "drop_not_one",
    /// ONNX with `allowzero`: the shape holds both a `0` and a `-1`.
    AllowzeroWithInfer => "allowzero_with_infer",
    /// A strict method (`reshape_view`, `reshape_view_mut`, `into_reshape`) was asked for a
    /// reshape that needs a copy with these strides.
    NeedsCopy => "needs_copy",
    /// A spec value of the caller's integer type that does not fit in `i64`.
    ValueDoesNotFit => "value_does_not_fit",
    /// A shape tensor entry that is not a 0-d or one-element integer array.
    BadShapeTensor => "bad_shape_tensor",
    /// A copy into the caller's buffer ([`reshape_copy_into`](crate::ReshapeExt::reshape_copy_into),
    /// [`to_layout_into`](crate::ReshapeExt::to_layout_into),
    /// [`convert_into`](crate::ReshapeExt::convert_into), [`StridedSlice`](crate::StridedSlice)'s
    /// `copy_into` and `convert_into`) was given one whose length is not the element count.
    OutputLength => "output_length",
    /// A spec with a rank type ([`ShapeSpec::dim`](crate::ShapeSpec::dim)), or
    /// [`IntoDim::into_dim`](crate::IntoDim::into_dim), was asked for a dimension type whose
    /// rank differs from the rank of the shape.
    RankMismatch => "rank_mismatch",
    /// The output of a copy could not be allocated: more memory than the system gives, or a
    /// byte count past `usize::MAX`. The detail names the element count and the bytes.
    AllocationFailed => "allocation_failed",
    /// Symbolic inference: a dim or an expression of dims past the symbolic range (a
    /// coefficient past `i128`, more than 64 terms, a power past 127; see
    /// [`SymDim`](crate::SymDim)).
    SymbolLimit => "symbol_limit",
    /// No single ONNX `Reshape` is equivalent: an F-order reshape (ONNX reads in C order), or
    /// symbolic dims that move to other indices
    /// ([`ShapeSpec::to_onnx_symbolic`](crate::ShapeSpec::to_onnx_symbolic)).
    OnnxInexpressible => "onnx_inexpressible",
    /// An MXNet operator attribute (a string of the symbol JSON) that does not parse, or that
    /// the operator does not have ([`Mx::from_attrs`](crate::Mx::from_attrs) and the others);
    /// an ONNX or Paddle operator given attributes or inputs its signature does not have
    /// ([`ShapeValue::onnx_op`](crate::ShapeValue::onnx_op),
    /// [`ShapeValue::paddle_op`](crate::ShapeValue::paddle_op)).
    BadAttribute => "bad_attribute",
    /// A symbolic entry where a number is needed: a [`ShapeValue`](crate::ShapeValue) with
    /// symbols (or conditions) in a concrete inference or in a spec that holds numbers only, a
    /// symbolic `gather` index, a negative number times or over a symbolic size.
    NeedsNumber => "needs_number",
    /// A shape operation's index or axis outside the operand.
    IndexOutOfRange => "index_out_of_range",
    /// A shape value of a rank the operation does not take (shape values have rank 0 or 1).
    ValueRank => "value_rank",
    /// Shape values whose lengths do not broadcast, or a `squeeze` of a length other than 1.
    LengthMismatch => "length_mismatch",
    /// A shape value an operation would build past 4,096 entries (`ConstantOfShape`,
    /// `Concat`, `Gather` of that many): a shape is a tensor's rank long.
    ValueTooLong => "value_too_long",
    /// A `slice` with step 0.
    ZeroStep => "zero_step",
    /// A shape value divided by 0.
    DivisionByZero => "division_by_zero",
    /// A division of symbolic sizes that is an integer for no value of the symbols.
    InexactDivision => "inexact_division",
    /// An operator the shape-op tables do not compute: a name they do not know, or a value
    /// in floating point (shape values are integers; see
    /// [`ShapeValue::onnx_op`](crate::ShapeValue::onnx_op)).
    UnknownOp => "unknown_op",
    /// An einops pattern that does not parse or breaks einops' rules: an unbalanced or nested
    /// bracket, an unknown character, a name twice on a side, two ellipses, an axis on one side
    /// only, a number in `rearrange`, a new `repeat` axis without a length
    /// ([`Rearrange`](crate::Rearrange)).
    BadPattern => "bad_pattern",
    /// A reduction name einops does not have ([`Reduction`](crate::Reduction)'s `from_str`).
    UnknownReduction => "unknown_reduction",
    /// A reduction the element type does not take: a mean of integers or `bool`s (as in
    /// einops), a sum or product of `bool`s, `any` or `all` of numbers
    /// ([`Reducible`](crate::Reducible)).
    ReductionType => "reduction_type",
    /// `max` or `min` over an empty axis, which has no value (NumPy raises too).
    ZeroSizeReduction => "zero_size_reduction",
    /// A dim other than the one a pattern demands: a `pack` input whose fixed axes differ from
    /// the first input's, packed shapes of `unpack` that do not fill the packed axis, a
    /// `parse_shape` unit or number against another length.
    DimMismatch => "dim_mismatch",
    /// An input whose rank is not the one the left side of an einops pattern names.
    PatternRank => "pattern_rank",
    /// A length given to an axis an einops pattern does not have, or to no valid axis name.
    AxisLength => "axis_length",
    /// A question about a reshape asked of a spec that moves or repeats axes (an einops
    /// pattern that permutes): [`ShapeSpec::explain`](crate::ShapeSpec::explain).
    NotAReshape => "not_a_reshape",
    /// A strided view of a slice that reaches an index outside it
    /// ([`StridedSlice::new`](crate::StridedSlice::new)); the position is the axis.
    ViewOutOfBounds => "view_out_of_bounds",
    /// Symbolic dims bound to a concrete shape ([`SymDim::bind`](crate::SymDim::bind)): a dim
    /// whose value differs from its size, one that solves its symbol to no size, one no dim
    /// solves, or another rank; the position is the dim.
    BindMismatch => "bind_mismatch",
    /// A condition of a symbolic result that holds for no value the caller's
    /// [`Assumptions`](crate::Assumptions) allow, or that fails under a binding
    /// ([`SymShape::bind`](crate::SymShape::bind)); the position is the condition.
    Unsatisfiable => "unsatisfiable",
    /// A conversion's parameters ([`convert`](crate::convert)) that do not fit: scales and
    /// shifts or zero points of different lengths, a scale of 0, an axis past the output's rank
    /// or of another length than the parameters; the position is the axis.
    ConversionAxis => "conversion_axis",
    /// A [`Blocked`](crate::convert::Blocked) layout that cannot be: a block of 0, a channel
    /// axis past the input's rank, a packed input whose last axis is not the block, or
    /// channels the blocks do not hold; the position is the axis.
    BlockedLayout => "blocked_layout",
    /// Two dims of a graph's tensors that cannot broadcast (NumPy's rule: equal, or one of
    /// them 1) for any value of the symbols ([`Graph::infer`](crate::Graph::infer)); the
    /// position is the input.
    Broadcast => "broadcast",
    /// A node input that no graph input, initializer or earlier node output defines, or a
    /// tensor defined twice ([`Graph::infer`](crate::Graph::infer)); the position is the
    /// node's input.
    UnknownTensor => "unknown_tensor",
    /// Bytes that are not an ONNX model with a graph
    /// ([`Graph::from_onnx`](crate::Graph::from_onnx), feature `onnx`).
    BadModel => "bad_model",
}

impl fmt::Display for ReshapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.category(), self.context())
    }
}

impl std::error::Error for ReshapeError {}

/// A broken rule found anywhere in the crate (a spec entry, a dialect's inference, a shape
/// operation, an attribute), before the context is attached: the one internal failure type.
/// `pub` in this private module only because the sealed `SpecInt` conversion returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    pub(crate) rule: Rule,
    pub(crate) position: Option<usize>,
    pub(crate) detail: String,
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

    /// [`Rule::OutputLength`]: a caller's buffer of `held` elements for a copy of `written`.
    pub(crate) fn output_length(held: usize, written: usize) -> Self {
        let why = format!("the output buffer holds {held} elements, the copy writes {written}");
        Fail::whole(Rule::OutputLength, why)
    }

    /// The [`ReshapeError`] of this failure from `origin` (a spec of a dialect, written as
    /// `spec`), applied to `input`: the one place where errors get their evidence.
    #[cold]
    pub(crate) fn attach(
        self,
        origin: Origin,
        input: &[usize],
        spec: impl fmt::Display,
    ) -> ReshapeError {
        self.context(origin, input.to_vec(), Shown::Concrete, spec)
    }

    /// [`attach`](Self::attach) for an input that is not all numbers, written out: a symbolic
    /// one (`[N, 3]`), or a partly known one with `?` for its unknown dims.
    #[cold]
    pub(crate) fn attach_sym<D: fmt::Display>(
        self,
        origin: Origin,
        input: &[D],
        spec: impl fmt::Display,
    ) -> ReshapeError {
        let dims: Vec<String> = input.iter().map(|d| d.to_string()).collect();
        let shown = Shown::Written(format!("[{}]", dims.join(", ")));
        self.context(origin, Vec::new(), shown, spec)
    }

    /// [`attach`](Self::attach) for a spec that fails before it meets an input.
    #[cold]
    pub(crate) fn attach_no_input(self, origin: Origin, spec: impl fmt::Display) -> ReshapeError {
        self.context(origin, Vec::new(), Shown::Absent, spec)
    }

    fn context(
        self,
        origin: Origin,
        input: Vec<usize>,
        shown: Shown,
        spec: impl fmt::Display,
    ) -> ReshapeError {
        ReshapeError::from_rule(
            self.rule,
            ErrorContext {
                origin,
                input,
                spec: spec.to_string(),
                position: self.position,
                detail: self.detail,
                shown,
            },
        )
    }
}

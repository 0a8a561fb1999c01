//! The ONNX shape-op table: [`ShapeValue::onnx_op`], each operator with its opset's
//! conventions.

use super::arith::Ring;
use super::attr::OpAttr;
use super::call::{Binary, Call, Row, MANY};
use super::elem::ElemType;
use super::ShapeValue;
use crate::error::{ReshapeError, Rule};

type R<T> = Result<T, ReshapeError>;

impl ShapeValue {
    /// The ONNX operator `op_type` applied to `inputs` with `attrs`, as the operator set
    /// `opset` defines it: a shape subgraph walked node by node.
    ///
    /// A tensor input of `Shape` and `Size` is given as its shape
    /// ([`shape_of`](Self::shape_of)); every other input is the value the node reads. An
    /// optional input left out before a later one (an empty input name) is passed as an empty
    /// 1-D value. Attributes are checked against the operator's signature at `opset`: one it
    /// does not have there (`axes` of `Unsqueeze` from opset 13, where it is an input) is an
    /// error, not ignored.
    ///
    /// | operators | conventions |
    /// |---|---|
    /// | `Shape` | `start`, `end` (opset 15), clamped as ONNX clamps them |
    /// | `Size`, `Identity`, `Constant` | `Constant` from `value` (an `Int` is 0-D, `Ints` 1-D), `value_int`, `value_ints` |
    /// | `Gather` | `axis` 0; a 0-D index gives a 0-D value |
    /// | `Slice` | `starts`, `ends`, `axes` attributes before opset 10; inputs `starts`, `ends`, `axes`, `steps` after |
    /// | `Unsqueeze`, `Squeeze` | `axes` an attribute before opset 13, an input after; `Squeeze` without axes drops every axis of length 1 |
    /// | `Concat` | `axis` 0 |
    /// | `Reshape` | `allowzero` (opset 14); the result has rank 0 or 1 |
    /// | `Cast` | `to` as an ONNX type code (`7`) or a name (`"int64"`); integer types wrap as the runtime does ([`cast`](Self::cast)) |
    /// | `ConstantOfShape` | an integer `value`; the shape has rank 0 or 1 |
    /// | `Add`, `Sub`, `Mul`, `Div` (truncating), `Mod` (`fmod`), `Neg`, `Abs`, `Min`, `Max`, `Sum` | element-wise with broadcasting; `Min`, `Max`, `Sum` take any number of inputs |
    /// | `Equal`, `Less`, `Greater`, `LessOrEqual`, `GreaterOrEqual`, `Not`, `And`, `Or`, `Xor`, `Where` | 0/1 values, decided where the symbols' bounds decide them |
    /// | `ReduceProd`, `ReduceSum`, `ReduceMin`, `ReduceMax` | `keepdims`; `axes` an attribute before opset 18 (`ReduceSum`: 13), an input after, with `noop_with_empty_axes` |
    ///
    /// Shape values hold integers. A subtree computed in floats on constants alone
    /// (`Cast(Pow(1369.0, 0.5))` in a ViT) is the caller's to fold, as a graph compiler's
    /// constant folding does; the table does not compute floats, so a `Cast` to a float type,
    /// a float `Constant` and float operators are errors.
    ///
    /// # Errors
    ///
    /// [`UnknownOp`](ReshapeError::UnknownOp) for an operator not in the table, or a value in
    /// floating point; [`BadAttribute`](ReshapeError::BadAttribute) for inputs or attributes
    /// the operator does not have at `opset`, a required one missing, or one of another type;
    /// [`NeedsNumber`](ReshapeError::NeedsNumber) for symbolic axes, slice bounds or target
    /// shapes; and the errors of the operations named in the table.
    ///
    /// `x.view(x.size(0), -1, 64)` as torch exports it:
    ///
    /// ```
    /// use ndarray_reshape::{Onnx, OpAttr, ShapeSpec, ShapeValue, SymDim};
    ///
    /// let x = [SymDim::sym("B"), SymDim::sym("T"), SymDim::from(8), SymDim::from(64)];
    /// let shape = ShapeValue::onnx_op("Shape", &[ShapeValue::shape_of(&x)], &[], 17)?;
    /// let b = ShapeValue::onnx_op("Gather", &[shape, ShapeValue::scalar(0)], &[("axis", OpAttr::from(0))], 17)?;
    /// let b = ShapeValue::onnx_op("Unsqueeze", &[b, ShapeValue::from(vec![0])], &[], 17)?;
    /// let target = ShapeValue::onnx_op(
    ///     "Concat",
    ///     &[b, ShapeValue::from(vec![-1, 64])],
    ///     &[("axis", OpAttr::from(0))],
    ///     17,
    /// )?;
    /// assert_eq!(target.to_string(), "[B, -1, 64]");
    /// assert_eq!(Onnx::new(&target).infer_symbolic(&x)?.to_string(), "[B, 8*T, 64]");
    /// // At opset 17, Unsqueeze's axes are an input, not an attribute.
    /// let old = ShapeValue::onnx_op("Unsqueeze", &[ShapeValue::scalar(4)], &[("axes", OpAttr::from(vec![0]))], 17);
    /// assert_eq!(old.unwrap_err().category(), "bad_attribute");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    ///
    /// A constant float subtree, folded by the caller, and an operator the table does not
    /// know:
    ///
    /// ```
    /// use ndarray_reshape::{OpAttr, ShapeValue};
    ///
    /// // Cast(Pow(1369.0, 0.5)) to int64: the caller computes it (a constant), the table
    /// // takes it from there.
    /// let side = ShapeValue::scalar(1369f64.powf(0.5) as i64);
    /// let side = ShapeValue::onnx_op("Unsqueeze", &[side, ShapeValue::from(vec![0])], &[], 13)?;
    /// assert_eq!(side, ShapeValue::from(vec![37]));
    /// let f = ShapeValue::onnx_op("Cast", &[side], &[("to", OpAttr::from(1))], 13);
    /// assert_eq!(f.unwrap_err().category(), "unknown_op"); // to float: not computed
    /// let e = ShapeValue::onnx_op("NonZero", &[ShapeValue::scalar(1)], &[], 13).unwrap_err();
    /// assert!(e.to_string().contains("NonZero"));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn onnx_op(
        op_type: &str,
        inputs: &[ShapeValue],
        attrs: &[(&str, OpAttr)],
        opset: i64,
    ) -> Result<ShapeValue, ReshapeError> {
        let c = Call {
            framework: "onnx",
            op: op_type,
            inputs,
            attrs,
            opset: Some(opset),
        };
        if opset < 1 {
            return Err(c.fail(
                Rule::BadAttribute,
                None,
                format!("opset {opset} is not an operator set"),
            ));
        }
        c.run(ONNX)
    }
}

/// The ONNX table's rows of `op` (at the opsets each holds for): the signatures and value
/// rules the whole-graph walk reads.
pub(crate) fn onnx_rows(op: &str) -> impl Iterator<Item = &'static Row> + '_ {
    ONNX.iter().filter(move |r| r.names().contains(&op))
}

/// Binary element-wise operators: two inputs, no attributes.
macro_rules! binary {
    ($name:literal, $f:ident) => {
        Row::new(&[$name], (2, 2), &[], |c| c.input(0).$f(c.input(1)))
    };
}

/// The ONNX table: each operator's signature at the opsets it holds for, once.
const ONNX: &[Row] = &[
    binary!("Add", add),
    binary!("Sub", sub),
    binary!("Mul", mul),
    binary!("Div", div),
    binary!("Equal", equal),
    binary!("Less", less),
    binary!("Greater", greater),
    binary!("LessOrEqual", less_equal),
    binary!("GreaterOrEqual", greater_equal),
    binary!("And", logical_and),
    binary!("Or", logical_or),
    binary!("Xor", logical_xor),
    Row::new(&["Min"], (1, MANY), &[], |c| c.fold(ShapeValue::min)),
    Row::new(&["Max"], (1, MANY), &[], |c| c.fold(ShapeValue::max)),
    // Ring arithmetic: only the sum is bounded (see `ShapeValue::ring_fold`).
    Row::new(&["Sum"], (1, MANY), &[], |c| {
        ShapeValue::ring_fold(c.inputs, true, Ring::Add, "sum")
    }),
    Row::new(&["Shape"], (1, 1), &[], |c| {
        c.input(0).slice(0, i64::MAX, 1)
    })
    .until(14),
    Row::new(&["Shape"], (1, 1), &["start", "end"], |c| {
        let start = c.int("start")?.unwrap_or(0);
        let end = c.int("end")?.unwrap_or(i64::MAX);
        c.input(0).slice(start, end, 1)
    })
    .from(15),
    Row::new(&["Size"], (1, 1), &[], |c| c.input(0).reduce_prod()),
    Row::new(&["Identity"], (1, 1), &[], |c| Ok(c.input(0).clone())),
    // Reads its own attributes: exactly one of the value attributes.
    Row::new(&["Constant"], (0, 0), &[], constant).any_attributes(),
    Row::new(&["ConstantOfShape"], (1, 1), &["value"], constant_of_shape),
    Row::new(&["Gather"], (2, 2), &["axis"], |c| {
        let axis = c.int("axis")?.unwrap_or(0);
        c.axes(&[axis], c.input(0).rank(), 0)?;
        c.input(0).gather(c.input(1))
    }),
    Row::new(&["Slice"], (1, 1), &["starts", "ends", "axes"], |c| {
        let starts = c.required("starts", c.ints("starts")?)?;
        let ends = c.required("ends", c.ints("ends")?)?;
        slice(c, starts, ends, c.ints("axes")?, None)
    })
    .until(9),
    Row::new(&["Slice"], (3, 5), &[], |c| {
        let opt = |i: usize, what: &str| match c.optional(i) {
            Some(_) => c.numbers(i, what).map(Some),
            None => Ok(None),
        };
        let (starts, ends) = (c.numbers(1, "starts")?, c.numbers(2, "ends")?);
        slice(c, starts, ends, opt(3, "axes")?, opt(4, "steps")?)
    })
    .from(10),
    Row::new(&["Concat"], (1, MANY), &["axis"], |c| {
        let axis = c.required("axis", c.int("axis")?)?;
        c.axes(&[axis], 1, 0)?;
        ShapeValue::concat(c.inputs)
    }),
    Row::new(&["Unsqueeze"], (1, 1), &["axes"], |c| {
        c.unsqueeze(&c.required("axes", c.ints("axes")?)?)
    })
    .until(12),
    Row::new(&["Unsqueeze"], (1, 2), &[], |c| {
        c.unsqueeze(&c.required("axes", axes_input(c)?)?)
    })
    .from(13),
    Row::new(&["Squeeze"], (1, 1), &["axes"], |c| {
        c.squeeze(c.ints("axes")?.as_deref())
    })
    .until(12),
    Row::new(&["Squeeze"], (1, 2), &[], |c| {
        c.squeeze(axes_input(c)?.as_deref())
    })
    .from(13),
    Row::new(&["Reshape"], (2, 2), &[], |c| {
        c.reshape(&c.numbers(1, "target shape")?, true)
    })
    .until(13),
    Row::new(&["Reshape"], (2, 2), &["allowzero"], |c| {
        let allowzero = c.int("allowzero")?.unwrap_or(0) != 0;
        c.reshape(&c.numbers(1, "target shape")?, !allowzero)
    })
    .from(14),
    Row::new(&["Cast"], (1, 1), &["round_mode", "saturate", "to"], cast),
    Row::new(&["Mod"], (2, 2), &["fmod"], |c| {
        match c.int("fmod")?.unwrap_or(0) {
            0 => c.input(0).floor_mod(c.input(1)),
            _ => c.input(0).trunc_mod(c.input(1)),
        }
    }),
    Row::new(&["Neg"], (1, 1), &[], |c| c.input(0).neg()),
    Row::new(&["Abs"], (1, 1), &[], |c| c.input(0).abs()),
    Row::new(&["Not"], (1, 1), &[], |c| Ok(c.input(0).logical_not())),
    Row::new(&["Where"], (3, 3), &[], |c| {
        ShapeValue::select(c.input(0), c.input(1), c.input(2))
    }),
    // Axes an attribute until opset 18 (ReduceSum: 13), an input from then on.
    Row::new(REDUCE_18, (1, 1), &["axes", "keepdims"], |c| {
        reduce(c, c.ints("axes")?)
    })
    .until(17),
    Row::new(
        REDUCE_18,
        (1, 2),
        &["keepdims", "noop_with_empty_axes"],
        |c| reduce(c, axes_input(c)?),
    )
    .from(18),
    Row::new(&["ReduceSum"], (1, 1), &["axes", "keepdims"], |c| {
        reduce(c, c.ints("axes")?)
    })
    .until(12),
    Row::new(
        &["ReduceSum"],
        (1, 2),
        &["keepdims", "noop_with_empty_axes"],
        |c| reduce(c, axes_input(c)?),
    )
    .from(13),
];

/// The reductions whose axes became an input at opset 18.
const REDUCE_18: &[&str] = &["ReduceProd", "ReduceMin", "ReduceMax"];

/// The axes of input 1 where it is given (an optional input).
fn axes_input(c: &Call<'_>) -> R<Option<Vec<i64>>> {
    match c.optional(1) {
        Some(_) => c.numbers(1, "axes").map(Some),
        None => Ok(None),
    }
}

/// `ConstantOfShape` of an integer `value` (a one-element tensor in ONNX, or an integer).
fn constant_of_shape(c: &Call<'_>) -> R<ShapeValue> {
    if c.input(0).rank() == 0 {
        return Err(c.fail(
            Rule::ValueRank,
            Some(0),
            "the shape input is 0-D; ConstantOfShape takes a 1-D shape".into(),
        ));
    }
    let value = match c.attr("value") {
        Some(v) if !v.is_float() => c.required("value", c.int("value")?)?,
        // The default value is a float 0.
        _ => return Err(floats(c, "ConstantOfShape of a float value")),
    };
    c.filled(&c.numbers(0, "shape")?, value)
}

/// `Cast` to the type `to` names, as a code or a name.
fn cast(c: &Call<'_>) -> R<ShapeValue> {
    let to = match c.attr("to") {
        Some(OpAttr::Int(code)) => type_name(*code).ok_or_else(|| {
            c.fail(
                Rule::BadAttribute,
                None,
                format!("{code} is not an ONNX type"),
            )
        })?,
        Some(OpAttr::Str(name)) => name.as_str(),
        Some(v) => {
            return Err(c.fail(
                Rule::BadAttribute,
                None,
                format!("the attribute to = {v} is not a type"),
            ))
        }
        None => return Err(c.missing("to")),
    };
    c.input(0).cast(to)
}

/// `Constant` from one of its value attributes.
fn constant(c: &Call<'_>) -> R<ShapeValue> {
    let [(name, v)] = c.attrs else {
        return Err(c.fail(
            Rule::BadAttribute,
            None,
            "Constant takes exactly one value attribute".into(),
        ));
    };
    match (*name, v) {
        ("value" | "value_int", OpAttr::Int(x)) => Ok(ShapeValue::scalar(*x)),
        ("value" | "value_ints", OpAttr::Ints(x)) => Ok(ShapeValue::from(&x[..])),
        ("value" | "value_float" | "value_floats", _) if v.is_float() => {
            Err(floats(c, "a float Constant"))
        }
        _ => Err(c.fail(
            Rule::BadAttribute,
            None,
            format!("Constant with {name} = {v}"),
        )),
    }
}

/// `Slice` of its starts, ends, axes and steps (from attributes before opset 10, inputs after).
fn slice(
    c: &Call<'_>,
    starts: Vec<i64>,
    ends: Vec<i64>,
    axes: Option<Vec<i64>>,
    steps: Option<Vec<i64>>,
) -> R<ShapeValue> {
    let n = starts.len();
    let axes = axes.unwrap_or_else(|| (0..n as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; n]);
    if ends.len() != n || axes.len() != n || steps.len() != n {
        return Err(c.fail(
            Rule::LengthMismatch,
            None,
            format!(
                "starts, ends, axes and steps have {n}, {}, {} and {} entries",
                ends.len(),
                axes.len(),
                steps.len()
            ),
        ));
    }
    let x = c.input(0);
    if x.rank() == 0 {
        return Err(c.fail(Rule::ValueRank, Some(0), "Slice of a 0-D value".into()));
    }
    match c.axes(&axes, 1, 0)?.first() {
        Some(_) => x.slice(starts[0], ends[0], steps[0]),
        None => Ok(x.clone()),
    }
}

/// `ReduceProd`, `ReduceSum`, `ReduceMin`, `ReduceMax` on `axes`.
fn reduce(c: &Call<'_>, axes: Option<Vec<i64>>) -> R<ShapeValue> {
    let keep = c.int("keepdims")?.unwrap_or(1) != 0;
    let noop = c.int("noop_with_empty_axes")?.unwrap_or(0) != 0;
    let how: Result<Ring, Binary> = match c.op {
        "ReduceProd" => Ok(Ring::Mul),
        "ReduceSum" => Ok(Ring::Add),
        "ReduceMin" => Err(ShapeValue::min),
        _ => Err(ShapeValue::max),
    };
    c.reduce(axes.as_deref(), noop, keep, how)
}

/// The error for a value in floating point.
#[cold]
fn floats(c: &Call<'_>, what: &str) -> ReshapeError {
    c.fail(
        Rule::UnknownOp,
        None,
        format!("{what}: shape values are integers; fold a subtree computed in floats to its integers first"),
    )
}

/// The name of ONNX type `code` (`TensorProto.DataType`), as [`ShapeValue::cast`] reads it.
fn type_name(code: i64) -> Option<&'static str> {
    let t = ElemType::from_code(i32::try_from(code).ok()?);
    (t.name() != "?").then(|| t.name())
}

//! The ONNX shape-op table: [`ShapeValue::onnx_op`], each operator with its opset's
//! conventions.

use super::arith::Ring;
use super::attr::OpAttr;
use super::call::{Binary, Call};
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
        onnx(&c, opset)
    }
}

fn onnx(c: &Call<'_>, opset: i64) -> R<ShapeValue> {
    // Element-wise operations: binary, or variadic (`Min`, `Max`, `Sum` of one or more).
    let (binary, variadic) = (Some((2, 2)), Some((1, usize::MAX)));
    let (f, arity): (Binary, _) = match c.op {
        "Add" => (ShapeValue::add, binary),
        "Sub" => (ShapeValue::sub, binary),
        "Mul" => (ShapeValue::mul, binary),
        "Div" => (ShapeValue::div, binary),
        "Equal" => (ShapeValue::equal, binary),
        "Less" => (ShapeValue::less, binary),
        "Greater" => (ShapeValue::greater, binary),
        "LessOrEqual" => (ShapeValue::less_equal, binary),
        "GreaterOrEqual" => (ShapeValue::greater_equal, binary),
        "And" => (ShapeValue::logical_and, binary),
        "Or" => (ShapeValue::logical_or, binary),
        "Xor" => (ShapeValue::logical_xor, binary),
        "Min" => (ShapeValue::min, variadic),
        "Max" => (ShapeValue::max, variadic),
        "Sum" => (ShapeValue::add, variadic),
        _ => (ShapeValue::add, None),
    };
    if let Some((least, most)) = arity {
        c.only(&[])?;
        c.arity(least, most)?;
        return match c.op {
            // Ring arithmetic: only the sum is bounded (see `ShapeValue::ring_fold`).
            "Sum" => ShapeValue::ring_fold(c.inputs, true, Ring::Add, "sum"),
            _ => c.fold(f),
        };
    }
    match c.op {
        "Shape" => {
            c.only(if opset >= 15 { &["start", "end"] } else { &[] })?;
            c.arity(1, 1)?;
            let start = c.int("start")?.unwrap_or(0);
            let end = c.int("end")?.unwrap_or(i64::MAX);
            c.input(0).slice(start, end, 1)
        }
        "Size" => {
            c.only(&[])?;
            c.arity(1, 1)?;
            c.input(0).reduce_prod()
        }
        "Identity" => {
            c.only(&[])?;
            c.arity(1, 1)?;
            Ok(c.input(0).clone())
        }
        "Constant" => constant(c),
        "ConstantOfShape" => {
            c.only(&["value"])?;
            c.arity(1, 1)?;
            let value = match c.attr("value") {
                Some(v) if !v.is_float() => c.required("value", c.int("value")?)?,
                // The default value is a float 0.
                _ => return Err(floats(c, "ConstantOfShape of a float value")),
            };
            c.filled(&c.numbers(0, "shape")?, value)
        }
        "Gather" => {
            c.only(&["axis"])?;
            c.arity(2, 2)?;
            let axis = c.int("axis")?.unwrap_or(0);
            c.axes(&[axis], c.input(0).rank(), 0)?;
            c.input(0).gather(c.input(1))
        }
        "Slice" => slice(c, opset),
        "Concat" => {
            c.only(&["axis"])?;
            c.arity(1, usize::MAX)?;
            let axis = c.required("axis", c.int("axis")?)?;
            c.axes(&[axis], 1, 0)?;
            ShapeValue::concat(c.inputs)
        }
        "Unsqueeze" | "Squeeze" => {
            let axes = match opset < 13 {
                true => {
                    c.only(&["axes"])?;
                    c.arity(1, 1)?;
                    c.ints("axes")?
                }
                false => {
                    c.only(&[])?;
                    c.arity(1, 2)?;
                    match c.optional(1) {
                        Some(_) => Some(c.numbers(1, "axes")?),
                        None => None,
                    }
                }
            };
            match c.op {
                "Squeeze" => c.squeeze(axes.as_deref()),
                _ => c.unsqueeze(&c.required("axes", axes)?),
            }
        }
        "Reshape" => {
            c.only(if opset >= 14 { &["allowzero"] } else { &[] })?;
            c.arity(2, 2)?;
            let allowzero = c.int("allowzero")?.unwrap_or(0) != 0;
            c.reshape(&c.numbers(1, "target shape")?, !allowzero)
        }
        "Cast" => {
            c.only(&["to", "saturate"])?;
            c.arity(1, 1)?;
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
        "Mod" => {
            c.only(&["fmod"])?;
            c.arity(2, 2)?;
            match c.int("fmod")?.unwrap_or(0) {
                0 => c.input(0).floor_mod(c.input(1)),
                _ => c.input(0).trunc_mod(c.input(1)),
            }
        }
        "Neg" | "Abs" | "Not" => {
            c.only(&[])?;
            c.arity(1, 1)?;
            match c.op {
                "Neg" => c.input(0).neg(),
                "Abs" => c.input(0).abs(),
                _ => Ok(c.input(0).logical_not()),
            }
        }
        "Where" => {
            c.only(&[])?;
            c.arity(3, 3)?;
            ShapeValue::select(c.input(0), c.input(1), c.input(2))
        }
        "ReduceProd" | "ReduceSum" | "ReduceMin" | "ReduceMax" => reduce(c, opset),
        _ => Err(c.unknown()),
    }
}

/// `Constant` from one of its value attributes.
fn constant(c: &Call<'_>) -> R<ShapeValue> {
    c.arity(0, 0)?;
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

/// `Slice`: attributes before opset 10, inputs after.
fn slice(c: &Call<'_>, opset: i64) -> R<ShapeValue> {
    let (starts, ends, axes, steps) = if opset < 10 {
        c.only(&["starts", "ends", "axes"])?;
        c.arity(1, 1)?;
        let starts = c.required("starts", c.ints("starts")?)?;
        let ends = c.required("ends", c.ints("ends")?)?;
        (starts, ends, c.ints("axes")?, None)
    } else {
        c.only(&[])?;
        c.arity(3, 5)?;
        let opt = |i: usize, what: &str| match c.optional(i) {
            Some(_) => c.numbers(i, what).map(Some),
            None => Ok(None),
        };
        let starts = c.numbers(1, "starts")?;
        let ends = c.numbers(2, "ends")?;
        (starts, ends, opt(3, "axes")?, opt(4, "steps")?)
    };
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

/// `ReduceProd`, `ReduceSum`, `ReduceMin`, `ReduceMax`.
fn reduce(c: &Call<'_>, opset: i64) -> R<ShapeValue> {
    let moved = if c.op == "ReduceSum" { 13 } else { 18 };
    let axes = if opset < moved {
        c.only(&["axes", "keepdims"])?;
        c.arity(1, 1)?;
        c.ints("axes")?
    } else {
        c.only(&["keepdims", "noop_with_empty_axes"])?;
        c.arity(1, 2)?;
        match c.optional(1) {
            Some(_) => Some(c.numbers(1, "axes")?),
            None => None,
        }
    };
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
    Some(match code {
        1 => "float32",
        2 => "uint8",
        3 => "int8",
        4 => "uint16",
        5 => "int16",
        6 => "int32",
        7 => "int64",
        8 => "string",
        9 => "bool",
        10 => "float16",
        11 => "float64",
        12 => "uint32",
        13 => "uint64",
        14 => "complex64",
        15 => "complex128",
        16 => "bfloat16",
        17..=20 | 23 => "float8",
        21 => "uint4",
        22 => "int4",
        _ => return None,
    })
}

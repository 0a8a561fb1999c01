//! The Paddle shape-op table: [`ShapeValue::paddle_op`], Paddle 3 PIR ops (and the names of
//! the older program ops) with their conventions.

use super::attr::OpAttr;
use super::call::{Call, Row, MANY};
use super::ShapeValue;
use crate::error::{ReshapeError, Rule};

type R<T> = Result<T, ReshapeError>;

impl ShapeValue {
    /// The Paddle op `op_name` (`"pd_op.slice"`, or without the `pd_op.` prefix) applied to
    /// `inputs` with `attrs`: a shape computation of a Paddle 3 PIR program walked op by op.
    ///
    /// A tensor input of `shape`, `shape64` and `numel` is given as its shape
    /// ([`shape_of`](Self::shape_of)); the values a `builtin.combine` gathers are given as the
    /// inputs themselves (`stack`, `concat`), and `concat`'s axis operand as the `axis`
    /// attribute. Operands that PIR passes as tensors (`slice`'s `starts` and `ends`,
    /// `reshape`'s `shape`, `unsqueeze`'s axes, `scale`'s `scale`) may be inputs or
    /// attributes. Attributes an op does not read (`stop_gradient`, `place`, `infer_flags`)
    /// are ignored.
    ///
    /// | ops | conventions |
    /// |---|---|
    /// | `shape`, `shape64`, `numel`, `assign` | |
    /// | `slice`, `strided_slice` | `axes`, `starts`, `ends`, `strides`, `decrease_axis` drops the axis |
    /// | `stack`, `concat` | `axis` 0 |
    /// | `full`, `full_int_array`, `fill_constant` | `shape`, `value`, `dtype`; a float `full` holding an integer (the scale operand of `scale`) is that integer |
    /// | `cast` | `dtype` as named in the program (`"int32"`) or its type code; integer types wrap as the kernel does ([`cast`](Self::cast)) |
    /// | `scale` | `scale` (attribute or input), `bias`, `bias_after_scale`, exact when they make integers ([`scale`](Self::scale)) |
    /// | `add`, `subtract`, `multiply`, `floor_divide`, `remainder`, `maximum`, `minimum`, `abs` (and `elementwise_add`, `_sub`, `_mul`, `_floordiv`, `_mod`, `_max`, `_min`) | element-wise with broadcasting; `remainder` takes the divisor's sign |
    /// | `equal`, `not_equal`, `less_than`, `less_equal`, `greater_than`, `greater_equal`, `logical_and`, `logical_or`, `logical_xor`, `logical_not`, `where` | 0/1 values, decided where the symbols' bounds decide them |
    /// | `reshape`, `unsqueeze`, `squeeze`, `gather` | `shape`, `axis`/`axes`, `axis` |
    ///
    /// Paddle's `divide` is not in the table: on integers its result type changed between
    /// releases, so a program's `divide` is an error rather than a guess.
    ///
    /// # Errors
    ///
    /// [`UnknownOp`](ReshapeError::UnknownOp) for an op not in the table, or a value that is
    /// not an integer; [`BadAttribute`](ReshapeError::BadAttribute) for a wrong number of
    /// inputs, a required attribute missing or one of another type;
    /// [`NeedsNumber`](ReshapeError::NeedsNumber) for symbolic axes or bounds; and the errors
    /// of the operations named in the table.
    ///
    /// `x.reshape([x.shape[0] * 64 * 16, -1])`, with the scale as PIR passes it:
    ///
    /// ```
    /// use ndarray_reshape::{OpAttr, Paddle, ShapeSpec, ShapeValue, SymDim};
    ///
    /// let x = [SymDim::sym("B"), SymDim::from(3136), SymDim::from(96)];
    /// let shape = ShapeValue::paddle_op("pd_op.shape64", &[ShapeValue::shape_of(&x)], &[])?;
    /// let b = ShapeValue::paddle_op(
    ///     "pd_op.slice",
    ///     &[shape, ShapeValue::from(vec![0]), ShapeValue::from(vec![1])],
    ///     &[("axes", OpAttr::from(vec![0])), ("decrease_axis", OpAttr::from(vec![0]))],
    /// )?;
    /// let by = ShapeValue::paddle_op(
    ///     "pd_op.full",
    ///     &[],
    ///     &[("shape", OpAttr::from(vec![1])), ("value", OpAttr::from(1024.0)), ("dtype", OpAttr::from("float32"))],
    /// )?;
    /// let n = ShapeValue::paddle_op("pd_op.scale", &[b, by], &[("bias", OpAttr::from(0.0))])?;
    /// let target = ShapeValue::paddle_op("pd_op.stack", &[n, ShapeValue::scalar(-1)], &[])?;
    /// assert_eq!(target.to_string(), "[1024*B, -1]");
    /// let out = Paddle::new(&target).infer_symbolic(&x)?;
    /// assert_eq!(out.eval(&[("B", 2)]), Some(vec![2048, 294]));
    /// assert!(ShapeValue::paddle_op("pd_op.nonzero", &[target], &[]).is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn paddle_op(
        op_name: &str,
        inputs: &[ShapeValue],
        attrs: &[(&str, OpAttr)],
    ) -> Result<ShapeValue, ReshapeError> {
        let c = Call {
            framework: "paddle",
            op: op_name,
            inputs,
            attrs,
            opset: None,
        };
        c.run(PADDLE)
    }
}

/// Binary element-wise ops: two inputs.
macro_rules! binary {
    ($names:expr, $f:ident) => {
        Row::new($names, (2, 2), &[], |c| c.input(0).$f(c.input(1))).any_attributes()
    };
}

/// The Paddle table (PIR's `pd_op.` names and the older programs' names): each op's inputs
/// once. Programs carry attributes the table does not read, so none is refused.
const PADDLE: &[Row] = &[
    binary!(&["add", "elementwise_add"], add),
    binary!(&["subtract", "elementwise_sub"], sub),
    binary!(&["multiply", "elementwise_mul"], mul),
    binary!(&["floor_divide", "elementwise_floordiv"], floor_div),
    binary!(&["remainder", "elementwise_mod"], floor_mod),
    binary!(&["maximum", "elementwise_max"], max),
    binary!(&["minimum", "elementwise_min"], min),
    binary!(&["equal"], equal),
    binary!(&["not_equal"], not_equal),
    binary!(&["less_than"], less),
    binary!(&["less_equal"], less_equal),
    binary!(&["greater_than"], greater),
    binary!(&["greater_equal"], greater_equal),
    binary!(&["logical_and"], logical_and),
    binary!(&["logical_or"], logical_or),
    binary!(&["logical_xor"], logical_xor),
    Row::new(&["shape", "shape64"], (1, 1), &[], |c| {
        match c.input(0).rank() {
            0 => Err(c.fail(
                Rule::ValueRank,
                Some(0),
                "a tensor's shape is a 1-D value".into(),
            )),
            _ => Ok(c.input(0).clone()),
        }
    })
    .any_attributes(),
    Row::new(&["assign"], (1, 1), &[], |c| Ok(c.input(0).clone())).any_attributes(),
    Row::new(&["numel"], (1, 1), &[], |c| c.input(0).reduce_prod()).any_attributes(),
    Row::new(&["abs"], (1, 1), &[], |c| c.input(0).abs()).any_attributes(),
    Row::new(&["logical_not"], (1, 1), &[], |c| {
        Ok(c.input(0).logical_not())
    })
    .any_attributes(),
    Row::new(&["where"], (3, 3), &[], |c| {
        ShapeValue::select(c.input(0), c.input(1), c.input(2))
    })
    .any_attributes(),
    Row::new(&["slice"], (1, 3), &[], |c| slice(c, false)).any_attributes(),
    Row::new(&["strided_slice"], (1, 4), &[], |c| slice(c, true)).any_attributes(),
    Row::new(&["stack", "concat"], (1, MANY), &[], |c| {
        let axis = c.int("axis")?.unwrap_or(0);
        c.axes(&[axis], 1, 0)?;
        match c.op.ends_with("stack") {
            true => ShapeValue::stack(c.inputs),
            false => ShapeValue::concat(c.inputs),
        }
    })
    .any_attributes(),
    Row::new(&["full", "fill_constant"], (0, 0), &[], |c| {
        let shape = c.ints("shape")?.unwrap_or_default();
        let value = c.required("value", c.float("value")?)?;
        dtype(c)?;
        c.filled(&shape, c.integral(value, "value")?)
    })
    .any_attributes(),
    Row::new(&["full_int_array"], (0, 0), &[], |c| {
        dtype(c)?;
        Ok(ShapeValue::from(c.required("value", c.ints("value")?)?))
    })
    .any_attributes(),
    Row::new(&["cast"], (1, 1), &[], |c| {
        let to = dtype(c)?;
        c.input(0).cast(&c.required("dtype", to)?)
    })
    .any_attributes(),
    Row::new(&["scale"], (1, 2), &[], scale).any_attributes(),
    Row::new(&["reshape"], (1, 2), &[], |c| {
        let target = operand(c, 1, &["shape"], "shape")?;
        c.reshape(&c.required("shape", target)?, true)
    })
    .any_attributes(),
    Row::new(&["unsqueeze"], (1, 2), &[], |c| {
        let axes = operand(c, 1, &["axis", "axes"], "axes")?;
        c.unsqueeze(&c.required("axes", axes)?)
    })
    .any_attributes(),
    Row::new(&["squeeze"], (1, 2), &[], |c| {
        c.squeeze(operand(c, 1, &["axis", "axes"], "axes")?.as_deref())
    })
    .any_attributes(),
    Row::new(&["gather"], (2, 3), &[], |c| {
        let axis = match c.inputs.len() {
            3 => c.numbers(2, "axis")?,
            _ => vec![c.int("axis")?.unwrap_or(0)],
        };
        c.axes(&axis, c.input(0).rank(), 0)?;
        c.input(0).gather(c.input(1))
    })
    .any_attributes(),
];

/// `scale` by an attribute or a one-entry input.
fn scale(c: &Call<'_>) -> R<ShapeValue> {
    let by = match c.inputs.len() {
        2 => match c.numbers(1, "scale")?[..] {
            [s] => s as f64,
            _ => return Err(c.fail(Rule::LengthMismatch, Some(1), "a scale of one entry".into())),
        },
        _ => c.float("scale")?.unwrap_or(1.0),
    };
    let bias = c.float("bias")?.unwrap_or(0.0);
    let after = c.flag("bias_after_scale")?.unwrap_or(true);
    c.input(0).scale(by, bias, after)
}

/// The integers of input `at`, or else of the first of the attributes `names` given: an
/// operand PIR passes as a tensor and older programs as an attribute.
fn operand(c: &Call<'_>, at: usize, names: &[&str], what: &str) -> R<Option<Vec<i64>>> {
    if c.inputs.len() > at {
        return c.numbers(at, what).map(Some);
    }
    for name in names {
        if let Some(v) = c.ints(name)? {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

/// `slice` (`decrease_axis` drops the sliced axis) and `strided_slice`.
fn slice(c: &Call<'_>, strided: bool) -> R<ShapeValue> {
    let n = c.inputs.len();
    let read = |at: usize, name: &str| -> R<Vec<i64>> {
        match n > at {
            true => c.numbers(at, name),
            false => c.required(name, c.ints(name)?),
        }
    };
    let starts = read(1, "starts")?;
    let ends = read(2, "ends")?;
    let steps = match strided {
        true => read(3, "strides")?,
        false => vec![1; starts.len()],
    };
    let axes = c.required("axes", c.ints("axes")?)?;
    if starts.len() != axes.len() || ends.len() != axes.len() || steps.len() != axes.len() {
        return Err(c.fail(
            Rule::LengthMismatch,
            None,
            format!(
                "axes, starts, ends and strides have {}, {}, {} and {} entries",
                axes.len(),
                starts.len(),
                ends.len(),
                steps.len()
            ),
        ));
    }
    let x = c.input(0);
    if x.rank() == 0 {
        return Err(c.fail(Rule::ValueRank, Some(0), "a slice of a 0-D value".into()));
    }
    let mut v = match c.axes(&axes, 1, 0)?.first() {
        Some(_) => x.slice(starts[0], ends[0], steps[0])?,
        None => x.clone(),
    };
    if let Some(d) = c.ints("decrease_axis")? {
        if !c.axes(&d, 1, 0)?.is_empty() {
            v = v.squeeze(0)?;
        }
    }
    Ok(v)
}

/// The `dtype` (or the older `out_dtype`) as a type name, checked to be one: a name, or the
/// type code of older programs.
fn dtype(c: &Call<'_>) -> R<Option<String>> {
    let attr = c.attr("dtype").or_else(|| c.attr("out_dtype"));
    let name = match attr {
        None => return Ok(None),
        Some(OpAttr::Str(s)) => s.clone(),
        Some(OpAttr::Int(code)) => match code {
            0 => "bool",
            1 => "int16",
            2 => "int32",
            3 => "int64",
            4 => "float16",
            5 => "float32",
            6 => "float64",
            20 => "uint8",
            21 => "int8",
            22 => "bfloat16",
            _ => {
                return Err(c.fail(
                    Rule::BadAttribute,
                    None,
                    format!("{code} is not a Paddle type code"),
                ))
            }
        }
        .to_owned(),
        Some(v) => {
            return Err(c.fail(
                Rule::BadAttribute,
                None,
                format!("the dtype {v} is not a type"),
            ))
        }
    };
    Ok(Some(name))
}

//! [`OpAttr`]: an operator attribute as ONNX and Paddle programs store it, the input of
//! [`ShapeValue::onnx_op`] and [`ShapeValue::paddle_op`].

use std::fmt;

#[cfg(doc)]
use super::ShapeValue;

/// An attribute of an ONNX node or a Paddle op, as the framework stores it: an integer, a list
/// of integers, a float, a list of floats, a flag or a string. The `From` conversions make one
/// from a Rust value (`OpAttr::from(0i64)`, `OpAttr::from(vec![0i64])`, `OpAttr::from(64.0)`,
/// `OpAttr::from(true)`, `OpAttr::from("int64")`).
///
/// Where an operator reads an integer list, a single integer is taken as a list of one; where
/// it reads an integer or a float, a list of one is taken as its entry (ONNX holds a scalar
/// attribute such as `ConstantOfShape`'s `value` in a one-element tensor); where it reads a
/// float, an integer is taken as that float; where it reads a flag, `0` and `1` are taken as
/// `false` and `true`. An attribute of another form is an error naming it and the form it
/// needs.
///
/// ```
/// use ndarray_reshape::{OpAttr, ShapeValue};
///
/// let b = ShapeValue::onnx_op("Unsqueeze", &[ShapeValue::scalar(5)], &[("axes", OpAttr::from(vec![0i64]))], 11)?;
/// assert_eq!(b, ShapeValue::from(vec![5]));
/// assert_eq!(OpAttr::from(vec![0i64, 2]).to_string(), "[0, 2]");
/// // Every From conversion:
/// assert_eq!(OpAttr::from(-1i64), OpAttr::Int(-1));
/// assert_eq!(OpAttr::from(7), OpAttr::Int(7)); // i32
/// let axes: &[i64] = &[0, 1];
/// assert_eq!(OpAttr::from(axes), OpAttr::Ints(vec![0, 1]));
/// assert_eq!(OpAttr::from([0i64, 1]), OpAttr::from(vec![0i64, 1]));
/// assert_eq!(OpAttr::from(0.5f32), OpAttr::Float(0.5)); // exactly, as f64
/// assert_eq!(OpAttr::from(vec![1.0, 2.0]), OpAttr::Floats(vec![1.0, 2.0]));
/// assert_eq!(OpAttr::from(true), OpAttr::Bool(true));
/// assert_eq!(OpAttr::from("int64"), OpAttr::from(String::from("int64")));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum OpAttr {
    /// An integer (ONNX `INT`, Paddle `int32`/`int64` attributes).
    Int(i64),
    /// A list of integers (ONNX `INTS`, Paddle `IntArray` and integer lists).
    Ints(Vec<i64>),
    /// A float (ONNX `FLOAT`, Paddle `float`/`double` attributes such as `scale`'s).
    Float(f64),
    /// A list of floats.
    Floats(Vec<f64>),
    /// A flag (Paddle `bool` attributes such as `bias_after_scale`).
    Bool(bool),
    /// A string (ONNX `STRING`, Paddle's `dtype` as named in a program, `"int64"`).
    Str(String),
}

/// `OpAttr::from` each Rust type to its variant.
macro_rules! op_attr_from {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl From<$t> for OpAttr {
            fn from(v: $t) -> Self {
                OpAttr::$variant(v.into())
            }
        }
    )*};
}
op_attr_from!(
    i64 => Int,
    i32 => Int,
    Vec<i64> => Ints,
    &[i64] => Ints,
    f64 => Float,
    f32 => Float,
    Vec<f64> => Floats,
    bool => Bool,
    &str => Str,
    String => Str,
);

/// A list of integers.
impl<const N: usize> From<[i64; N]> for OpAttr {
    fn from(v: [i64; N]) -> Self {
        OpAttr::Ints(v.to_vec())
    }
}

impl fmt::Display for OpAttr {
    /// As the value is written: `3`, `[0, 1]`, `64.0`, `true`, `"int64"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpAttr::Int(v) => write!(f, "{v}"),
            OpAttr::Ints(v) => write!(f, "{v:?}"),
            OpAttr::Float(v) => write!(f, "{v:?}"),
            OpAttr::Floats(v) => write!(f, "{v:?}"),
            OpAttr::Bool(v) => write!(f, "{v}"),
            OpAttr::Str(v) => write!(f, "{v:?}"),
        }
    }
}

impl OpAttr {
    /// The integer, for an `Int` or `Ints` of one (ONNX holds a scalar attribute such as
    /// `ConstantOfShape`'s `value` in a one-element tensor).
    pub(super) fn int(&self) -> Option<i64> {
        match self {
            OpAttr::Int(v) => Some(*v),
            OpAttr::Ints(v) if v.len() == 1 => Some(v[0]),
            _ => None,
        }
    }

    /// The integers, for `Ints` or one `Int`.
    pub(super) fn ints(&self) -> Option<Vec<i64>> {
        match self {
            OpAttr::Int(v) => Some(vec![*v]),
            OpAttr::Ints(v) => Some(v.clone()),
            _ => None,
        }
    }

    /// The float, for a `Float` or an `Int`, or a list of one of either.
    pub(super) fn float(&self) -> Option<f64> {
        match self {
            OpAttr::Float(v) => Some(*v),
            OpAttr::Int(v) => Some(*v as f64),
            OpAttr::Floats(v) if v.len() == 1 => Some(v[0]),
            OpAttr::Ints(v) if v.len() == 1 => Some(v[0] as f64),
            _ => None,
        }
    }

    /// The flag, for a `Bool` or an `Int` of 0 or 1.
    pub(super) fn flag(&self) -> Option<bool> {
        match *self {
            OpAttr::Bool(v) => Some(v),
            OpAttr::Int(0) => Some(false),
            OpAttr::Int(1) => Some(true),
            _ => None,
        }
    }

    /// Whether it holds a float: a value shape values cannot hold.
    pub(super) fn is_float(&self) -> bool {
        matches!(self, OpAttr::Float(_) | OpAttr::Floats(_))
    }
}

//! Shape graphs: [`ShapeValue`], the value a shape subgraph of an exported model computes (in
//! `value`), its structural operations (`ops`), arithmetic (`arith`), comparisons and logic
//! (`logic`), and the ONNX and Paddle operator tables that apply them by name (`onnx_ops`,
//! `paddle_ops`, read through one call's signature in `call`, with its attributes, [`OpAttr`],
//! in `attr`); [`ElemType`], the element types and their ONNX and Paddle codes, in `elem`.
//! Built on the `SymDim` algebra of `sym`.
#![forbid(unsafe_code)]

mod arith;
mod attr;
mod call;
mod elem;
mod logic;
mod onnx_ops;
mod ops;
mod paddle_ops;
mod value;

pub(crate) use call::{Call, Row, MANY};
pub(crate) use onnx_ops::onnx_rows;
pub(crate) use value::MAX_ENTRIES;

pub use attr::OpAttr;
pub use elem::ElemType;
pub use value::ShapeValue;

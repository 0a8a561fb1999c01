//! Whole graphs: every tensor's shape in an ONNX graph ([`Graph::infer`]). The graph as a
//! caller hands it over (`desc`: [`Graph`], [`GraphNode`], [`TensorData`]), what the walk
//! knows of each tensor (`facts`: [`TensorFact`], [`ElemType`]), the walk and its result
//! (`walk`, with `control` for the subgraphs of `If`, `Loop` and `Scan`; its result in
//! `result`: [`GraphShapes`], [`BoundShapes`]), and the shape rules of the operators with their
//! table (`shapes`), whose rows share the signature and value rule of the shape-value table
//! (`graph`) where an operator has one. Built on the `SymDim` algebra (`sym`), the shape values
//! (`graph`) and the ONNX reshape dialect (`dialect`).
#![forbid(unsafe_code)]

mod control;
mod desc;
mod facts;
#[cfg(feature = "onnx")]
mod onnx_file;
#[cfg(feature = "onnx")]
mod proto;
mod result;
mod shapes;
mod walk;

pub use desc::{Graph, GraphNode, InputDim, NodeAttr, TensorData};
pub use facts::TensorFact;
pub use result::{BoundShapes, GraphCondition, GraphShapes, Inexact, UnknownOps};

//! Shapes without data: symbolic inference checked against the concrete one on every recorded
//! case (`symbolic`), the shape values of graphs and their operations (`shape_values`), the
//! computed shapes of real exported models against the runtimes' values (`shapegraphs`), and
//! every tensor's shape of whole graphs: real models against onnxruntime (`opshapes`), ONNX's
//! node tests (`node_tests`), random graphs against their concrete walks (`graph_sweep`),
//! `.onnx` files (`onnx_file`). One test binary, a module per concern.

mod assumptions;
mod contrib_ops;
mod graph_sweep;
#[path = "../common/graphs.rs"]
mod graphs;
#[path = "../common/json.rs"]
mod json;
mod memory;
mod node_tests;
#[cfg(feature = "onnx")]
mod onnx_file;
mod opshapes;
#[path = "../common/rng.rs"]
mod rng;
mod shape_values;
mod shapegraphs;
mod soundness;
mod symbolic;
mod tables;

use ndarray_reshape::{ReshapeError, SymDim};

/// What a test that may fail with the crate's error returns.
type R = Result<(), ReshapeError>;

/// The symbol `name`.
fn s(name: &str) -> SymDim {
    SymDim::sym(name)
}

/// The known size `v`.
fn k(v: usize) -> SymDim {
    SymDim::from(v)
}

//! The dialects against the frameworks: every recorded framework case (`conformance`), the
//! reshape nodes of 58 real models (`models`), every error message (`errors`), and einops'
//! answers for `rearrange` and `repeat` (`rearrange`). One test binary, a module per concern.

// The helpers the modules share, each loaded once.
#[path = "../common/json.rs"]
mod json;
// The array oracle's explanation invariants are used here; its symbolic checks are the
// `shapes` binary's, its array checks the sweep's.
#[path = "../common/onnx_run.rs"]
mod onnx_run;
#[allow(dead_code)]
#[path = "../common/oracle.rs"]
mod oracle;

mod conformance;
mod errors;
mod models;
mod rearrange;

//! The `einops_contract` test target: `tests/einops_contract.rs` is an unchanged copy of
//! `../shared/contracts/einops.rs`, compiled here as a module so that `cargo fmt` leaves its
//! bytes alone; beside it the recorded einops cases of `reduce`, `pack`, `unpack` and
//! `parse_shape` (`cases.rs`).

#[rustfmt::skip]
#[path = "../einops_contract.rs"]
mod einops_contract;

mod cases;
mod engine;
mod errors;
#[path = "../common/json.rs"]
mod json;
#[path = "../common/onnx_run.rs"]
mod onnx_run;
mod packs;
#[path = "../common/rng.rs"]
mod rng;
mod shapes;

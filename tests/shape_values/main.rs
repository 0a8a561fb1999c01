//! The `shape_values_contract` test target: `tests/shape_values_contract.rs` is an unchanged
//! copy of `../shared/contracts/shape_values.rs`, compiled here as a module so that `cargo fmt`
//! leaves its bytes alone (its layout is not ours to change).

// The contract's own style, which clippy would change in a file of ours.
#[allow(clippy::useless_vec)]
#[rustfmt::skip]
#[path = "../shape_values_contract.rs"]
mod shape_values_contract;

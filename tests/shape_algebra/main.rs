//! The `shape_algebra_contract` test target: `tests/shape_algebra_contract.rs` is an unchanged
//! copy of `../shared/contracts/shape_algebra.rs`, compiled here as a module so that `cargo fmt`
//! leaves its bytes alone (its layout is not ours to change).

// The contract's own style (it clones `Copy` dims), which clippy would change in a file of ours.
#[allow(clippy::clone_on_copy, clippy::cloned_ref_to_slice_refs)]
#[rustfmt::skip]
#[path = "../shape_algebra_contract.rs"]
mod shape_algebra_contract;

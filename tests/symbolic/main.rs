//! The `symbolic_contract` test target: `tests/symbolic_contract.rs` is an unchanged copy of
//! `../shared/contracts/symbolic.rs`, compiled here as a module so that `cargo fmt` leaves its
//! bytes alone (its layout is not ours to change).

// The contract clones `Dim`s, which are `Copy`, and passes `&[..]` where arrays work by value.
#[allow(clippy::clone_on_copy, clippy::needless_borrows_for_generic_args)]
#[rustfmt::skip]
#[path = "../symbolic_contract.rs"]
mod symbolic_contract;

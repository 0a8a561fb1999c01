//! The `api_contract` test target: `tests/api_contract.rs` is an unchanged copy of
//! `../shared/api_contract.rs`, compiled here as a module so that `cargo fmt` leaves its bytes
//! alone (its layout is not ours to change).

// The contract passes `&[..]` literals where the API also takes arrays by value.
#[allow(clippy::needless_borrows_for_generic_args)]
#[rustfmt::skip]
#[path = "../api_contract.rs"]
mod api_contract;

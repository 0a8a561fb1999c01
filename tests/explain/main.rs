//! The `explain_contract` test target: `tests/explain_contract.rs` is an unchanged copy of
//! `../shared/contracts/explain.rs`, compiled here as a module so that `cargo fmt` leaves its
//! bytes alone (its layout is not ours to change).

#[rustfmt::skip]
#[path = "../explain_contract.rs"]
mod explain_contract;

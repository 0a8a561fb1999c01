//! The `rearrange_contract` test target: `tests/rearrange_contract.rs` is an unchanged copy of
//! `../shared/contracts/rearrange.rs`, compiled here as a module so that `cargo fmt` leaves its
//! bytes alone (its layout is not ours to change).

#[rustfmt::skip]
#[path = "../rearrange_contract.rs"]
mod rearrange_contract;

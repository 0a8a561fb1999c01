//! The modes on arrays: every mode on every storage (`modes`, `consuming`,
//! `in_place_and_layout`, `array_ref`), every element size (`element_sizes`), the allocations
//! each makes (`allocations`, whose counting allocator serves the whole binary), copies from
//! many threads (`concurrency`), and sizes no machine holds (`hostile_sizes`). One test binary,
//! a module per concern.

mod allocations;
mod array_ref;
mod concurrency;
mod consuming;
mod convert;
mod element_sizes;
mod hostile_sizes;
mod in_place_and_layout;
#[allow(clippy::module_inception)]
mod modes;
mod rearrange;
#[path = "../common/rng.rs"]
mod rng;

//! Generated inputs: the laws every reshape keeps, under proptest (`properties`), and a
//! deterministic no-panic sweep of arrays and of shape programs against slow references
//! (`sweep`). One test binary, a module per concern.

#[allow(clippy::module_inception)]
mod properties;
mod sweep;

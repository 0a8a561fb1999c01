#![no_main]
//! Fuzz the `onnx` dialect: see `common.rs` for what is asserted.

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::run(data, common::Target::Onnx));

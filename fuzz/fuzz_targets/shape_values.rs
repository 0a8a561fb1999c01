#![no_main]
//! Fuzz shape programs: random `ShapeValue` operations over random symbolic shapes, checked
//! against the same program run on numbers (`tests/common/programs.rs`).

#[path = "../../tests/common/programs.rs"]
mod programs;

use arbitrary::Unstructured;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let prog = programs::generate(&mut |n| u.int_in_range(0..=n - 1).unwrap_or(0));
    if let Err(e) = programs::check(&prog) {
        panic!("{prog:?}: {e}");
    }
});

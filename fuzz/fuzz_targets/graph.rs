//! Whole graphs: the fuzzer's bytes as an ONNX model (`Graph::from_onnx`, walked with fresh
//! symbols for unknown operators), and as choices that build a random small graph
//! (`tests/common/graphs.rs`), walked symbolically and checked against its concrete walks at
//! bindings the bytes choose: no panic, and no condition that holds where the concrete rules
//! fail, no dim that evaluates to another size.
#![no_main]

#[path = "../../tests/common/graphs.rs"]
mod graphs;

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use ndarray_reshape::{Assumptions, Graph, UnknownOps};

struct Bytes<'a>(Unstructured<'a>);

impl graphs::Pick for Bytes<'_> {
    fn below(&mut self, n: usize) -> usize {
        self.0.int_in_range(0..=n.saturating_sub(1)).unwrap_or(0)
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(g) = Graph::from_onnx(data) {
        if let Ok(shapes) = g.infer_with(&Assumptions::new(), UnknownOps::Fresh) {
            let _ = shapes.to_onnx(data);
        }
    }
    let mut p = Bytes(Unstructured::new(data));
    let g = graphs::graph(&mut p, 8);
    let bindings: Vec<[usize; 3]> = (0..3)
        .map(|_| {
            use graphs::Pick;
            [1 + p.below(9), 1 + p.below(9), 1 + p.below(9)]
        })
        .collect();
    if let Err(e) = graphs::check(&g, &bindings, &mut graphs::Found::default()) {
        panic!("{e}\n{:?}", g.nodes());
    }
});

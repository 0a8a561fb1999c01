//! Whole-graph shape inference of `.onnx` models, timed (the `shapes` table of BENCHMARKS.md):
//! each model read once (`Graph::from_onnx`), then walked until 0.5 s or 200 walks have passed
//! (at least 5), graph already in memory; one JSON line per model with the median walk in ms
//! and what the walk found. `scripts/bench_peers.py shapes` runs it beside onnx's
//! `infer_shapes` and onnxruntime's `symbolic_shape_infer` on the same models.
//!
//!     cargo run --release -p ndarray_reshape_bench --bin graph_shapes -- a.onnx b.onnx ...

use std::time::{Duration, Instant};

use ndarray_reshape::{Assumptions, Graph, UnknownOps};

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let graph = Graph::from_onnx(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        let assume = Assumptions::new();
        let mut times = Vec::new();
        let start = Instant::now();
        let mut last = None;
        while times.len() < 5 || (start.elapsed() < Duration::from_millis(500) && times.len() < 200)
        {
            let t = Instant::now();
            let shapes = graph.infer_with(&assume, UnknownOps::Fresh);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            last = Some(shapes);
        }
        times.sort_by(f64::total_cmp);
        let (tensors, conditions, inexact) = match last.expect("one walk") {
            Ok(s) => (s.tensors().count(), s.conditions().len(), s.inexact().len()),
            Err(e) => panic!("{path}: {e}"),
        };
        println!(
            "{{\"model\": {path:?}, \"ms\": {:.4}, \"walks\": {}, \"nodes\": {}, \"tensors\": {tensors}, \"conditions\": {conditions}, \"inexact\": {inexact}}}",
            times[times.len() / 2],
            times.len(),
            graph.nodes().len()
        );
    }
}

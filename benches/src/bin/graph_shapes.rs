//! Whole-graph shape inference of `.onnx` models, timed (the `shapes` table of BENCHMARKS.md):
//! each model read once (`Graph::from_onnx`), then walked until 0.5 s or 200 walks have passed
//! (at least 5), graph already in memory; one JSON line per model with the median walk in ms
//! and what the walk found. `scripts/bench_peers.py shapes` runs it beside onnx's
//! `infer_shapes` and onnxruntime's `symbolic_shape_infer` on the same models.
//!
//!     cargo run --release -p ndarray_reshape_bench --bin graph_shapes -- [--dims DIR] a.onnx b.onnx ...
//!
//! With `--dims DIR`, each model's tensors (element type and dims, a symbolic dim as `SymDim`
//! writes it) go to `DIR/<model>.json` in the layout of the opshapes corpus's anchors, for its
//! `score.py`.

use std::time::{Duration, Instant};

use ndarray_reshape::{Assumptions, Graph, UnknownOps};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let dims = match args.first().map(String::as_str) {
        Some("--dims") => {
            let dir = args.get(1).cloned().expect("--dims needs a directory");
            args.drain(..2);
            Some(dir)
        }
        _ => None,
    };
    for path in args {
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
        let shapes = last
            .expect("one walk")
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let (tensors, conditions, inexact) = (
            shapes.tensors().count(),
            shapes.conditions().len(),
            shapes.inexact().len(),
        );
        if let Some(dir) = &dims {
            let mut out = serde_json::Map::new();
            for (name, fact) in shapes.tensors() {
                let dims = fact.shape().map(|s| {
                    s.iter()
                        .map(|d| match d.constant() {
                            Some(v) => serde_json::Value::from(v),
                            None => serde_json::Value::from(d.to_string()),
                        })
                        .collect::<Vec<_>>()
                });
                let elem = fact.elem().map(|e| e.code());
                out.insert(
                    name.to_string(),
                    serde_json::json!({"elem_type": elem, "dims": dims}),
                );
            }
            let stem = std::path::Path::new(&path)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string();
            let anchor = serde_json::json!({"ndarray_reshape": {"ok": true, "tensors": out}});
            std::fs::write(format!("{dir}/{stem}.json"), anchor.to_string()).unwrap();
        }
        println!(
            "{{\"model\": {path:?}, \"ms\": {:.4}, \"walks\": {}, \"nodes\": {}, \"tensors\": {tensors}, \"conditions\": {conditions}, \"inexact\": {inexact}}}",
            times[times.len() / 2],
            times.len(),
            graph.nodes().len()
        );
    }
}

//! Every tensor's shape of an ONNX model, with the conditions under which it holds and what the
//! data decides: the crate's answer to onnxruntime's `symbolic_shape_infer`.
//!
//! ```sh
//! cargo run --release --features onnx --example onnx_shapes -- model.onnx \
//!     [batch=1 ...] [--assume "height % 32 == 0"] [--write out.onnx]
//! ```
//!
//! `NAME=N` fixes an input symbol (a `dim_param`) to a size before the walk; `--assume` states
//! a fact on one (`S % K == 0`, `S >= K`, `S <= K`, `S == K`); `--write` writes the model back
//! with every node output's shape in its `value_info` (symbolic dims as `dim_param`
//! expressions). Without a model it walks `examples/data/neck.onnx`, a small YOLO-style neck.

use std::process::ExitCode;

use ndarray_reshape::{Assumptions, Graph, UnknownOps};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("onnx_shapes: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut path = None;
    let mut fixed: Vec<(String, usize)> = Vec::new();
    let mut assume = Assumptions::new();
    let mut write = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--assume" => assume = fact(assume, &args.next().ok_or("--assume needs a fact")?)?,
            "--write" => write = Some(args.next().ok_or("--write needs a path")?),
            _ => match a.split_once('=') {
                Some((name, v)) => {
                    let v = v.parse().map_err(|_| format!("{a}: not NAME=SIZE"))?;
                    fixed.push((name.to_string(), v));
                }
                None => path = Some(a),
            },
        }
    }
    let path = path
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/neck.onnx").into());
    let bytes = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
    let mut graph = Graph::from_onnx(&bytes).map_err(|e| e.to_string())?;
    for (name, size) in &fixed {
        graph.fix(name, *size);
    }
    let start = std::time::Instant::now();
    let shapes = graph
        .infer_with(&assume, UnknownOps::Fresh)
        .map_err(|e| e.to_string())?;
    let took = start.elapsed();
    print!("{shapes}");
    println!(
        "{path}: {} tensors, {} conditions, {} not exact, walked in {:.2} ms",
        shapes.tensors().count(),
        shapes.conditions().len(),
        shapes.inexact().len(),
        took.as_secs_f64() * 1e3
    );
    if let Some(out) = write {
        let written = shapes.to_onnx(&bytes).map_err(|e| e.to_string())?;
        std::fs::write(&out, written).map_err(|e| format!("{out}: {e}"))?;
        println!("wrote {out}");
    }
    Ok(())
}

/// `S % K == 0`, `S >= K`, `S <= K` or `S == K` as a fact on the symbol `S`.
fn fact(a: Assumptions, text: &str) -> Result<Assumptions, String> {
    let t: Vec<&str> = text.split_whitespace().collect();
    let num = |s: &str| {
        s.parse::<usize>()
            .map_err(|_| format!("{text}: {s} is not a size"))
    };
    match t.as_slice() {
        [s, "%", k, "==", "0"] => Ok(a.multiple_of(s, num(k)?)),
        [s, ">=", k] => Ok(a.at_least(s, num(k)?)),
        [s, "<=", k] => Ok(a.at_most(s, num(k)?)),
        [s, "==", k] => Ok(a.at_least(s, num(k)?).at_most(s, num(k)?)),
        _ => Err(format!(
            "{text}: not one of S % K == 0, S >= K, S <= K, S == K"
        )),
    }
}

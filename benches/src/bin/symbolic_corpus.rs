//! Symbolic inference over the recorded conformance corpus (`tests/data/*.jsonl`), timed: every
//! case of every dialect, with each subset of its input dims as symbols (64 spread subsets
//! above rank 6), in both naming schemes (as `tests/shapes/symbolic.rs` checks them), inferred and
//! evaluated under the binding that gives the numbers back. The concrete inference of the same
//! inputs is timed in the same run, so the ratio between the two is what to compare across
//! machines and commits (BENCHMARKS.md, "What does symbolic inference cost?").
//!
//!     cargo run --release -p ndarray_reshape_bench --bin symbolic_corpus

use std::time::Instant;

use ndarray_reshape::{Like, Mx, Np, Npx, Onnx, Order, Paddle, ShapeSpec, SymDim};
use serde_json::Value;

// The symbolization the symbolic consistency test uses (`symbolize`), shared.
#[allow(dead_code)]
#[path = "../../../tests/common/oracle.rs"]
mod oracle;
use oracle::symbolize;

/// A case's spec, as its symbolic inference (`true` when the result evaluates under the
/// binding) and its concrete one (`true` when it succeeds).
struct Spec {
    symbolic: Box<SymbolicFn>,
    concrete: Box<ConcreteFn>,
}

type SymbolicFn = dyn Fn(&[SymDim], &[(&str, usize)]) -> bool;
type ConcreteFn = dyn Fn(&[usize]) -> bool;

/// A symbolic input: the case's index, its dims, and the binding of its symbols.
type Input = (usize, Vec<SymDim>, Vec<(String, usize)>);

fn spec<P: ShapeSpec + Clone + 'static>(p: P) -> Spec {
    let q = p.clone();
    Spec {
        symbolic: Box::new(move |dims, bind| {
            p.infer_symbolic(dims)
                .is_ok_and(|out| out.eval(bind).is_some())
        }),
        concrete: Box::new(move |input| q.infer_shape(input).is_ok()),
    }
}

fn i64s(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/../tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every case as a spec and its input.
fn cases() -> Vec<(Spec, Vec<usize>)> {
    let b = |v: &Value| v.as_bool().unwrap();
    let mut out: Vec<(Spec, Vec<usize>)> = Vec::new();
    for c in load("mxnet.jsonl") {
        out.push((
            spec(Mx::new(i64s(&c["spec"])).reverse(b(&c["reverse"]))),
            usizes(&c["in"]),
        ));
    }
    for c in load("mxnet_legacy.jsonl") {
        let target = Mx::target_shape(i64s(&c["target_shape"])).keep_highest(b(&c["keep_highest"]));
        out.push((spec(target), usizes(&c["in"])));
    }
    for c in load("like.jsonl") {
        let like = Like::new(usizes(&c["rhs"]))
            .lhs(c["lhs_begin"].as_i64(), c["lhs_end"].as_i64())
            .rhs(c["rhs_begin"].as_i64(), c["rhs_end"].as_i64());
        out.push((spec(like), usizes(&c["lhs"])));
    }
    for c in load("paddle.jsonl") {
        out.push((spec(Paddle::new(i64s(&c["spec"]))), usizes(&c["in"])));
    }
    for c in load("numpy.jsonl") {
        let order = match c["order"].as_str().unwrap() {
            "F" => Order::F,
            "A" => Order::A,
            _ => Order::C,
        };
        out.push((spec(Np::new(i64s(&c["spec"]), order)), usizes(&c["shape"])));
    }
    for c in load("npx.jsonl") {
        out.push((
            spec(Npx::new(i64s(&c["spec"])).reverse(b(&c["reverse"]))),
            usizes(&c["in"]),
        ));
    }
    for c in load("onnx.jsonl") {
        let onnx = Onnx::new(i64s(&c["spec"])).allowzero(b(&c["allowzero"]));
        out.push((spec(onnx), usizes(&c["in"])));
    }
    out
}

fn masks(rank: usize) -> Vec<u64> {
    let rank = rank.min(63);
    let all: u64 = if rank == 0 {
        0
    } else {
        u64::MAX >> (64 - rank)
    };
    if rank <= 6 {
        (0..=all).collect()
    } else {
        (0..64u64)
            .map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15) & all)
            .chain([all])
            .collect()
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let cases = cases();
    // The symbolic inputs, built once (symbol names are interned for the process).
    let inputs: Vec<Input> = cases
        .iter()
        .enumerate()
        .flat_map(|(k, (_, input))| {
            masks(input.len()).into_iter().flat_map(move |m| {
                [true, false].map(|shared| {
                    let (dims, names) = symbolize(input, m, shared);
                    (k, dims, names)
                })
            })
        })
        .collect();
    let (mut sym_ms, mut num_ms) = (Vec::new(), Vec::new());
    let mut evaluated = 0usize;
    for _ in 0..5 {
        let t = Instant::now();
        evaluated = 0;
        for (k, dims, names) in &inputs {
            let bind: Vec<(&str, usize)> = names.iter().map(|(n, v)| (n.as_str(), *v)).collect();
            evaluated += usize::from((cases[*k].0.symbolic)(dims, &bind));
        }
        sym_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let mut ok = 0usize;
        for (k, _, _) in &inputs {
            ok += usize::from((cases[*k].0.concrete)(&cases[*k].1));
        }
        std::hint::black_box(ok);
        num_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let (s, n) = (median(sym_ms), median(num_ms));
    println!(
        "symbolic_corpus: {} cases, {} symbolic inputs ({evaluated} evaluate); symbolic {s:.1} ms \
         ({:.2} us per input), concrete {n:.1} ms; symbolic / concrete {:.1}x",
        cases.len(),
        inputs.len(),
        s * 1e3 / inputs.len() as f64,
        s / n
    );
}

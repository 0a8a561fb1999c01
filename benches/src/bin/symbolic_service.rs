//! A converter service's view of the symbolic layer: memory and time per model over a long
//! run, and interning forms crafted to collide (BENCHMARKS.md, "A long-running process").
//!
//!     cargo run --release -p ndarray_reshape_bench --bin symbolic_service -- models 100000
//!     cargo run --release -p ndarray_reshape_bench --bin symbolic_service -- collide 32768
//!     cargo run --release -p ndarray_reshape_bench --bin symbolic_service -- corpus 1000
//!
//! `models N`: N small models one after another, each with symbol names of its own (`B17`,
//! `T17`), a `Shape`/`Gather`/`Div`/`Add`/`Concat` subgraph walked through `onnx_op` and a
//! symbolic ONNX `Reshape` inferred and evaluated; every value dropped after its model. Prints
//! the resident memory, the forms alive and the time per model at checkpoints.
//!
//! `corpus N`: the recorded shape graphs of real models (`tests/data/shapegraphs`, walked as
//! `tests/shapes/shapegraphs.rs` walks them) N times, each round's symbols named anew, with the
//! same checkpoints.
//!
//! `collide N`: interns N forms `k + c*F` whose constants `c` are solved so that all of them
//! share one hash under a plain multiply-rotate hash (the hash of a table keyed by nothing),
//! and N ordinary forms of the same kind (distinct constants of the same magnitude), and prints
//! both times.

use std::time::Instant;

use ndarray_reshape::{Onnx, OpAttr, ShapeSpec, ShapeValue, SymDim};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    match args.get(1).map(String::as_str) {
        Some("collide") => collide(n),
        Some("corpus") => corpus(n),
        _ => models(n),
    }
}

/// Resident memory in MB (Linux), or 0 where unknown.
fn rss_mb() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / 1e6
}

/// One model: `x.view(x.size(0), x.size(1) // 2 + 1, -1)` on `x: [B, T, 768]`, as exported.
fn model(i: usize) -> usize {
    let (b, t) = (SymDim::sym(&format!("B{i}")), SymDim::sym(&format!("T{i}")));
    let x = [b, t, SymDim::from(768)];
    let op = |name: &str, inputs: &[ShapeValue], attrs: &[(&str, OpAttr)]| {
        ShapeValue::onnx_op(name, inputs, attrs, 17).expect("a valid node")
    };
    let axis0 = [("axis", OpAttr::from(0))];
    let shape = op("Shape", &[ShapeValue::shape_of(&x)], &[]);
    let batch = op("Gather", &[shape.clone(), ShapeValue::scalar(0)], &axis0);
    let len = op("Gather", &[shape, ShapeValue::scalar(1)], &axis0);
    let half = op("Div", &[len, ShapeValue::scalar(2)], &[]);
    let half = op("Add", &[half, ShapeValue::scalar(1)], &[]);
    let unsq = |v: ShapeValue| op("Unsqueeze", &[v, ShapeValue::from(vec![0])], &[]);
    let target = op(
        "Concat",
        &[unsq(batch), unsq(half), ShapeValue::from(vec![-1])],
        &axis0,
    );
    let out = Onnx::new(&target)
        .infer_symbolic(&x)
        .expect("a valid reshape");
    let bind = [(format!("B{i}"), 2), (format!("T{i}"), 2 * (i % 64) + 2)];
    let bind: Vec<(&str, usize)> = bind.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    out.eval(&bind).map_or(0, |v| v.len())
}

// The walker of the shape-graph corpus test and its corpus reader, shared.
#[path = "../../../tests/common/json.rs"]
mod json;
#[allow(dead_code)]
#[path = "../../../tests/shapes/shapegraphs.rs"]
mod shapegraphs;

fn corpus(n: usize) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/shapegraphs");
    if std::env::var_os("SHAPEGRAPHS_DIR").is_none() {
        std::env::set_var("SHAPEGRAPHS_DIR", dir);
    }
    let recs: Vec<serde_json::Value> = shapegraphs::records()
        .into_iter()
        .filter_map(|(_, r)| r.ok())
        .collect();
    println!("symbolic_service corpus: {} records a round", recs.len());
    run(n, "rounds", |round| {
        let suffix = format!("_{round}");
        recs.iter()
            .filter(|r| {
                matches!(
                    shapegraphs::check_named(r, &suffix),
                    shapegraphs::Outcome::Resolved(_)
                )
            })
            .count()
    });
}

fn models(n: usize) {
    run(n, "models", model);
}

/// `step(0..n)`, with the resident memory, the forms alive and the time per step at 1,000,
/// 10,000, 100,000 and 1,000,000 steps (and 10 and 100), and at the last.
fn run(n: usize, what: &str, mut step: impl FnMut(usize) -> usize) {
    let mut checks: Vec<usize> = [10, 100, 1_000, 10_000, 100_000, 1_000_000]
        .into_iter()
        .filter(|&c| c <= n)
        .collect();
    if checks.last() != Some(&n) {
        checks.push(n);
    }
    let (mut done, mut sum) = (0usize, 0usize);
    let start = Instant::now();
    let mut last = (0usize, start);
    for c in checks {
        while done < c {
            sum += step(done);
            done += 1;
        }
        let now = Instant::now();
        let per = now.duration_since(last.1).as_secs_f64() * 1e6 / (done - last.0) as f64;
        println!(
            "symbolic_service {what}: after {done}: rss {:.1} MB, {} forms alive, {per:.1} us per step since {}",
            rss_mb(),
            SymDim::live_forms(),
            last.0
        );
        last = (done, now);
    }
    std::hint::black_box(sum);
}

/// The multiply-rotate step of a hash keyed by nothing: invertible, so a caller can solve for
/// a word that makes any form hash to any value.
const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

fn step(h: u64, w: u64) -> u64 {
    (h.rotate_left(5) ^ w).wrapping_mul(K)
}

/// The inverse of `K` modulo 2^64 (Newton's iteration).
fn inverse(k: u64) -> u64 {
    let mut x = k;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(k.wrapping_mul(x)));
    }
    x
}

/// The words a derived `Hash` writes for the sum `k + c*F` (F the first atom): the node's
/// variant, the terms, each monomial and its rational coefficient as two 128-bit integers.
fn words(k: i64, c: u64) -> [u64; 14] {
    let k = k as i128;
    [
        0,
        2,
        0,
        k as u64,
        (k >> 64) as u64,
        1,
        0,
        1,
        0,
        1,
        c,
        0,
        1,
        0,
    ]
}

/// The constant `c` that makes `k + c*F` hash to `target`.
fn solve(k: i64, target: u64) -> u64 {
    let w = words(k, 0);
    let mut h = 0u64;
    for &x in &w[..10] {
        h = step(h, x);
    }
    // Back from the target over the words after c.
    let kinv = inverse(K);
    let mut g = target;
    for &x in w[11..].iter().rev() {
        g = (g.wrapping_mul(kinv) ^ x).rotate_right(5);
    }
    g.wrapping_mul(kinv) ^ h.rotate_left(5)
}

fn collide(n: usize) {
    let f = SymDim::sym("F");
    let target = 0x0123_4567_89ab_cdef;
    // Constants that fit int64, each checked to reach the target.
    let crafted: Vec<(i64, i64)> = (1..)
        .map(|k: i64| (k, solve(k, target)))
        .filter(|&(_, c)| c <= i64::MAX as u64)
        .inspect(|&(k, c)| assert_eq!(words(k, c).iter().fold(0, |h, &w| step(h, w)), target))
        .map(|(k, c)| (k, c as i64))
        .take(n)
        .collect();
    let time = |forms: &[(i64, i64)]| {
        let t = Instant::now();
        let kept: Vec<SymDim> = forms
            .iter()
            .map(|&(k, c)| SymDim::int(k) + SymDim::int(c) * f.clone())
            .collect();
        let s = t.elapsed().as_secs_f64();
        std::hint::black_box(kept);
        s
    };
    // Ordinary forms of the same kind: distinct constants of the same magnitude.
    let ordinary: Vec<(i64, i64)> = (1..=n as u64)
        .map(|k| {
            (
                k as i64,
                (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 2) as i64,
            )
        })
        .collect();
    let plain = time(&ordinary);
    let steered = time(&crafted);
    println!(
        "symbolic_service collide: {n} ordinary forms {:.3} s, {n} forms colliding under a multiply-rotate hash {:.3} s ({:.2}x)",
        plain,
        steered,
        steered / plain
    );
}

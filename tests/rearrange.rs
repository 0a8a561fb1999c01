//! einops' own answers for `rearrange` and `repeat` (`tests/data/rearrange/*.jsonl`, recorded
//! from einops 0.8.2 on numpy; `REARRANGE_CASES_DIR` names another directory of such cases):
//! every case's output shape, or an error exactly where einops raised one, of the kind einops
//! raised.

use std::path::PathBuf;

use ndarray_reshape::{Rearrange, ReshapeError, ShapeSpec};
use serde_json::Value;

/// Our rule for each of einops' error kinds (the cases' `error_kind`).
fn rule_of(kind: &str) -> &'static str {
    match kind {
        "wrong_rank" | "wrong_rank_ellipsis" => "pattern_rank",
        "invalid_axis_length_name" | "unused_axis_length" => "axis_length",
        "could_not_infer" => "multiple_infer",
        "zero_division" => "infer_zero_product",
        "shape_mismatch_divide" => "infer_not_divisible",
        "shape_mismatch" => "size_mismatch",
        _ => "bad_pattern",
    }
}

fn spec(case: &Value) -> Result<Rearrange, ReshapeError> {
    let pattern = case["pattern"].as_str().unwrap();
    let mut r = match case["op"].as_str().unwrap() {
        "rearrange" => Rearrange::new(pattern)?,
        "repeat" => Rearrange::repeat(pattern)?,
        op => panic!("unknown op {op}"),
    };
    for (name, len) in case["axes_lengths"].as_object().unwrap() {
        r = r.axis(name, len.as_u64().unwrap() as usize);
    }
    Ok(r)
}

fn check(case: &Value) -> Result<(), String> {
    let input: Vec<usize> = case["input_shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let got = spec(case).and_then(|r| r.infer_shape(&input));
    let expect = &case["expect"];
    match (got, expect.get("error_kind").and_then(Value::as_str)) {
        (Ok(shape), None) => {
            let want: Vec<usize> = expect["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            match shape == want {
                true => Ok(()),
                false => Err(format!("shape {shape:?}, einops {want:?}")),
            }
        }
        (Ok(shape), Some(kind)) => Err(format!("shape {shape:?}, einops raised {kind}")),
        (Err(e), None) => Err(format!("{e}, einops gave {}", expect["shape"])),
        (Err(e), Some(kind)) => match e.category() == rule_of(kind) {
            true => Ok(()),
            false => Err(format!("{e}, einops raised {kind}")),
        },
    }
}

#[test]
fn einops_cases() {
    let dir = std::env::var_os("REARRANGE_CASES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rearrange"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no *.jsonl in {}", dir.display());
    let (mut n, mut failed) = (0, Vec::new());
    for f in &files {
        for line in std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
        {
            let case: Value = serde_json::from_str(line).unwrap();
            n += 1;
            if let Err(why) = check(&case) {
                failed.push(format!(
                    "{} {:?} {}: {why}",
                    case["id"], case["pattern"], case["input_shape"]
                ));
            }
        }
    }
    println!(
        "rearrange: {n} cases, {} passed, {} failed",
        n - failed.len(),
        failed.len()
    );
    for f in &failed {
        println!("  {f}");
    }
    assert!(failed.is_empty(), "{} of {n} cases failed", failed.len());
}

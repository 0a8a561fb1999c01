//! Reading the recorded cases of `tests/data/*.jsonl`: shapes and specs as JSON arrays.

// Each test binary that loads this reads some of these.
#![allow(dead_code)]

use serde_json::Value;

/// A JSON array of non-negative integers (a shape).
pub fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

/// A JSON array of integers (strides).
pub fn isizes(v: &Value) -> Vec<isize> {
    i64s(v).into_iter().map(|x| x as isize).collect()
}

/// A JSON array of integers (a spec).
pub fn i64s(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// Every non-empty line of every `*.jsonl` in the directory the environment variable `var`
/// names, or else in `tests/data/<default>`, files in name order, each with its place
/// (`file:line`). Panics on an unreadable or empty directory: a corpus that is not there
/// fails the test rather than passing it with no cases.
pub fn corpus_lines(var: &str, default: &str) -> Vec<(String, String)> {
    use std::path::PathBuf;
    let dir = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(default)
    });
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no *.jsonl in {}", dir.display());
    let mut out = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for (k, line) in text.lines().enumerate() {
            if !line.trim().is_empty() {
                out.push((format!("{}:{}", f.display(), k + 1), line.to_string()));
            }
        }
    }
    out
}

//! Reading the recorded cases of `tests/data/*.jsonl`: shapes and specs as JSON arrays.

use serde_json::Value;

/// A JSON array of non-negative integers (a shape).
pub fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

/// A JSON array of integers (a spec).
pub fn i64s(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

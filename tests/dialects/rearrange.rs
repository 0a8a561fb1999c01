//! einops' own answers for `rearrange` and `repeat` (`tests/data/rearrange/*.jsonl`, recorded
//! from einops 0.8.2 on numpy; `REARRANGE_CASES_DIR` names another directory of such cases):
//! every case's output shape, or an error exactly where einops raised one, of the kind einops
//! raised.

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use ndarray_reshape::{OnnxNode, Rearrange, ReshapeError, ReshapeExt, ShapeSpec};
use serde_json::Value;

use crate::json::{corpus_lines, i64s, usizes};
use crate::onnx_run;

/// The case's input, built as its README says (a strided, permuted, flipped or broadcast view
/// of a larger buffer holding `arange` values), given to `f`.
fn with_input<T>(case: &Value, f: impl FnOnce(ArrayViewD<'_, i64>) -> T) -> T {
    let shape = usizes(&case["input_shape"]);
    let layout = &case["input_layout"];
    let detail = &layout["detail"];
    if layout["kind"] == "broadcast" {
        let base_shape = usizes(&detail["base_shape"]);
        let n: usize = base_shape.iter().product();
        let base = ArrayD::from_shape_vec(IxDyn(&base_shape), (0..n as i64).collect()).unwrap();
        return f(base.broadcast(IxDyn(&shape)).unwrap());
    }
    let (p, start, step) = (
        usizes(&detail["perm"]),
        usizes(&detail["start"]),
        usizes(&detail["step"]),
    );
    let big_shape: Vec<usize> = (0..shape.len())
        .map(|j| start[j] + shape[p[j]] * step[j])
        .collect();
    let mut big = ArrayD::from_elem(IxDyn(&big_shape), -1i64);
    let mut v = big.view_mut();
    for j in 0..shape.len() {
        v.slice_axis_inplace(
            Axis(j),
            Slice::new(start[j] as isize, None, step[j] as isize),
        );
    }
    let mut inv = vec![0; p.len()];
    for (j, &pj) in p.iter().enumerate() {
        inv[pj] = j;
    }
    let mut t = v.permuted_axes(IxDyn(&inv));
    for a in usizes(&detail["flip"]) {
        t.invert_axis(Axis(a));
    }
    let n: usize = shape.iter().product();
    let values = ArrayD::from_shape_vec(IxDyn(&shape), (0..n as i64).collect()).unwrap();
    t.assign(&values);
    f(t.view())
}

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
    let input = usizes(&case["input_shape"]);
    let got = spec(case).and_then(|r| r.infer_shape(&input));
    let expect = &case["expect"];
    match (got, expect.get("error_kind").and_then(Value::as_str)) {
        (Ok(shape), None) => {
            let want = usizes(&expect["shape"]);
            if shape != want {
                return Err(format!("shape {shape:?}, einops {want:?}"));
            }
            values_and_view(case)
        }
        (Ok(shape), Some(kind)) => Err(format!("shape {shape:?}, einops raised {kind}")),
        (Err(e), None) => Err(format!("{e}, einops gave {}", expect["shape"])),
        (Err(e), Some(kind)) => match e.category() == rule_of(kind) {
            true => Ok(()),
            false => Err(format!("{e}, einops raised {kind}")),
        },
    }
}

/// The result of the case's input through `reshape_with`: einops' values in C order, and a
/// view exactly when einops' result shares memory with its input.
fn values_and_view(case: &Value) -> Result<(), String> {
    let r = spec(case).map_err(|e| e.to_string())?;
    let expect = &case["expect"];
    let want = i64s(&expect["values"]);
    with_input(case, |x| {
        let y = x.reshape_with(&r).map_err(|e| e.to_string())?;
        let got: Vec<i64> = y.iter().copied().collect();
        if got != want {
            return Err(format!("values {got:?}, einops {want:?}"));
        }
        let onnx = through_onnx(&r, &x).map_err(|e| format!("to_onnx_nodes: {e}"))?;
        if onnx != want {
            return Err(format!("through to_onnx_nodes {onnx:?}, einops {want:?}"));
        }
        // A pattern that moves axes explains which group forces the copy, exactly when
        // there is one.
        if let Ok(e) = r.explain_pattern(x.shape()) {
            let copies = e.copy_group(x.strides()).is_some();
            if copies == y.is_view() && !x.is_empty() {
                return Err(format!(
                    "copy_group {:?}, view {}",
                    e.copy_group(x.strides()),
                    y.is_view()
                ));
            }
        }
        match expect["view"].as_bool() {
            Some(v) if v != y.is_view() => Err(format!("view {}, einops {v}", y.is_view())),
            _ => Ok(()),
        }
    })
}

/// `x` through the spec's ONNX nodes, run as ONNX runs them on a C-contiguous tensor.
fn through_onnx(r: &Rearrange, x: &ArrayViewD<'_, i64>) -> Result<Vec<i64>, String> {
    let mut t = x.as_standard_layout().into_owned();
    for node in r.to_onnx_nodes(x.shape()).map_err(|e| e.to_string())? {
        t = match node {
            OnnxNode::Reshape(o) => onnx_run::reshape(t, &o)?,
            OnnxNode::Transpose { perm } => t.permuted_axes(IxDyn(&perm)),
            OnnxNode::Expand { shape } => t.broadcast(IxDyn(&shape)).ok_or("expand")?.to_owned(),
            other => return Err(format!("unexpected node {other:?}")),
        };
    }
    Ok(t.as_standard_layout().iter().copied().collect())
}

#[test]
fn einops_cases() {
    let (mut n, mut failed) = (0, Vec::new());
    for (_, line) in corpus_lines("REARRANGE_CASES_DIR", "rearrange") {
        let case: Value = serde_json::from_str(&line).unwrap();
        n += 1;
        if let Err(why) = check(&case) {
            failed.push(format!(
                "{} {:?} {}: {why}",
                case["id"], case["pattern"], case["input_shape"]
            ));
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

//! Reshape nodes of 58 published models (`tests/data/models.jsonl`, copied from the shared
//! conformance set): ONNX model-zoo and exported models run through onnxruntime, gluoncv and
//! gluonnlp graphs shape-inferred by MXNet 1.9.1, paddle.vision and PaddleClas models inferred
//! by Paddle 3.3.1. For every record, on a C-contiguous input of its shape: `infer_shape` gives
//! the framework's output shape (or an error where the framework refused the input); the array
//! methods agree; the result is a view of the input (a C-contiguous input reshaped in C order
//! always is), the strict and consuming views succeed at the same address, and a fresh copy
//! holds the input's elements in order.

use ndarray::{ArrayView, IxDyn};
use ndarray_reshape::{Like, Mx, Onnx, Paddle, ReshapeExt, ShapeSpec};
use serde_json::Value;

use crate::json::{i64s, usizes};
use crate::oracle;

/// One record through every mode that applies to a C-contiguous input.
fn check<P: ShapeSpec>(record: &Value, spec: P, base: &[u32]) -> Result<(), String> {
    let input = usizes(&record["in"]);
    let n: usize = input.iter().product();
    let x = ArrayView::from_shape(IxDyn(&input), &base[..n]).map_err(|e| e.to_string())?;
    let inferred = spec.infer_shape(&input);
    let expect = &record["expect"];
    if expect.get("error").is_some() {
        return match (inferred, x.reshape_with(&spec)) {
            (Err(a), Err(b)) if a == b => Ok(()),
            other => Err(format!("expected an error, got {other:?}")),
        };
    }
    let want = usizes(&expect["shape"]);
    let shape = inferred.map_err(|e| format!("infer_shape: {e}"))?;
    if shape != want {
        return Err(format!("infer_shape {shape:?}, the framework {want:?}"));
    }
    let e = spec.explain(&input).map_err(|e| format!("explain: {e}"))?;
    oracle::groups_hold(&e)?;
    if e.output() != want.as_slice() || e.copy_group(x.strides()).is_some() {
        return Err(format!(
            "explain: {:?}, copy group {:?}",
            e.output(),
            e.copy_group(x.strides())
        ));
    }
    let y = x.reshape_with(&spec).map_err(|e| e.to_string())?;
    if y.shape() != want.as_slice() || !y.is_view() || y.as_ptr() != x.as_ptr() {
        return Err(format!(
            "reshape_with: shape {:?}, view {}",
            y.shape(),
            y.is_view()
        ));
    }
    // A view at the input's address, C-contiguous: the input's elements in C order.
    if !y.is_standard_layout() {
        return Err(format!("the view has strides {:?}", y.strides()));
    }
    let v = x
        .reshape_view(&spec)
        .map_err(|e| format!("reshape_view: {e}"))?;
    let c = x
        .clone()
        .into_reshape(&spec)
        .map_err(|e| format!("into_reshape: {e}"))?;
    if v.as_ptr() != x.as_ptr() || c.as_ptr() != x.as_ptr() || v.shape() != c.shape() {
        return Err("the strict and consuming views differ from reshape_with".into());
    }
    let o = x
        .reshape_owned(&spec)
        .map_err(|e| format!("reshape_owned: {e}"))?;
    if o.shape() != want.as_slice() || o.as_slice() != Some(&base[..n]) {
        return Err("reshape_owned does not hold the input's elements in C order".into());
    }
    Ok(())
}

fn records() -> Vec<Value> {
    let path = format!("{}/tests/data/models.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}: {l}")))
        .collect()
}

/// The spec a record's `spec` field describes.
fn mx_spec(s: &Value) -> Mx {
    Mx::new(i64s(&s["spec"])).reverse(s["reverse"].as_bool().unwrap())
}

fn like_spec(s: &Value) -> Like {
    Like::new(usizes(&s["rhs"]))
        .lhs(s["lhs_begin"].as_i64(), s["lhs_end"].as_i64())
        .rhs(s["rhs_begin"].as_i64(), s["rhs_end"].as_i64())
}

/// Every MXNet record's `attrs` (the strings of the symbol JSON) parsed by the attribute-map
/// constructors: the record's spec, and the framework's output shape on the record's input.
#[test]
fn mxnet_attribute_maps() {
    let mut checked = 0;
    for r in records().iter().filter(|r| r["framework"] == "mxnet") {
        let attrs: Vec<(&str, &str)> = r["attrs"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str(),
                    v.as_str().expect("MXNet attributes are strings"),
                )
            })
            .collect();
        let s = &r["spec"];
        let input = usizes(&r["in"]);
        let (inferred, same) = match r["op"].as_str().unwrap() {
            "Reshape" => {
                let mx = Mx::from_attrs(&attrs).unwrap_or_else(|e| panic!("{}: {e}", r["id"]));
                (mx.infer_shape(&input), mx == mx_spec(s))
            }
            "reshape_like" => {
                let like = Like::from_attrs(usizes(&s["rhs"]), &attrs)
                    .unwrap_or_else(|e| panic!("{}: {e}", r["id"]));
                (like.infer_shape(&input), like == like_spec(s))
            }
            op => panic!("{}: unexpected MXNet op {op}", r["id"]),
        };
        assert!(
            same,
            "{}: {attrs:?} parsed to another spec than {s}",
            r["id"]
        );
        match r["expect"].get("shape") {
            Some(shape) => assert_eq!(inferred.ok(), Some(usizes(shape)), "{}", r["id"]),
            None => assert!(inferred.is_err(), "{}", r["id"]),
        }
        checked += 1;
    }
    assert_eq!(checked, 342, "336 Reshape and 6 reshape_like records");
}

/// The same records with the node's `attrs` passed as the parsed JSON map itself.
#[cfg(feature = "serde_json")]
#[test]
fn mxnet_attribute_maps_from_serde_json() {
    let mut checked = 0;
    for r in records().iter().filter(|r| r["framework"] == "mxnet") {
        let attrs = r["attrs"].as_object().unwrap();
        let s = &r["spec"];
        let same = match r["op"].as_str().unwrap() {
            "Reshape" => Mx::from_attrs(attrs).map(|m| m == mx_spec(s)),
            _ => Like::from_attrs(usizes(&s["rhs"]), attrs).map(|l| l == like_spec(s)),
        };
        assert_eq!(same, Ok(true), "{}", r["id"]);
        checked += 1;
    }
    assert_eq!(checked, 342);
}

#[test]
#[cfg_attr(miri, ignore)] // 770 million elements in all
fn every_real_model_record() {
    let records = records();
    let largest = records
        .iter()
        .map(|r| usizes(&r["in"]).iter().product::<usize>())
        .max()
        .unwrap();
    // One buffer of distinct values; every input is a C-contiguous prefix of it.
    let base: Vec<u32> = (0..largest as u32).collect();
    let mut failures = Vec::new();
    let mut per_dialect = std::collections::BTreeMap::<String, usize>::new();
    for r in &records {
        let s = &r["spec"];
        let dialect = s["dialect"].as_str().unwrap();
        let result = match dialect {
            "mx" => check(r, mx_spec(s), &base),
            "paddle" => check(r, Paddle::new(i64s(&s["spec"])), &base),
            "onnx" => check(
                r,
                Onnx::new(i64s(&s["spec"])).allowzero(s["allowzero"].as_bool().unwrap()),
                &base,
            ),
            "like" => check(r, like_spec(s), &base),
            other => Err(format!("unknown dialect {other}")),
        };
        *per_dialect.entry(dialect.to_string()).or_default() += 1;
        if let Err(e) = result {
            failures.push(format!("{} ({} {}): {e}", r["id"], r["model"], r["op"]));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} records failed:\n{}",
        failures.len(),
        records.len(),
        failures.join("\n")
    );
    assert_eq!(records.len(), 3809, "the shared file has 3,809 records");
    eprintln!(
        "models.jsonl: {} records passed {per_dialect:?}",
        records.len()
    );
}

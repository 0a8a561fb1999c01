//! ONNX's own node tests (`onnx.backend.test.case.node`, recorded by
//! `scripts/record_onnx_node_tests.py` into `tests/data/onnx_nodes.jsonl`): each case a small
//! model with numpy-computed outputs, walked twice by [`Graph::infer`]: with the inputs'
//! concrete shapes, and with every dim of every data input a symbol of its own, bound back to
//! the concrete shapes. The inputs a shape rule may read (integer tensors, and float vectors of
//! at most 8 entries: scales, bounds) are constants in both walks, as they are in exported
//! graphs. Every output shape must agree; a case whose output data decides (`NonZero`,
//! `Unique`) must say so in the walk's report; the only operators outside the tables are the
//! optional-typed ones and those of the ONNX-ML, training and preview domains.

use std::collections::BTreeMap;

use ndarray_reshape::{ElemType, Graph, TensorData, UnknownOps};
use serde_json::Value;

use crate::json::usizes;

use super::opshapes::{graph, opsets, reported_symbols};

/// The record's graph with the inputs of recorded values as initializers (all of them for
/// `concrete`; else the integer ones and short float vectors), the other inputs' dims as
/// numbers (`concrete`) or symbols; and the data inputs' concrete shapes.
fn walkable(record: &Value, concrete: bool) -> (Graph, Vec<(String, Vec<usize>)>) {
    let mut g = record["graph"].clone();
    let values = &record["values"];
    let mut inits = Vec::new();
    let mut data = Vec::new();
    let inputs = g["inputs"].as_array().unwrap().clone();
    let mut kept = Vec::new();
    for (k, i) in inputs.into_iter().enumerate() {
        let name = i["name"].as_str().unwrap().to_string();
        let elem = ElemType::from_code(i["elem_type"].as_i64().unwrap() as i32);
        let shape = usizes(&i["dims"]);
        if let Some(v) = values.get(&name) {
            let short_floats = shape.len() <= 1 && shape.iter().product::<usize>() <= 8;
            if concrete || elem.is_integer() || short_floats {
                let vals = v["values"].as_array().unwrap();
                let t = TensorData::new(elem, &shape);
                // Booleans are the integers 0 and 1.
                let int = |x: &Value| x.as_i64().or_else(|| x.as_bool().map(i64::from));
                let t = match elem.is_integer() && vals.iter().all(|x| int(x).is_some()) {
                    true => t.with_ints(vals.iter().filter_map(int).collect::<Vec<_>>()),
                    false => t.with_floats(
                        vals.iter()
                            .map(|x| x.as_f64().unwrap_or(f64::NAN))
                            .collect::<Vec<_>>(),
                    ),
                };
                inits.push((name, t));
                continue;
            }
        }
        let mut i = i.clone();
        if !concrete {
            // A symbol is a size of at least 1: a 0 stays a number.
            let dims: Vec<Value> = (0..shape.len())
                .map(|a| match shape[a] {
                    0 => Value::from(0),
                    _ => Value::from(format!("i{k}_{a}")),
                })
                .collect();
            i["dims"] = Value::from(dims);
        }
        data.push((name, shape));
        kept.push(i);
    }
    g["inputs"] = Value::from(kept);
    let mut graph = graph(&g, opsets(record));
    for (name, t) in inits {
        graph.initializer(&name, t);
    }
    (graph, data)
}

#[derive(Debug, PartialEq)]
enum Outcome {
    Agrees,
    DataDecides,
    NotInTable(String),
    Fails(String),
}

fn run(record: &Value, concrete: bool) -> Outcome {
    let (g, data) = walkable(record, concrete);
    let shapes = match g.infer_with(&Default::default(), UnknownOps::Fail) {
        Ok(s) => s,
        Err(e) if e.category() == "unknown_op" => {
            let op = e.to_string();
            let op = op
                .split("no operator ")
                .nth(1)
                .unwrap_or("?")
                .split(' ')
                .next()
                .unwrap_or("?");
            return Outcome::NotInTable(op.to_string());
        }
        Err(e) => return Outcome::Fails(e.to_string()),
    };
    let inputs: Vec<(&str, &[usize])> = data.iter().map(|(n, s)| (n.as_str(), &s[..])).collect();
    let bound = match shapes.bind(&inputs) {
        Ok(b) => b,
        Err(e) => return Outcome::Fails(format!("bind: {e}")),
    };
    // The data inputs' symbols are `i{input}_{axis}`; any other is fresh, and must be one
    // the walk reports.
    let is_input = |s: &str| {
        let parts = s.strip_prefix('i').and_then(|r| r.split_once('_'));
        parts.is_some_and(|(a, b)| a.parse::<usize>().is_ok() && b.parse::<usize>().is_ok())
    };
    let reported: Vec<String> = reported_symbols(&shapes).collect();
    let mut decided = false;
    for (name, want) in record["outputs"].as_object().unwrap() {
        let want = usizes(want);
        let fact = shapes.fact(name).unwrap();
        let fresh: Vec<String> = fact
            .shape()
            .unwrap_or_default()
            .iter()
            .flat_map(|d| d.symbols().into_iter().map(String::from))
            .filter(|s| !is_input(s))
            .collect();
        let explained = shapes.inexact().iter().any(|i| i.tensor() == name)
            || (!fresh.is_empty() && fresh.iter().all(|s| reported.contains(s)));
        if explained {
            decided = true;
            continue;
        }
        match bound.shape(name) {
            Some(got) if got == want => {}
            got => {
                return Outcome::Fails(format!(
                    "{name}: {fact} gives {got:?}, numpy {want:?} (reported: {reported:?})"
                ))
            }
        }
    }
    match decided {
        true => Outcome::DataDecides,
        false => Outcome::Agrees,
    }
}

#[test]
fn onnx_node_tests_agree_concretely_and_symbolically() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/onnx_nodes.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let (mut n, mut agree, mut decided) = (0, [0, 0], 0);
    let mut outside: BTreeMap<String, usize> = BTreeMap::new();
    let mut failed = Vec::new();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let name = record["name"].as_str().unwrap().to_string();
        n += 1;
        for (k, concrete) in [true, false].into_iter().enumerate() {
            match run(&record, concrete) {
                Outcome::Agrees => agree[k] += 1,
                Outcome::DataDecides => {
                    decided += usize::from(k == 0);
                    if k == 0 && std::env::var_os("NODE_TESTS_LIST").is_some() {
                        println!("  decided by data: {name}");
                    }
                }
                Outcome::NotInTable(op) => {
                    if k == 0 {
                        *outside.entry(op).or_default() += 1;
                    }
                }
                Outcome::Fails(why) => {
                    let run = if concrete { "concrete" } else { "symbolic" };
                    failed.push(format!("{name} ({run}): {why}"));
                }
            }
        }
    }
    let left: usize = outside.values().sum();
    println!(
        "onnx node tests: {n} cases, {} agree concretely, {} symbolically, {decided} decided by data, {left} outside the tables, {} failed",
        agree[0],
        agree[1],
        failed.len()
    );
    println!("  outside the tables: {outside:?}");
    // Left out, each for its reason: optional-typed values (no tensor shape), and the
    // domains other than the default one and com.microsoft (ONNX-ML, training, preview).
    let reason = |op: &str| {
        op.starts_with("Optional")
            || [
                "ai.onnx.ml::",
                "ai.onnx.preview::",
                "ai.onnx.preview.training::",
            ]
            .iter()
            .any(|d| op.starts_with(d))
    };
    let unexplained: Vec<&String> = outside.keys().filter(|op| !reason(op)).collect();
    assert!(
        unexplained.is_empty(),
        "operators outside the tables: {unexplained:?}"
    );
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

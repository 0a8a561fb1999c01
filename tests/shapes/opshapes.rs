//! Every tensor's shape of whole real ONNX graphs ([`Graph::infer`]) against onnxruntime's.
//!
//! Reads every graph record in the directory named by `OPSHAPES_DIR` (default: the copy of
//! `../shared/opshapes/` in `tests/data/opshapes/`; its README gives the schema): the graph
//! (inputs, initializers without weights, nodes) becomes a [`Graph`], which is walked from the
//! graph inputs' declared dims alone. Only then are the runtime records read: each main-graph
//! node output's dims are evaluated at every successful configuration's binding of the input
//! symbols, with every condition of the walk checked there. A dim is *exact* when it evaluates
//! to the runtime's value at every configuration, *fresh* when it holds a symbol that is not a
//! graph input's (one the walk names and reports), *wrong* when it evaluates to another value
//! (or the rank differs, or a condition fails where the runtime ran), *missing* when the walk
//! gives no shape. The test fails on any wrong dim, on a model the walk does not finish, on a
//! fresh or missing dim the report does not explain, and below the exact count measured.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use ndarray_reshape::{
    Assumptions, ElemType, Graph, GraphNode, GraphShapes, InputDim, NodeAttr, OpAttr, TensorData,
};
use serde_json::Value;

use crate::json::usizes;

/// The values of a (possibly nested) JSON list, flattened; `"nan"`, `"inf"` and booleans
/// read as numbers.
fn flat(v: &Value, out: &mut Vec<f64>, ints: &mut Vec<i64>, all_int: &mut bool) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| flat(x, out, ints, all_int)),
        Value::Number(n) => {
            match n.as_i64() {
                Some(i) => ints.push(i),
                None => *all_int = false,
            }
            out.push(n.as_f64().unwrap());
        }
        Value::Bool(b) => {
            ints.push(i64::from(*b));
            out.push(f64::from(u8::from(*b)));
        }
        Value::String(s) => {
            *all_int = false;
            out.push(match s.as_str() {
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                _ => f64::NAN,
            });
        }
        other => panic!("a tensor value {other}"),
    }
}

/// A tensor of the record: `dtype`, `shape`, `values` where recorded.
pub(crate) fn tensor(t: &Value) -> TensorData {
    let elem = ElemType::from_name(t["dtype"].as_str().unwrap()).expect("a known dtype");
    let shape = usizes(&t["shape"]);
    let mut data = TensorData::new(elem, &shape);
    if let Some(v) = t.get("values").filter(|v| !v.is_null()) {
        let (mut floats, mut ints, mut all_int) = (Vec::new(), Vec::new(), true);
        flat(v, &mut floats, &mut ints, &mut all_int);
        if elem.is_integer() && all_int {
            data = data.with_ints(ints);
        } else {
            data = data.with_floats(floats);
        }
    }
    data
}

fn attr(v: &Value) -> NodeAttr {
    match v {
        Value::Number(n) => match n.as_i64() {
            Some(i) => OpAttr::Int(i).into(),
            None => OpAttr::Float(n.as_f64().unwrap()).into(),
        },
        Value::String(s) => OpAttr::Str(s.clone()).into(),
        Value::Bool(b) => OpAttr::Int(i64::from(*b)).into(),
        Value::Array(a) if a.iter().all(Value::is_i64) => {
            OpAttr::Ints(a.iter().map(|x| x.as_i64().unwrap()).collect()).into()
        }
        Value::Array(a) if a.iter().all(Value::is_number) => {
            OpAttr::Floats(a.iter().map(|x| x.as_f64().unwrap()).collect()).into()
        }
        Value::Array(a) if a.iter().all(Value::is_string) => {
            NodeAttr::Strings(a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
        }
        Value::Object(o) if o.contains_key("tensor") => NodeAttr::Tensor(tensor(&o["tensor"])),
        Value::Object(o) if o.contains_key("graph") => {
            NodeAttr::Graph(graph(&o["graph"], Vec::new()))
        }
        Value::Object(o) if o.contains_key("graphs") => NodeAttr::Graphs(
            o["graphs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| graph(g, Vec::new()))
                .collect(),
        ),
        other => panic!("an attribute {other}"),
    }
}

/// The record's graph as a [`Graph`] of the operator sets `opsets`.
pub(crate) fn graph(g: &Value, opsets: Vec<(String, i64)>) -> Graph {
    let default = opsets
        .iter()
        .find(|(d, _)| d.is_empty())
        .map_or(17, |o| o.1);
    let mut out = Graph::new(default);
    for (d, v) in opsets.iter().filter(|(d, _)| !d.is_empty()) {
        out.import(d, *v);
    }
    for i in g["inputs"].as_array().unwrap() {
        let (name, elem) = (
            i["name"].as_str().unwrap(),
            i["elem_type"].as_i64().unwrap(),
        );
        let elem = ElemType::from_code(elem as i32);
        match i["dims"].as_array() {
            None => out.input_unranked(name, elem),
            Some(dims) => out.input(
                name,
                elem,
                dims.iter().map(|d| match d {
                    Value::Number(v) => InputDim::Known(v.as_u64().unwrap() as usize),
                    Value::String(s) => InputDim::named(s),
                    _ => InputDim::Unnamed,
                }),
            ),
        };
    }
    for t in g["initializers"].as_array().unwrap() {
        out.initializer(t["name"].as_str().unwrap(), tensor(t));
    }
    for o in g["outputs"].as_array().unwrap() {
        out.output(o["name"].as_str().unwrap());
    }
    for n in g["nodes"].as_array().unwrap() {
        let names = |k: &str| -> Vec<String> {
            n[k].as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect()
        };
        let mut node = GraphNode::new(
            n["op_type"].as_str().unwrap(),
            names("inputs"),
            names("outputs"),
        )
        .domain(n["domain"].as_str().unwrap_or(""));
        if let Some(name) = n["name"].as_str().filter(|s| !s.is_empty()) {
            node = node.named(name);
        }
        for (k, v) in n["attributes"].as_object().unwrap() {
            node = node.attr(k, attr(v));
        }
        out.node(node);
    }
    out
}

/// One model's record, read as the README says.
pub(crate) fn model(record: &Value) -> Graph {
    graph(&record["graph"], opsets(record))
}

/// The operator sets a record imports.
pub(crate) fn opsets(record: &Value) -> Vec<(String, i64)> {
    record["opset_imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["domain"].as_str().unwrap().to_string(),
                o["version"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[derive(Default, Debug)]
struct Count {
    tensors: usize,
    dims: usize,
    exact: usize,
    fresh: usize,
    wrong: usize,
    missing: usize,
}

/// Scores one model's walk against its runtime record; every wrong dim is described.
/// The symbols of every tensor the walk reports as inexact.
pub(crate) fn reported_symbols(shapes: &GraphShapes) -> impl Iterator<Item = String> + '_ {
    shapes
        .inexact()
        .iter()
        .filter_map(|i| shapes.fact(i.tensor())?.shape())
        .flatten()
        .flat_map(|d| d.symbols().into_iter().map(String::from))
}

fn score(shapes: &GraphShapes, g: &Value, runtime: &Value, c: &mut Count, wrong: &mut Vec<String>) {
    let inputs: BTreeSet<String> = g["graph"]["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["dims"].as_array().cloned().unwrap_or_default())
        .filter_map(|d| d.as_str().map(String::from))
        .collect();
    let configs: Vec<&Value> = runtime["configs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"].as_bool() == Some(true))
        .collect();
    let bindings: Vec<Vec<(String, usize)>> = configs
        .iter()
        .map(|cfg| {
            let ambiguous: BTreeSet<&str> = cfg["ambiguous_symbols"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            cfg["binding"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| !ambiguous.contains(k.as_str()))
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap() as usize))
                .collect()
        })
        .collect();
    let model = g["model"].as_str().unwrap();
    // The conditions must hold wherever the runtime ran.
    for (b, cfg) in bindings.iter().zip(&configs) {
        let pairs: Vec<(&str, usize)> = b.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        for cond in shapes.conditions() {
            if cond.condition().holds(&pairs) == Some(false) {
                wrong.push(format!(
                    "{model}: {} (node {}) fails at {:?}",
                    cond.condition(),
                    cond.node(),
                    cfg["binding"]
                ));
            }
        }
    }
    let explained: BTreeSet<&str> = shapes.inexact().iter().map(|i| i.tensor()).collect();
    // The fresh symbols the walk made, each at a tensor it reports.
    let reported: BTreeSet<String> = reported_symbols(shapes)
        .filter(|s| !inputs.contains(s))
        .collect();
    for node in g["graph"]["nodes"].as_array().unwrap() {
        for out in node["outputs"].as_array().unwrap() {
            let name = out.as_str().unwrap();
            let runs: Option<Vec<Vec<usize>>> = configs
                .iter()
                .map(|cfg| {
                    let t = cfg["tensors"].get(name)?;
                    t["shape"]
                        .as_array()
                        .map(|s| s.iter().map(|d| d.as_u64().unwrap() as usize).collect())
                })
                .collect();
            let Some(runs) = runs.filter(|r| r.iter().all(|s| s.len() == r[0].len())) else {
                continue;
            };
            let rank = runs[0].len();
            c.tensors += 1;
            c.dims += rank;
            let fact = shapes.fact(name).expect("every node output has a fact");
            let Some(dims) = fact.shape() else {
                c.missing += rank;
                if !explained.contains(name) {
                    wrong.push(format!("{model}: {name} has no shape and no reason"));
                }
                continue;
            };
            if dims.len() != rank {
                c.wrong += rank;
                wrong.push(format!(
                    "{model}: {name} has rank {} for {rank}: {fact}",
                    dims.len()
                ));
                continue;
            }
            for (axis, d) in dims.iter().enumerate() {
                let fresh: Vec<&str> = d
                    .symbols()
                    .into_iter()
                    .filter(|s| !inputs.contains(*s))
                    .collect();
                if !fresh.is_empty() {
                    c.fresh += 1;
                    if fresh.iter().any(|s| !reported.contains(*s)) {
                        wrong.push(format!(
                            "{model}: {name} dim {axis} = {d} is fresh and not reported"
                        ));
                    }
                    continue;
                }
                let all = bindings.iter().zip(&runs).all(|(b, r)| {
                    let pairs: Vec<(&str, usize)> =
                        b.iter().map(|(k, v)| (k.as_str(), *v)).collect();
                    d.eval(&pairs) == Some(r[axis])
                });
                match all {
                    true => c.exact += 1,
                    false => {
                        c.wrong += 1;
                        wrong.push(format!(
                            "{model}: {name} ({}) dim {axis} = {d}, runtime {:?}",
                            node["op_type"],
                            runs.iter().map(|r| r[axis]).collect::<Vec<_>>()
                        ));
                    }
                }
            }
        }
    }
}

fn dir() -> PathBuf {
    std::env::var_os("OPSHAPES_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/opshapes"),
        PathBuf::from,
    )
}

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_tensor_of_the_recorded_models() {
    let dir = dir();
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir.join("graphs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no graph records in {}", dir.display());
    let (mut total, mut wrong, mut failed) = (Count::default(), Vec::new(), Vec::new());
    let mut per_model = BTreeMap::new();
    for path in &names {
        let g = read(path);
        let graph = model(&g);
        let shapes = match graph.infer(&Assumptions::new()) {
            Ok(s) => s,
            Err(e) => {
                failed.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let runtime = read(&dir.join("runtime").join(path.file_name().unwrap()));
        let mut c = Count::default();
        score(&shapes, &g, &runtime, &mut c, &mut wrong);
        for i in shapes.inexact() {
            println!(
                "  not exact: {} {} (node {}): {}",
                g["model"],
                i.tensor(),
                i.node(),
                i.why()
            );
        }
        total.tensors += c.tensors;
        total.dims += c.dims;
        total.exact += c.exact;
        total.fresh += c.fresh;
        total.wrong += c.wrong;
        total.missing += c.missing;
        per_model.insert(g["model"].as_str().unwrap().to_string(), c);
    }
    for (m, c) in &per_model {
        println!(
            "  {m}: {} tensors, {} dims, {} exact, {} fresh, {} wrong, {} missing",
            c.tensors, c.dims, c.exact, c.fresh, c.wrong, c.missing
        );
    }
    println!(
        "opshapes: {} models, {} tensors, {} dims, {} exact, {} fresh, {} wrong, {} missing",
        names.len() - failed.len(),
        total.tensors,
        total.dims,
        total.exact,
        total.fresh,
        total.wrong,
        total.missing
    );
    assert!(
        failed.is_empty(),
        "walks that did not finish:\n{}",
        failed.join("\n")
    );
    if std::env::var_os("OPSHAPES_DIR").is_none() {
        // The recorded models: every dim exact but those of YOLOv8n's two Resizes and six
        // Ranges, whose float scales and bounds the records do not hold.
        assert_eq!((total.dims, total.exact, total.fresh), (8463, 8392, 71));
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

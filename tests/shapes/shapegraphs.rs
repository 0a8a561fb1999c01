//! Computed reshape shapes of real exported models, evaluated with the crate's shape values and
//! checked against the runtimes' values.
//!
//! Reads every `*.jsonl` in the directory named by `SHAPEGRAPHS_DIR` (default: the copy of
//! `../shared/shapegraphs/` in `tests/data/shapegraphs/`; its README describes the records). Per
//! record: the symbols come from the graph-input dims that differ between configurations; every
//! dim of a leaf tensor and of the reshape's data input is written in them (a number, or the
//! monomial `c * S1^a * S2^b` that fits every configuration, else the floor `(S + b) // c` of
//! one symbol that does, as a conv stack's length is, or that floor times a symbol, else a
//! fresh symbol); the shape expression is walked node by node through the crate's op tables,
//! [`ShapeValue::onnx_op`] and [`ShapeValue::paddle_op`] (a subtree that computes in floats
//! without reading a shape is a constant the caller folds: its value is the runtime's, the same
//! in every configuration); the result is the spec of the dialect's reshape, inferred
//! symbolically on the data input and bound to each configuration.
//!
//! A record is *resolved* when the inferred dims are numbers or expressions in the symbols and
//! every configuration gives the runtime's values; *unsound* when a bound value (the shape, an
//! inner node's value, the output, or the static ONNX `Reshape` the result folds to) differs
//! from the runtime's; *failed* when the expression does not evaluate (an op the tables do not
//! know is a failure, never skipped). The test fails on any unsound record, or when fewer
//! than 98% resolve (all of them in the default directory).

use std::collections::BTreeMap;

use ndarray_reshape::{Onnx, OpAttr, Paddle, ShapeSpec, ShapeValue, SymDim};
use serde_json::Value;

use crate::json::corpus_lines;

/// One configuration a record was run at.
struct Config {
    inputs: BTreeMap<String, Vec<usize>>,
    data: Vec<usize>,
    shape_value: Vec<i64>,
    output: Vec<usize>,
    leaves: BTreeMap<String, Vec<usize>>,
    inner: BTreeMap<String, Value>,
}

#[derive(Debug)]
pub(crate) enum Outcome {
    /// Resolved; `true` when it also folded to a static ONNX `Reshape`.
    Resolved(bool),
    Unresolved(String),
    Unsound(String),
    Failed(String),
}

fn dims(v: &Value) -> Option<Vec<usize>> {
    v.as_array()?
        .iter()
        .map(|d| d.as_u64().map(|d| d as usize))
        .collect()
}

fn ints(v: &Value) -> Option<Vec<i64>> {
    match v {
        Value::Array(a) => a.iter().map(Value::as_i64).collect(),
        Value::Number(n) => n.as_i64().map(|x| vec![x]),
        _ => None,
    }
}

fn configs(rec: &Value, onnx: bool) -> Result<Vec<Config>, String> {
    let list = rec["configs"].as_array().ok_or("no configs")?;
    let map = |v: &Value| -> Result<BTreeMap<String, Vec<usize>>, String> {
        let o = v.as_object().ok_or("not a map of shapes")?;
        o.iter()
            .map(|(k, v)| Ok((k.clone(), dims(v).ok_or("not a shape")?)))
            .collect()
    };
    list.iter()
        .map(|c| {
            let inputs = if onnx { &c["inputs"] } else { &c["config"] };
            let data = if onnx {
                &c["data_shape"]
            } else {
                &c["x_shape"]
            };
            Ok(Config {
                inputs: map(inputs)?,
                data: dims(data).ok_or("no data shape")?,
                shape_value: ints(&c["shape_value"]).ok_or("no shape value")?,
                output: dims(&c["output_shape"]).ok_or("no output shape")?,
                leaves: map(&c["leaf_shapes"])?,
                inner: c["inner_values"]
                    .as_object()
                    .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// The symbols: each graph-input dim that differs between configurations, named as declared
/// (or `<input>:<axis>`), with its value in each configuration.
fn symbols(rec: &Value, onnx: bool, cfgs: &[Config]) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    for (input, shape) in &cfgs[0].inputs {
        for axis in 0..shape.len() {
            let vals: Vec<usize> = cfgs
                .iter()
                .map(|c| c.inputs.get(input).and_then(|s| s.get(axis)).copied())
                .collect::<Option<_>>()
                .unwrap_or_default();
            if vals.len() != cfgs.len() || vals.iter().all(|&v| v == vals[0]) {
                continue;
            }
            let declared = if onnx {
                &rec["graph_inputs"][input]["dims"][axis]
            } else {
                &rec["inputs_declared"][input][axis]
            };
            let mut name = match declared.as_str() {
                Some(s) if !s.is_empty() => s.to_string(),
                _ => format!("{input}:{axis}"),
            };
            if let Some((_, v)) = out.iter().find(|(n, _)| *n == name) {
                if *v == vals {
                    continue; // the same symbol on another input
                }
                name = format!("{input}:{axis}");
            }
            out.push((name, vals));
        }
    }
    out
}

/// The dim whose value in configuration `k` is `vals[k]`: a number, the simplest monomial
/// `c * S1^a * S2^b` of the symbols that fits every configuration, else the floor
/// `(S + b) // c` of one symbol with the smallest `c` (a conv stack's length), or `None`.
fn fit(vals: &[usize], syms: &[(String, Vec<usize>)]) -> Option<SymDim> {
    if vals.iter().all(|&v| v == vals[0]) {
        return Some(SymDim::from(vals[0]));
    }
    monomial(vals, syms)
        .or_else(|| affine_floor(vals, syms))
        .or_else(|| scaled_floor(vals, syms))
}

/// `T * ((S + b) // c)`: a floor of one symbol times another (a batch of conv frames
/// flattened together), where the values divide by `T`'s.
fn scaled_floor(vals: &[usize], syms: &[(String, Vec<usize>)]) -> Option<SymDim> {
    syms.iter().find_map(|(name, t)| {
        let q: Option<Vec<usize>> = vals
            .iter()
            .zip(t)
            .map(|(&v, &t)| (t > 0 && v % t == 0).then(|| v / t))
            .collect();
        Some(SymDim::sym(name) * affine_floor(&q?, syms)?)
    })
}

/// `(S + b) // c` for one symbol `S`: for each `c` from 1 up, the offsets `b` that give every
/// configuration's value form an interval; the first `c` with one takes its `b` nearest 0.
fn affine_floor(vals: &[usize], syms: &[(String, Vec<usize>)]) -> Option<SymDim> {
    for (name, s) in syms {
        let rises =
            (0..vals.len()).all(|k| (0..vals.len()).all(|j| (s[k] < s[j]) <= (vals[k] <= vals[j])));
        if !rises {
            continue;
        }
        let top = s.iter().max().copied().unwrap_or(1).max(1) as i128;
        for c in 1..=top.min(1 << 20) {
            // floor((s + b) / c) == v  <=>  c*v - s <= b <= c*v + c - 1 - s
            let (mut lo, mut hi) = (i128::MIN, i128::MAX);
            for (k, &v) in vals.iter().enumerate() {
                let (v, sk) = (v as i128, s[k] as i128);
                lo = lo.max(c * v - sk);
                hi = hi.min(c * v + c - 1 - sk);
            }
            if lo > hi {
                continue;
            }
            let b = 0i128.clamp(lo, hi);
            let d = (SymDim::sym(name) + SymDim::int(b as i64))
                .floor_div(&SymDim::from(c as usize))
                .ok()?;
            let all = (0..vals.len()).all(|k| {
                let bind: Vec<(&str, usize)> =
                    syms.iter().map(|(n, v)| (n.as_str(), v[k])).collect();
                d.eval(&bind) == Some(vals[k])
            });
            if all {
                return Some(d);
            }
        }
    }
    None
}

/// The simplest monomial `c * S1^a * S2^b` of the symbols that fits every configuration.
fn monomial(vals: &[usize], syms: &[(String, Vec<usize>)]) -> Option<SymDim> {
    let n = syms.len().min(4);
    let mut exps: Vec<Vec<i32>> = vec![vec![]];
    for _ in 0..n {
        exps = exps
            .into_iter()
            .flat_map(|e| {
                (-2..=2).map(move |x| {
                    let mut e = e.clone();
                    e.push(x);
                    e
                })
            })
            .collect();
    }
    exps.sort_by_key(|e| e.iter().map(|x| x.abs()).sum::<i32>());
    'next: for e in exps.iter().filter(|e| e.iter().any(|&x| x != 0)) {
        // c = v / prod(S^e) as a reduced fraction, the same in every configuration.
        let mut coef: Option<(u128, u128)> = None;
        for (k, &v) in vals.iter().enumerate() {
            let (mut num, mut den) = (v as u128, 1u128);
            for (i, &x) in e.iter().enumerate() {
                let s = syms[i].1[k] as u128;
                for _ in 0..x.unsigned_abs() {
                    if x > 0 {
                        den = den.checked_mul(s)?;
                    } else {
                        num = num.checked_mul(s)?;
                    }
                }
            }
            if num == 0 {
                continue 'next;
            }
            let g = gcd(num, den);
            let c = (num / g, den / g);
            match coef {
                None => coef = Some(c),
                Some(prev) if prev == c => {}
                Some(_) => continue 'next,
            }
        }
        let (num, den) = coef?;
        let mut d = SymDim::from(num as usize) / SymDim::from(den as usize);
        for (i, &x) in e.iter().enumerate() {
            let s = SymDim::sym(&syms[i].0);
            for _ in 0..x.unsigned_abs() {
                d = if x > 0 { d * s.clone() } else { d / s.clone() };
            }
        }
        let all = (0..vals.len()).all(|k| {
            let b: Vec<(&str, usize)> = syms.iter().map(|(n, v)| (n.as_str(), v[k])).collect();
            d.eval(&b) == Some(vals[k])
        });
        if all {
            return Some(d);
        }
    }
    None
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// What evaluating a record needs: the symbolic shapes of its tensors, and the runtime's
/// values of inner nodes (for the constant subtrees computed in floats, which the caller
/// folds).
struct Ctx<'a> {
    /// Symbolic shape of each leaf tensor.
    leaves: BTreeMap<String, Vec<SymDim>>,
    /// The runtime's values of the inner nodes, per configuration.
    runtime: Vec<&'a BTreeMap<String, Value>>,
    /// The record's ONNX opset (`None` for Paddle).
    opset: Option<i64>,
}

/// The shape of `tensor` written in the symbols, with fresh symbols (added to `fresh`, with
/// their values) where no monomial fits.
fn symbolic(
    tensor: &str,
    shapes: &[&Vec<usize>],
    syms: &[(String, Vec<usize>)],
    fresh: &mut Vec<(String, Vec<usize>)>,
    suffix: &str,
) -> Result<Vec<SymDim>, String> {
    let rank = shapes[0].len();
    if shapes.iter().any(|s| s.len() != rank) {
        return Err(format!("{tensor} changes rank between configurations"));
    }
    Ok((0..rank)
        .map(|axis| {
            let vals: Vec<usize> = shapes.iter().map(|s| s[axis]).collect();
            fit(&vals, syms).unwrap_or_else(|| {
                let name = format!("{tensor}[{axis}]{suffix}");
                fresh.push((name.clone(), vals));
                SymDim::sym(&name)
            })
        })
        .collect())
}

/// A node's value: a shape value, or the values a Paddle `builtin.combine` gathers.
#[derive(Debug)]
enum Val {
    Shape(ShapeValue),
    List(Vec<ShapeValue>),
}

fn is_float(dtype: &str) -> bool {
    dtype.starts_with("float") || dtype == "bfloat16" || dtype == "double"
}

/// Whether the subtree at `node` reads a tensor's shape.
fn reads_shape(node: &Value) -> bool {
    let op = node["op"].as_str().unwrap_or("");
    matches!(op, "Shape" | "pd_op.shape64" | "pd_op.shape")
        || node["args"]
            .as_array()
            .is_some_and(|a| a.iter().any(reads_shape))
}

/// Whether the subtree at `node` computes in floats (a float constant, a cast to a float).
fn in_floats(node: &Value) -> bool {
    let dtype = |k: &str| node[k].as_str().is_some_and(is_float);
    dtype("dtype")
        || dtype("to")
        || node["args"]
            .as_array()
            .is_some_and(|a| a.iter().any(in_floats))
}

/// The integers of a JSON value, with its rank: a number is 0-D, an array 1-D.
fn int_value(v: &Value) -> Option<ShapeValue> {
    let int = |x: &Value| x.as_i64().or_else(|| x.as_bool().map(i64::from));
    match v {
        Value::Array(a) => a
            .iter()
            .map(int)
            .collect::<Option<Vec<i64>>>()
            .map(ShapeValue::from),
        x => int(x).map(ShapeValue::scalar),
    }
}

/// A JSON attribute as an [`OpAttr`] (`None` for `null`).
fn attr(v: &Value) -> Option<OpAttr> {
    Some(match v {
        Value::Bool(b) => OpAttr::from(*b),
        Value::String(s) => OpAttr::from(s.as_str()),
        Value::Number(n) => match n.as_i64() {
            Some(i) => OpAttr::from(i),
            None => OpAttr::from(n.as_f64()?),
        },
        Value::Array(a) => match a.iter().map(Value::as_i64).collect::<Option<Vec<i64>>>() {
            Some(i) => OpAttr::from(i),
            None => OpAttr::from(a.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>()?),
        },
        _ => return None,
    })
}

/// The attributes of `node`, all but the structural keys.
fn attrs<'a>(node: &'a Value, skip: &[&str]) -> Vec<(&'a str, OpAttr)> {
    let Some(o) = node.as_object() else {
        return Vec::new();
    };
    o.iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .filter_map(|(k, v)| Some((k.as_str(), attr(v)?)))
        .collect()
}

/// Calls the framework's table: ONNX with the record's opset, else Paddle.
fn call(ctx: &Ctx, op: &str, inputs: &[ShapeValue], at: &[(&str, OpAttr)]) -> Result<Val, String> {
    match ctx.opset {
        Some(v) => ShapeValue::onnx_op(op, inputs, at, v),
        None => ShapeValue::paddle_op(op, inputs, at),
    }
    .map(Val::Shape)
    .map_err(|e| e.to_string())
}

/// The value of `node`, through the crate's op tables. A subtree that computes in floats
/// without reading a shape is a constant the caller folds (the tables compute integers): its
/// value is the runtime's, which every configuration must agree on.
fn eval(node: &Value, ctx: &Ctx) -> Result<Val, String> {
    if let Some(out) = node["out"].as_str() {
        if in_floats(node) && !reads_shape(node) {
            let vals: Vec<Option<&Value>> = ctx.runtime.iter().map(|r| r.get(out)).collect();
            if let Some(v) = vals[0].filter(|&v| vals.iter().all(|w| *w == Some(v))) {
                if let Some(v) = int_value(v) {
                    return Ok(Val::Shape(v));
                }
            }
        }
    }
    if let Some(c) = node.get("const") {
        let dtype = node["dtype"].as_str().unwrap_or("");
        let scalar = node["shape"].as_array().is_some_and(|s| s.is_empty());
        let from = node["from"].as_str().unwrap_or("Constant");
        return match from {
            "pd_op.full" => {
                let list = match c {
                    Value::Array(a) => a.clone(),
                    x => vec![x.clone()],
                };
                let value = list.first().and_then(attr).ok_or("an empty full")?;
                if list.iter().any(|x| *x != list[0]) {
                    return Err(format!("a full of distinct values {c}"));
                }
                let shape = if scalar {
                    vec![]
                } else {
                    vec![list.len() as i64]
                };
                let at = [
                    ("shape", OpAttr::from(shape)),
                    ("value", value),
                    ("dtype", OpAttr::from(dtype)),
                ];
                call(ctx, from, &[], &at)
            }
            "pd_op.full_int_array" => {
                let at = [
                    ("value", attr(c).ok_or("a full_int_array")?),
                    ("dtype", OpAttr::from(dtype)),
                ];
                call(ctx, from, &[], &at)
            }
            _ => {
                let value = match (c, scalar) {
                    (Value::Bool(b), _) => OpAttr::from(i64::from(*b)),
                    (Value::Array(a), _) if a.iter().all(Value::is_boolean) => {
                        OpAttr::from(a.iter().map(|b| i64::from(b == true)).collect::<Vec<_>>())
                    }
                    (Value::Array(a), true) if a.len() == 1 => attr(&a[0]).ok_or("a constant")?,
                    (x, _) => attr(x).ok_or_else(|| format!("constant {x}"))?,
                };
                call(ctx, "Constant", &[], &[("value", value)])
            }
        };
    }
    let op = node["op"].as_str().ok_or("a node without op")?;
    // Shape leaves: the tables take a tensor as its shape.
    if matches!(op, "Shape" | "pd_op.shape64" | "pd_op.shape") {
        let of = node["of"].as_str().ok_or("a shape without its tensor")?;
        let dims = ctx
            .leaves
            .get(of)
            .ok_or_else(|| format!("no shape for {of}"))?;
        let mut at = Vec::new();
        if op == "Shape" {
            // Opset 15's start and end, where they are not the defaults.
            if let Some(s) = node["start"].as_i64().filter(|&s| s != 0) {
                at.push(("start", OpAttr::from(s)));
            }
            if let Some(e) = node["end"].as_i64() {
                at.push(("end", OpAttr::from(e)));
            }
        }
        return call(ctx, op, &[ShapeValue::shape_of(dims)], &at);
    }
    // Inputs: a combine's values spliced in, an absent optional input as an empty value
    // (trailing ones dropped).
    let args = node["args"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut inputs = Vec::new();
    let mut absent = 0;
    for a in args {
        if a.is_null() {
            absent += 1;
            continue;
        }
        for _ in 0..std::mem::take(&mut absent) {
            inputs.push(ShapeValue::from(Vec::<i64>::new()));
        }
        match eval(a, ctx)? {
            Val::Shape(v) => inputs.push(v),
            Val::List(vs) => inputs.extend(vs),
        }
    }
    if op == "builtin.combine" {
        return Ok(Val::List(inputs));
    }
    let mut at = attrs(node, &["op", "args", "out"]);
    // PIR's concat takes its axis as an operand after the combine: the table's `axis`.
    if op == "pd_op.concat" && args.len() == 2 {
        let axis = inputs
            .pop()
            .and_then(|v| v.eval(&[]))
            .ok_or("concat axis")?;
        at.push(("axis", OpAttr::from(axis[0])));
    }
    call(ctx, op, &inputs, &at)
}

/// Every inner node's output name in `node`, with the node, outermost first.
fn inner_nodes<'a>(node: &'a Value, out: &mut Vec<(&'a str, &'a Value)>) {
    if let Some(o) = node.get("out").and_then(Value::as_str) {
        out.push((o, node));
    }
    for a in node["args"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        inner_nodes(a, out);
    }
}

fn check(rec: &Value) -> Outcome {
    check_named(rec, "")
}

/// [`check`] with `suffix` appended to every symbol's name: the same model seen by a
/// process as a new one (`tests/shapes/memory.rs`).
pub(crate) fn check_named(rec: &Value, suffix: &str) -> Outcome {
    let onnx = rec["framework"] == "onnx";
    let cfgs = match configs(rec, onnx) {
        Ok(c) if !c.is_empty() => c,
        Ok(_) => return Outcome::Failed("no configurations".into()),
        Err(e) => return Outcome::Failed(format!("record: {e}")),
    };
    let mut syms = symbols(rec, onnx, &cfgs);
    for (name, _) in &mut syms {
        name.push_str(suffix);
    }
    let mut fresh = Vec::new();
    let mut leaves = BTreeMap::new();
    for name in cfgs[0].leaves.keys() {
        let shapes: Option<Vec<&Vec<usize>>> = cfgs.iter().map(|c| c.leaves.get(name)).collect();
        let Some(shapes) = shapes else {
            return Outcome::Failed(format!("leaf {name} missing in a configuration"));
        };
        match symbolic(name, &shapes, &syms, &mut fresh, suffix) {
            Ok(d) => leaves.insert(name.clone(), d),
            Err(e) => return Outcome::Failed(e),
        };
    }
    let data_shapes: Vec<&Vec<usize>> = cfgs.iter().map(|c| &c.data).collect();
    let data = match symbolic("data", &data_shapes, &syms, &mut fresh, suffix) {
        Ok(d) => d,
        Err(e) => return Outcome::Failed(e),
    };
    let ctx = Ctx {
        leaves,
        runtime: cfgs.iter().map(|c| &c.inner).collect(),
        opset: onnx.then(|| rec["opset"].as_i64().unwrap_or(1)),
    };
    let value = match eval(&rec["expression"], &ctx) {
        Ok(Val::Shape(v)) => v,
        Ok(Val::List(_)) => return Outcome::Failed("the shape is a combine".into()),
        Err(e) => return Outcome::Failed(e),
    };
    let allowzero = rec["allowzero"].as_i64() == Some(1);
    let out = if onnx {
        Onnx::new(&value).allowzero(allowzero).infer_symbolic(&data)
    } else {
        Paddle::new(&value).infer_symbolic(&data)
    };
    let out = match out {
        Ok(o) => o,
        Err(e) => return Outcome::Unresolved(format!("{value}: {e}")),
    };
    // The `ReshapeFusion` fold: one static ONNX Reshape, where the dims allow it.
    let folded = if onnx {
        Onnx::new(&value)
            .allowzero(allowzero)
            .to_onnx_symbolic(&data)
    } else {
        Paddle::new(&value).to_onnx_symbolic(&data)
    }
    .ok();
    let mut nodes = Vec::new();
    inner_nodes(&rec["expression"], &mut nodes);
    let mut resolved = true;
    let mut why = String::new();
    for (k, c) in cfgs.iter().enumerate() {
        let all: Vec<(&str, usize)> = syms
            .iter()
            .chain(&fresh)
            .map(|(n, v)| (n.as_str(), v[k]))
            .collect();
        let graph: Vec<(&str, usize)> = syms.iter().map(|(n, v)| (n.as_str(), v[k])).collect();
        match value.eval(&all) {
            Some(v) if v != c.shape_value => {
                return Outcome::Unsound(format!(
                    "config {k}: the shape {value} gives {v:?}, the runtime {:?}",
                    c.shape_value
                ))
            }
            Some(_) => {}
            None => {
                resolved = false;
                why = format!("config {k}: the shape {value} does not evaluate");
            }
        }
        // Inner nodes: each value the runtime recorded, where the harness has an integer one.
        for (name, node) in &nodes {
            let (Some(want), Ok(Val::Shape(v))) = (c.inner.get(*name), eval(node, &ctx)) else {
                continue;
            };
            let want = ints(want);
            if let (Some(got), Some(want)) = (v.eval(&all), want) {
                if got != want {
                    return Outcome::Unsound(format!(
                        "config {k}: node {name} = {v} gives {got:?}, the runtime {want:?}"
                    ));
                }
            }
        }
        match out.eval(&all) {
            Some(o) if o != c.output => {
                return Outcome::Unsound(format!(
                    "config {k}: the output {out} gives {o:?}, the runtime {:?}",
                    c.output
                ))
            }
            Some(_) => {}
            None => {
                resolved = false;
                why = format!("config {k}: the output {out} does not evaluate (a condition fails)");
            }
        }
        if out.eval(&graph).is_none() && resolved {
            resolved = false;
            why = format!("the output {out} holds a fresh unknown, not only the graph's symbols");
        }
        if let Some(f) = &folded {
            match f.infer_shape(&c.data) {
                Ok(o) if o == c.output => {}
                other => {
                    return Outcome::Unsound(format!(
                        "config {k}: the fold {f:?} gives {other:?}, the runtime {:?}",
                        c.output
                    ))
                }
            }
        }
    }
    match resolved {
        true => Outcome::Resolved(folded.is_some()),
        false => Outcome::Unresolved(why),
    }
}

/// The records of every `*.jsonl` in the corpus directory, with where each came from.
pub(crate) fn records() -> Vec<(String, Result<Value, String>)> {
    corpus_lines("SHAPEGRAPHS_DIR", "shapegraphs")
        .into_iter()
        .map(|(at, l)| (at, serde_json::from_str(&l).map_err(|e| e.to_string())))
        .collect()
}

/// The harness itself: a runtime value changed makes a record unsound, an op it does not know
/// makes it fail, in every file of the corpus.
#[test]
fn the_harness_catches_wrong_values_and_unknown_ops() {
    let recs = records();
    let mut seen = std::collections::BTreeSet::new();
    for (at, rec) in &recs {
        let rec = rec.as_ref().unwrap();
        if !seen.insert(rec["framework"].to_string()) {
            continue;
        }
        assert!(matches!(check(rec), Outcome::Resolved(_)), "{at}");
        for key in ["shape_value", "output_shape"] {
            let mut bad = rec.clone();
            let first = &mut bad["configs"][0][key][0];
            *first = Value::from(first.as_i64().unwrap() + 1);
            assert!(
                matches!(check(&bad), Outcome::Unsound(_)),
                "{at}: {key} changed"
            );
        }
        let mut bad = rec.clone();
        bad["expression"]["op"] = Value::from("NotAnOp");
        assert!(
            matches!(check(&bad), Outcome::Failed(_)),
            "{at}: unknown op"
        );
    }
    assert_eq!(seen.len(), 2, "records of both frameworks");
}

#[test]
fn shapegraphs() {
    let (mut n, mut resolved, mut unsound, mut failed, mut folded) = (0, 0, 0, 0, 0);
    let mut report = Vec::new();
    for (at, rec) in records() {
        n += 1;
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                failed += 1;
                report.push(format!("  failed {at}: {e}"));
                continue;
            }
        };
        let who = format!(
            "{} {} {}",
            rec["framework"].as_str().unwrap_or("?"),
            rec["model"].as_str().unwrap_or("?"),
            rec["node"].as_str().unwrap_or("?")
        );
        match check(&rec) {
            Outcome::Resolved(f) => {
                resolved += 1;
                folded += usize::from(f);
            }
            Outcome::Unresolved(why) => report.push(format!("  unresolved {who}: {why}")),
            Outcome::Unsound(why) => {
                unsound += 1;
                report.push(format!("  unsound {who}: {why}"));
            }
            Outcome::Failed(why) => {
                failed += 1;
                report.push(format!("  failed {who}: {why}"));
            }
        }
    }
    println!("shapegraphs: {n} records, {resolved} resolved, {unsound} unsound, {failed} failed to evaluate");
    println!("  {folded} of the resolved fold to one static ONNX Reshape");
    for r in &report {
        println!("{r}");
    }
    assert_eq!(unsound, 0, "unsound records");
    assert!(
        resolved * 100 >= n * 98
            && (std::env::var_os("SHAPEGRAPHS_DIR").is_some() || resolved == n),
        "{resolved} of {n} resolved: below 98%, or not all of the shared records"
    );
}

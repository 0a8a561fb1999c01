//! einops' own answers for `reduce`, `pack`, `unpack` and `parse_shape` (and the `rearrange`
//! and `repeat` steps chained with them), recorded from einops 0.8.2 on NumPy: every
//! `*.jsonl` in `tests/data/einops/` (or the directory `EINOPS_CASES_DIR` names; the schema is
//! its README). Each case's shapes, values (exact, or within the recorded tolerance for
//! floats), whether the result is a view, and an error exactly where einops raised one, of
//! the kind it raised.
//!
//! Where NumPy changes the element type (`sum`/`prod` of `bool` give `int64`, `any`/`all` of
//! numbers give `bool`, a pack of `int64` and `float64` gives `float64`), the input is
//! converted to the result type first, as a Rust caller would.

use ndarray::{ArrayD, ArrayView, ArrayViewD, Axis, IxDyn, ShapeBuilder};
use ndarray_reshape::{
    pack, parse_shape, OnnxNode, Pack, Reduce, Reducible, Reduction, ReshapeError, ReshapeExt,
    SymDim,
};
use serde_json::Value;

use crate::json::{corpus_lines, i64s, isizes, usizes};
use crate::onnx_run;

/// An element type of the cases, read from JSON.
trait Elem: Copy + PartialEq + std::fmt::Debug + Send + Sync + Reducible {
    fn of(v: &Value) -> Self;
    /// The identity and operation of an ONNX reduce node on this type.
    fn onnx(r: Reduction) -> (Self, fn(Self, Self) -> Self);
    /// `ReduceMean`'s division of a sum of `n` elements.
    fn mean(self, n: usize) -> Self {
        let _ = n;
        self
    }
    /// Whether `got` is `want` (within the case's tolerance for floats).
    fn close(got: Self, want: Self, tol: Option<(f64, f64)>) -> bool {
        let _ = tol;
        got == want
    }
}

impl Elem for i64 {
    fn of(v: &Value) -> i64 {
        match v {
            Value::Bool(b) => i64::from(*b),
            v => v.as_i64().unwrap(),
        }
    }
    fn onnx(r: Reduction) -> (i64, fn(i64, i64) -> i64) {
        match r {
            Reduction::Sum | Reduction::Mean => (0, |a, b| a.wrapping_add(b)),
            Reduction::Prod => (1, |a, b| a.wrapping_mul(b)),
            Reduction::Max | Reduction::Any => (i64::MIN, |a, b| a.max(b)),
            Reduction::Min | Reduction::All => (i64::MAX, |a, b| a.min(b)),
        }
    }
}

impl Elem for f64 {
    fn of(v: &Value) -> f64 {
        match v {
            Value::Bool(b) => f64::from(u8::from(*b)),
            v => v.as_f64().unwrap(),
        }
    }
    fn onnx(r: Reduction) -> (f64, fn(f64, f64) -> f64) {
        match r {
            Reduction::Sum | Reduction::Mean => (0.0, |a, b| a + b),
            Reduction::Prod => (1.0, |a, b| a * b),
            Reduction::Max | Reduction::Any => (f64::NEG_INFINITY, |a, b| a.max(b)),
            Reduction::Min | Reduction::All => (f64::INFINITY, |a, b| a.min(b)),
        }
    }
    fn mean(self, n: usize) -> f64 {
        self / n as f64
    }
    fn close(got: f64, want: f64, tol: Option<(f64, f64)>) -> bool {
        let (rel, abs) = tol.unwrap_or((0.0, 0.0));
        got == want || (got - want).abs() <= abs + rel * want.abs()
    }
}

impl Elem for bool {
    fn of(v: &Value) -> bool {
        match v {
            Value::Bool(b) => *b,
            v => v.as_f64().unwrap() != 0.0,
        }
    }
    fn onnx(r: Reduction) -> (bool, fn(bool, bool) -> bool) {
        match r {
            Reduction::Max | Reduction::Any | Reduction::Sum => (false, |a, b| a | b),
            _ => (true, |a, b| a & b),
        }
    }
}

/// `t` through ONNX nodes as onnxruntime runs them on a C-contiguous tensor.
fn run_nodes<T: Elem>(mut t: ArrayD<T>, nodes: &[OnnxNode]) -> Result<ArrayD<T>, String> {
    for node in nodes {
        t = match node {
            OnnxNode::Reshape(o) => onnx_run::reshape(t, o)?,
            OnnxNode::Transpose { perm } => t.permuted_axes(IxDyn(perm)),
            OnnxNode::Reduce {
                reduction,
                axes,
                keepdims: false,
                ..
            } => {
                let (init, f) = T::onnx(*reduction);
                let n: usize = axes.iter().map(|&a| t.shape()[a]).product();
                let mut r = t;
                for &a in axes.iter().rev() {
                    r = r.fold_axis(Axis(a), init, |&acc, &v| f(acc, v));
                }
                match reduction {
                    Reduction::Mean => r.mapv(|v| v.mean(n)),
                    _ => r,
                }
            }
            other => return Err(format!("unexpected node {other:?}")),
        };
    }
    Ok(t.as_standard_layout().into_owned())
}

/// The buffer and layout of an array of the case (`input_*` fields or a pack input's), with
/// values of type `T`: the README's recipe.
struct Built<T> {
    buf: Vec<T>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
}

impl<T: Elem> Built<T> {
    /// The case's input.
    fn input(case: &Value) -> Built<T> {
        Built::new(
            &case["input_shape"],
            &case["input_layout"],
            &case["input_values"],
        )
    }

    fn new(shape: &Value, layout: &Value, values: &Value) -> Built<T> {
        let shape = usizes(shape);
        let strides = isizes(&layout["strides"]);
        let offset = layout["offset"].as_u64().unwrap() as usize;
        let mut buf =
            vec![T::of(&layout["filler"]); layout["buffer_len"].as_u64().unwrap() as usize];
        let values: Vec<T> = values.as_array().unwrap().iter().map(T::of).collect();
        let n: usize = shape.iter().product();
        for (i, v) in values.iter().enumerate().take(n) {
            let mut rest = i;
            let mut at = offset as isize;
            for k in (0..shape.len()).rev() {
                at += (rest % shape[k]) as isize * strides[k];
                rest /= shape[k];
            }
            buf[at as usize] = *v;
        }
        Built {
            buf,
            shape,
            strides,
            offset,
        }
    }

    /// The view the case describes.
    fn view(&self) -> ArrayViewD<'_, T> {
        if self.shape.contains(&0) || self.buf.is_empty() {
            return ArrayView::from_shape(IxDyn(&self.shape), &[]).unwrap();
        }
        let low: isize = self
            .shape
            .iter()
            .zip(&self.strides)
            .map(|(&d, &s)| if s < 0 { (d as isize - 1) * s } else { 0 })
            .sum();
        let abs: Vec<usize> = self.strides.iter().map(|s| s.unsigned_abs()).collect();
        let start = (self.offset as isize + low) as usize;
        let mut v =
            ArrayView::from_shape(IxDyn(&self.shape).strides(IxDyn(&abs)), &self.buf[start..])
                .unwrap();
        for (k, &s) in self.strides.iter().enumerate() {
            if s < 0 {
                v.invert_axis(Axis(k));
            }
        }
        v
    }

    fn contains(&self, p: *const T) -> bool {
        self.buf.as_ptr_range().contains(&p)
    }
}

/// The categories of our errors that match each of einops' error kinds (a kind einops raises
/// where NumPy cannot reshape a zero-size array, we may accept: `None`).
fn rules_of(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "wrong_rank"
        | "wrong_rank_ellipsis"
        | "pack_too_few_dims"
        | "unpack_wrong_rank"
        | "parse_shape_wrong_rank"
        | "parse_shape_too_few_dims" => &["pattern_rank"],
        "invalid_axis_length_name" | "unused_axis_length" => &["axis_length"],
        "could_not_infer" | "unpack_multiple_unknown" => &["multiple_infer"],
        "zero_division" => &["infer_zero_product"],
        "shape_mismatch_divide" => &["infer_not_divisible"],
        "shape_mismatch" => &["size_mismatch"],
        "unknown_reduction" => &["unknown_reduction"],
        "mean_non_float" => &["reduction_type"],
        "zero_size_reduction" => &["zero_size_reduction"],
        "pack_concat_mismatch" | "parse_shape_unit_mismatch" | "parse_shape_anonymous_mismatch" => {
            &["dim_mismatch"]
        }
        "unpack_split_failed" => &[
            "dim_mismatch",
            "infer_not_divisible",
            "multiple_infer",
            "bad_value",
        ],
        "numpy_reshape_zero" => return None,
        _ => &["bad_pattern"],
    })
}

/// What a case came to.
enum Outcome {
    Passed,
    Failed(String),
}

/// The case's error expectation against our result: `Ok(true)` when einops raised and we
/// failed with a matching rule, `Ok(false)` when einops succeeded and so did we.
fn errors<T>(case: &Value, got: &Result<T, ReshapeError>) -> Result<bool, String> {
    let expect = &case["expect"];
    match (got, expect.get("error_kind").and_then(Value::as_str)) {
        (Ok(_), None) => Ok(false),
        (Ok(_), Some(kind)) => match rules_of(kind) {
            None => Ok(true),
            Some(_) => Err(format!("succeeded where einops raised {kind}")),
        },
        (Err(e), None) => Err(format!("{e}, where einops succeeded")),
        (Err(e), Some(kind)) => match rules_of(kind) {
            Some(rules) if rules.contains(&e.category()) => Ok(true),
            None => Ok(true),
            Some(_) => Err(format!("{e}, einops raised {kind}")),
        },
    }
}

fn lengths(case: &Value) -> Vec<(String, usize)> {
    case["axes_lengths"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap() as usize))
                .collect()
        })
        .unwrap_or_default()
}

/// The values of a successful result against the recorded ones.
fn same_values<T: Elem>(got: &ArrayViewD<'_, T>, expect: &Value) -> Result<(), String> {
    let shape = usizes(&expect["shape"]);
    if got.shape() != shape.as_slice() {
        return Err(format!("shape {:?}, einops {shape:?}", got.shape()));
    }
    let tol = expect
        .get("tolerance")
        .map(|t| (t["rel"].as_f64().unwrap(), t["abs"].as_f64().unwrap()));
    let want: Vec<T> = expect["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(T::of)
        .collect();
    let values: Vec<T> = got.iter().copied().collect();
    if values.len() != want.len()
        || values
            .iter()
            .zip(&want)
            .any(|(&g, &w)| !T::close(g, w, tol))
    {
        return Err(format!("values {values:?}, einops {want:?}"));
    }
    Ok(())
}

/// A `reduce`, `rearrange` or `repeat` case on elements of type `T`.
fn apply<T: Elem>(case: &Value) -> Result<(), String> {
    let input = Built::<T>::input(case);
    let x = input.view();
    let pattern = case["pattern"].as_str().unwrap();
    let given = lengths(case);
    let given: Vec<(&str, usize)> = given.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let got = match case["op"].as_str().unwrap() {
        "reduce" => case["reduction"]
            .as_str()
            .unwrap()
            .parse::<Reduction>()
            .and_then(|r| x.reduce(pattern, r, &given)),
        "rearrange" => x.rearrange(pattern, &given),
        "repeat" => x.repeat(pattern, &given),
        op => panic!("unknown op {op}"),
    };
    if errors(case, &got)? {
        return Ok(());
    }
    let Ok(y) = got else { unreachable!() };
    same_values(&y.view(), &case["expect"])?;
    if case["op"] == "reduce" {
        let spec = shapes_without_data(case, x.shape(), y.shape())?;
        let nodes = spec
            .to_onnx_nodes(x.shape(), 20)
            .map_err(|e| e.to_string())?;
        let onnx = run_nodes(x.to_owned(), &nodes).map_err(|e| format!("through ONNX: {e}"))?;
        same_values(&onnx.view(), &case["expect"])
            .map_err(|e| format!("through ONNX {nodes:?}: {e}"))?;
    }
    match case["expect"]["view"].as_bool() {
        Some(v) if v != y.is_view() => Err(format!("view {}, einops {v}", y.is_view())),
        Some(true) if !input.contains(y.as_ptr()) => Err("a view of another buffer".into()),
        _ => Ok(()),
    }
}

/// A reduce spec kept by the caller infers the shape the data gave.
fn shapes_without_data(case: &Value, input: &[usize], output: &[usize]) -> Result<Reduce, String> {
    let r: Reduction = case["reduction"].as_str().unwrap().parse().unwrap();
    let spec = lengths(case).iter().fold(
        Reduce::new(case["pattern"].as_str().unwrap(), r).unwrap(),
        |s, (k, v)| s.axis(k, *v),
    );
    let inferred = spec.infer_shape(input).map_err(|e| e.to_string())?;
    if inferred != output {
        return Err(format!(
            "infer_shape {inferred:?}, the data gave {output:?}"
        ));
    }
    // Every input dim a symbol (symbols are sizes of at least 1), evaluated back at the
    // input's numbers.
    if input.contains(&0) {
        return Ok(spec);
    }
    let names: Vec<String> = (0..input.len()).map(|i| format!("D{i}")).collect();
    let symbols: Vec<SymDim> = names.iter().map(|n| SymDim::sym(n)).collect();
    let sym = spec
        .infer_symbolic(&symbols)
        .map_err(|e| format!("infer_symbolic: {e}"))?;
    let at: Vec<(&str, usize)> = names
        .iter()
        .map(String::as_str)
        .zip(input.iter().copied())
        .collect();
    if sym.eval(&at).as_deref() != Some(output) {
        return Err(format!(
            "infer_symbolic {sym:?} at {input:?}, the data gave {output:?}"
        ));
    }
    Ok(spec)
}

/// The element type a case computes in: NumPy's result type where it changes the input's.
fn result_dtype(case: &Value) -> &str {
    let input = case["input_dtype"].as_str().unwrap_or("int64");
    let reduction = case["reduction"].as_str().unwrap_or("");
    match (input, reduction) {
        ("bool", "sum" | "prod") => "int64",
        ("int64" | "float64", "any" | "all") => "bool",
        _ => input,
    }
}

fn pack_case<T: Elem>(case: &Value) -> Result<(), String> {
    let built: Vec<Built<T>> = case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| Built::new(&i["shape"], &i["layout"], &i["values"]))
        .collect();
    let views: Vec<ArrayViewD<'_, T>> = built.iter().map(Built::view).collect();
    let got = pack(&views, case["pattern"].as_str().unwrap());
    if errors(case, &got)? {
        return Ok(());
    }
    let Ok((p, ps)) = got else { unreachable!() };
    same_values(&p.view(), &case["expect"])?;
    let want: Vec<Vec<usize>> = case["expect"]["packed_shapes"]
        .as_array()
        .unwrap()
        .iter()
        .map(usizes)
        .collect();
    if ps != want {
        return Err(format!("packed shapes {ps:?}, einops {want:?}"));
    }
    // Through ONNX: each input reshaped, then concatenated.
    let shapes: Vec<&[usize]> = views.iter().map(|v| v.shape()).collect();
    let p = Pack::new(case["pattern"].as_str().unwrap()).map_err(|e| e.to_string())?;
    let (each, concat) = p.to_onnx_nodes(&shapes).map_err(|e| e.to_string())?;
    let OnnxNode::Concat { axis } = concat else {
        return Err(format!("{concat:?} is no Concat"));
    };
    let parts = views
        .iter()
        .zip(&each)
        .map(|(v, nodes)| run_nodes(v.to_owned(), nodes))
        .collect::<Result<Vec<_>, _>>()?;
    let parts: Vec<ArrayViewD<'_, T>> = parts.iter().map(|a| a.view()).collect();
    let joined = ndarray::concatenate(Axis(axis), &parts).map_err(|e| e.to_string())?;
    same_values(&joined.view(), &case["expect"]).map_err(|e| format!("through ONNX: {e}"))
}

fn unpack_case<T: Elem>(case: &Value) -> Result<(), String> {
    let input = Built::<T>::input(case);
    let x = input.view();
    let shapes: Vec<Vec<i64>> = case["packed_shapes"]
        .as_array()
        .unwrap()
        .iter()
        .map(i64s)
        .collect();
    let got = x.unpack(case["pattern"].as_str().unwrap(), &shapes);
    if errors(case, &got)? {
        return Ok(());
    }
    let Ok(parts) = got else { unreachable!() };
    let outputs = case["expect"]["outputs"].as_array().unwrap();
    if parts.len() != outputs.len() {
        return Err(format!("{} parts, einops {}", parts.len(), outputs.len()));
    }
    for (part, want) in parts.iter().zip(outputs) {
        same_values(part, want)?;
        if want["view"].as_bool() == Some(true) && !input.contains(part.as_ptr()) {
            return Err("a part that is no view of the packed array".into());
        }
    }
    // Through ONNX: a Split, then each part reshaped.
    let p = Pack::new(case["pattern"].as_str().unwrap()).map_err(|e| e.to_string())?;
    let (split, each) = p
        .unpack_onnx_nodes(x.shape(), &shapes)
        .map_err(|e| e.to_string())?;
    let OnnxNode::Split { axis, split } = split else {
        return Err(format!("{split:?} is no Split"));
    };
    let mut at = 0;
    for ((len, nodes), want) in split.iter().zip(&each).zip(outputs) {
        let part = x.slice_axis(Axis(axis), ndarray::Slice::from(at..at + len));
        at += len;
        let got = run_nodes(part.to_owned(), nodes)?;
        same_values(&got.view(), want).map_err(|e| format!("through ONNX: {e}"))?;
    }
    Ok(())
}

/// The keys of the case's `dict` in the order the line writes them (einops' insertion order;
/// the parsed map sorts them).
fn dict_order(line: &str, dict: &serde_json::Map<String, Value>) -> Vec<(String, usize)> {
    let text = &line[line.find("\"dict\"").unwrap_or(0)..];
    let mut keys: Vec<(usize, String, usize)> = dict
        .iter()
        .map(|(k, v)| {
            let at = text.find(&format!("{:?}:", k)).unwrap_or(usize::MAX);
            (at, k.clone(), v.as_u64().unwrap() as usize)
        })
        .collect();
    keys.sort();
    keys.into_iter().map(|(_, k, v)| (k, v)).collect()
}

fn parse_shape_case(case: &Value, line: &str) -> Result<(), String> {
    let got = parse_shape(
        &usizes(&case["input_shape"]),
        case["pattern"].as_str().unwrap(),
    );
    if errors(case, &got)? {
        return Ok(());
    }
    let Ok(named) = got else { unreachable!() };
    let want = dict_order(line, case["expect"]["dict"].as_object().unwrap());
    match named == want {
        true => Ok(()),
        false => Err(format!("{named:?}, einops {want:?}")),
    }
}

fn check(case: &Value, line: &str) -> Outcome {
    let op = case["op"].as_str().unwrap();
    let dtype = match op {
        "pack" => {
            let inputs = case["inputs"].as_array().unwrap();
            let any_float = inputs.iter().any(|i| i["dtype"] == "float64");
            match (case["expect"]["dtype"].as_str(), inputs.first()) {
                (Some(d), _) => d.to_owned(),
                (None, _) if any_float => "float64".to_owned(),
                (None, Some(i)) => i["dtype"].as_str().unwrap().to_owned(),
                (None, None) => "int64".to_owned(),
            }
        }
        _ => result_dtype(case).to_owned(),
    };
    let result = match (op, dtype.as_str()) {
        ("parse_shape", _) => parse_shape_case(case, line),
        ("pack", "float64") => pack_case::<f64>(case),
        ("pack", "bool") => pack_case::<bool>(case),
        ("pack", _) => pack_case::<i64>(case),
        ("unpack", "float64") => unpack_case::<f64>(case),
        ("unpack", "bool") => unpack_case::<bool>(case),
        ("unpack", _) => unpack_case::<i64>(case),
        (_, "float64") => apply::<f64>(case),
        (_, "bool") => apply::<bool>(case),
        _ => apply::<i64>(case),
    };
    match result {
        Ok(()) => Outcome::Passed,
        Err(why) => Outcome::Failed(why),
    }
}

#[test]
fn einops_cases() {
    let (mut n, mut passed, mut failed, mut quirks) = (0, 0, Vec::new(), Vec::new());
    for (_, line) in corpus_lines("EINOPS_CASES_DIR", "einops") {
        let case: Value = serde_json::from_str(&line).unwrap();
        n += 1;
        let label = format!("{} {} {:?}", case["id"], case["op"], case["pattern"]);
        match (
            check(&case, &line),
            case.get("quirk").and_then(Value::as_str),
        ) {
            (Outcome::Passed, _) => passed += 1,
            (Outcome::Failed(why), Some(quirk)) => quirks.push(format!("{label} ({quirk}): {why}")),
            (Outcome::Failed(why), None) => failed.push(format!("{label}: {why}")),
        }
    }
    println!(
        "einops: {n} cases, {passed} passed, {} failed, {} quirks skipped",
        failed.len(),
        quirks.len()
    );
    for q in &quirks {
        println!("  quirk {q}");
    }
    for f in &failed {
        println!("  {f}");
    }
    assert!(failed.is_empty(), "{} of {n} cases failed", failed.len());
}

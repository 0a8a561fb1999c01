//! Indexing, reductions and quantization: `Gather`, `GatherElements`, `GatherND`, the
//! scatters, `ArgMax`/`ArgMin`, every `Reduce*`, `TopK`, the data-dependent outputs
//! (`NonZero`, `Unique`, `Compress`, `NonMaxSuppression`), `QuantizeLinear`,
//! `DequantizeLinear` and `DynamicQuantizeLinear`.

use super::{Node, Out, S};
use crate::error::Rule;
use crate::graph::ElemType;
use crate::sym::{Condition, SymDim};

/// `Gather(data, indices, axis)`: `data`'s dims before `axis`, the indices' shape, then the
/// dims after it.
pub(crate) fn gather(n: &Node<'_>) -> S<Vec<Out>> {
    let (x, i) = (n.shape(0)?, n.shape(1)?);
    let axis = n.axis(n.int_or("axis", 0)?, x.len())?;
    let mut out = x[..axis].to_vec();
    out.extend(i.iter().cloned());
    out.extend(x[axis + 1..].iter().cloned());
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `GatherElements`: the indices' shape, of the same rank as the data.
pub(crate) fn gather_elements(n: &Node<'_>) -> S<Vec<Out>> {
    let (x, i) = (n.shape(0)?, n.shape(1)?);
    if x.len() != i.len() {
        let why = format!("indices of rank {} for data of rank {}", i.len(), x.len());
        return Err(n.fail(Rule::RankMismatch, Some(1), why));
    }
    Ok(vec![Out::new(n.elem(0), i.to_vec())])
}

/// `GatherND(data, indices, batch_dims)`: the indices' dims but the last, then the data's
/// dims past the batch dims and the indexed ones.
pub(crate) fn gather_nd(n: &Node<'_>) -> S<Vec<Out>> {
    let (x, i) = (n.shape(0)?, n.shape(1)?);
    let b = usize::try_from(n.int_or("batch_dims", 0)?).unwrap_or(usize::MAX);
    let last = i.last().and_then(SymDim::known);
    let Some(m) = last.filter(|&m| b.checked_add(m).is_some_and(|e| e <= x.len())) else {
        let why = format!(
            "indices {i:?} and batch_dims {b} do not index data of rank {}",
            x.len()
        );
        return Err(n.fail(Rule::RankMismatch, Some(1), why));
    };
    let mut out = i[..i.len() - 1].to_vec();
    out.extend(x[b + m..].iter().cloned());
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `ArgMax`, `ArgMin`: the axis reduced (kept as 1 with `keepdims`), `int64`.
pub(crate) fn arg(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let axis = n.axis(n.int_or("axis", 0)?, x.len())?;
    let out = reduced(x, &[axis], n.int_or("keepdims", 1)? != 0);
    Ok(vec![Out::new(Some(ElemType::INT64), out)])
}

fn reduced(x: &[SymDim], axes: &[usize], keep: bool) -> Vec<SymDim> {
    let mut out = Vec::with_capacity(x.len());
    for (i, d) in x.iter().enumerate() {
        match (axes.contains(&i), keep) {
            (false, _) => out.push(d.clone()),
            (true, true) => out.push(SymDim::from(1)),
            (true, false) => {}
        }
    }
    out
}

/// Every `Reduce*`: axes as an attribute (before opset 18, `ReduceSum` 13) or input 1, all of
/// them without (none with `noop_with_empty_axes`), kept as 1 with `keepdims`.
pub(crate) fn reduce(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let input_from = if n.c.op == "ReduceSum" { 13 } else { 18 };
    let axes = match n.c.opset.unwrap_or(1) < input_from {
        true => n.ints("axes")?,
        false => n.opt_numbers(1)?,
    };
    let noop = n.int_or("noop_with_empty_axes", 0)? != 0;
    let axes = match axes {
        Some(a) if !a.is_empty() => n.axes(&a, x.len())?,
        _ if noop => Vec::new(),
        _ => (0..x.len()).collect(),
    };
    let out = reduced(x, &axes, n.int_or("keepdims", 1)? != 0);
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `TopK(X, K)` (`k` an attribute before opset 10): values and `int64` indices with the axis
/// of length `k`, which must be at most the axis (onnxruntime refuses a larger `k`); a `k`
/// computed from data gives a fresh dim.
pub(crate) fn top_k(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let axis = n.axis(n.int_or("axis", -1)?, x.len())?;
    let k = match n.c.opset.unwrap_or(1) < 10 {
        true => Ok(SymDim::int(n.int("k")?.ok_or_else(|| n.c.missing("k"))?)),
        false => n
            .value(1)
            .map(|v| v.entries().first().cloned().unwrap_or_default()),
    };
    let k = match k {
        Ok(k) => {
            n.need(Condition::at_most(SymDim::from(0), k.clone()))?;
            n.need(Condition::at_most(k.clone(), x[axis].clone()))?;
            k
        }
        Err(_) => n.fresh_within(0, axis, "k is computed from data", Some(x[axis].clone())),
    };
    let mut out = x.to_vec();
    out[axis] = k;
    Ok(vec![
        Out::new(n.elem(0), out.clone()),
        Out::new(Some(ElemType::INT64), out),
    ])
}

/// The element count of a shape.
fn numel(x: &[SymDim]) -> SymDim {
    x.iter().fold(SymDim::from(1), |a, d| a * d.clone())
}

/// `NonZero`: `[rank, nnz]`, `nnz` decided by the data, at most the element count.
pub(crate) fn non_zero(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let why = "the count of non-zero elements is decided by the data";
    let nnz = n.fresh_within(0, 1, why, Some(numel(x)));
    let r = x.len();
    Ok(vec![Out::new(
        Some(ElemType::INT64),
        vec![SymDim::from(r), nnz],
    )])
}

/// `Unique`: the unique values along `axis` (or flattened), their count decided by the
/// data; the indices, inverse indices and counts.
pub(crate) fn unique(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let why = "the count of unique values is decided by the data";
    let most = match n.int("axis")? {
        None => numel(x),
        Some(a) => x[n.axis(a, x.len())?].clone(),
    };
    let u = n.fresh_within(0, 0, why, Some(most));
    // Indices and counts have that count too.
    for o in [1, 3] {
        n.fresh(o, 0, why);
    }
    let y = match n.int("axis")? {
        None => vec![u.clone()],
        Some(a) => {
            let a = n.axis(a, x.len())?;
            let mut y = x.to_vec();
            y[a] = u.clone();
            y
        }
    };
    let inverse = match n.int("axis")? {
        None => vec![x.iter().fold(SymDim::from(1), |a, d| a * d.clone())],
        Some(a) => vec![x[n.axis(a, x.len())?].clone()],
    };
    let int = Some(ElemType::INT64);
    Ok(vec![
        Out::new(n.elem(0), y),
        Out::new(int, vec![u.clone()]),
        Out::new(int, inverse),
        Out::new(int, vec![u]),
    ])
}

/// `Compress(input, condition, axis)`: the axis (or the flattened input) cut to the count of
/// true conditions, which the data decides.
pub(crate) fn compress(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let why = "the count of true conditions is decided by the data";
    let out = match n.int("axis")? {
        None => vec![n.fresh_within(0, 0, why, Some(numel(x)))],
        Some(a) => {
            let a = n.axis(a, x.len())?;
            let mut y = x.to_vec();
            y[a] = n.fresh_within(0, a, why, Some(x[a].clone()));
            y
        }
    };
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `NonMaxSuppression`: `[selected, 3]` indices, the count decided by the data.
pub(crate) fn nms(n: &Node<'_>) -> S<Vec<Out>> {
    // At most one per batch, class and box of the scores' [B, C, N].
    let most = n.opt(1).and_then(|f| f.shape()).map(numel);
    let kept = n.fresh_within(0, 0, "the count of boxes kept is decided by the data", most);
    Ok(vec![Out::new(
        Some(ElemType::INT64),
        vec![kept, SymDim::from(3)],
    )])
}

/// `QuantizeLinear(x, y_scale, y_zero_point)`: shaped as `x`, of `output_dtype` (opset 21),
/// else the zero point's type, else `uint8`.
pub(crate) fn quantize(n: &Node<'_>) -> S<Vec<Out>> {
    let elem = match n.int("output_dtype")? {
        Some(t) if t != 0 => i32::try_from(t).ok().map(ElemType::from_code),
        _ => n.elem(2).or(Some(ElemType::UINT8)),
    };
    Ok(vec![Out::new(elem, n.shape(0)?.to_vec())])
}

/// `DequantizeLinear(x, x_scale, x_zero_point)`: shaped as `x`, of `output_dtype`
/// (opset 23), else the scale's type.
pub(crate) fn dequantize(n: &Node<'_>) -> S<Vec<Out>> {
    let elem = match n.int("output_dtype")? {
        Some(t) if t != 0 => i32::try_from(t).ok().map(ElemType::from_code),
        _ => n.elem(1),
    };
    Ok(vec![Out::new(elem, n.shape(0)?.to_vec())])
}

/// `DynamicQuantizeLinear(x)`: `uint8` shaped as `x`, a `float32` scale and a `uint8` zero
/// point, both 0-D.
pub(crate) fn dynamic_quantize(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![
        Out::new(Some(ElemType::UINT8), n.shape(0)?.to_vec()),
        Out::new(Some(ElemType::FLOAT), Vec::new()),
        Out::new(Some(ElemType::UINT8), Vec::new()),
    ])
}

//! Operators that rearrange, cut, join, pad or resize a tensor: `Reshape` (through the ONNX
//! dialect), `Flatten`, `Transpose`, `Squeeze`, `Unsqueeze`, `Concat`, `Split`, `Slice`,
//! `Tile`, `Pad`, `DepthToSpace`, `SpaceToDepth`, `Resize`, `Upsample`, and the tensors built
//! from shapes: `Shape`, `Size`, `ConstantOfShape`, `Range`, `OneHot`.

use super::{dim, Node, Out, S};
use crate::dialect::onnx::Onnx;
use crate::dialect::ShapeSpec;
use crate::error::Rule;
use crate::graph::ElemType;
use crate::sym::{Condition, SymDim};

fn k(v: i64) -> SymDim {
    SymDim::int(v)
}

/// The product of `dims`.
fn product(dims: &[SymDim]) -> SymDim {
    dims.iter().fold(SymDim::from(1), |a, d| a * d.clone())
}

/// `Reshape(data, shape)`: the ONNX dialect on the shape value (`0` copies, `-1` infers,
/// `allowzero` from opset 14), its conditions kept. A target computed from data gives fresh
/// dims of its known length.
pub(crate) fn reshape(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let allowzero = n.int_or("allowzero", 0)? != 0;
    let target = match n.value(1) {
        Ok(t) => t,
        Err(stop) => {
            let len = n.shape(1)?.first().and_then(SymDim::known).ok_or(stop)?;
            let why = "the target shape is computed from data";
            let dims = (0..len).map(|a| n.fresh(0, a, why)).collect();
            return Ok(vec![Out::new(n.elem(0), dims)]);
        }
    };
    let s = Onnx::new(target).allowzero(allowzero).infer_symbolic(x)?;
    for c in s.conditions() {
        n.need(c.clone())?;
    }
    Ok(vec![Out::new(n.elem(0), s.dims().to_vec())])
}

/// `Flatten(axis)`: the dims before `axis` and from it, each multiplied.
pub(crate) fn flatten(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let a = n.int_or("axis", 1)?;
    let axis = match a == x.len() as i64 {
        true => x.len(),
        false => n.axis(a, x.len())?,
    };
    let out = vec![product(&x[..axis]), product(&x[axis..])];
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `Transpose(perm)`: reversed without `perm`.
pub(crate) fn transpose(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let perm = match n.ints("perm")? {
        Some(p) => p,
        None => (0..x.len() as i64).rev().collect(),
    };
    if perm.len() != x.len() {
        let why = format!("perm {perm:?} for a tensor of rank {}", x.len());
        return Err(n.fail(Rule::RankMismatch, None, why));
    }
    let axes = n.axes(&perm, x.len())?;
    Ok(vec![Out::new(
        n.elem(0),
        axes.iter().map(|&a| x[a].clone()).collect(),
    )])
}

/// The axes of an operator that takes them as an attribute before opset 13 and as input 1
/// from then on (`Squeeze`, `Unsqueeze`; `until` the last opset of the attribute).
fn axes_of(n: &Node<'_>, until: i64) -> S<Option<Vec<i64>>> {
    match n.c.opset.unwrap_or(1) <= until {
        true => n.ints("axes"),
        false => n.opt_numbers(1),
    }
}

/// `Squeeze(axes)`: each axis must be 1; without axes, every dim that is 1.
pub(crate) fn squeeze(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let axes = match axes_of(n, 12)? {
        Some(a) => n.axes(&a, x.len())?,
        None => {
            if x.iter().any(|d| d.known().is_none()) {
                let why = "Squeeze without axes of a symbolic dim (is it 1?)";
                return Err(super::Stop::Unknown(why.into()));
            }
            (0..x.len()).filter(|&i| x[i].known() == Some(1)).collect()
        }
    };
    for &a in &axes {
        n.same(&x[a], &SymDim::from(1), "a squeezed dim")?;
    }
    let out = (0..x.len())
        .filter(|i| !axes.contains(i))
        .map(|i| x[i].clone());
    Ok(vec![Out::new(n.elem(0), out.collect())])
}

/// `Unsqueeze(axes)`: a 1 at each axis of the output.
pub(crate) fn unsqueeze(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let axes = axes_of(n, 12)?.ok_or_else(|| n.c.missing("axes"))?;
    let r = x.len() + axes.len();
    let axes = n.axes(&axes, r)?;
    let mut rest = x.iter();
    let out = (0..r).map(|i| match axes.contains(&i) {
        true => SymDim::from(1),
        false => rest.next().cloned().unwrap_or_default(),
    });
    Ok(vec![Out::new(n.elem(0), out.collect())])
}

/// `Concat(axis)`: the dims along `axis` added, the others equal.
pub(crate) fn concat(n: &Node<'_>) -> S<Vec<Out>> {
    let first = n.shape(0)?;
    let a = n.int("axis")?.ok_or_else(|| n.c.missing("axis"))?;
    let axis = n.axis(a, first.len())?;
    let mut out = first.to_vec();
    for i in 1..n.inputs.len() {
        let s = n.shape(i)?;
        if s.len() != first.len() {
            let why = format!("input {i} has rank {}, input 0 {}", s.len(), first.len());
            return Err(n.fail(Rule::RankMismatch, Some(i), why));
        }
        for (j, d) in s.iter().enumerate() {
            match j == axis {
                true => out[j] = out[j].clone() + d.clone(),
                false => out[j] = n.same(&out[j], d, "the dims off the concatenated axis")?,
            }
        }
    }
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `Split(axis)`: by the sizes of `split` (an attribute before opset 13, an input after), or
/// into `num_outputs` (opset 18: the last part shorter where the dim does not divide), or
/// into as many equal parts as outputs.
pub(crate) fn split(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let axis = n.axis(n.int_or("axis", 0)?, x.len())?;
    let d = &x[axis];
    let sizes = match n.c.opset.unwrap_or(1) <= 12 {
        true => n.ints("split")?,
        false => n.opt_numbers(1)?,
    };
    let parts: Vec<SymDim> = match (sizes, n.int("num_outputs")?) {
        (Some(sizes), _) => {
            let parts: Vec<SymDim> = sizes
                .iter()
                .map(|&s| dim(n, s, "split size"))
                .collect::<S<_>>()?;
            n.same(&product_sum(&parts), d, "the split sizes' sum and the dim")?;
            parts
        }
        (None, Some(m)) if m >= 1 => {
            let chunk = (d.clone() + k(m - 1)).floor_div(&k(m))?;
            let mut parts = vec![chunk.clone(); m as usize - 1];
            parts.push(d.clone() - chunk * k(m - 1));
            parts
        }
        (None, Some(m)) => {
            return Err(n.fail(Rule::BadAttribute, None, format!("num_outputs = {m}")));
        }
        (None, None) => {
            let m = n.outputs.max(1);
            let part = n.exact_div(d, &SymDim::from(m), "an equal split")?;
            vec![part; m]
        }
    };
    Ok(parts
        .into_iter()
        .map(|p| {
            let mut s = x.to_vec();
            s[axis] = p;
            Out::new(n.elem(0), s)
        })
        .collect())
}

fn product_sum(parts: &[SymDim]) -> SymDim {
    parts.iter().fold(SymDim::from(0), |a, d| a + d.clone())
}

/// The length of `x[start:end:step]` on a dim of length `d`, the bounds clamped as ONNX clamps
/// them (negative ones count from the end).
pub(crate) fn slice_len(d: &SymDim, start: &SymDim, end: &SymDim, step: i64) -> S<SymDim> {
    let zero = SymDim::from(0);
    let from_end = |v: &SymDim| v.less(&zero).select(&(v.clone() + d.clone()), v);
    let (s, e) = (from_end(start), from_end(end));
    Ok(match step > 0 {
        true => {
            let s = s.max(&zero).min(d);
            let e = e.max(&zero).min(d);
            (e - s + k(step - 1)).floor_div(&k(step))?.max(&zero)
        }
        false => {
            let last = d.clone() - k(1);
            let s = s.max(&zero).min(&last);
            let e = e.max(&k(-1)).min(&last);
            (s - e + k(-step - 1)).floor_div(&k(-step))?.max(&zero)
        }
    })
}

/// `Slice`: `starts`, `ends`, `axes` attributes before opset 10; inputs `starts`, `ends`,
/// `axes`, `steps` after (bounds may be symbolic, axes and steps are numbers).
pub(crate) fn slice(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let entries = |i: usize| -> S<Vec<SymDim>> { Ok(n.value(i)?.entries().to_vec()) };
    let (starts, ends, axes, steps) = match n.c.opset.unwrap_or(1) < 10 {
        true => {
            let list = |name| -> S<Vec<SymDim>> {
                Ok(n.ints(name)?
                    .ok_or_else(|| n.c.missing(name))?
                    .into_iter()
                    .map(k)
                    .collect())
            };
            (list("starts")?, list("ends")?, n.ints("axes")?, None)
        }
        false => (
            entries(1)?,
            entries(2)?,
            n.opt_numbers(3)?,
            n.opt_numbers(4)?,
        ),
    };
    let m = starts.len();
    let axes = axes.unwrap_or_else(|| (0..m as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; m]);
    if ends.len() != m || axes.len() != m || steps.len() != m {
        let why = format!(
            "starts, ends, axes and steps have {m}, {}, {} and {} entries",
            ends.len(),
            axes.len(),
            steps.len()
        );
        return Err(n.fail(Rule::LengthMismatch, None, why));
    }
    let axes = n.axes(&axes, x.len())?;
    let mut out = x.to_vec();
    for (j, &a) in axes.iter().enumerate() {
        if steps[j] == 0 {
            return Err(n.fail(Rule::ZeroStep, Some(4), "a step of 0".into()));
        }
        out[a] = slice_len(&x[a], &starts[j], &ends[j], steps[j])?;
    }
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `Tile(x, repeats)`: each dim times its repeat.
pub(crate) fn tile(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let r = n.value(1)?;
    if r.len() != x.len() {
        let why = format!("{} repeats for a tensor of rank {}", r.len(), x.len());
        return Err(n.fail(Rule::LengthMismatch, Some(1), why));
    }
    let out = x
        .iter()
        .zip(r.entries())
        .map(|(d, r)| d.clone() * r.clone());
    Ok(vec![Out::new(n.elem(0), out.collect())])
}

/// `Pad`: each dim plus its begin and end pads (an attribute before opset 11, an input after,
/// on `axes` from opset 18); the mode does not change the shape.
pub(crate) fn pad(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let pads: Vec<SymDim> = match n.c.opset.unwrap_or(1) < 11 {
        true => {
            let p = n.ints("pads")?.ok_or_else(|| n.c.missing("pads"))?;
            p.into_iter().map(k).collect()
        }
        false => n.value(1)?.entries().to_vec(),
    };
    let axes = match n.opt_numbers(3)? {
        Some(a) => n.axes(&a, x.len())?,
        None => (0..x.len()).collect(),
    };
    if pads.len() != 2 * axes.len() {
        let why = format!("{} pads for {} axes", pads.len(), axes.len());
        return Err(n.fail(Rule::LengthMismatch, Some(1), why));
    }
    let mut out = x.to_vec();
    for (j, &a) in axes.iter().enumerate() {
        out[a] = out[a].clone() + pads[j].clone() + pads[j + axes.len()].clone();
        n.need(Condition::at_most(k(0), out[a].clone()))?;
    }
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `DepthToSpace` (`up`) and `SpaceToDepth`: channels divided (or multiplied) by the
/// block's square, height and width multiplied (or divided) by it.
fn blocks(n: &Node<'_>, up: bool) -> S<Vec<Out>> {
    let x = n.shape_of_rank(0, 4, "NCHW")?;
    let b = dim(
        n,
        n.int("blocksize")?
            .ok_or_else(|| n.c.missing("blocksize"))?,
        "blocksize",
    )?;
    let bb = b.clone() * b.clone();
    let out = match up {
        true => vec![
            x[0].clone(),
            n.exact_div(&x[1], &bb, "channels over the block's square")?,
            x[2].clone() * b.clone(),
            x[3].clone() * b,
        ],
        false => vec![
            x[0].clone(),
            x[1].clone() * bb,
            n.exact_div(&x[2], &b, "height over the block")?,
            n.exact_div(&x[3], &b, "width over the block")?,
        ],
    };
    Ok(vec![Out::new(n.elem(0), out)])
}

pub(crate) fn depth_to_space(n: &Node<'_>) -> S<Vec<Out>> {
    blocks(n, true)
}

pub(crate) fn space_to_depth(n: &Node<'_>) -> S<Vec<Out>> {
    blocks(n, false)
}

/// `x * scale` as onnxruntime computes an output length (`static_cast<int64_t>(scale * x)` in
/// `f32`): for a known `x`, that; for a symbolic one, the exact `floor(x * m / 2^q)` of the
/// scale's value `m / 2^q`, under the conditions that make the `f32` product round to the
/// same integer: `x` exact in `f32` (at most `2^24`), and, for an odd `m` past 1, the product
/// an integer or farther below the next one than its rounding error
/// (`r == 0 || x*m < 2^24*(2^q - r)`, `r = x*m % 2^q`).
fn scaled(n: &Node<'_>, x: &SymDim, scale: f64) -> S<SymDim> {
    let s = scale as f32;
    if !(s.is_finite() && s >= 0.0) {
        let why = format!("the scale {scale} is not a non-negative number");
        return Err(n.fail(Rule::BadValue, None, why));
    }
    if let Some(v) = x.constant() {
        return dim(n, (v as f32 * s) as i64, "scaled length");
    }
    if s == 1.0 {
        return Ok(x.clone());
    }
    if s == 0.0 {
        return Ok(SymDim::from(0));
    }
    // s = m * 2^e exactly, m odd.
    let bits = s.to_bits();
    let (exp, frac) = (((bits >> 23) & 0xff) as i64, i64::from(bits & 0x7f_ffff));
    let (mut m, mut e) = match exp {
        0 => (frac, -149),
        _ => (frac | 0x80_0000, exp - 150),
    };
    let tz = m.trailing_zeros() as i64;
    m >>= tz;
    e += tz;
    if !(-62..=38).contains(&e) {
        let why = format!("a scale of {scale} on a symbolic length");
        return Err(super::Stop::Unknown(why));
    }
    n.need(Condition::at_most(x.clone(), k(1 << 24)))?;
    let xm = x.clone() * k(m);
    if e >= 0 {
        return Ok(xm * k(1 << e));
    }
    let big = k(1i64 << -e);
    if m > 1 {
        let r = xm.floor_mod(&big)?;
        let safe = r
            .equal(&SymDim::from(0))
            .max(&xm.less(&(k(1 << 24) * (big.clone() - r))));
        n.need(Condition::nonzero(safe))?;
    }
    Ok(xm.floor_div(&big)?)
}

/// `Resize(X, roi, scales, sizes)` (opset 10: `Resize(X, scales)`) and `Upsample`: `sizes`
/// where given (with `axes` and `keep_aspect_ratio_policy` from opset 18), else each dim
/// times its scale, floored.
pub(crate) fn resize(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let opset = n.c.opset.unwrap_or(1);
    let (scales_at, sizes_at) = match (n.c.op, opset) {
        ("Upsample", _) | ("Resize", 10) => (1, None),
        _ => (2, Some(3)),
    };
    let axes = match n.ints("axes")? {
        Some(a) => n.axes(&a, x.len())?,
        None => (0..x.len()).collect(),
    };
    let given = |i: usize| {
        n.opt(i).is_some_and(|f| {
            f.shape()
                .is_some_and(|s| s.iter().all(|d| d.known() != Some(0)))
        })
    };
    let mut out = x.to_vec();
    if let Some(at) = sizes_at.filter(|&i| given(i)) {
        let sizes = n.value(at)?.entries().to_vec();
        if sizes.len() != axes.len() {
            let why = format!("{} sizes for {} axes", sizes.len(), axes.len());
            return Err(n.fail(Rule::LengthMismatch, Some(at), why));
        }
        match n.string("keep_aspect_ratio_policy")?.unwrap_or("stretch") {
            "stretch" => {
                for (j, &a) in axes.iter().enumerate() {
                    out[a] = sizes[j].clone();
                }
            }
            policy @ ("not_larger" | "not_smaller") => {
                // One scale for every axis, the smallest (or largest) of the ratios, in f32 as
                // onnxruntime computes it; each length rounded half away from zero.
                let known: Option<Vec<(f32, f32)>> = axes
                    .iter()
                    .zip(&sizes)
                    .map(|(&a, s)| Some((s.constant()? as f32, x[a].constant()? as f32)))
                    .collect();
                let Some(known) = known.filter(|k| k.iter().all(|&(_, d)| d > 0.0)) else {
                    let why = format!("keep_aspect_ratio_policy {policy} on symbolic lengths rounds a float ratio");
                    for &a in &axes {
                        out[a] = n.fresh(0, a, &why);
                    }
                    return Ok(vec![Out::new(n.elem(0), out)]);
                };
                let ratios = known.iter().map(|&(s, d)| s / d);
                let scale = match policy {
                    "not_larger" => ratios.fold(f32::INFINITY, f32::min),
                    _ => ratios.fold(0.0, f32::max),
                };
                for (&a, &(_, d)) in axes.iter().zip(&known) {
                    out[a] = dim(n, (scale * d).round() as i64, "resized length")?;
                }
            }
            other => {
                let why = format!(
                    "keep_aspect_ratio_policy {other} is not stretch, not_larger or not_smaller"
                );
                return Err(n.fail(Rule::BadAttribute, None, why));
            }
        }
        return Ok(vec![Out::new(n.elem(0), out)]);
    }
    let scales: Vec<f64> = match n.c.op == "Upsample" && opset < 9 {
        true => n
            .floats_attr("scales")?
            .ok_or_else(|| n.c.missing("scales"))?,
        false => match n.floats(scales_at) {
            Ok(s) => s.to_vec(),
            Err(_) => {
                let why = "the scales are computed from data, or their floats not given";
                for &a in &axes {
                    out[a] = n.fresh(0, a, why);
                }
                return Ok(vec![Out::new(n.elem(0), out)]);
            }
        },
    };
    if scales.len() != axes.len() {
        let why = format!("{} scales for {} axes", scales.len(), axes.len());
        return Err(n.fail(Rule::LengthMismatch, Some(scales_at), why));
    }
    for (j, &a) in axes.iter().enumerate() {
        out[a] = scaled(n, &x[a], scales[j])?;
    }
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `Shape(start, end)`: `[end - start]` of the rank, clamped; the value rule gives the value.
pub(crate) fn shape(n: &Node<'_>) -> S<Vec<Out>> {
    let r = n.rank(0)? as i64;
    let clamp = |v: i64| if v < 0 { (v + r).max(0) } else { v.min(r) };
    let (s, e) = (clamp(n.int_or("start", 0)?), clamp(n.int_or("end", r)?));
    Ok(vec![Out::new(
        Some(ElemType::INT64),
        vec![k((e - s).max(0))],
    )])
}

/// `Size`: an `int64` scalar.
pub(crate) fn size(_: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(Some(ElemType::INT64), Vec::new())])
}

/// `ConstantOfShape(shape)`: the shape's entries, the type of `value` (float32 without).
pub(crate) fn constant_of_shape(n: &Node<'_>) -> S<Vec<Out>> {
    let dims = n.sizes(0, "the shape is computed from data")?;
    let elem = n.tensor("value").map_or(ElemType::FLOAT, |t| t.elem);
    for d in &dims {
        n.need(Condition::at_most(k(0), d.clone()))?;
    }
    Ok(vec![Out::new(Some(elem), dims)])
}

/// `Range(start, limit, delta)`: `max(ceil((limit - start) / delta), 0)` elements: exact
/// where the bounds are integers (integer tensors, integral float constants, or a shape value
/// cast to float), else from float constants as onnxruntime computes it.
pub(crate) fn range(n: &Node<'_>) -> S<Vec<Out>> {
    let elem = n.elem(0);
    let delta = n.integer(2).and_then(|d| d.constant());
    let len = match (n.integer(0), n.integer(1), delta) {
        (Some(s), Some(l), Some(d)) => {
            if d == 0 {
                return Err(n.fail(Rule::ZeroStep, Some(2), "a delta of 0".into()));
            }
            // In floats, integers are exact up to the significand's width.
            let exact = match n.elem(0).map(ElemType::code) {
                Some(1) => Some(1i64 << 24),
                Some(10) => Some(1 << 11),
                Some(16) => Some(1 << 8),
                Some(11) => Some(1 << 53),
                _ => None,
            };
            if let Some(e) = exact {
                for b in [&s, &l] {
                    if b.constant().is_none() {
                        n.need(Condition::at_most(b.clone(), k(e)))?;
                    }
                }
            }
            let span = match d > 0 {
                true => l.clone() - s.clone() + k(d - 1),
                false => s.clone() - l.clone() + k(-d - 1),
            };
            span.floor_div(&k(d.abs()))?.max(&SymDim::from(0))
        }
        _ => {
            let f = |i: usize| n.floats(i).ok().and_then(|v| v.first().copied());
            match (f(0), f(1), f(2)) {
                (Some(s), Some(l), Some(d)) if d != 0.0 => {
                    let c = ((l - s) / d).ceil().max(0.0);
                    dim(n, c as i64, "range length")?
                }
                _ => n.fresh(
                    0,
                    0,
                    "Range of bounds computed from data, or floats not given",
                ),
            }
        }
    };
    Ok(vec![Out::new(elem, vec![len])])
}

/// `OneHot(indices, depth, values)`: `depth` inserted at `axis`.
pub(crate) fn one_hot(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let depth = match n.value(1) {
        Ok(v) if v.len() == 1 => v.entries()[0].clone(),
        Ok(v) => return Err(n.fail(Rule::BadValue, Some(1), format!("depth {v}"))),
        Err(_) => {
            let f = n.floats(1)?;
            dim(n, f.first().copied().unwrap_or(0.0) as i64, "depth")?
        }
    };
    let r = x.len() + 1;
    let axis = n.axis(n.int_or("axis", -1)?, r)?;
    let mut out = x.to_vec();
    out.insert(axis, depth);
    Ok(vec![Out::new(n.elem(2), out)])
}

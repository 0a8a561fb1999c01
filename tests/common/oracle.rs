//! The slow, obviously correct reference for a reshape of an array, and the agreement of
//! symbolic inference with the concrete one, shared by the no-panic sweep (`tests/properties/sweep.rs`),
//! the symbolic property test (`tests/shapes/symbolic.rs`) and the fuzz targets
//! (`fuzz/fuzz_targets/common.rs`).

use ndarray::ArrayViewD;
use ndarray_reshape::{
    layout::resolve_order, Explanation, GroupKind, Order, ReshapeError, ReshapeExt, ShapeSpec,
    SymDim,
};

/// The input's elements in the reading order (`order` resolved for the input's layout).
pub fn in_reading_order(x: &ArrayViewD<'_, i64>, order: Order) -> Vec<i64> {
    match order {
        Order::F => x.t().iter().copied().collect(),
        _ => x.iter().copied().collect(),
    }
}

/// Checks `x.reshape_with(spec)` against the reference: `Ok(true)` for a success that passed,
/// `Ok(false)` for an error that `infer_shape` gives too, `Err` naming any disagreement:
///
/// - the array method and `infer_shape` on the shape alone agree, error for error, and an
///   error's message starts with its category;
/// - a success has the inferred shape and the input's element count;
/// - its values are the input's read in the reading order, written in that order;
/// - it is a view exactly when the strict `reshape_view` succeeds (which otherwise says
///   `NeedsCopy`), and a view of a non-empty input starts at the input's data;
/// - `reshape_owned` holds the same values;
/// - the consuming `into_reshape_clone` of the view gives the same array, a view exactly when
///   `reshape_with` gives one, and of an owned copy the same values;
/// - `reshape_in_place` of the view succeeds exactly when the strict view does, giving the same
///   view, and otherwise fails with the same error leaving the view as it was;
/// - `to_layout` in the reading order is the same array, contiguous in that order.
pub fn check<P>(x: &ArrayViewD<'_, i64>, spec: P) -> Result<bool, String>
where
    P: ShapeSpec<Rank = ndarray::IxDyn> + Clone,
{
    in_place_agrees(x, &spec)?;
    let inferred = spec.infer_shape(x.shape());
    let got = x.reshape_with(spec.clone());
    if let Ok(y) = &got {
        explain_agrees(x, &spec, y.is_view())?;
    } else if spec.explain(x.shape()).err() != inferred.clone().err() {
        return Err("explain fails otherwise than infer_shape".into());
    }
    match (&got, &inferred) {
        (Ok(y), Ok(s)) => {
            if y.shape() != s.as_slice() {
                return Err(format!("array {:?} vs infer {s:?}", y.shape()));
            }
            if y.len() != x.len() {
                return Err("element count changed".into());
            }
            let order = resolve_order(x.shape(), x.strides(), spec.order());
            let have: Vec<i64> = match order {
                Order::F => y.t().iter().copied().collect(),
                _ => y.iter().copied().collect(),
            };
            if in_reading_order(x, order) != have {
                return Err("values differ from the reference".into());
            }
            let strict = x.reshape_view(spec.clone());
            if y.is_view() != strict.is_ok() {
                return Err("reshape_view disagrees on view or copy".into());
            }
            if let Err(e) = strict {
                if !matches!(e, ReshapeError::NeedsCopy(_)) {
                    return Err(format!("reshape_view failed with {e}, not needs_copy"));
                }
            }
            if y.is_view() && !x.is_empty() && y.as_ptr() != x.as_ptr() {
                return Err("a view that does not start at the input's data".into());
            }
            let owned = x
                .reshape_owned(spec.clone())
                .map_err(|e| format!("reshape_owned: {e}"))?;
            if !owned.iter().eq(y.iter()) {
                return Err("reshape_owned differs from reshape_with".into());
            }
            let consumed = x
                .clone()
                .into_reshape_clone(spec.clone())
                .map_err(|e| format!("into_reshape_clone: {e}"))?;
            if consumed.shape() != y.shape()
                || consumed.is_view() != y.is_view()
                || !consumed.iter().eq(y.iter())
                || (y.is_view() && consumed.as_ptr() != y.as_ptr())
            {
                return Err("into_reshape_clone of the view differs from reshape_with".into());
            }
            let order =
                ndarray_reshape::layout::resolve_order(x.shape(), x.strides(), spec.order());
            let laid = x.to_layout(order).map_err(|e| format!("to_layout: {e}"))?;
            let contiguous = match order {
                Order::F => laid.t().is_standard_layout(),
                _ => laid.is_standard_layout(),
            };
            if laid != *x || !contiguous {
                return Err(format!("to_layout({order:?}) is not the input, contiguous"));
            }
            let from_owned = x
                .to_owned()
                .into_reshape_clone(spec)
                .map_err(|e| format!("into_reshape_clone of an owned copy: {e}"))?;
            if from_owned.shape() != y.shape() || !from_owned.iter().eq(y.iter()) {
                return Err("into_reshape_clone of an owned copy differs".into());
            }
            Ok(true)
        }
        (Err(a), Err(b)) if a == b => {
            if !a.to_string().starts_with(a.category()) {
                return Err(format!("message does not start with its category: {a}"));
            }
            Ok(false)
        }
        _ => Err(format!("array {got:?} vs infer {inferred:?}")),
    }
}

/// `spec.explain` of the input `x`, whose reshape is a view exactly when `view`: the groups tile
/// both shapes in order with equal products, each of the smallest size and of the kind its
/// axes say; the group that forces a copy exists exactly when the reshape copies; and the
/// identity permutation passes through.
fn explain_agrees<P: ShapeSpec>(
    x: &ArrayViewD<'_, i64>,
    spec: &P,
    view: bool,
) -> Result<(), String> {
    let e = spec
        .explain(x.shape())
        .map_err(|e| format!("explain: {e}"))?;
    groups_hold(&e)?;
    if e.copy_group(x.strides()).is_none() != view {
        return Err(format!(
            "copy_group {:?} for a view {view}",
            e.copy_group(x.strides())
        ));
    }
    let identity: Vec<usize> = (0..x.ndim()).collect();
    let out_identity: Vec<usize> = (0..e.output().len()).collect();
    if e.transpose_through(&identity) != Some((e.output().to_vec(), out_identity)) {
        return Err("the identity does not pass through unchanged".into());
    }
    Ok(())
}

/// The invariants of an explanation's groups (see [`Explanation`]).
pub fn groups_hold(e: &Explanation) -> Result<(), String> {
    let (input, output) = (e.input(), e.output());
    let product = |d: &[usize]| d.iter().product::<usize>();
    let empty = input.contains(&0) || output.contains(&0);
    if empty {
        let whole = e.groups().len() == 1
            && e.groups()[0].input == (0..input.len())
            && e.groups()[0].output == (0..output.len());
        return whole
            .then_some(())
            .ok_or_else(|| "zero elements: not one group".into());
    }
    let (mut i, mut o) = (0, 0);
    for g in e.groups() {
        if g.input.start != i || g.output.start != o {
            return Err(format!("{g:?} does not follow axes {i}, {o}"));
        }
        let (a, b) = (&input[g.input.clone()], &output[g.output.clone()]);
        let total = product(a);
        if total != product(b) {
            return Err(format!("{g:?}: products differ"));
        }
        let big = |d: &[usize]| d.iter().filter(|&&v| v > 1).count();
        let kind = match (a.len(), b.len(), big(a), big(b)) {
            (0, 1, _, _) if b == [1] => GroupKind::Insert,
            (1, 0, _, _) if a == [1] => GroupKind::Remove,
            (1, 1, _, _) if a == b => GroupKind::Keep,
            (_, _, m, 1) if m > 1 => GroupKind::Merge,
            (_, _, 1, n) if n > 1 => GroupKind::Split,
            (_, _, m, n) if m > 1 && n > 1 => GroupKind::Regroup,
            _ => return Err(format!("{g:?}: no kind fits {a:?} -> {b:?}")),
        };
        if kind != g.kind {
            return Err(format!("{g:?}: the axes make it a {kind:?}"));
        }
        // Smallest: no proper prefixes of both sides multiply to the same product.
        for p in 1..a.len() {
            for q in 1..b.len() {
                let (l, r) = (product(&a[..p]), product(&b[..q]));
                if l == r && l > 1 && l < total {
                    return Err(format!("{g:?} splits after input {p} and output {q}"));
                }
            }
        }
        // A size-1 axis is never first or last in a merge, split or regroup.
        if a.len() + b.len() > 2 && [a.first(), a.last(), b.first(), b.last()].contains(&Some(&1)) {
            return Err(format!("{g:?} has a size-1 axis at its edge"));
        }
        (i, o) = (g.input.end, g.output.end);
    }
    if (i, o) != (input.len(), output.len()) {
        return Err("the groups do not cover both shapes".into());
    }
    Ok(())
}

/// `reshape_in_place` of a copy of the view `x` against the strict `reshape_view`: the same
/// view on success, the same error and an untouched view on failure.
fn in_place_agrees<P>(x: &ArrayViewD<'_, i64>, spec: &P) -> Result<(), String>
where
    P: ShapeSpec<Rank = ndarray::IxDyn>,
{
    let mut v = x.clone();
    let strict = x.reshape_view(spec);
    match (v.reshape_in_place(spec), strict) {
        (Ok(()), Ok(s)) => {
            if v.shape() != s.shape() || v.strides() != s.strides() || v.as_ptr() != s.as_ptr() {
                return Err("reshape_in_place differs from reshape_view".into());
            }
        }
        (Err(a), Err(b)) if a == b => {
            if v.shape() != x.shape() || v.strides() != x.strides() || v.as_ptr() != x.as_ptr() {
                return Err("a failed reshape_in_place changed the view".into());
            }
        }
        (a, b) => {
            return Err(format!(
                "reshape_in_place {a:?} vs reshape_view {:?}",
                b.map(|v| v.shape().to_vec())
            ))
        }
    }
    Ok(())
}

/// `input` with the dims of `mask` (bit `i` for dim `i`; those at least 1) as symbols, named
/// after their value when `shared` (equal values share one symbol), after their position
/// otherwise; and the binding that gives the values back.
pub fn symbolize(input: &[usize], mask: u64, shared: bool) -> (Vec<SymDim>, Vec<(String, usize)>) {
    let mut names: Vec<(String, usize)> = Vec::new();
    let dims = input
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            if i >= 64 || mask & (1 << i) == 0 || d == 0 {
                return SymDim::from(d);
            }
            let name = if shared {
                format!("V{d}")
            } else {
                format!("P{i}")
            };
            if !names.iter().any(|(n, _)| *n == name) {
                names.push((name.clone(), d));
            }
            SymDim::sym(&name)
        })
        .collect();
    (dims, names)
}

/// `spec` on `input` with the symbols of [`symbolize`]: `Ok(true)` when checked (always: a dim
/// holds any number of symbols), `Err` naming any disagreement:
///
/// - completeness: where the concrete `infer_shape` succeeds, `infer_symbolic` succeeds and
///   evaluates under the binding to the same shape (its conditions hold);
/// - soundness: where the concrete call fails, the symbolic call fails or its evaluation does;
/// - lowering: where `to_onnx_symbolic` succeeds, its ONNX spec on the concrete input gives the
///   concrete result.
pub fn check_symbolic<P: ShapeSpec + ?Sized>(
    spec: &P,
    input: &[usize],
    mask: u64,
    shared: bool,
) -> Result<bool, String> {
    let (dims, names) = symbolize(input, mask, shared);
    let symbolic = spec.infer_symbolic(&dims);
    let lowered = spec.to_onnx_symbolic(&dims);
    let bind: Vec<(&str, usize)> = names.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let concrete = spec.infer_shape(input);
    let evaluated = symbolic.as_ref().ok().map(|r| r.eval(&bind));
    match (&concrete, &symbolic, evaluated) {
        (Ok(want), Ok(_), Some(Some(got))) if &got == want => {}
        (Ok(want), Ok(r), got) => {
            return Err(format!(
                "input {dims:?}: symbolic {r} evaluates to {got:?} under {bind:?}, the concrete \
                 shape is {want:?}"
            ))
        }
        (Ok(want), Err(e), _) => {
            return Err(format!(
                "input {dims:?}: the concrete shape is {want:?}, the symbolic call fails: {e}"
            ))
        }
        (Err(_), Err(_), _) | (Err(_), Ok(_), Some(None)) => {}
        (Err(e), Ok(r), got) => {
            return Err(format!(
                "input {dims:?}: the concrete call fails ({e}), the symbolic one gives {r} = \
                 {got:?} under {bind:?}"
            ))
        }
    }
    if let (Ok(want), Ok(onnx)) = (&concrete, &lowered) {
        match onnx.infer_shape(input) {
            Ok(got) if &got == want => {}
            other => {
                return Err(format!(
                    "input {dims:?}: lowered to {onnx:?}, which gives {other:?}, not {want:?}"
                ))
            }
        }
    }
    Ok(true)
}

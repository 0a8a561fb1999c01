//! Element-wise operators (NumPy broadcasting) and the normalizations, whose outputs are
//! shaped as their input.

use super::{Node, Out, S};
use crate::error::Rule;
use crate::graph::ElemType;
use crate::sym::SymDim;

/// Every input broadcast; the type of input 0 (arithmetic, `Pow`, `PRelu`, `Mean`).
pub(crate) fn broadcast(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(n.elem(0), n.broadcast_inputs()?)])
}

/// Every input broadcast; `bool` (comparisons, logic).
pub(crate) fn compare(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(Some(ElemType::BOOL), n.broadcast_inputs()?)])
}

/// `Where(c, x, y)`: the three broadcast, the type of `x`.
pub(crate) fn select(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(n.elem(1), n.broadcast_inputs()?)])
}

/// Shaped as input 0, of type `bool` (`IsNaN`, `IsInf`).
pub(crate) fn test(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(Some(ElemType::BOOL), n.shape(0)?.to_vec())])
}

/// `Cast` to `to` (a code or a name).
pub(crate) fn cast(n: &Node<'_>) -> S<Vec<Out>> {
    let to = match (n.int("to"), n.string("to")) {
        (Ok(Some(code)), _) => i32::try_from(code).ok().map(ElemType::from_code),
        (_, Ok(Some(name))) => ElemType::from_name(name),
        _ => return Err(n.c.missing("to").into()),
    };
    let to = to.ok_or_else(|| n.fail(Rule::BadAttribute, None, "to is not a type".into()))?;
    Ok(vec![Out::new(Some(to), n.shape(0)?.to_vec())])
}

/// `CastLike(x, like)`: shaped as `x`, of `like`'s type.
pub(crate) fn cast_like(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(n.elem(1), n.shape(0)?.to_vec())])
}

/// `Dropout`: the output as the input, the mask of `bool`.
pub(crate) fn dropout(n: &Node<'_>) -> S<Vec<Out>> {
    let s = n.shape(0)?.to_vec();
    Ok(vec![
        Out::new(n.elem(0), s.clone()),
        Out::new(Some(ElemType::BOOL), s),
    ])
}

/// `BatchNormalization`: `Y` as `X`; in training, the running mean and variance `[C]`.
pub(crate) fn batch_norm(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let c = x.get(1).cloned().unwrap_or_else(|| SymDim::from(1));
    let stat = Out::new(n.elem(1), vec![c]);
    Ok(vec![
        Out::new(n.elem(0), x.to_vec()),
        stat.clone(),
        stat.clone(),
        stat.clone(),
        stat,
    ])
}

/// `LayerNormalization` (and `RMSNormalization`, `SkipLayerNormalization`'s statistics):
/// `Y` as `X`; `Mean` and `InvStdDev` keep the dims before `axis`, 1 for the rest, in
/// `stash_type` (float32 unless it says otherwise).
pub(crate) fn layer_norm(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let axis = n.axis(n.int_or("axis", -1)?, x.len())?;
    let stat: Vec<SymDim> = (0..x.len())
        .map(|i| match i < axis {
            true => x[i].clone(),
            false => SymDim::from(1),
        })
        .collect();
    let stash = match n.int_or("stash_type", 1)? {
        1 => Some(ElemType::FLOAT),
        t => i32::try_from(t).ok().map(ElemType::from_code),
    };
    Ok(vec![
        Out::new(n.elem(0), x.to_vec()),
        Out::new(stash, stat.clone()),
        Out::new(stash, stat),
    ])
}

/// A value fact's broadcast against a shape, for `Expand`: `shape`'s entries broadcast with
/// the input's dims.
pub(crate) fn expand(n: &Node<'_>) -> S<Vec<Out>> {
    if let Ok(target) = n.value(1) {
        if target.rank() != 1 {
            return Err(n.fail(
                Rule::ValueRank,
                Some(1),
                format!("the shape {target} is not 1-D"),
            ));
        }
    }
    let target = n.sizes(1, "the shape is computed from data")?;
    let shape = n.broadcast(n.shape(0)?, &target, 1)?;
    Ok(vec![Out::new(n.elem(0), shape)])
}

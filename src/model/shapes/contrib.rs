//! Attention and the contributed operators (`com.microsoft`) that onnxruntime's exporters,
//! fusions and quantizer put in real graphs, at the versions onnxruntime documents.

use super::linear::product;
use super::{dim, like_input, Node, Out, S};
use crate::error::Rule;
use crate::graph::ElemType;
use crate::sym::SymDim;

/// `FusedMatMul(A, B)`: `MatMul` with the last two dims of `A` (`transA`) or `B` (`transB`)
/// swapped first.
pub(crate) fn fused_matmul(n: &Node<'_>) -> S<Vec<Out>> {
    if n.int_or("transBatchA", 0)? != 0 || n.int_or("transBatchB", 0)? != 0 {
        let why = "FusedMatMul with transBatchA or transBatchB";
        return Err(super::Stop::Unknown(why.into()));
    }
    let swap = |i: usize, on: bool| -> S<Vec<SymDim>> {
        let mut s = n.shape(i)?.to_vec();
        let r = s.len();
        if on && r >= 2 {
            s.swap(r - 1, r - 2);
        }
        Ok(s)
    };
    let a = swap(0, n.int_or("transA", 0)? != 0)?;
    let b = swap(1, n.int_or("transB", 0)? != 0)?;
    Ok(vec![Out::new(n.elem(0), product(n, &a, &b, 1)?)])
}

/// `DynamicQuantizeMatMul(A, B, ...)`: `A @ B` in float32.
pub(crate) fn dynamic_quantize_matmul(n: &Node<'_>) -> S<Vec<Out>> {
    let out = product(n, n.shape(0)?, n.shape(1)?, 1)?;
    Ok(vec![Out::new(Some(ElemType::FLOAT), out)])
}

/// `MatMulNBits(A, B, ...)`: `A`'s last dim (`K`) becomes `N`.
pub(crate) fn matmul_nbits(n: &Node<'_>) -> S<Vec<Out>> {
    let a = n.shape(0)?;
    let cols = dim(n, n.int("N")?.ok_or_else(|| n.c.missing("N"))?, "N")?;
    if let (Some(last), Some(kk)) = (a.last(), n.int("K")?) {
        n.same(last, &dim(n, kk, "K")?, "A's last dim and K")?;
    }
    let mut out = a.to_vec();
    match out.last_mut() {
        Some(l) => *l = cols,
        None => return Err(n.fail(Rule::ValueRank, Some(0), "A is 0-D".into())),
    }
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `Gelu`, `FastGelu`, `BiasGelu`, `QuickGelu`: the input broadcast with the bias where one
/// is given.
pub(crate) fn gelu(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(n.elem(0), n.broadcast_inputs()?)])
}

/// `SkipLayerNormalization(input, skip, gamma, beta, bias)`: the output and the sum of input,
/// skip and bias shaped as the input; the mean and inverse deviation with the last dim 1.
pub(crate) fn skip_layer_norm(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?.to_vec();
    let mut stat = x.clone();
    if let Some(l) = stat.last_mut() {
        *l = SymDim::from(1);
    }
    let float = Some(ElemType::FLOAT);
    Ok(vec![
        Out::new(n.elem(0), x.clone()),
        Out::new(float, stat.clone()),
        Out::new(float, stat),
        Out::new(n.elem(0), x),
    ])
}

/// `EmbedLayerNormalization(input_ids, segment_ids, word_embedding, ...)`: `[B, S, H]`, the
/// `int32` mask index `[B]`, and the embedding sum `[B, S, H]`.
pub(crate) fn embed_layer_norm(n: &Node<'_>) -> S<Vec<Out>> {
    let ids = n.shape(0)?;
    let w = n.shape(2)?;
    let (Some(b), Some(h)) = (ids.first(), w.last()) else {
        return Err(n.fail(
            Rule::ValueRank,
            Some(0),
            "ids or embedding of rank 0".into(),
        ));
    };
    let out: Vec<SymDim> = ids.iter().cloned().chain([h.clone()]).collect();
    Ok(vec![
        Out::new(n.elem(2), out.clone()),
        Out::new(Some(ElemType::INT32), vec![b.clone()]),
        Out::new(n.elem(2), out),
    ])
}

/// `com.microsoft` `Attention(input, weights, bias, mask, past)`: `[B, S, v_hidden]`
/// (`qkv_hidden_sizes`' last, else a third of the weights' columns), and `present` with the
/// past's length added.
pub(crate) fn ms_attention(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape_of_rank(0, 3, "[B, S, hidden]")?;
    let v = match n.ints("qkv_hidden_sizes")? {
        Some(s) if s.len() == 3 => dim(n, s[2], "qkv_hidden_sizes")?,
        _ => {
            let w = n.shape(1)?;
            let cols = w.last().cloned().unwrap_or_default();
            n.exact_div(&cols, &SymDim::from(3), "the weights' columns in three")?
        }
    };
    let mut outs = vec![Out::new(n.elem(0), vec![x[0].clone(), x[1].clone(), v])];
    if let Some(past) = n.opt(4).and_then(|f| f.shape()) {
        if past.len() == 5 {
            let mut p = past.to_vec();
            p[3] = p[3].clone() + x[1].clone();
            outs.push(Out::new(n.elem(0), p));
        }
    }
    Ok(outs)
}

/// `MultiHeadAttention(query, key, value, ...)`: `[B, S, Dv]`, `Dv` the value's last dim (a
/// 3-D value) or heads times head size (a 4-D one), `query`'s own with packed inputs.
pub(crate) fn multi_head_attention(n: &Node<'_>) -> S<Vec<Out>> {
    let q = n.shape(0)?;
    let dv = match (n.opt(2).and_then(|f| f.shape()), q.len()) {
        (Some(v), _) if v.len() == 3 => v[2].clone(),
        (Some(v), _) if v.len() == 4 => v[1].clone() * v[3].clone(),
        (None, 3) => q[2].clone(),
        (None, 5) => q[2].clone() * q[4].clone(),
        _ => {
            return Err(super::Stop::Unknown(
                "MultiHeadAttention of this packing".into(),
            ))
        }
    };
    Ok(vec![Out::new(
        n.elem(0),
        vec![q[0].clone(), q[1].clone(), dv],
    )])
}

/// `GroupQueryAttention(query, key, value, past_key, past_value, seqlens_k, ...)`: the output
/// `[B, S, num_heads * head_size]`; the present caches' length follows `seqlens_k`, data.
pub(crate) fn group_query_attention(n: &Node<'_>) -> S<Vec<Out>> {
    let q = n.shape_of_rank(0, 3, "[B, S, hidden]")?;
    let heads = dim(n, n.int_or("num_heads", 0)?, "num_heads")?;
    let kv = dim(n, n.int_or("kv_num_heads", 0)?, "kv_num_heads")?;
    let hidden = match n.opt(1) {
        Some(_) => q[2].clone(),
        None => {
            let all = heads.clone() + SymDim::from(2) * kv.clone();
            let head = n.exact_div(&q[2], &all, "packed query, key and value")?;
            heads * head
        }
    };
    let mut outs = vec![Out::new(
        n.elem(0),
        vec![q[0].clone(), q[1].clone(), hidden],
    )];
    for o in 1..n.outputs.min(3) {
        let why = "the present cache's length follows seqlens_k, data";
        let dims = (0..4).map(|a| n.fresh(o, a, why)).collect();
        outs.push(Out::new(n.elem(0), dims));
    }
    Ok(outs)
}

/// ONNX `Attention` (opset 23): `Y` `[B, q_heads, S, v_head]` for 4-D inputs,
/// `[B, S, q_heads * v_head]` for 3-D ones; the present key and value with the past's length
/// added; the attention scores `[B, q_heads, S, total]`.
pub(crate) fn attention(n: &Node<'_>) -> S<Vec<Out>> {
    let (q, kk, v) = (n.shape(0)?, n.shape(1)?, n.shape(2)?);
    let heads =
        |name: &str| -> S<Option<SymDim>> { n.int(name)?.map(|h| dim(n, h, name)).transpose() };
    // As 4-D: [B, heads, seq, head].
    let four = |s: &[SymDim], h: Option<SymDim>, what| -> S<Vec<SymDim>> {
        match (s.len(), h) {
            (4, _) => Ok(s.to_vec()),
            (3, Some(h)) => Ok(vec![
                s[0].clone(),
                h.clone(),
                s[1].clone(),
                n.exact_div(&s[2], &h, what)?,
            ]),
            _ => Err(n.fail(
                Rule::ValueRank,
                None,
                format!("{what} is not 4-D, nor 3-D with its heads"),
            )),
        }
    };
    let q4 = four(
        q,
        heads("q_num_heads")?,
        "the query's hidden dim over q_num_heads",
    )?;
    let kvh = heads("kv_num_heads")?;
    let k4 = four(kk, kvh.clone(), "the key's hidden dim over kv_num_heads")?;
    let v4 = four(v, kvh, "the value's hidden dim over kv_num_heads")?;
    let past = |i: usize| {
        n.opt(i)
            .and_then(|f| f.shape())
            .and_then(|s| s.get(2).cloned())
    };
    let total = match past(4) {
        Some(p) => p + k4[2].clone(),
        None => k4[2].clone(),
    };
    let y = match q.len() {
        4 => vec![q4[0].clone(), q4[1].clone(), q4[2].clone(), v4[3].clone()],
        _ => vec![q4[0].clone(), q4[2].clone(), q4[1].clone() * v4[3].clone()],
    };
    let e = n.elem(0);
    let present = |s: &[SymDim]| vec![s[0].clone(), s[1].clone(), total.clone(), s[3].clone()];
    Ok(vec![
        Out::new(e, y),
        Out::new(e, present(&k4)),
        Out::new(e, present(&v4)),
        Out::new(
            e,
            vec![q4[0].clone(), q4[1].clone(), q4[2].clone(), total.clone()],
        ),
    ])
}

/// `RotaryEmbedding`: shaped as its input.
pub(crate) fn rotary(n: &Node<'_>) -> S<Vec<Out>> {
    like_input(n)
}

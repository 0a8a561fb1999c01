//! Spectral operators (`DFT`, `STFT`, the windows, `MelWeightMatrix`), the losses, `Det`, the
//! string operators, and the newer element-wise and state operators (`BitCast`, `EyeLike`,
//! `Bernoulli`, `SwiGLU`, `CausalConvWithState`, `LinearAttention`).

use super::{dim, like_input, Node, Out, S};
use crate::error::Rule;
use crate::graph::ElemType;
use crate::sym::SymDim;

fn k(v: i64) -> SymDim {
    SymDim::int(v)
}

/// The 0-D (or one-entry) integer value of input `i`.
fn scalar(n: &Node<'_>, i: usize) -> S<SymDim> {
    let v = n.value(i)?;
    match v.entries() {
        [d] => Ok(d.clone()),
        _ => Err(n.fail(Rule::BadValue, Some(i), format!("{v} is not one value"))),
    }
}

/// The type an `output_datatype` (or `dtype`) attribute names, else `default`.
fn datatype(n: &Node<'_>, name: &str, default: Option<ElemType>) -> S<Option<ElemType>> {
    Ok(match n.int(name)? {
        Some(t) => i32::try_from(t).ok().map(ElemType::from_code),
        None => default,
    })
}

/// `DFT(input, dft_length, axis)`: the signal axis (`axis` an attribute before opset 20, an
/// input after) of length `dft_length` (or its own), halved plus one when `onesided`; the last
/// dim 2 (real and imaginary).
pub(crate) fn dft(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let r = x.len();
    if r < 2 {
        return Err(n.fail(Rule::ValueRank, Some(0), "a signal of rank below 2".into()));
    }
    let axis = match n.c.opset.unwrap_or(1) < 20 {
        true => n.int_or("axis", 1)?,
        false => match n.opt(2) {
            Some(_) => scalar(n, 2)?
                .constant()
                .ok_or_else(|| super::Stop::Unknown("a symbolic axis".into()))?,
            None => -2,
        },
    };
    // The axis counts the signal's dims, the last (complex) one not among them.
    let axis = n.axis(axis, r)?;
    if axis == r - 1 {
        return Err(n.fail(
            Rule::IndexOutOfRange,
            None,
            "the axis is the complex one".into(),
        ));
    }
    let (inverse, onesided) = (n.int_or("inverse", 0)? != 0, n.int_or("onesided", 0)? != 0);
    let mut out = x.to_vec();
    if inverse && onesided {
        // A half spectrum back to a real signal of dft_length, or 2*(n - 1).
        out[axis] = match n.opt(1) {
            Some(_) => scalar(n, 1)?,
            None => (x[axis].clone() - k(1)) * k(2),
        };
        out[r - 1] = SymDim::from(1);
        return Ok(vec![Out::new(n.elem(0), out)]);
    }
    let len = match n.opt(1) {
        Some(_) => scalar(n, 1)?,
        None => x[axis].clone(),
    };
    out[axis] = match onesided {
        true => len.floor_div(&k(2))? + k(1),
        false => len,
    };
    out[r - 1] = SymDim::from(2);
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `STFT(signal, frame_step, window, frame_length)`: `[batch, frames, bins, 2]`, `frames =
/// (length - frame_length) // step + 1`, `bins` the frame length (halved plus one when
/// `onesided`, the default).
pub(crate) fn stft(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape_of_rank(0, 3, "[batch, length, 1 or 2]")?;
    let step = scalar(n, 1)?;
    let frame = match (n.opt(3), n.opt(2)) {
        (Some(_), _) => scalar(n, 3)?,
        (None, Some(w)) => w
            .shape()
            .and_then(|s| s.first().cloned())
            .ok_or_else(|| n.c.missing("frame_length"))?,
        (None, None) => return Err(n.c.missing("frame_length or window").into()),
    };
    let frames = (x[1].clone() - frame.clone()).floor_div(&step)? + k(1);
    let bins = match n.int_or("onesided", 1)? != 0 {
        true => frame.floor_div(&k(2))? + k(1),
        false => frame,
    };
    Ok(vec![Out::new(
        n.elem(0),
        vec![x[0].clone(), frames, bins, SymDim::from(2)],
    )])
}

/// `HannWindow`, `HammingWindow`, `BlackmanWindow(size)`: `[size]` of `output_datatype`.
pub(crate) fn window_fn(n: &Node<'_>) -> S<Vec<Out>> {
    let size = scalar(n, 0)?;
    Ok(vec![Out::new(
        datatype(n, "output_datatype", Some(ElemType::FLOAT))?,
        vec![size],
    )])
}

/// `MelWeightMatrix(num_mel_bins, dft_length, ...)`: `[dft_length // 2 + 1, num_mel_bins]`.
pub(crate) fn mel_weights(n: &Node<'_>) -> S<Vec<Out>> {
    let (bins, len) = (scalar(n, 0)?, scalar(n, 1)?);
    let rows = len.floor_div(&k(2))? + k(1);
    Ok(vec![Out::new(
        datatype(n, "output_datatype", Some(ElemType::FLOAT))?,
        vec![rows, bins],
    )])
}

/// `NegativeLogLikelihoodLoss(input, target)` and `SoftmaxCrossEntropyLoss(scores, labels)`:
/// the target's shape with `reduction = "none"`, else 0-D; `SoftmaxCrossEntropyLoss`'s
/// log-probabilities shaped as the scores.
pub(crate) fn loss(n: &Node<'_>) -> S<Vec<Out>> {
    let out = match n.string("reduction")?.unwrap_or("mean") {
        "none" => n.shape(1)?.to_vec(),
        "mean" | "sum" => Vec::new(),
        other => return Err(n.fail(Rule::BadAttribute, None, format!("reduction {other}"))),
    };
    Ok(vec![
        Out::new(n.elem(0), out),
        Out::new(n.elem(0), n.shape(0)?.to_vec()),
    ])
}

/// `Det(X)`: the batch dims of `[..., M, M]`.
pub(crate) fn det(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    if x.len() < 2 {
        return Err(n.fail(
            Rule::ValueRank,
            Some(0),
            "Det of a tensor of rank below 2".into(),
        ));
    }
    n.same(&x[x.len() - 1], &x[x.len() - 2], "a square matrix's dims")?;
    Ok(vec![Out::new(n.elem(0), x[..x.len() - 2].to_vec())])
}

/// `EyeLike` and `Bernoulli`: shaped as the input, of `dtype` (else the input's type).
pub(crate) fn like_of_dtype(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(
        datatype(n, "dtype", n.elem(0))?,
        n.shape(0)?.to_vec(),
    )])
}

/// `BitCast(to)` between types of one size: the input's shape.
pub(crate) fn bit_cast(n: &Node<'_>) -> S<Vec<Out>> {
    let to = datatype(n, "to", None)?.ok_or_else(|| n.c.missing("to"))?;
    let bits = |e: Option<ElemType>| e.and_then(|e| e.bits());
    if bits(Some(to)).is_none() || bits(Some(to)) != bits(n.elem(0)) {
        return Err(super::Stop::Unknown(
            "BitCast between types of other sizes".into(),
        ));
    }
    Ok(vec![Out::new(Some(to), n.shape(0)?.to_vec())])
}

/// `StringConcat`: the inputs broadcast; `RegexFullMatch`: `bool` shaped as its input.
pub(crate) fn string_concat(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(
        Some(ElemType::STRING),
        n.broadcast_inputs()?,
    )])
}

pub(crate) fn regex_match(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(Some(ElemType::BOOL), n.shape(0)?.to_vec())])
}

/// `StringNormalizer`: `[C]` or `[1, C]`, `C` less the stop words the data holds.
pub(crate) fn string_normalizer(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let why = "the count of words after removing stop words is decided by the data";
    let c = match n.strings("stopwords").is_some_and(|s| !s.is_empty()) {
        false => x.last().cloned().unwrap_or_else(|| SymDim::from(1)),
        true => n.fresh(0, x.len().saturating_sub(1), why),
    };
    let mut out = x.to_vec();
    if let Some(l) = out.last_mut() {
        *l = c;
    }
    Ok(vec![Out::new(Some(ElemType::STRING), out)])
}

/// `SwiGLU(x, gate)`: the two broadcast.
pub(crate) fn swiglu(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(n.elem(0), n.broadcast_inputs()?)])
}

/// `CausalConvWithState(x, weight, bias, past_state)`: the output as `x`; the present state
/// `[batch, channels, kernel - 1]`.
pub(crate) fn causal_conv(n: &Node<'_>) -> S<Vec<Out>> {
    let (x, w) = (n.shape(0)?, n.shape(1)?);
    let (Some(kernel), true) = (w.last(), x.len() >= 2) else {
        return Err(n.fail(
            Rule::ValueRank,
            None,
            "x or weight of too low a rank".into(),
        ));
    };
    let state = vec![x[0].clone(), x[1].clone(), kernel.clone() - k(1)];
    Ok(vec![like_input(n)?.remove(0), Out::new(n.elem(0), state)])
}

/// `LinearAttention(query, key, value, past_state, ...)`: `[B, S, q_heads * v_head]` and the
/// present state `[B, kv_heads, k_head, v_head]`.
pub(crate) fn linear_attention(n: &Node<'_>) -> S<Vec<Out>> {
    let (q, kk, v) = (n.shape(0)?, n.shape(1)?, n.shape(2)?);
    if q.len() != 3 || kk.len() != 3 || v.len() != 3 {
        return Err(n.fail(
            Rule::ValueRank,
            None,
            "query, key or value is not 3-D".into(),
        ));
    }
    let heads =
        |name| -> S<SymDim> { dim(n, n.int(name)?.ok_or_else(|| n.c.missing(name))?, name) };
    let (qh, kvh) = (heads("q_num_heads")?, heads("kv_num_heads")?);
    let dk = n.exact_div(&kk[2], &kvh, "the key's hidden dim over kv_num_heads")?;
    let dv = n.exact_div(&v[2], &kvh, "the value's hidden dim over kv_num_heads")?;
    Ok(vec![
        Out::new(n.elem(0), vec![q[0].clone(), q[1].clone(), qh * dv.clone()]),
        Out::new(n.elem(0), vec![q[0].clone(), kvh, dk, dv]),
    ])
}

/// `ImageDecoder(encoded)`: `[H, W, C]`, the size decided by the image's bytes, `C` 1 for
/// `Grayscale` and 3 otherwise.
pub(crate) fn image_decoder(n: &Node<'_>) -> S<Vec<Out>> {
    let why = "the image's size is decided by its bytes";
    let c = match n.string("pixel_format")?.unwrap_or("RGB") {
        "Grayscale" => 1,
        _ => 3,
    };
    let out = vec![n.fresh(0, 0, why), n.fresh(0, 1, why), SymDim::from(c)];
    Ok(vec![Out::new(Some(ElemType::UINT8), out)])
}

/// `StringSplit(X)`: the substrings `X`'s shape plus the most any string splits into (data),
/// and their counts shaped as `X`.
pub(crate) fn string_split(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let mut y = x.to_vec();
    y.push(n.fresh(
        0,
        x.len(),
        "the most substrings of a string is decided by the data",
    ));
    Ok(vec![
        Out::new(Some(ElemType::STRING), y),
        Out::new(Some(ElemType::INT64), x.to_vec()),
    ])
}

/// `TfIdfVectorizer(X)`: `[C]` or `[N, C]`, `C` one past the largest of `ngram_indexes`.
pub(crate) fn tfidf(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let idx = n
        .ints("ngram_indexes")?
        .ok_or_else(|| n.c.missing("ngram_indexes"))?;
    let c = dim(
        n,
        idx.iter().copied().max().unwrap_or(-1) + 1,
        "the output length",
    )?;
    let out = match x.len() {
        1 => vec![c],
        2 => vec![x[0].clone(), c],
        r => return Err(n.fail(Rule::ValueRank, Some(0), format!("an input of rank {r}"))),
    };
    Ok(vec![Out::new(Some(ElemType::FLOAT), out)])
}

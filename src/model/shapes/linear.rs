//! Matrix products: `MatMul` (NumPy's `matmul`: 1-D promotion, batch broadcasting), its
//! integer and quantized forms, `Gemm`, and `Einsum`.

use super::{Node, Out, S};
use crate::error::Rule;
use crate::graph::ElemType;
use crate::sym::SymDim;

/// The shape of `a @ b` (inputs `ia` and `ib`), `K` equal as a condition.
pub(crate) fn matmul_shape(n: &Node<'_>, ia: usize, ib: usize) -> S<Vec<SymDim>> {
    product(n, n.shape(ia)?, n.shape(ib)?, ib)
}

/// The shape of `a @ b` (`b` is input `ib`, for the errors).
pub(crate) fn product(n: &Node<'_>, a: &[SymDim], b: &[SymDim], ib: usize) -> S<Vec<SymDim>> {
    if a.is_empty() || b.is_empty() {
        return Err(n.fail(Rule::ValueRank, None, "MatMul of a 0-D tensor".into()));
    }
    // 1-D operands are promoted: a row vector on the left, a column on the right, and the
    // promoted dim dropped from the result.
    let (ka, m) = match a.len() {
        1 => (&a[0], None),
        r => (&a[r - 1], Some(&a[r - 2])),
    };
    let (kb, cols) = match b.len() {
        1 => (&b[0], None),
        r => (&b[r - 2], Some(&b[r - 1])),
    };
    n.same(ka, kb, "the contracted dims")?;
    let batch_a = &a[..a.len().saturating_sub(2)];
    let batch_b = &b[..b.len().saturating_sub(2)];
    let mut out = n.broadcast(batch_a, batch_b, ib)?;
    out.extend(m.cloned());
    out.extend(cols.cloned());
    Ok(out)
}

/// `MatMul`: the type of `A`.
pub(crate) fn matmul(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(n.elem(0), matmul_shape(n, 0, 1)?)])
}

/// `MatMulInteger(A, B, a_zero_point, b_zero_point)`: `int32`.
pub(crate) fn matmul_integer(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(
        Some(ElemType::INT32),
        matmul_shape(n, 0, 1)?,
    )])
}

/// `QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp)`: the type of `y_zp`.
pub(crate) fn qlinear_matmul(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(n.elem(7), matmul_shape(n, 0, 3)?)])
}

/// `Gemm(A, B, C)`: `[M, N]` of `A'` and `B'` (transposed by `transA`, `transB`), `C`
/// broadcast to it.
pub(crate) fn gemm(n: &Node<'_>) -> S<Vec<Out>> {
    let (a, b) = (n.shape(0)?, n.shape(1)?);
    if a.len() != 2 || b.len() != 2 {
        let why = format!("Gemm of ranks {} and {}", a.len(), b.len());
        return Err(n.fail(Rule::ValueRank, None, why));
    }
    let ta = n.int_or("transA", 0)? != 0;
    let tb = n.int_or("transB", 0)? != 0;
    let (m, ka) = if ta { (&a[1], &a[0]) } else { (&a[0], &a[1]) };
    let (kb, cols) = if tb { (&b[1], &b[0]) } else { (&b[0], &b[1]) };
    n.same(ka, kb, "the contracted dims")?;
    let out = vec![m.clone(), cols.clone()];
    if n.opt(2).is_some() {
        let c = n.shape(2)?;
        // C broadcasts to [M, N] one way: the result keeps [M, N].
        let b = n.broadcast(&out, c, 2)?;
        for (d, e) in out.iter().zip(&b) {
            n.same(e, d, "C broadcast to [M, N]")?;
        }
    }
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `Einsum`: each letter's dim from the operands (equal where a letter repeats), `...`
/// broadcast, the output as the equation's right side or, without one, the letters seen
/// once in alphabetical order after the broadcast dims.
pub(crate) fn einsum(n: &Node<'_>) -> S<Vec<Out>> {
    let eq: String = n
        .string("equation")?
        .ok_or_else(|| n.c.missing("equation"))?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != n.inputs.len() {
        let why = format!("{} operands for {} inputs", terms.len(), n.inputs.len());
        return Err(n.fail(Rule::BadAttribute, None, why));
    }
    let mut letters: Vec<(char, SymDim, usize)> = Vec::new();
    let mut ellipsis: Vec<SymDim> = Vec::new();
    for (i, t) in terms.iter().enumerate() {
        let shape = n.shape(i)?;
        let named = t.replace("...", "");
        let dots = t.contains("...");
        if named.len() > shape.len() || (!dots && named.len() != shape.len()) {
            let why = format!("the operand {t} for a tensor of rank {}", shape.len());
            return Err(n.fail(Rule::RankMismatch, Some(i), why));
        }
        let at = t.find("...").unwrap_or(t.len());
        let extra = shape.len() - named.len();
        ellipsis = n.broadcast(&ellipsis, &shape[at..at + extra], i)?;
        for (j, ch) in named.chars().enumerate() {
            let d = &shape[if j < at { j } else { j + extra }];
            match letters.iter_mut().find(|l| l.0 == ch) {
                Some(l) => {
                    l.1 = n
                        .broadcast(std::slice::from_ref(&l.1), std::slice::from_ref(d), i)?
                        .remove(0);
                    l.2 += 1;
                }
                None => letters.push((ch, d.clone(), 1)),
            }
        }
    }
    let mut out = Vec::new();
    let dim = |ch: char| {
        letters
            .iter()
            .find(|l| l.0 == ch)
            .map(|l| l.1.clone())
            .ok_or_else(|| n.fail(Rule::BadAttribute, None, format!("{ch} is on no operand")))
    };
    match rhs {
        Some(r) => {
            let at = r.find("...");
            for (j, ch) in r.replace("...", "").chars().enumerate() {
                if at == Some(j) {
                    out.extend(ellipsis.iter().cloned());
                }
                out.push(dim(ch)?);
            }
            if at.is_some() && at >= Some(r.replace("...", "").len()) {
                out.extend(ellipsis.iter().cloned());
            }
        }
        None => {
            out.extend(ellipsis.iter().cloned());
            let mut once: Vec<char> = letters.iter().filter(|l| l.2 == 1).map(|l| l.0).collect();
            once.sort_unstable();
            for ch in once {
                out.push(dim(ch)?);
            }
        }
    }
    Ok(vec![Out::new(n.elem(0), out)])
}

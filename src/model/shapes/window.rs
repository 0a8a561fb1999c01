//! Sliding windows: `Conv`, `ConvTranspose` and the pools, one rule for the window arithmetic
//! (kernel, strides, dilations, pads, `auto_pad`, `ceil_mode`), as onnxruntime computes it.

use super::{dim, Node, Out, S};
use crate::error::Rule;
use crate::graph::ElemType;
use crate::sym::SymDim;

/// The window attributes of a node over `spatial` dims.
struct Window {
    /// From `kernel_shape`, else the weight's spatial dims (symbolic where they are).
    kernel: Vec<SymDim>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// Begin pads then end pads.
    pads: Vec<i64>,
    auto_pad: AutoPad,
    ceil: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum AutoPad {
    NotSet,
    Valid,
    Same,
}

fn window(n: &Node<'_>, spatial: usize, kernel: Option<Vec<SymDim>>) -> S<Window> {
    let kernel = match n.ints("kernel_shape")? {
        Some(k) => {
            if k.iter().any(|&v| v < 1) {
                let why = format!("kernel_shape {k:?} holds a size below 1");
                return Err(n.fail(Rule::BadAttribute, None, why));
            }
            k.into_iter().map(SymDim::int).collect()
        }
        None => kernel.ok_or_else(|| n.c.missing("kernel_shape"))?,
    };
    let list = |name: &str, len: usize, default: i64| -> S<Vec<i64>> {
        let v = n.ints(name)?.unwrap_or_else(|| vec![default; len]);
        match v.len() == len {
            true => Ok(v),
            false => Err(n.fail(
                Rule::LengthMismatch,
                None,
                format!("{name} has {} entries for {spatial} spatial dims", v.len()),
            )),
        }
    };
    if kernel.len() != spatial {
        let why = format!(
            "kernel_shape has {} entries for {spatial} spatial dims",
            kernel.len()
        );
        return Err(n.fail(Rule::LengthMismatch, None, why));
    }
    let auto_pad = match n.string("auto_pad")?.unwrap_or("NOTSET") {
        "NOTSET" => AutoPad::NotSet,
        "VALID" => AutoPad::Valid,
        "SAME_UPPER" | "SAME_LOWER" => AutoPad::Same,
        other => {
            let why = format!("auto_pad {other} is not NOTSET, VALID, SAME_UPPER or SAME_LOWER");
            return Err(n.fail(Rule::BadAttribute, None, why));
        }
    };
    let w = Window {
        strides: list("strides", spatial, 1)?,
        dilations: list("dilations", spatial, 1)?,
        pads: list("pads", 2 * spatial, 0)?,
        ceil: n.int_or("ceil_mode", 0)? != 0,
        kernel,
        auto_pad,
    };
    let bad = w.strides.iter().chain(&w.dilations).any(|&v| v < 1) || w.pads.iter().any(|&p| p < 0);
    if bad {
        let why = "strides and dilations must be at least 1, pads at least 0";
        return Err(n.fail(Rule::BadAttribute, None, why.into()));
    }
    Ok(w)
}

impl Window {
    /// The dilated kernel of spatial dim `i`, `d*(k - 1) + 1`.
    fn dilated(&self, i: usize) -> SymDim {
        let k = |v: i64| SymDim::int(v);
        k(self.dilations[i]) * (self.kernel[i].clone() - k(1)) + k(1)
    }

    /// The output length of spatial dim `i` of length `x`: `(x + pads - dk) // s + 1` with
    /// `dk = d*(k - 1) + 1`; with `ceil_mode` the ceiling, less one where the last window
    /// would start past the input and its begin pad; `SAME_*`, `ceil(x / s)`; `VALID`, no
    /// pads.
    fn out(&self, n: &Node<'_>, i: usize, x: &SymDim) -> S<SymDim> {
        let spatial = self.kernel.len();
        let k = |v: i64| SymDim::int(v);
        let (s, dk) = (self.strides[i], self.dilated(i));
        let (begin, end) = match self.auto_pad {
            AutoPad::NotSet => (self.pads[i], self.pads[i + spatial]),
            AutoPad::Valid => (0, 0),
            AutoPad::Same => {
                return Ok((x.clone() + k(s - 1)).floor_div(&k(s))?);
            }
        };
        let span = x.clone() + k(begin + end) - dk.clone();
        let out = match self.ceil {
            false => span.floor_div(&k(s))? + k(1),
            true => {
                let up = (span + k(s - 1)).floor_div(&k(s))? + k(1);
                // The last window starts at (up - 1)*s; past x + begin it is dropped.
                let past = (x.clone() + k(begin)).less_equal(&((up.clone() - k(1)) * k(s)));
                up - past
            }
        };
        // A window larger than the padded input has no output.
        n.need(crate::sym::Condition::at_most(
            dk - k(begin + end),
            x.clone(),
        ))?;
        Ok(out)
    }
}

/// `[N, C, spatial...]` with `C` given and each spatial dim through the window.
fn windowed(n: &Node<'_>, channels: SymDim, kernel: Option<Vec<SymDim>>) -> S<Vec<SymDim>> {
    let x = n.shape(0)?;
    if x.len() < 3 {
        let why = format!("a window over a tensor of rank {}", x.len());
        return Err(n.fail(Rule::ValueRank, Some(0), why));
    }
    let w = window(n, x.len() - 2, kernel)?;
    let mut out = vec![x[0].clone(), channels];
    for (i, d) in x[2..].iter().enumerate() {
        out.push(w.out(n, i, d)?);
    }
    Ok(out)
}

/// The kernel's spatial dims from the weight `W` (`[M, C/group, k...]`).
fn weight_kernel(n: &Node<'_>, at: usize) -> S<Option<Vec<SymDim>>> {
    Ok(n.shape(at)?.get(2..).map(<[SymDim]>::to_vec))
}

/// `Conv(X, W, B)` and `ConvInteger` (`int32`), `QLinearConv` (`W` is input 3, the type of
/// `y_zero_point`): `M` output channels (`W`'s first dim), the input channels checked
/// against `W`'s second dim times `group`.
pub(crate) fn conv(n: &Node<'_>) -> S<Vec<Out>> {
    let (wi, elem) = match n.c.op {
        "ConvInteger" => (1, Some(ElemType::INT32)),
        "QLinearConv" => (3, n.elem(7)),
        _ => (1, n.elem(0)),
    };
    let w = n.shape(wi)?;
    if w.len() < 3 {
        return Err(n.fail(Rule::ValueRank, Some(wi), "a weight of rank below 3".into()));
    }
    let group = dim(n, n.int_or("group", 1)?, "group")?;
    let x = n.shape(0)?;
    if let Some(c) = x.get(1) {
        n.same(
            c,
            &(w[1].clone() * group),
            "input channels and weight channels times group",
        )?;
    }
    let out = windowed(n, w[0].clone(), weight_kernel(n, wi)?)?;
    Ok(vec![Out::new(elem, out)])
}

/// `ConvTranspose(X, W, B)`: `W[1] * group` channels; each spatial dim
/// `s*(x - 1) + output_padding + d*(k - 1) + 1 - pads`, or `output_shape`, or with
/// `SAME_*`, `x * s`.
pub(crate) fn conv_transpose(n: &Node<'_>) -> S<Vec<Out>> {
    let (x, w) = (n.shape(0)?, n.shape(1)?);
    if x.len() < 3 || w.len() != x.len() {
        let why = format!("ConvTranspose of ranks {} and {}", x.len(), w.len());
        return Err(n.fail(Rule::ValueRank, None, why));
    }
    let group = dim(n, n.int_or("group", 1)?, "group")?;
    let spatial = x.len() - 2;
    let win = window(n, spatial, weight_kernel(n, 1)?)?;
    let opad = n
        .ints("output_padding")?
        .unwrap_or_else(|| vec![0; spatial]);
    let shape = n.ints("output_shape")?;
    let mut out = vec![x[0].clone(), w[1].clone() * group];
    for i in 0..spatial {
        let k = |v: i64| SymDim::int(v);
        let xi = x[i + 2].clone();
        let d = match (&shape, win.auto_pad) {
            (Some(s), _) => dim(
                n,
                *s.get(s.len().wrapping_sub(spatial) + i).unwrap_or(&0),
                "output_shape",
            )?,
            (None, AutoPad::Same) => xi * k(win.strides[i]),
            (None, pad) => {
                let pads = match pad {
                    AutoPad::Valid => 0,
                    _ => win.pads[i] + win.pads[i + spatial],
                };
                let extra = opad.get(i).copied().unwrap_or(0) - pads - win.strides[i];
                xi * k(win.strides[i]) + k(extra) + win.dilated(i)
            }
        };
        out.push(d);
    }
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `MaxPool`, `AveragePool`, `LpPool`: the channels kept; `MaxPool`'s indices (`int64`)
/// shaped as its output.
pub(crate) fn pool(n: &Node<'_>) -> S<Vec<Out>> {
    let c = n
        .shape(0)?
        .get(1)
        .cloned()
        .unwrap_or_else(|| SymDim::from(1));
    let out = windowed(n, c, None)?;
    Ok(vec![
        Out::new(n.elem(0), out.clone()),
        Out::new(Some(ElemType::INT64), out),
    ])
}

/// `GlobalAveragePool`, `GlobalMaxPool`, `GlobalLpPool`: every spatial dim 1.
pub(crate) fn global_pool(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    if x.len() < 2 {
        let why = format!("a global pool of a tensor of rank {}", x.len());
        return Err(n.fail(Rule::ValueRank, Some(0), why));
    }
    let mut out = x[..2].to_vec();
    out.resize(x.len(), SymDim::from(1));
    Ok(vec![Out::new(n.elem(0), out)])
}

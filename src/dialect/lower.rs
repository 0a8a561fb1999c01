//! Lowering a reshape to ONNX: the reading-order check (ONNX `Reshape` reads in C order), the
//! node sequence of an F-order reshape, and the single `Reshape` that keeps symbolic dims
//! dynamic.

use super::onnx::Onnx;
use super::{reject, Planned, ShapeSpec};
use crate::dims::Order;
use crate::error::{Fail, ReshapeError, Rule};
use crate::infer::Extent;
use crate::layout::Arrangement;
use crate::small::Small;
use crate::sym::SymDim;

/// One ONNX node of a lowered reshape ([`ShapeSpec::to_onnx_nodes`]), applied in sequence to
/// the reshape's input.
///
/// ```
/// use ndarray_reshape::{Mx, Onnx, OnnxNode, ShapeSpec};
/// let nodes = Mx::new([-1]).to_onnx_nodes(&[2, 3])?;
/// assert_eq!(nodes, [OnnxNode::Reshape(Onnx::new([6]))]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OnnxNode {
    /// `Transpose` with attribute `perm`.
    Transpose {
        /// The output's axis `i` is the input's axis `perm[i]`.
        perm: Vec<usize>,
    },
    /// `Reshape` with this shape and `allowzero`.
    Reshape(Onnx),
    /// `Expand` to this shape (its `shape` input): the broadcast of an einops `repeat`.
    Expand {
        /// The shape to broadcast to.
        shape: Vec<usize>,
    },
    /// An einops `reduce`: `ReduceSum`, `ReduceMean`, `ReduceMax`, `ReduceMin` or `ReduceProd`
    /// ([`op`](OnnxNode::op) gives the name; `any` and `all` are `ReduceMax` and
    /// `ReduceMin` of `bool`, which ONNX has from opset 20) over `axes`.
    Reduce {
        /// The reduction.
        reduction: crate::reduction::Reduction,
        /// The axes reduced, increasing.
        axes: Vec<usize>,
        /// ONNX's `keepdims` (always `false` here: the `Reshape` after it puts units back).
        keepdims: bool,
        /// Whether the opset takes `axes` as the node's second input (`ReduceSum` from opset
        /// 13, the others from 18) rather than as an attribute.
        axes_input: bool,
    },
    /// `Concat` of the inputs along `axis` (einops' `pack`, after a `Reshape` of each).
    Concat {
        /// The axis joined along.
        axis: usize,
    },
    /// `Split` along `axis` into parts of these lengths (`split` as the node's second input,
    /// from opset 13), each then reshaped (einops' `unpack`).
    Split {
        /// The axis split.
        axis: usize,
        /// The length of each part.
        split: Vec<usize>,
    },
    /// `Pad` at the end of each axis with a constant (`pads` as the node's second input, from
    /// opset 11): the padding of a [`Blocked`](crate::convert::Blocked) layout.
    Pad {
        /// ONNX's `pads`: the start of every axis (all 0 here), then the end of every axis.
        pads: Vec<usize>,
        /// The fill value (`constant_value`).
        value: f64,
    },
    /// `Slice` of the first `end` entries of `axis` (the crop back from a blocked layout).
    Slice {
        /// The axis cut.
        axis: usize,
        /// Entries kept from its start.
        end: usize,
    },
    /// `Cast` to the ONNX data type named `to` (`"FLOAT16"`, `"BFLOAT16"`, `"INT8"`, ...).
    Cast {
        /// The `TensorProto` data type name.
        to: &'static str,
    },
    /// `Mul` by a constant of `shape` (`[n, 1, ..., 1]` for values along one axis, `[]` for one
    /// value), broadcast as ONNX broadcasts.
    Mul {
        /// The constant's values.
        value: Vec<f32>,
        /// The constant's shape.
        shape: Vec<usize>,
    },
    /// `Add` of a constant of `shape`, as [`Mul`](OnnxNode::Mul).
    Add {
        /// The constant's values.
        value: Vec<f32>,
        /// The constant's shape.
        shape: Vec<usize>,
    },
    /// `QuantizeLinear` with per-tensor (`axis` none) or per-axis scales and zero points.
    QuantizeLinear {
        /// The axis of per-axis parameters.
        axis: Option<usize>,
        /// `y_scale`.
        scale: Vec<f32>,
        /// `y_zero_point`, of the data type `to`.
        zero_point: Vec<i64>,
        /// The output's data type name (`"INT8"`, `"UINT8"`, ...).
        to: &'static str,
    },
    /// `DequantizeLinear` with per-tensor or per-axis scales and zero points.
    DequantizeLinear {
        /// The axis of per-axis parameters.
        axis: Option<usize>,
        /// `x_scale`.
        scale: Vec<f32>,
        /// `x_zero_point`, of the input's data type.
        zero_point: Vec<i64>,
    },
}

impl OnnxNode {
    /// The ONNX operator's name (`"Reshape"`, `"ReduceMax"`, ...).
    ///
    /// ```
    /// use ndarray_reshape::{OnnxNode, Reduction};
    /// let node = OnnxNode::Reduce { reduction: Reduction::Any, axes: vec![1], keepdims: false, axes_input: true };
    /// assert_eq!(node.op(), "ReduceMax");
    /// ```
    pub fn op(&self) -> &'static str {
        use crate::reduction::Reduction as R;
        match self {
            OnnxNode::Transpose { .. } => "Transpose",
            OnnxNode::Reshape(_) => "Reshape",
            OnnxNode::Expand { .. } => "Expand",
            OnnxNode::Reduce { reduction, .. } => match reduction {
                R::Sum => "ReduceSum",
                R::Mean => "ReduceMean",
                R::Max | R::Any => "ReduceMax",
                R::Min | R::All => "ReduceMin",
                R::Prod => "ReduceProd",
            },
            OnnxNode::Concat { .. } => "Concat",
            OnnxNode::Split { .. } => "Split",
            OnnxNode::Pad { .. } => "Pad",
            OnnxNode::Slice { .. } => "Slice",
            OnnxNode::Cast { .. } => "Cast",
            OnnxNode::Mul { .. } => "Mul",
            OnnxNode::Add { .. } => "Add",
            OnnxNode::QuantizeLinear { .. } => "QuantizeLinear",
            OnnxNode::DequantizeLinear { .. } => "DequantizeLinear",
        }
    }
}

/// Whether reading `a` and `b` in C order and in F order gives the same sequence: each has at
/// most one dim above 1 (or is empty).
fn same_sequence(a: &[usize], b: &[usize]) -> bool {
    let long = |s: &[usize]| s.iter().filter(|&&d| d > 1).count() <= 1;
    a.contains(&0) || (long(a) && long(b))
}

/// The spec's reading order as ONNX sees it: F stays F, A is C (a graph tensor is
/// C-contiguous).
fn reads_f<P: ShapeSpec + ?Sized>(spec: &P) -> bool {
    spec.order() == Order::F
}

/// [`ReshapeError::OnnxInexpressible`] unless one C-order `Reshape` reads the elements in the
/// spec's order.
pub(crate) fn check_order<P: ShapeSpec + ?Sized>(
    spec: &P,
    input: &[usize],
    shape: &[usize],
) -> Result<(), ReshapeError> {
    if reads_f(spec) && !same_sequence(input, shape) {
        return Err(reject(
            Rule::OnnxInexpressible,
            spec,
            input,
            "an F-order reshape reads the elements in another order than ONNX's Reshape (C \
             order); to_onnx_nodes gives the Transpose, Reshape, Transpose sequence",
        ));
    }
    Ok(())
}

/// `rule` (not one `Reshape`, not a reshape at all) when `spec` moves or repeats axes (an
/// einops pattern that permutes): for `to_onnx` and `explain`, concrete (`input` of `usize`)
/// or symbolic.
pub(crate) fn reshape_only<P: ShapeSpec + ?Sized, E: Extent>(
    spec: &P,
    input: &[E],
    rule: Rule,
) -> Result<(), ReshapeError> {
    match spec.permutes() {
        false => Ok(()),
        true => {
            let (origin, written) = spec.describe();
            Err(E::attach(
                Fail::whole(rule, not_a_reshape(rule)),
                origin,
                input,
                written,
            ))
        }
    }
}

fn not_a_reshape(rule: Rule) -> String {
    let what = "the pattern moves or repeats axes, which a reshape does not";
    match rule {
        Rule::OnnxInexpressible => format!(
            "{what}: no single Reshape computes it; to_onnx_nodes gives Reshape, Transpose, \
             (Expand,) Reshape"
        ),
        _ => format!("{what}: there are no axis groups to explain"),
    }
}

/// The nodes computing the reshape of `input` by `spec`.
pub(crate) fn nodes<P: ShapeSpec + ?Sized>(
    spec: &P,
    input: &[usize],
) -> Result<Vec<OnnxNode>, ReshapeError> {
    let (mut dims, mut arranged) = (Small::new(), None);
    spec.plan_into(input, Planned::new(&mut dims, &mut arranged))?;
    let shape = dims.to_vec();
    match arranged {
        Some(a) if spec.permutes() => Ok(arranged_nodes(&a, input, shape)),
        _ => Ok(reshape_nodes(spec, input, shape)),
    }
}

/// The nodes of a rearrangement: the input split into its elementary axes (`Reshape`), put in
/// their order on the right (`Transpose`), the axes `repeat` adds inserted and broadcast
/// (`Reshape`, `Expand`), and merged into the output (`Reshape`); each only where it changes
/// something.
fn arranged_nodes(a: &Arrangement, input: &[usize], shape: Vec<usize>) -> Vec<OnnxNode> {
    let reshape = |s: &[usize]| OnnxNode::Reshape(Onnx::new(s.to_vec()).allowzero(s.contains(&0)));
    // The elementary axes in the input's order: by input axis, then outer to inner.
    let mut split: Vec<(usize, usize, usize)> = Vec::new(); // (axis, inner, arranged index)
    for (k, f) in a.from.iter().enumerate() {
        if let Some((axis, inner)) = *f {
            split.push((axis, inner, k));
        }
    }
    split.sort_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
    let split_shape: Vec<usize> = split.iter().map(|e| a.shape[e.2]).collect();
    let mut order: Vec<usize> = split.iter().map(|e| e.2).collect();
    order.sort_unstable();
    let perm: Vec<usize> = order
        .iter()
        .map(|k| split.iter().position(|e| e.2 == *k).unwrap_or(0))
        .collect();
    let mut nodes = Vec::new();
    let mut now: Vec<usize> = input.to_vec();
    if split_shape != now {
        nodes.push(reshape(&split_shape));
    }
    now = perm.iter().map(|&p| split_shape[p]).collect();
    if perm.iter().enumerate().any(|(i, &p)| i != p) {
        nodes.push(OnnxNode::Transpose { perm });
    }
    if a.from.iter().any(Option::is_none) {
        let unit: Vec<usize> = a
            .from
            .iter()
            .zip(a.shape.iter())
            .map(|(f, &d)| if f.is_some() { d } else { 1 })
            .collect();
        if unit != now {
            nodes.push(reshape(&unit));
        }
        now = a.shape.to_vec();
        if unit != now {
            nodes.push(OnnxNode::Expand { shape: now.clone() });
        }
    }
    if shape != now {
        nodes.push(reshape(&shape));
    }
    nodes
}

fn reshape_nodes<P: ShapeSpec + ?Sized>(
    spec: &P,
    input: &[usize],
    shape: Vec<usize>,
) -> Vec<OnnxNode> {
    let zero = shape.contains(&0);
    if !reads_f(spec) || same_sequence(input, &shape) {
        return vec![OnnxNode::Reshape(Onnx::new(shape).allowzero(zero))];
    }
    // F order is C order of the reversed axes: transpose, reshape to the reversed target in
    // C order, transpose back.
    let reversed = |n: usize| OnnxNode::Transpose {
        perm: (0..n).rev().collect(),
    };
    let target: Vec<usize> = shape.iter().rev().copied().collect();
    vec![
        reversed(input.len()),
        OnnxNode::Reshape(Onnx::new(target).allowzero(zero)),
        reversed(shape.len()),
    ]
}

/// [`ShapeSpec::to_onnx_symbolic`] for the inferred output `dims` of `input`.
pub(crate) fn symbolic<P: ShapeSpec + ?Sized>(
    spec: &P,
    input: &[SymDim],
    dims: &[SymDim],
) -> Result<Onnx, ReshapeError> {
    let fail = |why: String| {
        let (dialect, written) = spec.describe();
        Fail::whole(Rule::OnnxInexpressible, why).attach_sym(dialect, input, written)
    };
    // Symbols may be 1 or more: a symbolic dim may be above 1.
    let above_one = |s: &[SymDim]| {
        s.iter()
            .filter(|d| d.known().map_or(true, |k| k > 1))
            .count()
    };
    let empty = input.iter().any(SymDim::is_zero);
    if reads_f(spec) && !empty && (above_one(input) > 1 || above_one(dims) > 1) {
        return Err(fail(
            "an F-order reshape reads the elements in another order than ONNX's Reshape (C \
             order)"
                .into(),
        ));
    }
    let mut shape: Vec<i64> = Vec::with_capacity(dims.len());
    let mut inferred: Option<usize> = None;
    let mut copies = false;
    let mut literal_zero = false;
    for (i, d) in dims.iter().enumerate() {
        let same_index = input.get(i) == Some(d);
        match d.known() {
            // A known zero: a copy of a zero input dim, or a literal zero under allowzero.
            Some(0) => {
                literal_zero |= !same_index;
                shape.push(0);
            }
            Some(k) => shape.push(k as i64),
            None if same_index => {
                copies = true;
                shape.push(0);
            }
            None => {
                if let Some(j) = inferred {
                    return Err(fail(format!(
                        "the output dims {} (index {j}) and {d} (index {i}) are symbolic and \
                         not the input dims at their indices; one Reshape can infer only one \
                         of them",
                        dims[j]
                    )));
                }
                inferred = Some(i);
                shape.push(-1);
            }
        }
    }
    let zero = dims.iter().any(SymDim::is_zero);
    if zero && inferred.is_some() {
        return Err(fail(
            "a -1 next to a zero dim cannot be inferred by ONNX's Reshape".into(),
        ));
    }
    if literal_zero && copies {
        return Err(fail(
            "a literal zero dim needs allowzero, which makes the 0s that copy symbolic input \
             dims literal zeros too"
                .into(),
        ));
    }
    Ok(Onnx::new(shape).allowzero(literal_zero))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::mx::Mx;
    use crate::dialect::np::Np;
    use crate::dialect::paddle::Paddle;

    #[test]
    fn sequences() {
        assert!(same_sequence(&[1, 6], &[6]));
        assert!(same_sequence(&[6, 1], &[1, 1, 6]));
        assert!(!same_sequence(&[2, 3], &[6]));
        assert!(same_sequence(&[2, 0], &[0, 5]));
    }

    #[test]
    fn symbolic_lowering_cases() {
        let (n, k) = (SymDim::sym("N"), SymDim::from);
        // Paddle's 0 on a zero-size input is a literal zero: allowzero.
        let o = Paddle::new([0, 0])
            .to_onnx_symbolic(&[n.clone(), k(0)])
            .unwrap();
        assert_eq!(o, Onnx::new([0, 0]).allowzero(true));
        // Zeros that copy zero input dims beside a symbolic copy: no allowzero.
        let o = Mx::new([0, 0, 0])
            .to_onnx_symbolic(&[n.clone(), k(0), k(3)])
            .unwrap();
        assert_eq!(o, Onnx::new([0, 0, 3]));
        let o = Np::new([0, 5], Order::C)
            .to_onnx_symbolic(&[k(0), n.clone()])
            .unwrap();
        assert_eq!(o, Onnx::new([0, 5]));
        // A zero dim beside a -1, or a literal zero beside a symbolic copy: no single Reshape.
        let like = crate::dialect::like::Like::new([3, 0]).lhs(Some(0), Some(1));
        assert!(like.to_onnx_symbolic(&[k(0), n.clone()]).is_err());
        let like = crate::dialect::like::Like::new([0]).lhs(Some(1), Some(2));
        assert_eq!(
            like.infer_symbolic(&[n.clone(), k(0)]).unwrap().dims(),
            &[n.clone(), k(0)]
        );
        let like = crate::dialect::like::Like::new([0, 1]).lhs(Some(1), Some(2));
        assert!(like.to_onnx_symbolic(&[n.clone(), k(0)]).is_ok());
        let err = Np::new([-1, 4], Order::F)
            .to_onnx_symbolic(&[n.clone(), k(4)])
            .unwrap_err();
        assert_eq!(err.category(), "onnx_inexpressible");
        // F order moves elements when the input alone has two dims above 1 (a flatten), or
        // the output alone (a split); with one on each side it reads as C order does.
        for (input, spec) in [
            ([n.clone(), k(3)], vec![-1]),
            ([k(1), n.clone() * k(3)], vec![3, -1]),
        ] {
            let err = Np::new(spec, Order::F)
                .to_onnx_symbolic(&input)
                .unwrap_err();
            assert_eq!(err.category(), "onnx_inexpressible", "{input:?}");
        }
        let o = Np::new([1, -1], Order::F)
            .to_onnx_symbolic(&[n, k(1)])
            .unwrap();
        assert_eq!(o, Onnx::new([1, -1]));
    }
}

//! einops' `reduce` as a spec: [`Reduction`] and [`Reduce`], a pattern whose axes only on the
//! left are reduced.

use std::fmt;
use std::sync::Arc;

use super::pattern::Function;
use super::Rearrange;
use crate::dialect::lower::OnnxNode;
use crate::dialect::onnx::Onnx;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::layout::Arrangement;
use crate::reduction::Reduction;
use crate::small::Small;
use crate::sym::{SymDim, SymShape};

/// An einops `reduce` pattern (`"b c (h 2) (w 2) -> b c h w"`) with its [`Reduction`] and the
/// lengths given for its axes: the spec behind
/// [`ReshapeExt::reduce`](crate::ReshapeExt::reduce), and its shapes without data.
///
/// The pattern reads as in [`Rearrange`], with einops' rules for a reduction: the axes on the
/// left and not on the right are reduced (numbers on the left, such as the `2` of `(h 2)`,
/// and an ellipsis only on the left, always are); the right side names no axis the left does
/// not have; `()` or `1` on the right keeps a unit axis; an empty right side reduces to a
/// scalar (rank 0). A pattern that reduces nothing is a rearrangement.
///
/// # Errors
///
/// [`BadPattern`](ReshapeError::BadPattern) from [`new`](Self::new) for a pattern that does not
/// parse or has an axis only on the right; at inference, as [`Rearrange`]'s:
/// [`PatternRank`](ReshapeError::PatternRank), [`AxisLength`](ReshapeError::AxisLength),
/// [`MultipleInfer`](ReshapeError::MultipleInfer), then per input dim
/// [`InferNotDivisible`](ReshapeError::InferNotDivisible) (`input dim 2 (4) as (h 3)`) and the
/// others, and [`ZeroSizeReduction`](ReshapeError::ZeroSizeReduction) for `max` or `min` of no
/// elements (a reduced axis of length 0 where the output is not empty); on data,
/// [`ReductionType`](ReshapeError::ReductionType) for a reduction the element type does not
/// take (a mean of integers).
///
/// # Examples
///
/// ```
/// use ndarray_reshape::{Reduce, Reduction};
///
/// let pool = Reduce::new("b c (h 2) (w 2) -> b c h w", Reduction::Max)?;
/// assert_eq!(pool.infer_shape(&[8, 64, 112, 112])?, vec![8, 64, 56, 56]);
/// let gap = Reduce::new("b c h w -> b c () ()", Reduction::Mean)?;
/// assert_eq!(gap.infer_shape(&[8, 512, 7, 7])?, vec![8, 512, 1, 1]);
/// assert!(Reduce::new("b c -> b c z", Reduction::Sum).is_err()); // z is not on the left
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduce {
    /// The pattern, read as a reduction (shared with this thread's recent patterns).
    spec: Arc<Rearrange>,
    reduction: Reduction,
}

impl Reduce {
    /// A `reduce` pattern with its reduction.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BadPattern`], naming the pattern and the part at fault.
    ///
    /// ```
    /// use ndarray_reshape::{Reduce, Reduction};
    /// assert!(Reduce::new("b n d -> b d", Reduction::Mean).is_ok());
    /// assert!(Reduce::new("b n d -> b 2 d", Reduction::Mean).is_err());
    /// ```
    pub fn new(pattern: &str, reduction: Reduction) -> Result<Reduce, ReshapeError> {
        let spec = Rearrange::parsed(pattern, Function::Reduce).map_err(|f| {
            f.attach_no_input(Origin::Rearrange, format!("reduce {pattern:?} {reduction}"))
        })?;
        Ok(Reduce {
            spec: Arc::new(spec),
            reduction,
        })
    }

    /// The reduction of a pattern read for `reduce` ([`Rearrange::recent`]).
    pub(crate) fn from_pattern(spec: Arc<Rearrange>, reduction: Reduction) -> Reduce {
        Reduce { spec, reduction }
    }

    /// The same pattern with the length of the axis `name` given (einops' keyword arguments).
    ///
    /// ```
    /// use ndarray_reshape::{Reduce, Reduction};
    /// let r = Reduce::new("b (h h2) -> b h", Reduction::Sum)?.axis("h2", 4);
    /// assert_eq!(r.infer_shape(&[2, 12])?, vec![2, 3]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn axis(self, name: &str, length: usize) -> Reduce {
        let spec = Arc::unwrap_or_clone(self.spec).axis(name, length);
        Reduce {
            spec: Arc::new(spec),
            reduction: self.reduction,
        }
    }

    /// The reduction.
    ///
    /// ```
    /// use ndarray_reshape::{Reduce, Reduction};
    /// assert_eq!(Reduce::new("a b -> a", Reduction::Min)?.reduction(), Reduction::Min);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn reduction(&self) -> Reduction {
        self.reduction
    }

    /// The pattern as written.
    ///
    /// ```
    /// use ndarray_reshape::{Reduce, Reduction};
    /// assert_eq!(Reduce::new("a b -> a", Reduction::Sum)?.pattern(), "a b -> a");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn pattern(&self) -> &str {
        self.spec.pattern()
    }

    /// The output shape for an input of shape `input`.
    ///
    /// # Errors
    ///
    /// See [`Reduce`].
    ///
    /// ```
    /// use ndarray_reshape::{Reduce, Reduction};
    /// let r = Reduce::new("b ... -> b", Reduction::Sum)?;
    /// assert_eq!(r.infer_shape(&[4, 3, 2])?, vec![4]);
    /// assert_eq!(Reduce::new("a b ->", Reduction::Sum)?.infer_shape(&[2, 3])?, Vec::<usize>::new());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn infer_shape(&self, input: &[usize]) -> Result<Vec<usize>, ReshapeError> {
        let (mut dims, mut split, mut kept) = (Small::new(), Arrangement::default(), Small::new());
        self.plan(input, &mut dims, &mut split, &mut kept)?;
        Ok(dims.to_vec())
    }

    /// The output shape for an input whose dims may be symbolic: a reduced axis may have any
    /// symbolic length; a group that splits a symbolic dim holds under the condition that the
    /// division is exact (`(h 2)` of `H`: `H % 2 == 0`), never a floor.
    ///
    /// # Errors
    ///
    /// The errors of [`infer_shape`](Self::infer_shape) that hold for every value of the
    /// symbols.
    ///
    /// ```
    /// use ndarray_reshape::{Reduce, Reduction, SymDim};
    ///
    /// let (b, h) = (SymDim::sym("B"), SymDim::sym("H"));
    /// let r = Reduce::new("b c (h 2) -> b c h", Reduction::Max)?;
    /// let s = r.infer_symbolic(&[b.clone(), SymDim::from(64), h.clone()])?;
    /// assert_eq!(s.dims()[0], b);
    /// assert_eq!(s.dims()[2].to_string(), "H/2");
    /// assert_eq!(s.conditions().len(), 1); // H % 2 == 0
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn infer_symbolic(&self, input: &[SymDim]) -> Result<SymShape, ReshapeError> {
        let mut dims = Small::new();
        let found = self
            .spec
            .with_recipe(input.len(), |r| r.output(input, &mut dims, true))
            .map_err(|f| f.attach_sym(Origin::Rearrange, input, self))?;
        Ok(SymShape::new(dims, found.iter().cloned()))
    }

    /// The ONNX nodes that compute this reduction of an input of shape `input` in opset
    /// `opset`: a `Reshape` into the pattern's elementary axes, the reduce node over the
    /// reduced ones (axes as an attribute or, from opset 13 for `ReduceSum` and 18 for the
    /// others, as an input), a `Transpose` of the kept axes into their order on the right, and
    /// a `Reshape` into the output's groups; each only where it changes something.
    ///
    /// # Errors
    ///
    /// The pattern's errors for this input, and
    /// [`OnnxInexpressible`](ReshapeError::OnnxInexpressible) for `any` or `all` before opset
    /// 20 (ONNX reduces `bool` from there).
    ///
    /// ```
    /// use ndarray_reshape::{Onnx, OnnxNode, Reduce, Reduction};
    ///
    /// let pool = Reduce::new("b c (h 2) (w 2) -> b c h w", Reduction::Max)?;
    /// let nodes = pool.to_onnx_nodes(&[8, 64, 112, 112], 18)?;
    /// assert_eq!(nodes[0], OnnxNode::Reshape(Onnx::new([8, 64, 56, 2, 56, 2])));
    /// assert_eq!(
    ///     nodes[1],
    ///     OnnxNode::Reduce { reduction: Reduction::Max, axes: vec![3, 5], keepdims: false, axes_input: true }
    /// );
    /// assert_eq!(nodes.len(), 2);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn to_onnx_nodes(
        &self,
        input: &[usize],
        opset: u32,
    ) -> Result<Vec<OnnxNode>, ReshapeError> {
        let (mut dims, mut split, mut kept) = (Small::new(), Arrangement::default(), Small::new());
        self.plan(input, &mut dims, &mut split, &mut kept)?;
        let reshape =
            |s: &[usize]| OnnxNode::Reshape(Onnx::new(s.to_vec()).allowzero(s.contains(&0)));
        let mut nodes = Vec::new();
        let mut now: Vec<usize> = split.shape.to_vec();
        if now != input {
            nodes.push(reshape(&now));
        }
        let axes: Vec<usize> = (0..now.len()).filter(|k| !kept.contains(k)).collect();
        if !axes.is_empty() {
            let r = self.reduction;
            if matches!(r, Reduction::Any | Reduction::All) && opset < 20 {
                let why =
                    format!("ONNX reduces bool (ReduceMax, ReduceMin) from opset 20, not {opset}");
                return Err(Fail::whole(Rule::OnnxInexpressible, why).attach(
                    Origin::Rearrange,
                    input,
                    self,
                ));
            }
            let axes_input = match r {
                Reduction::Sum => opset >= 13,
                _ => opset >= 18,
            };
            now = (0..now.len())
                .filter(|k| kept.contains(k))
                .map(|k| now[k])
                .collect();
            nodes.push(OnnxNode::Reduce {
                reduction: r,
                axes,
                keepdims: false,
                axes_input,
            });
        }
        let mut sorted: Vec<usize> = kept.to_vec();
        sorted.sort_unstable();
        let perm: Vec<usize> = kept
            .iter()
            .map(|k| sorted.iter().position(|s| s == k).unwrap_or(0))
            .collect();
        if perm.iter().enumerate().any(|(i, &p)| i != p) {
            now = perm.iter().map(|&p| now[p]).collect();
            nodes.push(OnnxNode::Transpose { perm });
        }
        if *dims != *now {
            nodes.push(reshape(&dims));
        }
        Ok(nodes)
    }

    /// The plan of a reduction of an input of shape `input`: the output shape, the input's
    /// axes split into the pattern's elementary axes (in input order), and those kept, in the
    /// order of the right side.
    pub(crate) fn plan(
        &self,
        input: &[usize],
        dims: &mut Small<usize>,
        split: &mut Arrangement,
        kept: &mut Small<usize>,
    ) -> Result<(), ReshapeError> {
        self.spec
            .with_recipe(input.len(), |r| r.reduction(input, dims, split, kept))
            .map_err(|f| f.attach(Origin::Rearrange, input, self))?;
        // `max` and `min` of no elements have no value: a reduced axis of length 0 is refused
        // unless the output is empty too (then no element needs one).
        let r = self.reduction;
        let reduced = (0..split.shape.len()).filter(|k| !kept.contains(k));
        if r.needs_elements() && !dims.contains(&0) && reduced.clone().any(|k| split.shape[k] == 0)
        {
            let axes: Vec<usize> = reduced.collect();
            let why = format!(
                "{r} of no elements: the reduced axes {axes:?} of the split input are empty"
            );
            return Err(Fail::whole(Rule::ZeroSizeReduction, why).attach(
                Origin::Rearrange,
                input,
                self,
            ));
        }
        Ok(())
    }

    /// The pattern as a rearrangement, for a reduction that reduces nothing.
    pub(crate) fn as_rearrange(&self) -> &Rearrange {
        &self.spec
    }
}

impl fmt::Display for Reduce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reduce {:?} {}", self.spec.pattern(), self.reduction)?;
        for (name, len) in self.spec.lengths() {
            write!(f, " {name}={len}")?;
        }
        Ok(())
    }
}

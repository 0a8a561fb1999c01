//! What a whole-graph walk knows of each tensor ([`TensorFact`]): its element type
//! ([`ElemType`]), its shape in [`SymDim`]s, and, for a small integer tensor, the
//! [`ShapeValue`] it holds.

use std::fmt;

use crate::graph::{ElemType, ShapeValue};
use crate::sym::{Condition, SymDim};

/// What a whole-graph walk ([`Graph::infer`](crate::Graph::infer)) knows of one tensor: its
/// element type, its shape (each dim a [`SymDim`] over the graph inputs' symbols, or a
/// fresh symbol where the graph's data decides it), the [`ShapeValue`] it holds where it is
/// a small integer tensor computed from shapes and constants, and the conditions the node
/// that computes it needs.
///
/// ```
/// use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim, SymDim};
///
/// let mut g = Graph::new(17);
/// g.input("x", ElemType::FLOAT, [InputDim::named("B"), InputDim::from(64)]);
/// g.node(GraphNode::new("Shape", ["x"], ["s"]));
/// let shapes = g.infer(&Default::default())?;
/// let s = shapes.fact("s").unwrap();
/// assert_eq!(s.elem(), Some(ElemType::INT64));
/// assert_eq!(s.shape(), Some(&[SymDim::from(2)][..]));
/// assert_eq!(s.value().unwrap().to_string(), "[B, 64]");
/// assert!(s.conditions().is_empty());
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TensorFact {
    pub(crate) elem: Option<ElemType>,
    pub(crate) shape: Option<Vec<SymDim>>,
    /// Boxed: most tensors hold none, and a walk keeps every tensor's fact.
    pub(crate) value: Option<Box<ShapeValue>>,
    /// The values of a small float constant (a `Resize`'s scales).
    pub(crate) floats: Option<Vec<f64>>,
    /// The values of a float tensor that holds integers the graph computed (a shape value
    /// cast to `float32`).
    pub(crate) integral: Option<Vec<SymDim>>,
    pub(crate) conditions: Vec<Condition>,
}

impl TensorFact {
    /// A tensor of `elem` and `shape` (`None`: rank unknown), nothing else known.
    pub(crate) fn new(elem: Option<ElemType>, shape: Option<Vec<SymDim>>) -> TensorFact {
        TensorFact {
            elem,
            shape,
            value: None,
            floats: None,
            integral: None,
            conditions: Vec::new(),
        }
    }

    /// The element type; `None` where no rule gives it (an operator outside the table,
    /// walked on with fresh symbols).
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::from(3)]);
    /// assert_eq!(g.infer(&Default::default())?.fact("x").unwrap().elem(), Some(ElemType::FLOAT));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn elem(&self) -> Option<ElemType> {
        self.elem
    }

    /// The shape; `None` where the rank is not known (an input declared without a shape).
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, InputDim, SymDim};
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::from(3), InputDim::named("T")]);
    /// let shapes = g.infer(&Default::default())?;
    /// assert_eq!(shapes.fact("x").unwrap().shape(), Some(&[SymDim::from(3), SymDim::sym("T")][..]));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn shape(&self) -> Option<&[SymDim]> {
        self.shape.as_deref()
    }

    /// The integer values the tensor holds, where it is a 0-D or 1-D integer tensor computed
    /// from shapes and constants (what a `Reshape`, `Expand` or `Slice` reads).
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::named("N"), InputDim::from(8)]);
    /// g.node(GraphNode::new("Shape", ["x"], ["s"]));
    /// let shapes = g.infer(&Default::default())?;
    /// assert_eq!(shapes.fact("s").unwrap().value().unwrap().to_string(), "[N, 8]");
    /// assert!(shapes.fact("x").unwrap().value().is_none());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn value(&self) -> Option<&ShapeValue> {
        self.value.as_deref()
    }

    /// The conditions on the symbols under which the node that computes this tensor gives
    /// this shape (and value): dims that must agree, divisions that must be exact.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("a", ElemType::FLOAT, [InputDim::named("M"), InputDim::named("K")]);
    /// g.input("b", ElemType::FLOAT, [InputDim::named("J"), InputDim::from(4)]);
    /// g.node(GraphNode::new("MatMul", ["a", "b"], ["y"]));
    /// let shapes = g.infer(&Default::default())?;
    /// let c = &shapes.fact("y").unwrap().conditions()[0]; // J == K
    /// assert_eq!(c.holds(&[("J", 8), ("K", 8)]), Some(true));
    /// assert_eq!(c.holds(&[("J", 8), ("K", 4)]), Some(false));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn conditions(&self) -> &[Condition] {
        &self.conditions
    }
}

/// `float32[B, 64]`, `int64[2] = [B, 64]`, `?[?]`.
impl fmt::Display for TensorFact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.elem {
            Some(e) => write!(f, "{e}")?,
            None => f.write_str("?")?,
        }
        match &self.shape {
            Some(s) => {
                let dims: Vec<String> = s.iter().map(SymDim::to_string).collect();
                write!(f, "[{}]", dims.join(", "))?;
            }
            None => f.write_str("[?]")?,
        }
        if let Some(v) = &self.value {
            write!(f, " = {v}")?;
        }
        Ok(())
    }
}

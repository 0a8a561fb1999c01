//! What a whole-graph walk returns: [`GraphShapes`] (every tensor's fact, the conditions the
//! graph needs with their nodes, what is not exact), and [`BoundShapes`], its meeting with
//! concrete input shapes.

use std::collections::HashMap;
use std::fmt;

use super::facts::TensorFact;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::sym::{Condition, KeyedBuild, SymDim};

/// What the walk does at an operator its tables do not hold.
///
/// ```
/// use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim, UnknownOps};
/// let mut g = Graph::new(17);
/// g.input("x", ElemType::FLOAT, [InputDim::from(4)]);
/// g.node(GraphNode::new("MyOp", ["x"], ["y"]).domain("my.domain"));
/// assert_eq!(g.infer(&Default::default()).unwrap_err().category(), "unknown_op");
/// let shapes = g.infer_with(&Default::default(), UnknownOps::Fresh)?;
/// assert_eq!(shapes.fact("y").unwrap().shape(), None);
/// assert!(shapes.inexact()[0].why().contains("MyOp"));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownOps {
    /// An [`UnknownOp`](ReshapeError::UnknownOp) error naming the node.
    #[default]
    Fail,
    /// Outputs of unknown type and rank, the node named in [`GraphShapes::inexact`].
    Fresh,
}

/// A condition a graph needs, with the node that needs it.
///
/// ```
/// use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
/// let mut g = Graph::new(17);
/// g.input("a", ElemType::FLOAT, [InputDim::named("N")]);
/// g.input("b", ElemType::FLOAT, [InputDim::named("M")]);
/// g.node(GraphNode::new("Add", ["a", "b"], ["c"]).named("add"));
/// let shapes = g.infer(&Default::default())?;
/// let c = &shapes.conditions()[0];
/// assert_eq!(c.node(), "add");
/// assert_eq!(c.condition().to_string(), "N == M || N == 1 || M == 1");
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphCondition {
    pub(crate) condition: Condition,
    pub(crate) node: String,
}

impl GraphCondition {
    /// The condition.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// # let mut g = Graph::new(17);
    /// # g.input("a", ElemType::FLOAT, [InputDim::named("K"), InputDim::named("J")]);
    /// # g.node(GraphNode::new("MatMul", ["a", "a"], ["c"]));
    /// let shapes = g.infer(&Default::default())?;
    /// let c = shapes.conditions()[0].condition(); // J == K
    /// assert_eq!(c.holds(&[("J", 4), ("K", 4)]), Some(true));
    /// assert_eq!(c.holds(&[("J", 4), ("K", 5)]), Some(false));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn condition(&self) -> &Condition {
        &self.condition
    }

    /// The name of the (first) node that needs it.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// # let mut g = Graph::new(17);
    /// # g.input("a", ElemType::FLOAT, [InputDim::named("K"), InputDim::named("J")]);
    /// # g.node(GraphNode::new("MatMul", ["a", "a"], ["c"]).named("mm"));
    /// let shapes = g.infer(&Default::default())?;
    /// assert_eq!(shapes.conditions()[0].node(), "mm");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn node(&self) -> &str {
        &self.node
    }
}

/// A tensor whose shape is not exact in the graph's input symbols, and why: its dims (or
/// rank) are fresh symbols named after it (`tensor.axis`), bounded where the node bounds
/// them.
///
/// ```
/// use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
/// let mut g = Graph::new(17);
/// g.input("x", ElemType::FLOAT, [InputDim::named("N")]);
/// g.node(GraphNode::new("NonZero", ["x"], ["nz"]).named("where"));
/// let shapes = g.infer(&Default::default())?;
/// assert_eq!(shapes.fact("nz").unwrap().to_string(), "int64[1, nz.1]");
/// let why = &shapes.inexact()[0];
/// assert_eq!((why.node(), why.tensor()), ("where", "nz"));
/// assert!(why.why().contains("data"));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inexact {
    pub(crate) node: String,
    pub(crate) tensor: String,
    pub(crate) why: String,
    pub(crate) bounds: Vec<Condition>,
}

impl Inexact {
    /// What is known of the fresh symbols: bounds that hold for every run (`nz.1 <= 4*N`, the
    /// non-zero elements of a `[4, N]` tensor), for a caller's assumptions or a runtime check.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::from(4), InputDim::named("N")]);
    /// g.node(GraphNode::new("NonZero", ["x"], ["nz"]));
    /// let shapes = g.infer(&Default::default())?;
    /// let bound = &shapes.inexact()[0].bounds()[0];
    /// assert_eq!(bound.to_string(), "nz.1 <= 4*N");
    /// assert_eq!(bound.holds(&[("nz.1", 7), ("N", 2)]), Some(true));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn bounds(&self) -> &[Condition] {
        &self.bounds
    }

    /// The node that computes the tensor.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// # let mut g = Graph::new(17);
    /// # g.input("x", ElemType::FLOAT, [InputDim::named("N")]);
    /// # g.node(GraphNode::new("NonZero", ["x"], ["nz"]).named("nonzero"));
    /// assert_eq!(g.infer(&Default::default())?.inexact()[0].node(), "nonzero");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The tensor.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// # let mut g = Graph::new(17);
    /// # g.input("x", ElemType::FLOAT, [InputDim::named("N")]);
    /// # g.node(GraphNode::new("NonZero", ["x"], ["nz"]));
    /// assert_eq!(g.infer(&Default::default())?.inexact()[0].tensor(), "nz");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn tensor(&self) -> &str {
        &self.tensor
    }

    /// Why its shape is not exact.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// # let mut g = Graph::new(17);
    /// # g.input("x", ElemType::FLOAT, [InputDim::named("N")]);
    /// # g.node(GraphNode::new("NonZero", ["x"], ["nz"]));
    /// assert!(!g.infer(&Default::default())?.inexact()[0].why().is_empty());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn why(&self) -> &str {
        &self.why
    }
}

/// Every tensor's fact of a walked graph ([`Graph::infer`](crate::Graph::infer)), the conditions under which the
/// graph is valid, and what is not exact. `{}` writes one tensor a line, then the conditions
/// and the report.
///
/// ```
/// use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim, OpAttr, TensorData};
///
/// // A ViT patch embedding: Conv 16x16 stride 16, Flatten(2), Transpose.
/// let mut g = Graph::new(17);
/// g.input("pixels", ElemType::FLOAT, [InputDim::named("B"), 3.into(), InputDim::named("H"), InputDim::named("W")]);
/// g.initializer("w", TensorData::new(ElemType::FLOAT, [768, 3, 16, 16]));
/// g.initializer("shape", TensorData::new(ElemType::INT64, [3]).with_ints([0, 768, -1]));
/// g.node(GraphNode::new("Conv", ["pixels", "w"], ["p"]).attr("kernel_shape", OpAttr::from([16i64, 16])).attr("strides", OpAttr::from([16i64, 16])));
/// g.node(GraphNode::new("Reshape", ["p", "shape"], ["f"]));
/// g.node(GraphNode::new("Transpose", ["f"], ["t"]).attr("perm", OpAttr::from([0i64, 2, 1])));
/// let shapes = g.infer(&Default::default())?;
/// assert_eq!(shapes.fact("t").unwrap().to_string(), "float32[B, (H // 16)*(W // 16), 768]");
/// let bound = shapes.bind(&[("pixels", &[2, 3, 224, 224])])?;
/// assert_eq!(bound.shape("t"), Some(&[2, 196, 768][..]));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct GraphShapes {
    pub(crate) tensors: Vec<(String, TensorFact)>,
    pub(crate) index: HashMap<String, usize, KeyedBuild>,
    /// The graph inputs' declared dims, which [`bind`](Self::bind) solves.
    pub(crate) inputs: Vec<(String, Vec<SymDim>)>,
    pub(crate) conditions: Vec<GraphCondition>,
    pub(crate) inexact: Vec<Inexact>,
}

impl GraphShapes {
    /// The fact of tensor `name` (a graph input, an initializer or a node output).
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::from(2)]);
    /// let shapes = g.infer(&Default::default())?;
    /// assert!(shapes.fact("x").is_some());
    /// assert!(shapes.fact("nothing").is_none());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn fact(&self, name: &str) -> Option<&TensorFact> {
        self.index.get(name).map(|&i| &self.tensors[i].1)
    }

    /// Every tensor with its fact: the graph inputs, the initializers, then the node outputs
    /// in node order.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::from(2)]);
    /// g.node(GraphNode::new("Relu", ["x"], ["y"]));
    /// let shapes = g.infer(&Default::default())?;
    /// let names: Vec<&str> = shapes.tensors().map(|(n, _)| n).collect();
    /// assert_eq!(names, ["x", "y"]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn tensors(&self) -> impl Iterator<Item = (&str, &TensorFact)> {
        self.tensors.iter().map(|(n, f)| (n.as_str(), f))
    }

    /// The conditions on the input symbols under which the graph computes these shapes, each
    /// once, with the first node that needs it; those the walk's
    /// [`Assumptions`](crate::Assumptions) imply are left out.
    ///
    /// ```
    /// # use ndarray_reshape::{Assumptions, ElemType, Graph, GraphNode, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("a", ElemType::FLOAT, [InputDim::named("K"), InputDim::named("J")]);
    /// g.node(GraphNode::new("MatMul", ["a", "a"], ["c"]));
    /// assert_eq!(g.infer(&Assumptions::new())?.conditions().len(), 1); // J == K
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn conditions(&self) -> &[GraphCondition] {
        &self.conditions
    }

    /// The tensors whose shapes are not exact in the input symbols, and why.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::named("N")]);
    /// g.node(GraphNode::new("Relu", ["x"], ["y"]));
    /// assert!(g.infer(&Default::default())?.inexact().is_empty());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn inexact(&self) -> &[Inexact] {
        &self.inexact
    }

    /// Every tensor's concrete shape for graph inputs of the shapes `inputs` (each input
    /// declared with a shape must be given): the input symbols solved, every condition
    /// checked, every dim evaluated. A tensor whose shape holds a fresh symbol (data decides
    /// it) has none.
    ///
    /// # Errors
    ///
    /// [`BindMismatch`](ReshapeError::BindMismatch) for an input not given, of another rank,
    /// or whose sizes disagree with its declared dims or with another input's (the position
    /// is the dim); [`Unsatisfiable`](ReshapeError::Unsatisfiable) naming the first condition
    /// that fails and the node that needs it (a shape bug found before running the model).
    ///
    /// ```
    /// use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("a", ElemType::FLOAT, [InputDim::named("M"), InputDim::named("K")]);
    /// g.input("b", ElemType::FLOAT, [InputDim::named("J"), InputDim::named("N")]);
    /// g.node(GraphNode::new("MatMul", ["a", "b"], ["y"]).named("proj"));
    /// let shapes = g.infer(&Default::default())?;
    /// assert_eq!(shapes.bind(&[("a", &[2, 8]), ("b", &[8, 5])])?.shape("y"), Some(&[2, 5][..]));
    /// let e = shapes.bind(&[("a", &[2, 8]), ("b", &[7, 5])]).unwrap_err();
    /// assert_eq!(e.category(), "unsatisfiable");
    /// assert!(e.to_string().contains("proj"));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn bind(&self, inputs: &[(&str, &[usize])]) -> Result<BoundShapes<'_>, ReshapeError> {
        let mut found: Vec<(String, usize)> = Vec::new();
        for (name, dims) in &self.inputs {
            let fail = |rule, at, why: String| {
                Fail::new(rule, at, why).attach_sym(Origin::Symbols, dims, format!("bind {name}"))
            };
            let Some((_, shape)) = inputs.iter().find(|(n, _)| n == name) else {
                return Err(fail(
                    Rule::BindMismatch,
                    None,
                    format!("no shape for the input {name}"),
                ));
            };
            let b = SymDim::bind(dims, shape)
                .map_err(|e| fail(Rule::BindMismatch, e.context().position(), e.to_string()))?;
            for (s, v) in b.pairs() {
                match found.iter().find(|(t, _)| t == s) {
                    Some((_, w)) if *w != v => {
                        let why = format!("{s} is {w} by an earlier input and {v} by {name}");
                        return Err(fail(Rule::BindMismatch, None, why));
                    }
                    Some(_) => {}
                    None => found.push((s.to_string(), v)),
                }
            }
        }
        let pairs: Vec<(&str, usize)> = found.iter().map(|(s, v)| (s.as_str(), *v)).collect();
        for (i, c) in self.conditions.iter().enumerate() {
            if c.condition.holds(&pairs) == Some(false) {
                let why = format!("{} fails at node {} where {pairs:?}", c.condition, c.node);
                return Err(Fail::at(Rule::Unsatisfiable, i, why)
                    .attach_no_input(Origin::Symbols, "bind graph"));
            }
        }
        let shapes = self
            .tensors
            .iter()
            .map(|(_, f)| {
                let dims = f.shape.as_ref()?;
                dims.iter().map(|d| d.eval(&pairs)).collect()
            })
            .collect();
        Ok(BoundShapes {
            index: &self.index,
            shapes,
            symbols: found,
        })
    }
}

impl fmt::Display for GraphShapes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, fact) in &self.tensors {
            writeln!(f, "{name}: {fact}")?;
        }
        for c in &self.conditions {
            writeln!(f, "needs {} (node {})", c.condition, c.node)?;
        }
        for i in &self.inexact {
            write!(f, "not exact: {} (node {}): {}", i.tensor, i.node, i.why)?;
            for b in &i.bounds {
                write!(f, "; {b}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Every tensor's concrete shape ([`GraphShapes::bind`]).
///
/// ```
/// use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
/// let mut g = Graph::new(17);
/// g.input("x", ElemType::FLOAT, [InputDim::named("N"), 4.into()]);
/// g.node(GraphNode::new("Relu", ["x"], ["y"]));
/// let shapes = g.infer(&Default::default())?;
/// let bound = shapes.bind(&[("x", &[3, 4])])?;
/// assert_eq!(bound.shape("y"), Some(&[3, 4][..]));
/// assert_eq!(bound.symbol("N"), Some(3));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone)]
pub struct BoundShapes<'a> {
    index: &'a HashMap<String, usize, KeyedBuild>,
    shapes: Vec<Option<Vec<usize>>>,
    symbols: Vec<(String, usize)>,
}

impl BoundShapes<'_> {
    /// Tensor `name`'s shape; `None` for a tensor the graph does not have or whose shape
    /// data decides.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, InputDim};
    /// # let mut g = Graph::new(17);
    /// # g.input("x", ElemType::FLOAT, [InputDim::named("N")]);
    /// # let shapes = g.infer(&Default::default())?;
    /// assert_eq!(shapes.bind(&[("x", &[5])])?.shape("x"), Some(&[5][..]));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn shape(&self, name: &str) -> Option<&[usize]> {
        self.index
            .get(name)
            .and_then(|&i| self.shapes[i].as_deref())
    }

    /// The size of input symbol `name`.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, InputDim};
    /// # let mut g = Graph::new(17);
    /// # g.input("x", ElemType::FLOAT, [InputDim::named("N")]);
    /// # let shapes = g.infer(&Default::default())?;
    /// assert_eq!(shapes.bind(&[("x", &[5])])?.symbol("N"), Some(5));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn symbol(&self, name: &str) -> Option<usize> {
        self.symbols
            .iter()
            .find(|(s, _)| s == name)
            .map(|(_, v)| *v)
    }
}

//! The whole-graph walk: [`Graph::infer`] runs each node's shape rule and value rule on the
//! facts of its inputs, in order, and [`GraphShapes`] holds every tensor's fact, the
//! conditions the graph needs and what is not exact; [`GraphShapes::bind`] meets it with
//! concrete input shapes.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;

use super::desc::{canonical, Graph, GraphNode, InputDim, NodeAttr, TensorData};
use super::facts::{ElemType, TensorFact};
use super::shapes::{table, Node, Out, Stop};
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::graph::{Call, OpAttr, ShapeValue, MAX_ENTRIES};
use crate::sym::{Assumptions, Condition, SymDim};

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
/// assert_eq!(c.condition().to_string(), "M == N || M == 1 || N == 1");
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphCondition {
    condition: Condition,
    node: String,
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
}

impl Inexact {
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

/// Every tensor's fact of a walked graph ([`Graph::infer`]), the conditions under which the
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
#[derive(Debug, Clone)]
pub struct GraphShapes {
    tensors: Vec<(String, TensorFact)>,
    index: HashMap<String, usize>,
    inputs: Vec<(String, Vec<SymDim>)>,
    conditions: Vec<GraphCondition>,
    inexact: Vec<Inexact>,
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
    /// [`Assumptions`] imply are left out.
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
            writeln!(f, "not exact: {} (node {}): {}", i.tensor, i.node, i.why)?;
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
    index: &'a HashMap<String, usize>,
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

impl Graph {
    /// Every tensor's element type and shape (and, for small integer tensors, value), from
    /// the graph inputs' declared dims alone: each node's shape rule and value rule, in
    /// order, as ONNX's operator at the graph's opset defines it, with `assume`'s facts on
    /// the symbols deciding what they decide (`multiple_of("H", 32)` makes YOLO's strides
    /// `H // 32`, exact) and simplifying every dim. An operator the tables do not hold is an
    /// error ([`infer_with`](Self::infer_with) walks on).
    ///
    /// # Errors
    ///
    /// [`UnknownTensor`](ReshapeError::UnknownTensor) for an input no earlier tensor defines;
    /// [`UnknownOp`](ReshapeError::UnknownOp) for an operator outside the tables;
    /// [`BadAttribute`](ReshapeError::BadAttribute) for attributes or inputs the operator does
    /// not have at its opset; [`Broadcast`](ReshapeError::Broadcast) and
    /// [`DimMismatch`](ReshapeError::DimMismatch) for dims that never agree;
    /// [`Unsatisfiable`](ReshapeError::Unsatisfiable) for a condition `assume` refutes; and
    /// the reshape dialects' errors for a `Reshape` that cannot be. Each names the node.
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, ElemType, Graph, GraphNode, InputDim, OpAttr};
    ///
    /// // Three stride-2 max pools of a YOLO neck.
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::from(1), 16.into(), InputDim::named("H"), InputDim::named("W")]);
    /// let pool = |i: &str, o: &str| GraphNode::new("MaxPool", [i], [o])
    ///     .attr("kernel_shape", OpAttr::from([2i64, 2]))
    ///     .attr("strides", OpAttr::from([2i64, 2]));
    /// g.node(pool("x", "p1")).node(pool("p1", "p2")).node(pool("p2", "p3"));
    /// let shapes = g.infer(&Assumptions::new())?;
    /// assert_eq!(shapes.fact("p3").unwrap().to_string(), "float32[1, 16, H // 8, W // 8]");
    /// let known = Assumptions::new().multiple_of("H", 32).multiple_of("W", 32);
    /// let shapes = g.infer(&known)?;
    /// assert_eq!(shapes.fact("p3").unwrap().to_string(), "float32[1, 16, H/8, W/8]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn infer(&self, assume: &Assumptions) -> Result<GraphShapes, ReshapeError> {
        self.infer_with(assume, UnknownOps::Fail)
    }

    /// [`infer`](Self::infer), with `unknown` saying what to do at an operator outside the
    /// tables.
    ///
    /// # Errors
    ///
    /// As for [`infer`](Self::infer), but for unknown operators under
    /// [`UnknownOps::Fresh`].
    ///
    /// ```
    /// use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim, UnknownOps};
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::from(4)]);
    /// g.node(GraphNode::new("Custom", ["x"], ["y"]));
    /// g.node(GraphNode::new("Relu", ["x"], ["z"]));
    /// let shapes = g.infer_with(&Default::default(), UnknownOps::Fresh)?;
    /// assert_eq!(shapes.fact("z").unwrap().to_string(), "float32[4]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn infer_with(
        &self,
        assume: &Assumptions,
        unknown: UnknownOps,
    ) -> Result<GraphShapes, ReshapeError> {
        let mut w = Walk {
            graph: self,
            symbols: HashSet::new(),
            assume,
            unknown,
            out: GraphShapes {
                tensors: Vec::new(),
                index: HashMap::new(),
                inputs: Vec::new(),
                conditions: Vec::new(),
                inexact: Vec::new(),
            },
        };
        for (name, elem, dims) in &self.inputs {
            let shape = dims.as_ref().map(|dims| {
                let dims: Vec<SymDim> = dims
                    .iter()
                    .enumerate()
                    .map(|(axis, d)| match d {
                        InputDim::Known(v) => SymDim::from(*v),
                        InputDim::Named(s) => SymDim::sym(s),
                        InputDim::Unnamed => SymDim::sym(&format!("{name}.{axis}")),
                    })
                    .collect();
                for d in &dims {
                    w.symbols.extend(d.symbols().into_iter().map(String::from));
                }
                w.out.inputs.push((name.clone(), dims.clone()));
                dims
            });
            w.define("graph inputs", name, TensorFact::new(Some(*elem), shape))?;
        }
        for (name, t) in &self.initializers {
            // An initializer of an input's name is that input's default value (IR < 4).
            if !w.out.index.contains_key(name) {
                w.define("initializers", name, constant(t))?;
            }
        }
        for node in &self.nodes {
            w.node(node)?;
        }
        Ok(w.out)
    }
}

struct Walk<'g> {
    graph: &'g Graph,
    /// The graph inputs' symbols.
    symbols: HashSet<String>,
    assume: &'g Assumptions,
    unknown: UnknownOps,
    out: GraphShapes,
}

/// The fact of a constant tensor: its values where they are a shape value's.
fn constant(t: &TensorData) -> TensorFact {
    let shape: Vec<SymDim> = t.shape.iter().map(|&d| SymDim::from(d)).collect();
    let mut fact = TensorFact::new(Some(t.elem), Some(shape));
    let count: Option<usize> = t.shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    if let (Some(ints), true) = (&t.ints, t.elem.is_integer() && t.shape.len() <= 1) {
        if ints.len() <= MAX_ENTRIES && count == Some(ints.len()) {
            fact.value = Some(match t.shape.is_empty() {
                true => ShapeValue::scalar(ints[0]),
                false => ShapeValue::from(&ints[..]),
            });
        }
    }
    if let Some(fl) = &t.floats {
        if count == Some(fl.len()) {
            fact.floats = Some(fl.clone());
        }
    }
    fact
}

impl Walk<'_> {
    fn define(&mut self, what: &str, name: &str, fact: TensorFact) -> Result<(), ReshapeError> {
        if self.out.index.contains_key(name) {
            let why = format!("the tensor {name} is defined twice ({what})");
            return Err(Fail::whole(Rule::UnknownTensor, why).attach_no_input(Origin::Graph, name));
        }
        self.out
            .index
            .insert(name.to_string(), self.out.tensors.len());
        self.out.tensors.push((name.to_string(), fact));
        Ok(())
    }

    fn node(&mut self, node: &GraphNode) -> Result<(), ReshapeError> {
        let desc = format!("{} ({})", node.name, node.op);
        let mut inputs: Vec<Option<&TensorFact>> = Vec::with_capacity(node.inputs.len());
        for (i, name) in node.inputs.iter().enumerate() {
            if name.is_empty() {
                inputs.push(None);
                continue;
            }
            match self.out.index.get(name) {
                Some(&at) => inputs.push(Some(&self.out.tensors[at].1)),
                None => {
                    let why = format!("no tensor {name} before this node");
                    return Err(
                        Fail::at(Rule::UnknownTensor, i, why).attach_no_input(Origin::Graph, desc)
                    );
                }
            }
        }
        let shown: Vec<String> = inputs
            .iter()
            .map(|f| f.map_or_else(|| "-".to_string(), |f| f.to_string()))
            .collect();
        let wrap = |e: ReshapeError| {
            let pos = e.context().position();
            Fail::new(e.rule(), pos, e.to_string()).attach_sym(Origin::Graph, &shown, &desc)
        };
        let domain = canonical(&node.domain);
        let opset = self.graph.opset_of(domain).unwrap_or(1);
        let mut values: Vec<(&str, OpAttr)> = Vec::new();
        let mut tensors: Vec<(&str, &TensorData)> = Vec::new();
        for (k, v) in &node.attrs {
            match v {
                NodeAttr::Value(v) => values.push((k, v.clone())),
                NodeAttr::Tensor(t) => {
                    tensors.push((k, t));
                    if let Some(v) = tensor_attr(t) {
                        values.push((k, v));
                    }
                }
                NodeAttr::Graph(_) | NodeAttr::Graphs(_) | NodeAttr::Strings(_) => {}
            }
        }
        let c = Call {
            framework: "onnx",
            op: &node.op,
            inputs: &[],
            attrs: &values,
            opset: Some(opset),
        };
        let outs = match table::find(domain, &node.op, opset) {
            None if node.op == "Constant" && domain.is_empty() => Ok(Done {
                facts: vec![constant_node(&c, &tensors).map_err(wrap)?],
                conditions: Vec::new(),
                inexact: Vec::new(),
            }),
            None => {
                let why = format!(
                    "no operator {}{} at opset {opset} in the tables",
                    match domain {
                        "" => String::new(),
                        d => format!("{d}::"),
                    },
                    node.op
                );
                if self.unknown == UnknownOps::Fail {
                    return Err(Fail::whole(Rule::UnknownOp, why).attach_sym(
                        Origin::Graph,
                        &shown,
                        &desc,
                    ));
                }
                Err(why)
            }
            Some((row, rule)) => {
                row.check(&c, inputs.len()).map_err(wrap)?;
                let n = Node {
                    c,
                    inputs: &inputs,
                    tensors: &tensors,
                    outputs: node.outputs.len(),
                    out_names: &node.outputs,
                    name: &node.name,
                    assume: self.assume,
                    symbols: &self.symbols,
                    conditions: RefCell::new(Vec::new()),
                    inexact: RefCell::new(Vec::new()),
                };
                match rule(&n) {
                    Ok(mut outs) => {
                        let value = row.value_rule().and_then(|run| value_of(&n, run));
                        match value {
                            Some(Ok(v)) => {
                                if let Some(o) = outs.first_mut() {
                                    o.shape = Some(match v.rank() {
                                        0 => Vec::new(),
                                        _ => vec![SymDim::from(v.len())],
                                    });
                                }
                                Ok(finish(self.assume, node, &n, outs, Some(v)).map_err(wrap)?)
                            }
                            Some(Err(e)) => return Err(wrap(e)),
                            None => Ok(finish(self.assume, node, &n, outs, None).map_err(wrap)?),
                        }
                    }
                    Err(Stop::Error(e)) => return Err(wrap(e)),
                    Err(Stop::Unknown(why)) => Err(why),
                }
            }
        };
        let facts = match outs {
            Ok(done) => {
                for c in done.conditions {
                    if !self.out.conditions.iter().any(|g| g.condition == c) {
                        self.out.conditions.push(GraphCondition {
                            condition: c,
                            node: node.name.clone(),
                        });
                    }
                }
                self.out.inexact.extend(done.inexact);
                done.facts
            }
            Err(why) => {
                let mut facts = Vec::new();
                for name in &node.outputs {
                    self.out.inexact.push(Inexact {
                        node: node.name.clone(),
                        tensor: name.clone(),
                        why: why.clone(),
                    });
                    facts.push(TensorFact::new(None, None));
                }
                facts
            }
        };
        for (name, fact) in node.outputs.iter().zip(facts) {
            if !name.is_empty() {
                self.define("node outputs", name, fact)?;
            }
        }
        Ok(())
    }
}

/// What a node gave: its outputs' facts, the conditions it needs and what is not exact.
struct Done {
    facts: Vec<TensorFact>,
    conditions: Vec<Condition>,
    inexact: Vec<Inexact>,
}

/// The facts of a node's outputs: dims simplified under the assumptions, conditions kept
/// where they do not decide them.
fn finish(
    assume: &Assumptions,
    node: &GraphNode,
    n: &Node<'_>,
    outs: Vec<Out>,
    value: Option<ShapeValue>,
) -> Result<Done, ReshapeError> {
    if outs.len() < node.outputs.len() {
        let why = format!(
            "{} has {} outputs here, the node names {}",
            node.op,
            outs.len(),
            node.outputs.len()
        );
        return Err(Fail::whole(Rule::BadAttribute, why).attach_no_input(Origin::Graph, &node.op));
    }
    let mut conditions = n.conditions.borrow().clone();
    if let Some(v) = &value {
        conditions.extend(v.conditions().iter().cloned());
    }
    let conditions = assume.kept(&conditions)?;
    let mut value = value;
    let facts = outs
        .into_iter()
        .take(node.outputs.len())
        .map(|o| TensorFact {
            elem: o.elem,
            shape: o
                .shape
                .map(|s| s.iter().map(|d| assume.simplified(d)).collect()),
            value: value.take(),
            floats: None,
            conditions: conditions.clone(),
        })
        .collect();
    Ok(Done {
        facts,
        conditions,
        inexact: n.inexact.take(),
    })
}

/// A tensor attribute as the value rules read it: a 0-D tensor as its entry, a 1-D one as
/// its list.
fn tensor_attr(t: &TensorData) -> Option<OpAttr> {
    match (&t.ints, &t.floats, t.shape.len()) {
        (Some(v), _, 0) if v.len() == 1 => Some(OpAttr::Int(v[0])),
        (Some(v), _, 1) => Some(OpAttr::Ints(v.clone())),
        (_, Some(v), 0) if v.len() == 1 => Some(OpAttr::Float(v[0])),
        (_, Some(v), 1) => Some(OpAttr::Floats(v.clone())),
        _ => None,
    }
}

/// The fact of a `Constant` node.
fn constant_node(
    c: &Call<'_>,
    tensors: &[(&str, &TensorData)],
) -> Result<TensorFact, ReshapeError> {
    if let [("value" | "sparse_value", t)] = tensors {
        return Ok(constant(t));
    }
    let ints =
        |elem, v: &[i64], shape: &[usize]| constant(&TensorData::new(elem, shape).with_ints(v));
    match c.attrs {
        [("value_int", OpAttr::Int(v))] => Ok(ints(ElemType::INT64, &[*v], &[])),
        [("value_ints", OpAttr::Ints(v))] => Ok(ints(ElemType::INT64, v, &[v.len()])),
        [("value_float", OpAttr::Float(v))] => Ok(constant(
            &TensorData::new(ElemType::FLOAT, []).with_floats([*v]),
        )),
        [("value_floats", OpAttr::Floats(v))] => Ok(constant(
            &TensorData::new(ElemType::FLOAT, [v.len()]).with_floats(v),
        )),
        [("value_string" | "value_strings", _)] => {
            Ok(TensorFact::new(Some(ElemType::STRING), None))
        }
        _ => Err(c.fail(
            Rule::BadAttribute,
            None,
            "Constant takes exactly one value attribute".into(),
        )),
    }
}

/// The value a node computes, where its value rule applies: every given input holds a
/// value (`Shape` and `Size` read their input's shape), and the first output is an integer
/// tensor. `None` where a value is not known or not a shape value's.
fn value_of(
    n: &Node<'_>,
    run: fn(&Call<'_>) -> Result<ShapeValue, ReshapeError>,
) -> Option<Result<ShapeValue, ReshapeError>> {
    let reads_shape = matches!(n.c.op, "Shape" | "Size");
    let mut values = Vec::with_capacity(n.inputs.len());
    for (i, f) in n.inputs.iter().enumerate() {
        values.push(match f {
            None => ShapeValue::from(Vec::<i64>::new()),
            Some(f) if reads_shape && i == 0 => ShapeValue::shape_of(f.shape()?),
            Some(f) => f.value()?.clone(),
        });
    }
    let c = Call {
        inputs: &values,
        ..n.c
    };
    match run(&c) {
        Ok(v) => Some(Ok(v)),
        // Values past a shape value's reach: floats, symbolic axes, ranks above 1.
        Err(e)
            if matches!(
                e.rule(),
                Rule::UnknownOp
                    | Rule::NeedsNumber
                    | Rule::SymbolLimit
                    | Rule::ValueTooLong
                    | Rule::ValueRank
            ) =>
        {
            None
        }
        Err(e) => Some(Err(e)),
    }
}

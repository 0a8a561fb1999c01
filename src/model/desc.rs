//! A whole ONNX graph as the walk takes it ([`Graph`]): its inputs, initializers and nodes in
//! order, with no protobuf type, so that a converter hands over what it already parsed.

use crate::graph::ElemType;
use crate::graph::OpAttr;

/// One dim of a graph input as a model declares it: a number, a named symbol (`dim_param`),
/// or neither (a fresh symbol for that input and axis, named `input.axis`).
///
/// ```
/// use ndarray_reshape::InputDim;
/// assert_eq!(InputDim::from(3), InputDim::Known(3));
/// assert_eq!(InputDim::named("batch"), InputDim::Named("batch".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputDim {
    /// A known size (`dim_value`).
    Known(usize),
    /// A named symbol (`dim_param`): inputs that share a name share the size.
    Named(String),
    /// Neither: a size of its own.
    Unnamed,
}

impl InputDim {
    /// The symbol `name`.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::InputDim::named("T").to_string(), "T");
    /// ```
    pub fn named(name: &str) -> InputDim {
        InputDim::Named(name.to_string())
    }
}

impl From<usize> for InputDim {
    fn from(v: usize) -> Self {
        InputDim::Known(v)
    }
}

impl std::fmt::Display for InputDim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputDim::Known(v) => write!(f, "{v}"),
            InputDim::Named(s) => f.write_str(s),
            InputDim::Unnamed => f.write_str("?"),
        }
    }
}

/// A tensor the graph holds (an initializer, or a `Constant`'s `value`): its element type and
/// shape, and its values where they matter to shapes (small integer tensors; small float
/// ones such as a `Resize`'s scales). The weights themselves are never needed.
///
/// ```
/// use ndarray_reshape::{ElemType, TensorData};
/// let w = TensorData::new(ElemType::FLOAT, [64, 3, 3, 3]);
/// let shape = TensorData::new(ElemType::INT64, [3]).with_ints([0, -1, 64]);
/// let scales = TensorData::new(ElemType::FLOAT, [4]).with_floats([1.0, 1.0, 2.0, 2.0]);
/// assert_eq!(w.shape(), &[64, 3, 3, 3]);
/// assert_eq!(shape.ints(), Some(&[0, -1, 64][..]));
/// assert_eq!(scales.floats(), Some(&[1.0, 1.0, 2.0, 2.0][..]));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TensorData {
    pub(crate) elem: ElemType,
    pub(crate) shape: Vec<usize>,
    pub(crate) ints: Option<Vec<i64>>,
    pub(crate) floats: Option<Vec<f64>>,
}

impl TensorData {
    /// A tensor of `elem` and `shape`, its values not given.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, TensorData};
    /// assert_eq!(TensorData::new(ElemType::FLOAT, [2, 2]).ints(), None);
    /// ```
    pub fn new(elem: ElemType, shape: impl AsRef<[usize]>) -> TensorData {
        TensorData {
            elem,
            shape: shape.as_ref().to_vec(),
            ints: None,
            floats: None,
        }
    }

    /// Its integer values (in C order).
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, TensorData};
    /// let axes = TensorData::new(ElemType::INT64, [1]).with_ints([0]);
    /// assert_eq!(axes.ints(), Some(&[0][..]));
    /// ```
    pub fn with_ints(mut self, values: impl AsRef<[i64]>) -> TensorData {
        self.ints = Some(values.as_ref().to_vec());
        self
    }

    /// Its float values (in C order).
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, TensorData};
    /// let s = TensorData::new(ElemType::FLOAT, []).with_floats([0.5]);
    /// assert_eq!(s.floats(), Some(&[0.5][..]));
    /// ```
    pub fn with_floats(mut self, values: impl AsRef<[f64]>) -> TensorData {
        self.floats = Some(values.as_ref().to_vec());
        self
    }

    /// The element type.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, TensorData};
    /// assert_eq!(TensorData::new(ElemType::BOOL, [1]).elem(), ElemType::BOOL);
    /// ```
    pub fn elem(&self) -> ElemType {
        self.elem
    }

    /// The shape.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, TensorData};
    /// assert!(TensorData::new(ElemType::INT64, []).shape().is_empty());
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The integer values, where given.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, TensorData};
    /// assert_eq!(TensorData::new(ElemType::INT64, [2]).with_ints([1, 2]).ints(), Some(&[1, 2][..]));
    /// ```
    pub fn ints(&self) -> Option<&[i64]> {
        self.ints.as_deref()
    }

    /// The float values, where given.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, TensorData};
    /// assert_eq!(TensorData::new(ElemType::FLOAT, [1]).floats(), None);
    /// ```
    pub fn floats(&self) -> Option<&[f64]> {
        self.floats.as_deref()
    }
}

/// An attribute of a [`GraphNode`]: a plain value ([`OpAttr`]), a tensor (`Constant`'s
/// `value`), or subgraphs (`If`'s branches, `Loop`'s and `Scan`'s bodies).
///
/// ```
/// use ndarray_reshape::{NodeAttr, OpAttr};
/// assert_eq!(NodeAttr::from(OpAttr::from(1)), NodeAttr::Value(OpAttr::Int(1)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum NodeAttr {
    /// An integer, float, string or a list of them.
    Value(OpAttr),
    /// A list of strings (`LSTM`'s `activations`), which no plain [`OpAttr`] holds.
    Strings(Vec<String>),
    /// A tensor.
    Tensor(TensorData),
    /// A subgraph (`GRAPH`).
    Graph(Graph),
    /// Several subgraphs (`GRAPHS`).
    Graphs(Vec<Graph>),
}

impl From<OpAttr> for NodeAttr {
    fn from(v: OpAttr) -> Self {
        NodeAttr::Value(v)
    }
}

impl From<TensorData> for NodeAttr {
    fn from(v: TensorData) -> Self {
        NodeAttr::Tensor(v)
    }
}

impl From<Graph> for NodeAttr {
    fn from(v: Graph) -> Self {
        NodeAttr::Graph(v)
    }
}

/// One node of a [`Graph`]: its operator (in a domain, the default one unless set), its
/// input and output tensor names (an empty input name is an optional input left out), and
/// its attributes.
///
/// ```
/// use ndarray_reshape::{GraphNode, OpAttr};
/// let n = GraphNode::new("Conv", ["x", "w"], ["y"])
///     .named("conv1")
///     .attr("kernel_shape", OpAttr::from([3i64, 3]))
///     .attr("pads", OpAttr::from([1i64, 1, 1, 1]));
/// assert_eq!(n.op(), "Conv");
/// assert_eq!(n.name(), "conv1");
/// let q = GraphNode::new("DynamicQuantizeLSTM", ["x"], ["y"]).domain("com.microsoft");
/// assert_eq!(q.domain_name(), "com.microsoft");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GraphNode {
    pub(crate) op: String,
    pub(crate) domain: String,
    pub(crate) name: String,
    pub(crate) inputs: Vec<String>,
    pub(crate) outputs: Vec<String>,
    pub(crate) attrs: Vec<(String, NodeAttr)>,
}

impl GraphNode {
    /// A node of operator `op` (the default ONNX domain) reading `inputs` and writing
    /// `outputs`; its name is its first output's until [`named`](Self::named).
    ///
    /// ```
    /// # use ndarray_reshape::GraphNode;
    /// assert_eq!(GraphNode::new("Relu", ["x"], ["y"]).name(), "y");
    /// ```
    pub fn new<I, O>(op: &str, inputs: I, outputs: O) -> GraphNode
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
        O: IntoIterator,
        O::Item: AsRef<str>,
    {
        let outputs: Vec<String> = outputs
            .into_iter()
            .map(|s| s.as_ref().to_string())
            .collect();
        GraphNode {
            op: op.to_string(),
            domain: String::new(),
            name: outputs.first().cloned().unwrap_or_default(),
            inputs: inputs.into_iter().map(|s| s.as_ref().to_string()).collect(),
            outputs,
            attrs: Vec::new(),
        }
    }

    /// The node's name, as errors and the report name it.
    ///
    /// ```
    /// # use ndarray_reshape::GraphNode;
    /// assert_eq!(GraphNode::new("Relu", ["x"], ["y"]).named("act").name(), "act");
    /// ```
    pub fn named(mut self, name: &str) -> GraphNode {
        self.name = name.to_string();
        self
    }

    /// The operator's domain (`"com.microsoft"`); `""` and `"ai.onnx"` are the default one.
    ///
    /// ```
    /// # use ndarray_reshape::GraphNode;
    /// assert_eq!(GraphNode::new("Gelu", ["x"], ["y"]).domain("com.microsoft").domain_name(), "com.microsoft");
    /// ```
    pub fn domain(mut self, domain: &str) -> GraphNode {
        self.domain = domain.to_string();
        self
    }

    /// Attribute `name`, a value, a tensor or a subgraph.
    ///
    /// ```
    /// # use ndarray_reshape::{GraphNode, OpAttr};
    /// let n = GraphNode::new("Flatten", ["x"], ["y"]).attr("axis", OpAttr::from(1));
    /// assert_eq!(n.attrs().len(), 1);
    /// ```
    pub fn attr(mut self, name: &str, value: impl Into<NodeAttr>) -> GraphNode {
        self.attrs.push((name.to_string(), value.into()));
        self
    }

    /// The operator.
    ///
    /// ```
    /// # use ndarray_reshape::GraphNode;
    /// assert_eq!(GraphNode::new("Relu", ["x"], ["y"]).op(), "Relu");
    /// ```
    pub fn op(&self) -> &str {
        &self.op
    }

    /// The domain as given (`""` for the default).
    ///
    /// ```
    /// # use ndarray_reshape::GraphNode;
    /// assert_eq!(GraphNode::new("Relu", ["x"], ["y"]).domain_name(), "");
    /// ```
    pub fn domain_name(&self) -> &str {
        &self.domain
    }

    /// The name.
    ///
    /// ```
    /// # use ndarray_reshape::GraphNode;
    /// assert_eq!(GraphNode::new("Relu", ["x"], ["y"]).named("r").name(), "r");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input names (`""` for an optional input left out).
    ///
    /// ```
    /// # use ndarray_reshape::GraphNode;
    /// assert_eq!(GraphNode::new("Resize", ["x", "", "s"], ["y"]).inputs()[1], "");
    /// ```
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }

    /// The output names.
    ///
    /// ```
    /// # use ndarray_reshape::GraphNode;
    /// assert_eq!(GraphNode::new("Split", ["x"], ["a", "b"]).outputs().len(), 2);
    /// ```
    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }

    /// The attributes, in order.
    ///
    /// ```
    /// # use ndarray_reshape::GraphNode;
    /// assert!(GraphNode::new("Relu", ["x"], ["y"]).attrs().is_empty());
    /// ```
    pub fn attrs(&self) -> &[(String, NodeAttr)] {
        &self.attrs
    }
}

/// A whole ONNX graph for [`infer`](Self::infer): the operator sets it imports, its inputs
/// (element type and dims), its initializers (shape and type; values where small), and its
/// nodes in order. Subgraphs are graphs of their own, in a node's attributes.
///
/// ```
/// use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim, OpAttr, TensorData};
///
/// let mut g = Graph::new(17);
/// g.input("images", ElemType::FLOAT, [InputDim::named("N"), 3.into(), InputDim::named("H"), InputDim::named("W")]);
/// g.initializer("w", TensorData::new(ElemType::FLOAT, [16, 3, 3, 3]));
/// g.node(
///     GraphNode::new("Conv", ["images", "w"], ["y"])
///         .attr("kernel_shape", OpAttr::from([3i64, 3]))
///         .attr("strides", OpAttr::from([2i64, 2]))
///         .attr("pads", OpAttr::from([1i64, 1, 1, 1])),
/// );
/// let shapes = g.infer(&Default::default())?;
/// assert_eq!(shapes.fact("y").unwrap().to_string(), "float32[N, 16, (H + 1) // 2, (W + 1) // 2]");
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Graph {
    pub(crate) opsets: Vec<(String, i64)>,
    pub(crate) inputs: Vec<(String, ElemType, Option<Vec<InputDim>>)>,
    pub(crate) initializers: Vec<(String, TensorData)>,
    pub(crate) nodes: Vec<GraphNode>,
    pub(crate) outputs: Vec<String>,
}

impl Graph {
    /// A graph of the default ONNX domain at `opset`, with nothing in it yet.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::Graph::new(17).opset_of(""), Some(17));
    /// ```
    pub fn new(opset: i64) -> Graph {
        Graph {
            opsets: vec![(String::new(), opset)],
            ..Graph::default()
        }
    }

    /// Imports `domain` (`"com.microsoft"`) at `version` (a second call for a domain
    /// replaces the first).
    ///
    /// ```
    /// # use ndarray_reshape::Graph;
    /// let mut g = Graph::new(17);
    /// g.import("com.microsoft", 1);
    /// assert_eq!(g.opset_of("com.microsoft"), Some(1));
    /// ```
    pub fn import(&mut self, domain: &str, version: i64) -> &mut Graph {
        let domain = canonical(domain);
        self.opsets.retain(|(d, _)| d != domain);
        self.opsets.push((domain.to_string(), version));
        self
    }

    /// The version of `domain` the graph imports.
    ///
    /// ```
    /// # use ndarray_reshape::Graph;
    /// assert_eq!(Graph::new(13).opset_of("ai.onnx"), Some(13));
    /// assert_eq!(Graph::new(13).opset_of("com.microsoft"), None);
    /// ```
    pub fn opset_of(&self, domain: &str) -> Option<i64> {
        let domain = canonical(domain);
        self.opsets
            .iter()
            .find(|(d, _)| d == domain)
            .map(|(_, v)| *v)
    }

    /// A graph input of `elem` and `dims`.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("ids", ElemType::INT64, [InputDim::named("B"), InputDim::Unnamed]);
    /// let shapes = g.infer(&Default::default())?;
    /// assert_eq!(shapes.fact("ids").unwrap().to_string(), "int64[B, ids.1]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn input(
        &mut self,
        name: &str,
        elem: ElemType,
        dims: impl IntoIterator<Item = InputDim>,
    ) -> &mut Graph {
        let dims = dims.into_iter().collect();
        self.inputs.push((name.to_string(), elem, Some(dims)));
        self
    }

    /// A graph input declared without a shape (its rank unknown).
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph};
    /// let mut g = Graph::new(17);
    /// g.input_unranked("x", ElemType::FLOAT);
    /// assert_eq!(g.infer(&Default::default())?.fact("x").unwrap().shape(), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn input_unranked(&mut self, name: &str, elem: ElemType) -> &mut Graph {
        self.inputs.push((name.to_string(), elem, None));
        self
    }

    /// Every input dim named `symbol` fixed to `size` (as onnxruntime's free dimension
    /// overrides do): the walk then computes with the number.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("ids", ElemType::INT64, [InputDim::named("batch"), InputDim::named("seq")]);
    /// g.fix("batch", 1);
    /// assert_eq!(g.infer(&Default::default())?.fact("ids").unwrap().to_string(), "int64[1, seq]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn fix(&mut self, symbol: &str, size: usize) -> &mut Graph {
        for (_, _, dims) in &mut self.inputs {
            for d in dims.iter_mut().flatten() {
                if matches!(d, InputDim::Named(s) if s == symbol) {
                    *d = InputDim::Known(size);
                }
            }
        }
        self
    }

    /// An initializer.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, TensorData};
    /// let mut g = Graph::new(17);
    /// g.initializer("shape", TensorData::new(ElemType::INT64, [2]).with_ints([-1, 64]));
    /// let shapes = g.infer(&Default::default())?;
    /// assert_eq!(shapes.fact("shape").unwrap().value().unwrap().to_string(), "[-1, 64]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn initializer(&mut self, name: &str, tensor: TensorData) -> &mut Graph {
        self.initializers.push((name.to_string(), tensor));
        self
    }

    /// A node, after the ones before it.
    ///
    /// ```
    /// # use ndarray_reshape::{ElemType, Graph, GraphNode, InputDim};
    /// let mut g = Graph::new(17);
    /// g.input("x", ElemType::FLOAT, [InputDim::named("N")]);
    /// g.node(GraphNode::new("Relu", ["x"], ["y"]));
    /// assert_eq!(g.nodes().len(), 1);
    /// ```
    pub fn node(&mut self, node: GraphNode) -> &mut Graph {
        self.nodes.push(node);
        self
    }

    /// A graph output (a subgraph's outputs are what its node returns, in order).
    ///
    /// ```
    /// # use ndarray_reshape::Graph;
    /// let mut g = Graph::new(17);
    /// g.output("y");
    /// assert_eq!(g.outputs(), ["y"]);
    /// ```
    pub fn output(&mut self, name: &str) -> &mut Graph {
        self.outputs.push(name.to_string());
        self
    }

    /// The graph outputs' names.
    ///
    /// ```
    /// assert!(ndarray_reshape::Graph::new(17).outputs().is_empty());
    /// ```
    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }

    /// The nodes, in order.
    ///
    /// ```
    /// assert!(ndarray_reshape::Graph::new(17).nodes().is_empty());
    /// ```
    pub fn nodes(&self) -> &[GraphNode] {
        &self.nodes
    }
}

/// The default domain's one name.
pub(crate) fn canonical(domain: &str) -> &str {
    match domain {
        "ai.onnx" => "",
        d => d,
    }
}

//! `.onnx` files (feature `onnx`): a model's bytes read into a [`Graph`]
//! ([`Graph::from_onnx`]), and the inferred shapes written back into the model as its graph's
//! `value_info` ([`GraphShapes::to_onnx`]).

use prost::Message;

use super::desc::{Graph, GraphNode, InputDim, NodeAttr, TensorData};
use super::proto::{self, attr_type, DimValue, GraphProto, ModelProto, TensorProto};
use super::result::GraphShapes;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::graph::ElemType;
use crate::graph::{OpAttr, MAX_ENTRIES};

/// Float tensors read with their values, at most (a `Resize`'s scales, a `Range`'s bounds).
const FLOATS: usize = 64;

fn bad(why: String) -> ReshapeError {
    Fail::whole(Rule::BadModel, why).attach_no_input(Origin::Graph, "onnx model")
}

impl Graph {
    /// The graph of the ONNX model `bytes` (the contents of a `.onnx` file): its operator
    /// sets, inputs with their declared dims (`dim_value`, `dim_param`, or neither), the
    /// shapes and types of its initializers (the values of the integer ones of at most 4096
    /// entries and of the float ones of at most 64), its nodes with their attributes and
    /// subgraphs, and its outputs. Weights stored outside the file are not needed.
    ///
    /// # Errors
    ///
    /// [`BadModel`](ReshapeError::BadModel) for bytes that do not decode as an ONNX model,
    /// or one without a graph.
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, Graph};
    /// let model = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/neck.onnx")).unwrap();
    /// let g = Graph::from_onnx(&model)?;
    /// let shapes = g.infer(&Assumptions::new().multiple_of("height", 32).multiple_of("width", 32))?;
    /// assert_eq!(shapes.fact("heads").unwrap().to_string(), "float32[batch, 8, height*width/16]");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "onnx")))]
    pub fn from_onnx(bytes: &[u8]) -> Result<Graph, ReshapeError> {
        let m = ModelProto::decode(bytes).map_err(|e| bad(format!("not an ONNX model: {e}")))?;
        let graph = m
            .graph
            .as_ref()
            .ok_or_else(|| bad("the model has no graph".into()))?;
        let default = m
            .opset_import
            .iter()
            .find(|o| o.domain.is_empty() || o.domain == "ai.onnx")
            .map_or(1, |o| o.version);
        let mut g = Graph::new(default);
        for o in m
            .opset_import
            .iter()
            .filter(|o| !(o.domain.is_empty() || o.domain == "ai.onnx"))
        {
            g.import(&o.domain, o.version);
        }
        fill(&mut g, graph)?;
        Ok(g)
    }
}

/// `g` filled with the inputs, initializers, nodes and outputs of `p`.
fn fill(g: &mut Graph, p: &GraphProto) -> Result<(), ReshapeError> {
    for v in &p.input {
        let t = v.r#type.as_ref().and_then(|t| t.tensor_type.as_ref());
        let elem = ElemType::from_code(t.map_or(0, |t| t.elem_type));
        match t.and_then(|t| t.shape.as_ref()) {
            None => g.input_unranked(&v.name, elem),
            Some(s) => g.input(
                &v.name,
                elem,
                s.dim.iter().map(|d| match &d.value {
                    Some(DimValue::DimValue(v)) if *v >= 0 => InputDim::Known(*v as usize),
                    Some(DimValue::DimParam(s)) if !s.is_empty() => InputDim::Named(s.clone()),
                    _ => InputDim::Unnamed,
                }),
            ),
        };
    }
    for t in &p.initializer {
        g.initializer(&t.name, tensor(t)?);
    }
    for n in &p.node {
        let mut node = GraphNode::new(&n.op_type, &n.input, &n.output).domain(&n.domain);
        if !n.name.is_empty() {
            node = node.named(&n.name);
        }
        for a in &n.attribute {
            node = node.attr(&a.name, attribute(a)?);
        }
        g.node(node);
    }
    for o in &p.output {
        g.output(&o.name);
    }
    Ok(())
}

fn subgraph(p: &GraphProto) -> Result<Graph, ReshapeError> {
    let mut g = Graph::default();
    fill(&mut g, p)?;
    Ok(g)
}

fn attribute(a: &proto::AttributeProto) -> Result<NodeAttr, ReshapeError> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Ok(match a.r#type {
        attr_type::FLOAT => OpAttr::Float(f64::from(a.f)).into(),
        attr_type::INT => OpAttr::Int(a.i).into(),
        attr_type::STRING => OpAttr::Str(text(&a.s)).into(),
        attr_type::FLOATS => {
            OpAttr::Floats(a.floats.iter().map(|&f| f64::from(f)).collect()).into()
        }
        attr_type::INTS => OpAttr::Ints(a.ints.clone()).into(),
        attr_type::STRINGS => NodeAttr::Strings(a.strings.iter().map(|s| text(s)).collect()),
        attr_type::TENSOR => {
            NodeAttr::Tensor(tensor(a.t.as_ref().ok_or_else(|| {
                bad(format!("the tensor attribute {} holds no tensor", a.name))
            })?)?)
        }
        attr_type::GRAPH => {
            NodeAttr::Graph(subgraph(a.g.as_deref().ok_or_else(|| {
                bad(format!("the graph attribute {} holds no graph", a.name))
            })?)?)
        }
        attr_type::GRAPHS => {
            NodeAttr::Graphs(a.graphs.iter().map(subgraph).collect::<Result<_, _>>()?)
        }
        // Sparse tensors and type protos: no shape rule reads them.
        _ => NodeAttr::Strings(Vec::new()),
    })
}

/// A tensor's type and shape, and its values where a shape rule may read them.
fn tensor(t: &TensorProto) -> Result<TensorData, ReshapeError> {
    let shape: Vec<usize> = t
        .dims
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| bad(format!("the tensor {} has a dim {d}", t.name)))
        })
        .collect::<Result<_, _>>()?;
    let elem = ElemType::from_code(t.data_type);
    let count = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let mut data = TensorData::new(elem, &shape);
    let Some(count) = count else { return Ok(data) };
    if elem.is_integer() && count <= MAX_ENTRIES {
        if let Some(v) = ints(t, elem, count) {
            data = data.with_ints(v);
        }
    } else if count <= FLOATS {
        if let Some(v) = floats(t, elem, count) {
            data = data.with_floats(v);
        }
    }
    Ok(data)
}

/// The integer values of `t`, from its typed field or its raw little-endian bytes.
fn ints(t: &TensorProto, elem: ElemType, count: usize) -> Option<Vec<i64>> {
    if !t.raw_data.is_empty() {
        let width = (elem.bits()? / 8).max(1) as usize;
        if elem.bits()? < 8 || t.raw_data.len() != width * count {
            return None;
        }
        let signed = matches!(elem.code(), 3 | 5 | 6 | 7);
        return Some(
            t.raw_data
                .chunks_exact(width)
                .map(|c| {
                    let mut b = [0u8; 8];
                    b[..width].copy_from_slice(c);
                    let v = u64::from_le_bytes(b);
                    match signed {
                        true => {
                            let shift = 64 - 8 * width as u32;
                            ((v << shift) as i64) >> shift
                        }
                        false => v as i64,
                    }
                })
                .collect(),
        );
    }
    let v: Vec<i64> = match elem.code() {
        7 => t.int64_data.clone(),
        12 | 13 => t.uint64_data.iter().map(|&v| v as i64).collect(),
        _ => t.int32_data.iter().map(|&v| i64::from(v)).collect(),
    };
    (v.len() == count).then_some(v)
}

/// The float values of `t` (`float32` and `float64`).
fn floats(t: &TensorProto, elem: ElemType, count: usize) -> Option<Vec<f64>> {
    let v: Vec<f64> = match (elem, t.raw_data.is_empty()) {
        (ElemType::FLOAT, false) => t
            .raw_data
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        (ElemType::DOUBLE, false) => t
            .raw_data
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        (ElemType::FLOAT, true) => t.float_data.iter().map(|&f| f64::from(f)).collect(),
        (ElemType::DOUBLE, true) => t.double_data.clone(),
        _ => return None,
    };
    (v.len() == count).then_some(v)
}

impl GraphShapes {
    /// The ONNX model `model` (the bytes [`Graph::from_onnx`] read) with every node output's
    /// element type and shape written into its graph's `value_info`, replacing what was there;
    /// every other byte of the model is kept. A known dim is a `dim_value`; a symbolic one a
    /// `dim_param` holding the dim as [`SymDim`](crate::SymDim) writes it: an integer
    /// expression in Python's syntax over the input symbols (`batch`, `height*width/64`,
    /// `(height + 31) // 32`, `min(a, b)`, `where(c, a, b)`), a name that is not a plain
    /// identifier in double quotes (so `"x.1"` is the fresh dim 1 of tensor `x`). A tensor of
    /// unknown rank has no shape field.
    ///
    /// # Errors
    ///
    /// [`BadModel`](ReshapeError::BadModel) for bytes that are not an ONNX model with a graph.
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, Graph};
    /// let model = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/neck.onnx")).unwrap();
    /// let shapes = Graph::from_onnx(&model)?.infer(&Assumptions::new())?;
    /// let written = shapes.to_onnx(&model)?;
    /// assert!(written.len() > model.len());
    /// // Read again, the model walks to the same shapes.
    /// let again = Graph::from_onnx(&written)?.infer(&Assumptions::new())?;
    /// assert_eq!(again.fact("heads"), shapes.fact("heads"));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "onnx")))]
    pub fn to_onnx(&self, model: &[u8]) -> Result<Vec<u8>, ReshapeError> {
        let m = ModelProto::decode(model).map_err(|e| bad(format!("not an ONNX model: {e}")))?;
        let graph = m
            .graph
            .as_ref()
            .ok_or_else(|| bad("the model has no graph".into()))?;
        let mut infos = Vec::new();
        for n in &graph.node {
            for o in n.output.iter().filter(|o| !o.is_empty()) {
                let Some(f) = self.fact(o) else { continue };
                let shape = f.shape().map(|dims| proto::TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| proto::Dimension {
                            value: Some(match d.constant() {
                                Some(v) => DimValue::DimValue(v),
                                None => DimValue::DimParam(d.to_string()),
                            }),
                        })
                        .collect(),
                });
                infos.push(proto::ValueInfoProto {
                    name: o.clone(),
                    r#type: Some(proto::TypeProto {
                        tensor_type: Some(proto::TensorType {
                            elem_type: f.elem().map_or(0, ElemType::code),
                            shape,
                        }),
                    }),
                });
            }
        }
        proto::with_value_info(model, &infos)
            .ok_or_else(|| bad("the model's fields do not parse".into()))
    }
}

//! The whole-graph walk: [`Graph::infer`] runs each node's shape rule and value rule on the
//! facts of its inputs, in order (subgraphs through `control`), into a [`GraphShapes`].

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;

use super::desc::{canonical, Graph, GraphNode, InputDim, NodeAttr, TensorData};
use super::facts::TensorFact;
use super::result::{GraphCondition, GraphShapes, Inexact, UnknownOps};
use super::shapes::{table, Node, Out, Stop};
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::graph::ElemType;
use crate::graph::{Call, OpAttr, ShapeValue, MAX_ENTRIES};
use crate::sym::ConditionList;
use crate::sym::{Assumptions, Condition, SymDim};

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
        assume.check()?;
        let mut w = Walk::new(self, assume, unknown);
        let outputs: usize = self.nodes.iter().map(|n| n.outputs.len()).sum();
        let all = self.inputs.len() + self.initializers.len() + outputs;
        w.out.tensors.reserve(all);
        w.out.index.reserve(all);
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
        w.run(self)?;
        Ok(w.out)
    }
}

/// A walk of one graph: the main one, or a subgraph that reads its parents' tensors.
pub(super) struct Walk<'s> {
    /// The main graph, whose operator sets its subgraphs use.
    pub(super) root: &'s Graph,
    /// The scopes around a subgraph, innermost last.
    pub(super) parents: Vec<&'s GraphShapes>,
    /// The graph inputs' symbols.
    pub(super) symbols: HashSet<String>,
    /// The caller's assumptions, and in a loop body what the loop bounds.
    pub(super) assume: Cow<'s, Assumptions>,
    pub(super) unknown: UnknownOps,
    pub(super) out: GraphShapes,
}

/// The fact of a constant tensor: its values where they are a shape value's.
pub(super) fn constant(t: &TensorData) -> TensorFact {
    let shape: Vec<SymDim> = t.shape.iter().map(|&d| SymDim::from(d)).collect();
    let mut fact = TensorFact::new(Some(t.elem), Some(shape));
    let count: Option<usize> = t.shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    if let (Some(ints), true) = (&t.ints, t.elem.is_integer() && t.shape.len() <= 1) {
        if ints.len() <= MAX_ENTRIES && count == Some(ints.len()) {
            fact.value = Some(Box::new(match t.shape.is_empty() {
                true => ShapeValue::scalar(ints[0]),
                false => ShapeValue::from(&ints[..]),
            }));
        }
    }
    if let Some(fl) = &t.floats {
        if count == Some(fl.len()) {
            fact.floats = Some(fl.clone());
        }
    }
    fact
}

impl<'s> Walk<'s> {
    fn new(root: &'s Graph, assume: &'s Assumptions, unknown: UnknownOps) -> Walk<'s> {
        Walk {
            root,
            parents: Vec::new(),
            symbols: HashSet::new(),
            assume: Cow::Borrowed(assume),
            unknown,
            out: GraphShapes::default(),
        }
    }

    /// A walk of a subgraph of this one's graph, which reads this walk's tensors.
    pub(super) fn child(&self) -> Walk<'_> {
        let mut parents = self.parents.clone();
        parents.push(&self.out);
        Walk {
            root: self.root,
            parents,
            symbols: self.symbols.clone(),
            assume: Cow::Borrowed(&self.assume),
            unknown: self.unknown,
            out: GraphShapes::default(),
        }
    }

    /// The fact of tensor `name`, here or in a scope around.
    pub(super) fn lookup(&self, name: &str) -> Option<&TensorFact> {
        std::iter::once(&self.out)
            .chain(self.parents.iter().rev().copied())
            .find_map(|g| g.fact(name))
    }

    /// `g`'s initializers, then its nodes.
    pub(super) fn run(&mut self, g: &Graph) -> Result<(), ReshapeError> {
        for node in &g.nodes {
            self.node(node)?;
        }
        Ok(())
    }

    pub(super) fn define(
        &mut self,
        what: &str,
        name: &str,
        fact: TensorFact,
    ) -> Result<(), ReshapeError> {
        let at = self.out.tensors.len();
        match self.out.index.entry(name.to_string()) {
            std::collections::hash_map::Entry::Occupied(_) => {
                let why = format!("the tensor {name} is defined twice ({what})");
                return Err(
                    Fail::whole(Rule::UnknownTensor, why).attach_no_input(Origin::Graph, name)
                );
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(at);
            }
        }
        self.out.tensors.push((name.to_string(), fact));
        Ok(())
    }

    fn node(&mut self, node: &GraphNode) -> Result<(), ReshapeError> {
        // The node as its errors write it: built only when one is.
        let desc = || format!("{} ({})", node.name, node.op);
        let mut inputs: Vec<Option<&TensorFact>> = Vec::with_capacity(node.inputs.len());
        for (i, name) in node.inputs.iter().enumerate() {
            if name.is_empty() {
                inputs.push(None);
                continue;
            }
            match self.lookup(name) {
                Some(f) => inputs.push(Some(f)),
                None => {
                    let why = format!("no tensor {name} before this node");
                    return Err(Fail::at(Rule::UnknownTensor, i, why)
                        .attach_no_input(Origin::Graph, desc()));
                }
            }
        }
        let shown = |inputs: &[Option<&TensorFact>]| -> Vec<String> {
            let show =
                |f: &Option<&TensorFact>| f.map_or_else(|| "-".to_string(), |f| f.to_string());
            inputs.iter().map(show).collect()
        };
        let wrap = |e: ReshapeError| {
            let pos = e.context().position();
            Fail::new(e.rule(), pos, e.to_string()).attach_sym(
                Origin::Graph,
                &shown(&inputs),
                desc(),
            )
        };
        let domain = canonical(&node.domain);
        let opset = self.root.opset_of(domain).unwrap_or(1);
        let mut values: Vec<(&str, OpAttr)> = Vec::new();
        let mut tensors: Vec<(&str, &TensorData)> = Vec::new();
        let mut strings: Vec<(&str, &[String])> = Vec::new();
        for (k, v) in &node.attrs {
            match v {
                NodeAttr::Value(v) => values.push((k, v.clone())),
                NodeAttr::Tensor(t) => {
                    tensors.push((k, t));
                    if let Some(v) = tensor_attr(t) {
                        values.push((k, v));
                    }
                }
                NodeAttr::Strings(s) => strings.push((k, s)),
                NodeAttr::Graph(_) | NodeAttr::Graphs(_) => {}
            }
        }
        let c = Call {
            framework: "onnx",
            op: &node.op,
            inputs: &[],
            attrs: &values,
            opset: Some(opset),
        };
        let control = domain.is_empty() && matches!(node.op.as_str(), "If" | "Loop" | "Scan");
        let outs = match table::find(domain, &node.op, opset) {
            _ if control => super::control::node(self, node, &c, &inputs).map_err(wrap)?,
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
                        &shown(&inputs),
                        desc(),
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
                    strings: &strings,
                    outputs: node.outputs.len(),
                    out_names: &node.outputs,
                    name: &node.name,
                    assume: &self.assume,
                    symbols: &self.symbols,
                    conditions: RefCell::new(Vec::new()),
                    inexact: RefCell::new(Vec::new()),
                };
                match rule(&n) {
                    Ok(mut outs) => {
                        // Shape values are integers: a float output has none to compute.
                        let integral = outs
                            .first()
                            .and_then(|o| o.elem)
                            .is_some_and(ElemType::is_integer);
                        let value = row
                            .value_rule()
                            .filter(|_| integral)
                            .and_then(|run| value_of(&n, run));
                        match value {
                            Some(Ok(v)) => {
                                if let Some(o) = outs.first_mut() {
                                    o.shape = Some(match v.rank() {
                                        0 => Vec::new(),
                                        _ => vec![SymDim::from(v.len())],
                                    });
                                }
                                Ok(finish(&self.assume, node, &n, outs, Some(v)).map_err(wrap)?)
                            }
                            Some(Err(e)) => return Err(wrap(e)),
                            None => {
                                let mut done =
                                    finish(&self.assume, node, &n, outs, None).map_err(wrap)?;
                                // A shape value cast to a float type: its integers, for the
                                // rules that read floats (a `Range` over a computed length).
                                let cast = matches!(node.op.as_str(), "Cast" | "CastLike");
                                if let (true, Some(v), Some(f)) = (
                                    cast,
                                    inputs[0].and_then(TensorFact::value),
                                    done.facts.first_mut(),
                                ) {
                                    f.integral = Some(v.entries().to_vec());
                                }
                                Ok(done)
                            }
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
                        bounds: Vec::new(),
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
pub(super) struct Done {
    pub(super) facts: Vec<TensorFact>,
    pub(super) conditions: Vec<Condition>,
    pub(super) inexact: Vec<Inexact>,
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
    // The rule's own conditions passed `need`; a value's are decided here.
    let mut conditions = n.conditions.borrow().clone();
    if let Some(v) = value.as_ref().filter(|v| !v.conditions().is_empty()) {
        conditions.add_all(assume.kept(v.conditions())?);
    }
    let mut value = value;
    let facts = outs
        .into_iter()
        .take(node.outputs.len())
        .map(|o| TensorFact {
            elem: o.elem,
            shape: o
                .shape
                .map(|s| s.iter().map(|d| assume.simplified(d)).collect()),
            value: value.take().map(Box::new),
            floats: None,
            integral: None,
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

//! Control flow: `If`, `Loop` and `Scan`, whose subgraphs are walked as graphs of their own
//! that read the tensors around them. A decided `If` is its branch; an undecided one unifies
//! the two (equal dims, or a selection on a symbolic condition, else a fresh dim). Loop-carried
//! and scan states are checked to keep their shapes across an iteration (else their changing
//! dims are fresh); scan outputs stack one slice per iteration.

use super::desc::{Graph, GraphNode, NodeAttr};
use super::facts::TensorFact;
use super::result::Inexact;
use super::walk::{constant, Done, Walk};
use crate::error::{Fail, ReshapeError, Rule};
use crate::graph::Call;
use crate::graph::ElemType;
use crate::graph::ShapeValue;
use crate::sym::{Assumptions, Condition, SymDim};

type R<T> = Result<T, ReshapeError>;

/// Whether `body`'s output `out` is its input `input`, directly or through `Identity` nodes.
fn passes_through(body: &Graph, input: usize, out: usize) -> bool {
    let (Some((from, _, _)), Some(mut name)) = (body.inputs.get(input), body.outputs.get(out))
    else {
        return false;
    };
    for _ in 0..=body.nodes.len() {
        if name == from {
            return true;
        }
        match body.nodes.iter().find(|n| n.outputs.first() == Some(name)) {
            Some(n) if n.op == "Identity" && n.inputs.len() == 1 => name = &n.inputs[0],
            _ => return false,
        }
    }
    false
}

/// What a subgraph gave: its outputs' facts, its conditions and its report.
struct Sub {
    outputs: Vec<TensorFact>,
    conditions: Vec<Condition>,
    inexact: Vec<Inexact>,
}

/// The outputs of a control-flow node, or why they are not known.
pub(super) fn node(
    w: &Walk<'_>,
    node: &GraphNode,
    c: &Call<'_>,
    inputs: &[Option<&TensorFact>],
) -> R<Result<Done, String>> {
    let flow = Flow { w, node, c };
    match node.op.as_str() {
        "If" => flow.branch(inputs),
        "Loop" => flow.repeat(inputs),
        _ => flow.scan(inputs),
    }
}

struct Flow<'a, 'w> {
    w: &'a Walk<'w>,
    node: &'a GraphNode,
    c: &'a Call<'a>,
}

impl Flow<'_, '_> {
    fn graph(&self, name: &str) -> R<&Graph> {
        self.node
            .attrs
            .iter()
            .find_map(|(k, v)| match v {
                NodeAttr::Graph(g) if k == name => Some(g),
                _ => None,
            })
            .ok_or_else(|| self.c.missing(name))
    }

    /// `g` walked with `inputs` as its inputs' facts.
    fn walk(&self, g: &Graph, inputs: Vec<TensorFact>) -> R<Sub> {
        self.walk_with(g, inputs, None)
    }

    /// [`walk`](Self::walk), with the facts `more` known in the subgraph.
    fn walk_with(&self, g: &Graph, inputs: Vec<TensorFact>, more: Option<Assumptions>) -> R<Sub> {
        let mut child = self.w.child();
        if let Some(a) = more {
            child.assume = std::borrow::Cow::Owned(a);
        }
        if inputs.len() != g.inputs.len() {
            let why = format!(
                "the subgraph takes {} inputs, the node gives {}",
                g.inputs.len(),
                inputs.len()
            );
            return Err(self.c.fail(Rule::BadAttribute, None, why));
        }
        for ((name, _, _), fact) in g.inputs.iter().zip(inputs) {
            child.define("subgraph inputs", name, fact)?;
        }
        for (name, t) in &g.initializers {
            child.define("subgraph initializers", name, constant(t))?;
        }
        child.run(g)?;
        let outputs = g
            .outputs
            .iter()
            .map(|o| {
                child.lookup(o).cloned().ok_or_else(|| {
                    let why = format!("the subgraph output {o} is no tensor of it");
                    self.c.fail(Rule::UnknownTensor, None, why)
                })
            })
            .collect::<R<Vec<_>>>()?;
        let conditions = child
            .out
            .conditions
            .iter()
            .map(|g| g.condition.clone())
            .collect();
        Ok(Sub {
            outputs,
            conditions,
            inexact: child.out.inexact,
        })
    }

    /// A fresh dim for output `out`'s `axis`, with the report's line.
    fn fresh(&self, inexact: &mut Vec<Inexact>, out: usize, axis: usize, why: &str) -> SymDim {
        let tensor = self.node.outputs.get(out).cloned().unwrap_or_default();
        if !inexact.iter().any(|i| i.tensor == tensor) {
            inexact.push(Inexact {
                node: self.node.name.clone(),
                tensor: tensor.clone(),
                why: why.to_string(),
                bounds: Vec::new(),
            });
        }
        SymDim::sym(&format!("{tensor}.{axis}"))
    }

    /// `If(cond)`: the branch `cond` decides, else both, unified.
    fn branch(&self, inputs: &[Option<&TensorFact>]) -> R<Result<Done, String>> {
        let cond = inputs.first().copied().flatten();
        let decided = cond
            .and_then(TensorFact::value)
            .and_then(|v| v.entries().first().cloned());
        let (then, other) = (self.graph("then_branch")?, self.graph("else_branch")?);
        if let Some(c) = decided.as_ref().and_then(SymDim::constant) {
            let taken = self.walk(if c != 0 { then } else { other }, Vec::new())?;
            return Ok(Ok(Done {
                facts: taken.outputs,
                conditions: taken.conditions,
                inexact: taken.inexact,
            }));
        }
        let (t, e) = (self.walk(then, Vec::new())?, self.walk(other, Vec::new())?);
        if t.outputs.len() != e.outputs.len() {
            let why = format!(
                "the branches give {} and {} outputs",
                t.outputs.len(),
                e.outputs.len()
            );
            return Err(self.c.fail(Rule::BadAttribute, None, why));
        }
        let mut inexact: Vec<Inexact> = t.inexact.into_iter().chain(e.inexact).collect();
        // A condition holds for the graph where both branches need it.
        let conditions = t
            .conditions
            .into_iter()
            .filter(|c| e.conditions.contains(c))
            .collect();
        let why = "the branches give other dims and the condition is data";
        let mut facts = Vec::new();
        for (o, (a, b)) in t.outputs.iter().zip(&e.outputs).enumerate() {
            let shape = match (a.shape(), b.shape()) {
                (Some(x), Some(y)) if x.len() == y.len() => Some(
                    x.iter()
                        .zip(y)
                        .enumerate()
                        .map(|(axis, (p, q))| match (p == q, &decided) {
                            (true, _) => p.clone(),
                            (false, Some(c)) => c.select(p, q),
                            (false, None) => self.fresh(&mut inexact, o, axis, why),
                        })
                        .collect(),
                ),
                _ => {
                    self.fresh(
                        &mut inexact,
                        o,
                        0,
                        "the branches give tensors of other ranks",
                    );
                    None
                }
            };
            facts.push(TensorFact::new(a.elem.or(b.elem), shape));
        }
        Ok(Ok(Done {
            facts,
            conditions,
            inexact,
        }))
    }

    /// The body walked from `initial` states; the states whose shapes an iteration keeps
    /// as they are, the others with their changing dims fresh (checked by a second walk).
    fn iterate(
        &self,
        body: &Graph,
        lead: &[TensorFact],
        initial: &[TensorFact],
        slices: &[TensorFact],
        more: Option<Assumptions>,
        inexact: &mut Vec<Inexact>,
    ) -> R<Sub> {
        let states = |s: &[TensorFact]| -> Vec<TensorFact> {
            lead.iter().chain(s).chain(slices).cloned().collect()
        };
        let skip = lead.len().saturating_sub(1);
        let first = self.walk_with(body, states(initial), more.clone())?;
        let kept: Vec<bool> = initial
            .iter()
            .enumerate()
            .map(|(i, f)| {
                first
                    .outputs
                    .get(skip + i)
                    .is_some_and(|o| o.shape == f.shape)
            })
            .collect();
        if kept.iter().all(|&k| k) {
            return Ok(Sub {
                outputs: first.outputs.into_iter().skip(skip).collect(),
                ..first
            });
        }
        let general: Vec<TensorFact> = initial
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let out = first.outputs.get(skip + i);
                let shape = match (f.shape(), out.and_then(TensorFact::shape)) {
                    (Some(a), Some(b)) if a.len() == b.len() => Some(
                        a.iter()
                            .zip(b)
                            .enumerate()
                            .map(|(axis, (x, y))| match x == y {
                                true => x.clone(),
                                false => {
                                    self.fresh(inexact, i, axis, "a loop-carried dim that grows")
                                }
                            })
                            .collect(),
                    ),
                    _ => None,
                };
                TensorFact::new(f.elem, shape)
            })
            .collect();
        let second = self.walk_with(body, states(&general), more)?;
        for (i, g) in general.iter().enumerate() {
            if second.outputs.get(skip + i).map(|o| &o.shape) != Some(&g.shape) {
                self.fresh(
                    inexact,
                    i,
                    0,
                    "a loop-carried shape that changes each iteration",
                );
            }
        }
        Ok(Sub {
            outputs: general
                .into_iter()
                .chain(second.outputs.into_iter().skip(skip + initial.len()))
                .collect(),
            conditions: second.conditions,
            inexact: second.inexact,
        })
    }

    /// `Loop(M, cond, v...)`: the final states, then each scan output stacked over the
    /// iterations (`M` of them where nothing else ends the loop, else a fresh count).
    fn repeat(&self, inputs: &[Option<&TensorFact>]) -> R<Result<Done, String>> {
        let body = self.graph("body")?;
        let initial: Vec<TensorFact> = inputs
            .iter()
            .skip(2)
            .map(|f| f.cloned().unwrap_or_else(|| TensorFact::new(None, None)))
            .collect();
        let scalar = |e| TensorFact::new(Some(e), Some(Vec::new()));
        let trip = inputs
            .first()
            .copied()
            .flatten()
            .and_then(TensorFact::value)
            .and_then(|v| v.entries().first().cloned());
        // The iteration number: `t - 1` for a fresh `t` from 1, at most the trip count.
        let t = format!("{}.iteration", self.node.name);
        let mut number = scalar(ElemType::INT64);
        number.value = Some(Box::new(ShapeValue::from(
            SymDim::sym(&t) - SymDim::from(1),
        )));
        let more = trip
            .as_ref()
            .and_then(SymDim::known)
            .filter(|&m| m >= 1)
            .map(|m| self.w.assume.as_ref().clone().at_most(&t, m));
        let lead = [number, scalar(ElemType::BOOL)];
        let mut inexact = Vec::new();
        let sub = self.iterate(body, &lead, &initial, &[], more, &mut inexact)?;
        // The loop runs M times when nothing else ends it: no condition, or a true one the
        // body passes on unchanged.
        let cond = inputs.get(1).copied().flatten();
        let always = cond
            .and_then(TensorFact::value)
            .and_then(|v| v.entries().first()?.constant())
            == Some(1)
            && passes_through(body, 1, 0);
        let no_cond = cond.is_none() || always;
        let count = match (trip, no_cond) {
            (Some(m), true) => m,
            _ => self.fresh(
                &mut inexact,
                initial.len(),
                0,
                "the iteration count is decided by data",
            ),
        };
        let mut facts: Vec<TensorFact> = sub.outputs[..initial.len()].to_vec();
        for s in &sub.outputs[initial.len()..] {
            let shape = s.shape().map(|d| {
                std::iter::once(count.clone())
                    .chain(d.iter().cloned())
                    .collect()
            });
            facts.push(TensorFact::new(s.elem, shape));
        }
        inexact.extend(sub.inexact);
        Ok(Ok(Done {
            facts,
            conditions: sub.conditions,
            inexact,
        }))
    }

    /// `Scan(states..., scan inputs...)`: the body on one slice of each scan input at a time;
    /// the final states, then each scan output stacked along its axis.
    fn scan(&self, inputs: &[Option<&TensorFact>]) -> R<Result<Done, String>> {
        let body = self.graph("body")?;
        let m = self
            .c
            .required("num_scan_inputs", self.c.int("num_scan_inputs")?)?;
        let m = usize::try_from(m)
            .ok()
            .filter(|&m| m <= inputs.len())
            .ok_or_else(|| {
                self.c.fail(
                    Rule::BadAttribute,
                    None,
                    format!("num_scan_inputs = {m} for {} inputs", inputs.len()),
                )
            })?;
        // Opset 8: a first input of sequence lengths, then every input batched on axis 0.
        let batched = self.c.opset.unwrap_or(9) < 9;
        let given = &inputs[usize::from(batched)..];
        let mut batch = None;
        let facts: Vec<TensorFact> = given
            .iter()
            .map(|f| {
                let mut f = f.cloned().unwrap_or_else(|| TensorFact::new(None, None));
                if let (true, Some(s)) = (batched, f.shape.as_mut()) {
                    if !s.is_empty() {
                        batch.get_or_insert_with(|| s[0].clone());
                        s.remove(0);
                    }
                }
                f
            })
            .collect();
        let m = m.min(facts.len());
        let (states, scanned) = facts.split_at(facts.len() - m);
        let in_axes = self
            .c
            .ints("scan_input_axes")?
            .unwrap_or_else(|| vec![0; m]);
        let mut len = None;
        let mut slices = Vec::new();
        for (j, f) in scanned.iter().enumerate() {
            let Some(shape) = f.shape() else {
                return Ok(Err(format!("the rank of scan input {j} is not known")));
            };
            let a = self.axis(*in_axes.get(j).unwrap_or(&0), shape.len())?;
            len.get_or_insert_with(|| shape[a].clone());
            let mut s = shape.to_vec();
            s.remove(a);
            slices.push(TensorFact::new(f.elem, Some(s)));
        }
        let mut inexact = Vec::new();
        let sub = self.iterate(body, &[], states, &slices, None, &mut inexact)?;
        let len = len.unwrap_or_else(|| SymDim::from(0));
        let n = states.len();
        let out_axes = self.c.ints("scan_output_axes")?;
        let mut out: Vec<TensorFact> = sub.outputs[..n].to_vec();
        for (k, s) in sub.outputs[n..].iter().enumerate() {
            let shape = match s.shape() {
                Some(d) => {
                    let a = out_axes
                        .as_ref()
                        .and_then(|v| v.get(k).copied())
                        .unwrap_or(0);
                    let a = self.axis(a, d.len() + 1)?;
                    let mut d = d.to_vec();
                    d.insert(a, len.clone());
                    Some(d)
                }
                None => None,
            };
            out.push(TensorFact::new(s.elem, shape));
        }
        if let Some(b) = batch {
            for f in &mut out {
                if let Some(s) = f.shape.as_mut() {
                    s.insert(0, b.clone());
                }
            }
        }
        inexact.extend(sub.inexact);
        Ok(Ok(Done {
            facts: out,
            conditions: sub.conditions,
            inexact,
        }))
    }

    fn axis(&self, a: i64, rank: usize) -> R<usize> {
        match super::shapes::resolve_axis(a, rank) {
            Some(at) => Ok(at),
            None => Err(
                Fail::whole(Rule::IndexOutOfRange, format!("axis {a} for rank {rank}"))
                    .attach_no_input(crate::error::Origin::Graph, &self.node.op),
            ),
        }
    }
}

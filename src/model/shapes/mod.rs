//! The shape rules of the operator tables: what each node's outputs are (element type and
//! shape in `SymDim`s) from its inputs' facts and its attributes. One context ([`Node`]) every
//! rule reads, the rules by family (`elementwise`, `linear`, `window`, `layout`, `index`,
//! `recurrent`, `contrib`), and the data operators' rows (`table`).

mod contrib;
mod elementwise;
mod image;
mod index;
mod layout;
mod linear;
mod recurrent;
mod signal;
pub(super) mod table;
mod window;

use std::cell::RefCell;
use std::collections::HashSet;

use super::desc::TensorData;
use super::facts::TensorFact;
use super::result::Inexact;
use crate::error::{Fail, ReshapeError, Rule};
use crate::graph::ElemType;
use crate::graph::{Call, OpAttr, ShapeValue};
use crate::sym::ConditionList;
use crate::sym::{equals, Assumptions, Condition, Exact, SymDim, Unify};

/// A shape rule: the outputs of a node, or why they are not known.
pub(crate) type ShapeRule = fn(&Node<'_>) -> Result<Vec<Out>, Stop>;

/// One output of a node as a rule gives it.
#[derive(Debug, Clone)]
pub(crate) struct Out {
    pub(crate) elem: Option<ElemType>,
    pub(crate) shape: Option<Vec<SymDim>>,
}

impl Out {
    pub(crate) fn new(elem: Option<ElemType>, shape: Vec<SymDim>) -> Out {
        Out {
            elem,
            shape: Some(shape),
        }
    }
}

/// Why a rule stops: the node is wrong (an error for every value of the symbols), or its
/// outputs depend on what the walk does not know (a rank not given, a value computed from
/// data), which the walk answers with fresh symbols and a line in its report.
#[derive(Debug)]
pub(crate) enum Stop {
    Error(ReshapeError),
    Unknown(String),
}

impl From<ReshapeError> for Stop {
    fn from(e: ReshapeError) -> Stop {
        Stop::Error(e)
    }
}

pub(crate) type S<T> = Result<T, Stop>;

/// A node as its shape rule reads it.
pub(crate) struct Node<'a> {
    /// The operator, its attributes and opset; no values (`inputs` is empty).
    pub(crate) c: Call<'a>,
    /// Each input's fact; `None` for an optional input left out.
    pub(crate) inputs: &'a [Option<&'a TensorFact>],
    /// The tensor attributes (`Constant`'s and `ConstantOfShape`'s `value`).
    pub(crate) tensors: &'a [(&'a str, &'a TensorData)],
    /// The string-list attributes (`StringNormalizer`'s `stopwords`).
    pub(crate) strings: &'a [(&'a str, &'a [String])],
    /// The outputs the node declares.
    pub(crate) outputs: usize,
    /// Their names (fresh symbols are named after them).
    pub(crate) out_names: &'a [String],
    /// The node's name.
    pub(crate) name: &'a str,
    pub(crate) assume: &'a Assumptions,
    /// The graph inputs' symbols: any other symbol is a fresh one.
    pub(crate) symbols: &'a HashSet<String>,
    pub(crate) conditions: RefCell<Vec<Condition>>,
    /// The outputs with fresh dims, and why.
    pub(crate) inexact: RefCell<Vec<Inexact>>,
}

impl<'a> Node<'a> {
    /// A fresh symbol for dim `axis` of output `out`, which data decides (`why`), named
    /// after the output (`nz.1`) so that every walk names it the same.
    pub(crate) fn fresh(&self, out: usize, axis: usize, why: &str) -> SymDim {
        self.fresh_within(out, axis, why, None)
    }

    /// [`fresh`](Self::fresh), at most `bound` in every run.
    pub(crate) fn fresh_within(
        &self,
        out: usize,
        axis: usize,
        why: &str,
        bound: Option<SymDim>,
    ) -> SymDim {
        let tensor = self.out_names.get(out).map_or("?", String::as_str);
        let d = SymDim::sym(&format!("{tensor}.{axis}"));
        if out >= self.out_names.len() {
            return d;
        }
        let mut all = self.inexact.borrow_mut();
        let at = match all.iter().position(|i| i.tensor == tensor) {
            Some(at) => at,
            None => {
                all.push(Inexact {
                    node: self.name.to_string(),
                    tensor: tensor.to_string(),
                    why: why.to_string(),
                    bounds: Vec::new(),
                });
                all.len() - 1
            }
        };
        if let Some(b) = bound {
            all[at].bounds.push(Condition::at_most(d.clone(), b));
        }
        d
    }

    /// Input `i`'s fact; an error where the input is left out.
    pub(crate) fn fact(&self, i: usize) -> S<&'a TensorFact> {
        self.opt(i).ok_or_else(|| {
            self.fail(
                Rule::BadAttribute,
                Some(i),
                format!("input {i} is required"),
            )
        })
    }

    /// Input `i`'s fact, where it is given.
    pub(crate) fn opt(&self, i: usize) -> Option<&'a TensorFact> {
        self.inputs.get(i).copied().flatten()
    }

    /// Input `i`'s shape; unknown where its rank is.
    pub(crate) fn shape(&self, i: usize) -> S<&'a [SymDim]> {
        self.fact(i)?
            .shape()
            .ok_or_else(|| Stop::Unknown(format!("the rank of input {i} is not known")))
    }

    /// Input `i`'s shape, which must be of rank `rank` (`layout` names its axes, `[N, C, H,
    /// W]`); unknown where its rank is.
    pub(crate) fn shape_of_rank(&self, i: usize, rank: usize, layout: &str) -> S<&'a [SymDim]> {
        let x = self.shape(i)?;
        if x.len() != rank {
            let why = format!("input {i} of rank {}; it takes {layout}", x.len());
            return Err(self.fail(Rule::ValueRank, Some(i), why));
        }
        Ok(x)
    }

    /// Input `i`'s rank.
    pub(crate) fn rank(&self, i: usize) -> S<usize> {
        self.shape(i).map(<[SymDim]>::len)
    }

    /// Input `i`'s element type.
    pub(crate) fn elem(&self, i: usize) -> Option<ElemType> {
        self.opt(i).and_then(TensorFact::elem)
    }

    /// Input `i`'s value (a shape, axes, sizes); unknown where the graph computes it from
    /// data.
    pub(crate) fn value(&self, i: usize) -> S<&'a ShapeValue> {
        self.fact(i)?.value().ok_or_else(|| {
            Stop::Unknown(format!(
                "input {i} ({}) holds values computed from data or not recorded",
                what(self.c.op, i)
            ))
        })
    }

    /// Input `i`'s value as numbers; unknown where an entry is symbolic.
    pub(crate) fn numbers(&self, i: usize) -> S<Vec<i64>> {
        let v = self.value(i)?;
        v.entries()
            .iter()
            .map(|e| {
                e.constant().ok_or_else(|| {
                    Stop::Unknown(format!(
                        "input {i} ({}) = {v} is symbolic",
                        what(self.c.op, i)
                    ))
                })
            })
            .collect()
    }

    /// The entries of input `i` (sizes: a shape, repeats), or where data computes them but
    /// their count is known, a fresh size for each, named after output 0's dims.
    pub(crate) fn sizes(&self, i: usize, why: &str) -> S<Vec<SymDim>> {
        match self.value(i) {
            Ok(v) => Ok(v.entries().to_vec()),
            Err(stop) => {
                let len = self.shape(i)?.first().and_then(SymDim::known).ok_or(stop)?;
                Ok((0..len).map(|a| self.fresh(0, a, why)).collect())
            }
        }
    }

    /// Input `i`'s numbers where it is given (an optional input).
    pub(crate) fn opt_numbers(&self, i: usize) -> S<Option<Vec<i64>>> {
        match self.opt(i) {
            Some(f)
                if f.shape()
                    .is_some_and(|s| s.iter().any(|d| d.known() == Some(0))) =>
            {
                Ok(None)
            }
            Some(_) => self.numbers(i).map(Some),
            None => Ok(None),
        }
    }

    /// Input `i`'s one entry as an integer: its shape value's, an integral float constant's,
    /// or the integers a cast to float carried; `None` for anything else.
    pub(crate) fn integer(&self, i: usize) -> Option<SymDim> {
        let f = self.opt(i)?;
        let one = |v: &[SymDim]| match v {
            [d] => Some(d.clone()),
            _ => None,
        };
        if let Some(v) = f.value() {
            return one(v.entries());
        }
        if let Some(v) = &f.integral {
            return one(v);
        }
        match f.floats.as_deref()? {
            [x] if x.fract() == 0.0 && x.abs() < 9.0e15 => Some(SymDim::int(*x as i64)),
            _ => None,
        }
    }

    /// The float values of input `i` (a small float constant).
    pub(crate) fn floats(&self, i: usize) -> S<&'a [f64]> {
        self.fact(i)?.floats.as_deref().ok_or_else(|| {
            Stop::Unknown(format!(
                "input {i} ({}) holds floats computed from data or not recorded",
                what(self.c.op, i)
            ))
        })
    }

    pub(crate) fn int(&self, name: &str) -> S<Option<i64>> {
        Ok(self.c.int(name)?)
    }

    pub(crate) fn int_or(&self, name: &str, default: i64) -> S<i64> {
        Ok(self.c.int(name)?.unwrap_or(default))
    }

    pub(crate) fn ints(&self, name: &str) -> S<Option<Vec<i64>>> {
        Ok(self.c.ints(name)?)
    }

    pub(crate) fn floats_attr(&self, name: &str) -> S<Option<Vec<f64>>> {
        Ok(match self.c.attr(name) {
            None => None,
            Some(OpAttr::Floats(v)) => Some(v.clone()),
            Some(OpAttr::Float(v)) => Some(vec![*v]),
            Some(OpAttr::Ints(v)) => Some(v.iter().map(|&x| x as f64).collect()),
            Some(v) => {
                let why = format!("the attribute {name} = {v} is not a list of floats");
                return Err(self.fail(Rule::BadAttribute, None, why));
            }
        })
    }

    pub(crate) fn string(&self, name: &str) -> S<Option<&'a str>> {
        let attrs: &'a [(&'a str, OpAttr)] = self.c.attrs;
        match attrs.iter().find(|(k, _)| *k == name).map(|(_, v)| v) {
            None => Ok(None),
            Some(OpAttr::Str(s)) => Ok(Some(s.as_str())),
            Some(v) => {
                let why = format!("the attribute {name} = {v} is not a string");
                Err(self.fail(Rule::BadAttribute, None, why))
            }
        }
    }

    pub(crate) fn strings(&self, name: &str) -> Option<&'a [String]> {
        self.strings
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, s)| *s)
    }

    pub(crate) fn tensor(&self, name: &str) -> Option<&'a TensorData> {
        self.tensors
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, t)| *t)
    }

    /// A failure of this node.
    #[cold]
    pub(crate) fn fail(&self, rule: Rule, position: Option<usize>, detail: String) -> Stop {
        Stop::Error(
            Fail::new(rule, position, detail)
                .attach_no_input(crate::error::Origin::Graph, self.c.op),
        )
    }

    /// `axis` of a tensor of `rank` (`-rank..rank`).
    pub(crate) fn axis(&self, axis: i64, rank: usize) -> S<usize> {
        match resolve_axis(axis, rank) {
            Some(at) => Ok(at),
            None => Err(self.fail(
                Rule::IndexOutOfRange,
                None,
                format!("axis {axis} is out of range for rank {rank}"),
            )),
        }
    }

    /// `axes` of a tensor of `rank`, each once.
    pub(crate) fn axes(&self, axes: &[i64], rank: usize) -> S<Vec<usize>> {
        let mut out = Vec::with_capacity(axes.len());
        for &a in axes {
            let at = self.axis(a, rank)?;
            if out.contains(&at) {
                let why = format!("the axes {axes:?} repeat an axis");
                return Err(self.fail(Rule::BadAttribute, None, why));
            }
            out.push(at);
        }
        Ok(out)
    }

    /// The condition `c`, unless the assumptions decide it: an error where they refute it.
    pub(crate) fn need(&self, c: Condition) -> S<()> {
        match self.assume.holds(&c) {
            Some(true) => Ok(()),
            Some(false) => Err(self.fail(
                Rule::Unsatisfiable,
                None,
                format!("{c} holds for no value the assumptions allow"),
            )),
            None => {
                self.conditions.borrow_mut().add(c);
                Ok(())
            }
        }
    }

    /// Whether `d` holds a fresh symbol (one data decides).
    pub(crate) fn is_fresh(&self, d: &SymDim) -> bool {
        d.symbols().iter().any(|s| !self.symbols.contains(*s))
    }

    /// `a`, where `a == b` (`what` names the two in the error for dims that never agree); `b`
    /// where only `a` holds a fresh symbol, so that a dim the inputs decide stays exact.
    pub(crate) fn same(&self, a: &SymDim, b: &SymDim, what: &str) -> S<SymDim> {
        let pick = match self.is_fresh(a) && !self.is_fresh(b) {
            true => b,
            false => a,
        };
        match equals(a, b) {
            Exact::Always => Ok(a.clone()),
            Exact::Sometimes(c) => self.need(c).map(|_| pick.clone()),
            Exact::Never => Err(self.fail(
                Rule::DimMismatch,
                None,
                format!("{what}: {a} and {b} differ"),
            )),
        }
    }

    /// `d` an exact quotient `n / k` of a constant `k > 0`, under the condition that it is.
    pub(crate) fn exact_div(&self, n: &SymDim, k: &SymDim, what: &str) -> S<SymDim> {
        if k.known() == Some(0) {
            let why = format!("{what}: {n} divided by 0");
            return Err(self.fail(Rule::DivisionByZero, None, why));
        }
        let q = n.clone() / k.clone();
        match crate::sym::integer(&q) {
            Exact::Always => Ok(q),
            Exact::Sometimes(c) => self.need(c).map(|_| q),
            Exact::Never => Err(self.fail(
                Rule::InferNotDivisible,
                None,
                format!("{what}: {k} does not divide {n}"),
            )),
        }
    }

    /// NumPy broadcasting of the shapes of every input given.
    pub(crate) fn broadcast_inputs(&self) -> S<Vec<SymDim>> {
        let mut out: Vec<SymDim> = Vec::new();
        for i in 0..self.inputs.len() {
            if self.opt(i).is_some() {
                out = self.broadcast(&out, self.shape(i)?, i)?;
            }
        }
        Ok(out)
    }

    /// NumPy broadcasting of `a` and `b` (the shape of input `at`): aligned from the last
    /// dim; two dims give `b` where `a` is 1, `a` where `b` is 1 or they are equal, else
    /// `max(a, b)` under `a == b || a == 1 || b == 1`.
    pub(crate) fn broadcast(&self, a: &[SymDim], b: &[SymDim], at: usize) -> S<Vec<SymDim>> {
        let n = a.len().max(b.len());
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let x = (i + a.len()).checked_sub(n).map(|j| &a[j]);
            let y = (i + b.len()).checked_sub(n).map(|j| &b[j]);
            out.push(match (x, y) {
                (Some(x), Some(y)) => self.broadcast_dim(x, y, at)?,
                (Some(d), None) | (None, Some(d)) => d.clone(),
                (None, None) => unreachable!("one of the shapes has dim {i}"),
            });
        }
        Ok(out)
    }

    fn broadcast_dim(&self, a: &SymDim, b: &SymDim, at: usize) -> S<SymDim> {
        let one = SymDim::from(1);
        if a == b || b == &one {
            return Ok(a.clone());
        }
        if a == &one {
            return Ok(b.clone());
        }
        // The algebra first; the caller's facts where it leaves the question open.
        let is = |x: &SymDim, y: &SymDim| match equals(x, y) {
            Exact::Always => Unify::Equal,
            Exact::Never => Unify::Never,
            Exact::Sometimes(c) if self.assume.is_empty() => Unify::When(vec![c]),
            Exact::Sometimes(_) => self.assume.unify(x, y),
        };
        let (ab, a1, b1) = (is(a, b), is(a, &one), is(b, &one));
        match (&ab, &a1, &b1) {
            (Unify::Equal, _, _) | (_, _, Unify::Equal) => return Ok(a.clone()),
            (_, Unify::Equal, _) => return Ok(b.clone()),
            (Unify::Never, Unify::Never, Unify::Never) => {
                return Err(self.fail(
                    Rule::Broadcast,
                    Some(at),
                    format!("the dims {a} and {b} do not broadcast"),
                ))
            }
            _ => {}
        }
        self.need(Condition::broadcast(a.clone(), b.clone()))?;
        // `b` where `a` is 1, else `a`: the larger of the two, unless one may be 0 (1 and 0
        // broadcast to 0).
        match crate::sym::at_least_one(a) && crate::sym::at_least_one(b) {
            true => Ok(a.max(b)),
            false => Ok(a.equal(&one).select(b, a)),
        }
    }
}

/// `axis` of a tensor of `rank`, counted from the end when negative; `None` past the rank.
pub(crate) fn resolve_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = i64::try_from(rank).ok()?;
    let at = if axis < 0 { axis.checked_add(r)? } else { axis };
    (0..r).contains(&at).then_some(at as usize)
}

/// What input `i` of `op` is, for the report.
fn what(op: &str, i: usize) -> &'static str {
    match (op, i) {
        ("Reshape", 1) => "the target shape",
        ("Expand", 1) | ("ConstantOfShape", 0) => "the shape",
        ("Slice", 1) => "starts",
        ("Slice", 2) => "ends",
        ("Slice", 3) => "axes",
        ("Slice", 4) => "steps",
        ("Tile", 1) => "repeats",
        ("Pad", 1) => "pads",
        ("Resize", 2) | ("Upsample", 1) => "scales",
        ("Resize", 3) => "sizes",
        ("Split", 1) => "split",
        ("TopK", 1) => "k",
        ("Range", _) => "a bound",
        ("OneHot", 1) => "depth",
        _ => "a value",
    }
}

/// Every output like input 0: its type and shape (unary math, activations, normalizations).
pub(crate) fn like_input(n: &Node<'_>) -> S<Vec<Out>> {
    Ok(vec![Out::new(n.elem(0), n.shape(0)?.to_vec())])
}

/// A dim from a number (a negative or past-range one is a node error).
pub(crate) fn dim(n: &Node<'_>, v: i64, what: &str) -> S<SymDim> {
    match usize::try_from(v) {
        Ok(v) if v <= crate::dims::LIMIT => Ok(SymDim::from(v)),
        _ => Err(n.fail(
            Rule::BadValue,
            None,
            format!("the {what} {v} is not a size"),
        )),
    }
}

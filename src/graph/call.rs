//! One call of an operator by name (`onnx_ops`, `paddle_ops`): its inputs and attributes read
//! with the operator's signature, its errors naming the call as written, and the operations
//! both tables share (reductions, a `Reshape` of a value, axes of a value of rank 0 or 1).

use std::fmt;

use super::arith::Ring;
use super::attr::OpAttr;
use super::value::MAX_ENTRIES;
use super::ShapeValue;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::infer::{dim_of, onnx_reshape, Entry};
use crate::small::Small;
use crate::sym::SymDim;

/// A binary element-wise operation of an operator table.
pub(super) type Binary = fn(&ShapeValue, &ShapeValue) -> R<ShapeValue>;

/// No upper bound on the inputs of a [`Row`].
pub(crate) const MANY: usize = usize::MAX;

/// One operator of a table, its signature declared once: the names it answers to, the opsets
/// it holds for (ONNX), the inputs and attributes it takes, and what it computes. A call is
/// checked against the signature before it runs.
#[derive(Clone, Copy)]
pub(crate) struct Row {
    names: &'static [&'static str],
    /// The first and last opset the row holds for.
    opsets: (i64, i64),
    /// The fewest and most inputs.
    inputs: (usize, usize),
    /// The attributes it takes, each at most once (ONNX: any other is an error); `None` when
    /// the operator reads its own, or the framework's programs carry more than the table reads
    /// (Paddle).
    attrs: Option<&'static [&'static str]>,
    /// What the operator computes on shape values; `None` for a signature alone (a data
    /// operator's, which the whole-graph walk reads).
    run: Option<fn(&Call<'_>) -> R<ShapeValue>>,
}

impl Row {
    pub(super) const fn new(
        names: &'static [&'static str],
        inputs: (usize, usize),
        attrs: &'static [&'static str],
        run: fn(&Call<'_>) -> R<ShapeValue>,
    ) -> Row {
        Row {
            run: Some(run),
            ..Row::signature(names, inputs, attrs)
        }
    }

    /// A signature without a value rule: a data operator's.
    pub(crate) const fn signature(
        names: &'static [&'static str],
        inputs: (usize, usize),
        attrs: &'static [&'static str],
    ) -> Row {
        Row {
            names,
            opsets: (1, i64::MAX),
            inputs,
            attrs: Some(attrs),
            run: None,
        }
    }

    /// Whether the row is `name`'s at `opset`.
    pub(crate) fn is(&self, name: &str, opset: i64) -> bool {
        self.names.contains(&name) && self.holds_at(opset)
    }

    /// Whether the row holds at `opset`.
    pub(crate) fn holds_at(&self, opset: i64) -> bool {
        (self.opsets.0..=self.opsets.1).contains(&opset)
    }

    /// The operators the row answers to.
    pub(crate) fn names(&self) -> &'static [&'static str] {
        self.names
    }

    /// The row's value rule.
    pub(crate) fn value_rule(&self) -> Option<fn(&Call<'_>) -> R<ShapeValue>> {
        self.run
    }

    /// Checks a call of `inputs` inputs against the signature.
    pub(crate) fn check(&self, c: &Call<'_>, inputs: usize) -> R<()> {
        if let Some(attrs) = self.attrs {
            c.only(attrs)?;
        }
        c.arity_of(inputs, self.inputs.0, self.inputs.1)
    }

    /// The row holds from opset `v` on.
    pub(crate) const fn from(mut self, v: i64) -> Row {
        self.opsets.0 = v;
        self
    }

    /// The row holds up to opset `v`.
    pub(crate) const fn until(mut self, v: i64) -> Row {
        self.opsets.1 = v;
        self
    }

    /// The operator reads its attributes itself.
    pub(crate) const fn any_attributes(mut self) -> Row {
        self.attrs = None;
        self
    }
}

/// An operator called by name.
pub(crate) struct Call<'a> {
    /// `"onnx"` or `"paddle"`: whose table.
    pub(crate) framework: &'static str,
    pub(crate) op: &'a str,
    pub(crate) inputs: &'a [ShapeValue],
    pub(crate) attrs: &'a [(&'a str, OpAttr)],
    /// The ONNX opset; `None` for Paddle.
    pub(crate) opset: Option<i64>,
}

type R<T> = Result<T, ReshapeError>;

impl fmt::Display for Call<'_> {
    /// `Unsqueeze(5; axes = [0]) opset 11`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inputs: Vec<String> = self.inputs.iter().map(|v| v.to_string()).collect();
        write!(f, "{}({}", self.op, inputs.join(", "))?;
        let attrs: Vec<String> = self
            .attrs
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        if !attrs.is_empty() {
            write!(f, "; {}", attrs.join(", "))?;
        }
        f.write_str(")")?;
        match self.opset {
            Some(v) => write!(f, " opset {v}"),
            None => Ok(()),
        }
    }
}

impl Call<'_> {
    /// The call run by the row of `rows` for its operator (at its opset), once its inputs
    /// and attributes are checked against the row's signature.
    pub(super) fn run(&self, rows: &[Row]) -> R<ShapeValue> {
        let name = self.op.strip_prefix("pd_op.").unwrap_or(self.op);
        let opset = self.opset.unwrap_or(1);
        let (row, run) = rows
            .iter()
            .find_map(|r| Some((r, r.run.filter(|_| r.is(name, opset))?)))
            .ok_or_else(|| self.unknown())?;
        row.check(self, self.inputs.len())?;
        run(self)
    }

    /// The error of this call: `position` is an input's index, `None` for an attribute or
    /// the call as a whole.
    #[cold]
    #[inline(never)]
    pub(crate) fn fail(&self, rule: Rule, position: Option<usize>, detail: String) -> ReshapeError {
        Fail::new(rule, position, detail).attach_no_input(Origin::ShapeOp, self)
    }

    #[cold]
    pub(super) fn unknown(&self) -> ReshapeError {
        let table = match self.framework {
            "onnx" => "ONNX",
            _ => "Paddle",
        };
        self.fail(
            Rule::UnknownOp,
            None,
            format!("no operator {} in the {table} shape-op table", self.op),
        )
    }

    /// Checks that `n` inputs are `min..=max`.
    fn arity_of(&self, n: usize, min: usize, max: usize) -> R<()> {
        if (min..=max).contains(&n) {
            return Ok(());
        }
        let want = match (min, max) {
            _ if min == max => format!("{min}"),
            (_, usize::MAX) => format!("at least {min}"),
            _ => format!("{min} to {max}"),
        };
        Err(self.fail(
            Rule::BadAttribute,
            None,
            format!("{} takes {want} inputs, got {n}", self.op),
        ))
    }

    /// Checks that every attribute is one of `names`, each once (ONNX: an attribute of another
    /// opset is an error, not ignored).
    pub(super) fn only(&self, names: &[&str]) -> R<()> {
        for (i, (k, _)) in self.attrs.iter().enumerate() {
            let detail = if !names.contains(k) {
                let at = self
                    .opset
                    .map(|v| format!(" at opset {v}"))
                    .unwrap_or_default();
                format!("{}{at} has no attribute {k}", self.op)
            } else if self.attrs[..i].iter().any(|(j, _)| j == k) {
                format!("the attribute {k} is given twice")
            } else {
                continue;
            };
            return Err(self.fail(Rule::BadAttribute, None, detail));
        }
        Ok(())
    }

    /// Input `i`; the arity was checked.
    pub(super) fn input(&self, i: usize) -> &ShapeValue {
        &self.inputs[i]
    }

    /// Optional input `i`: absent past the inputs given, or given as an empty 1-D value (how
    /// an optional input left out before a later one is passed).
    pub(super) fn optional(&self, i: usize) -> Option<&ShapeValue> {
        self.inputs
            .get(i)
            .filter(|v| v.rank() == 0 || !v.is_empty())
    }

    /// Attribute `name`, read by `get`; an error when it has another type.
    fn read<T>(&self, name: &str, what: &str, get: impl Fn(&OpAttr) -> Option<T>) -> R<Option<T>> {
        match self.attrs.iter().find(|(k, _)| *k == name) {
            None => Ok(None),
            Some((_, v)) => get(v).map(Some).ok_or_else(|| {
                self.fail(
                    Rule::BadAttribute,
                    None,
                    format!("the attribute {name} = {v} is not {what}"),
                )
            }),
        }
    }

    pub(crate) fn int(&self, name: &str) -> R<Option<i64>> {
        self.read(name, "an integer (or a list of one)", OpAttr::int)
    }

    pub(crate) fn ints(&self, name: &str) -> R<Option<Vec<i64>>> {
        self.read(name, "a list of integers", OpAttr::ints)
    }

    pub(crate) fn float(&self, name: &str) -> R<Option<f64>> {
        self.read(name, "a number (or a list of one)", OpAttr::float)
    }

    pub(crate) fn flag(&self, name: &str) -> R<Option<bool>> {
        self.read(name, "a flag (true, false, 0 or 1)", OpAttr::flag)
    }

    pub(crate) fn attr(&self, name: &str) -> Option<&OpAttr> {
        self.attrs.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// A required attribute's (or input's) value.
    pub(crate) fn required<T>(&self, name: &str, v: Option<T>) -> R<T> {
        v.ok_or_else(|| self.missing(name))
    }

    #[cold]
    pub(crate) fn missing(&self, name: &str) -> ReshapeError {
        self.fail(
            Rule::BadAttribute,
            None,
            format!("{} needs {name}", self.op),
        )
    }

    /// The numbers of input `i` (axes, slice bounds, a target shape): an error when one is
    /// symbolic.
    pub(super) fn numbers(&self, i: usize, what: &str) -> R<Vec<i64>> {
        let v = self.input(i);
        v.entries()
            .iter()
            .map(|e| {
                e.constant().ok_or_else(|| {
                    self.fail(
                        Rule::NeedsNumber,
                        Some(i),
                        format!("the {what} {v} are not all numbers"),
                    )
                })
            })
            .collect()
    }

    /// `axes` checked against a value of `rank` (0 or 1) that gains `added` axes: each in
    /// `-(rank + added)..rank + added`, none twice. The resolved axes.
    pub(super) fn axes(&self, axes: &[i64], rank: usize, added: usize) -> R<Vec<usize>> {
        let r = (rank + added) as i64;
        let mut out: Vec<usize> = Vec::with_capacity(axes.len());
        for &a in axes {
            let at = if a < 0 { a.saturating_add(r) } else { a };
            if !(0..r).contains(&at) {
                return Err(self.fail(
                    Rule::IndexOutOfRange,
                    None,
                    format!("axis {a} is out of range for rank {r}"),
                ));
            }
            if out.contains(&(at as usize)) {
                return Err(self.fail(
                    Rule::BadAttribute,
                    None,
                    format!("the axes {axes:?} repeat an axis"),
                ));
            }
            out.push(at as usize);
        }
        if rank + added > 1 {
            return Err(self.fail(
                Rule::ValueRank,
                Some(0),
                format!(
                    "the result would have rank {}; shape values have rank 0 or 1",
                    rank + added
                ),
            ));
        }
        Ok(out)
    }

    /// ONNX `Squeeze` (Paddle `squeeze`) of input 0 on `axes`, or on every axis of length 1.
    pub(super) fn squeeze(&self, axes: Option<&[i64]>) -> R<ShapeValue> {
        let x = self.input(0);
        match axes {
            None if x.rank() == 1 && x.len() == 1 => x.squeeze(0),
            None => Ok(x.clone()),
            Some(axes) => {
                let axes = self.axes(axes, x.rank(), 0)?;
                match axes.is_empty() {
                    true => Ok(x.clone()),
                    false => x.squeeze(0),
                }
            }
        }
    }

    /// ONNX `Unsqueeze` (Paddle `unsqueeze`) of input 0 on `axes`.
    pub(super) fn unsqueeze(&self, axes: &[i64]) -> R<ShapeValue> {
        let x = self.input(0);
        match self.axes(axes, x.rank(), axes.len())?.is_empty() {
            true => Ok(x.clone()),
            false => x.unsqueeze(0),
        }
    }

    /// The values of `inputs` combined by `f`, left to right (ONNX's variadic `Min`, `Max`,
    /// `Sum`).
    pub(super) fn fold(
        &self,
        f: impl Fn(&ShapeValue, &ShapeValue) -> R<ShapeValue>,
    ) -> R<ShapeValue> {
        let mut acc = self.input(0).clone();
        for v in &self.inputs[1..] {
            acc = f(&acc, v)?;
        }
        Ok(acc)
    }

    /// A reduction of input 0 on `axes` (all axes for `None` or none given, unless `noop`):
    /// a sum or a product of the entries, or a fold by `f` from the first (an error without
    /// entries, as a minimum of nothing is); `keep` keeps the reduced axis as length 1.
    pub(super) fn reduce(
        &self,
        axes: Option<&[i64]>,
        noop: bool,
        keep: bool,
        how: Result<Ring, Binary>,
    ) -> R<ShapeValue> {
        let x = self.input(0);
        let axes = match axes {
            Some(a) if !a.is_empty() => self.axes(a, x.rank(), 0)?,
            _ if noop => Vec::new(),
            _ => (0..x.rank()).collect(),
        };
        if axes.is_empty() {
            return Ok(x.clone());
        }
        let acc = match how {
            Ok(ring) => ShapeValue::ring_fold(std::slice::from_ref(x), false, ring, "reduce")?,
            Err(f) => x.fold(None, f).unwrap_or_else(|| {
                Err(self.fail(
                    Rule::LengthMismatch,
                    Some(0),
                    format!("{} of no entries", self.op),
                ))
            })?,
        };
        Ok(match keep {
            true => acc.as_vector(),
            false => acc,
        })
    }

    /// ONNX `Reshape` (`zero_copies`: `allowzero = 0`; Paddle `reshape`) of input 0 to
    /// `target`, by the dialect's rule ([`onnx_reshape`]) on the value's own shape (`[]` or
    /// `[n]`), where the result has rank 0 or 1: a target of two or more dims gives a rank
    /// past a shape value's.
    pub(super) fn reshape(&self, target: &[i64], zero_copies: bool) -> R<ShapeValue> {
        let x = self.input(0);
        if target.len() > 1 {
            return Err(self.fail(
                Rule::ValueRank,
                Some(1),
                format!(
                    "the target has rank {}; shape values have rank 0 or 1",
                    target.len()
                ),
            ));
        }
        let shape: &[usize] = match x.rank() {
            0 => &[],
            _ => &[x.len()],
        };
        let spec = target.iter().enumerate().map(|(i, &v)| match v {
            1.. => Ok((i, Entry::Dim(dim_of(v)))),
            _ => Ok((i, Entry::Code(v))),
        });
        let mut dims = Small::new();
        onnx_reshape::<usize>(shape, spec, !zero_copies, &mut dims).map_err(|f| {
            let why = format!("the target shape {target:?}: {}", f.detail);
            self.fail(f.rule, Some(1), why)
        })?;
        Ok(match dims.len() {
            0 => x.squeeze_all()?,
            _ => x.as_vector(),
        })
    }

    /// A constant of `shape` (rank 0 or 1, known) filled with `value`.
    pub(super) fn filled(&self, shape: &[i64], value: i64) -> R<ShapeValue> {
        match *shape {
            [] => Ok(ShapeValue::scalar(value)),
            [n] if n > MAX_ENTRIES as i64 => Err(self.fail(
                Rule::ValueTooLong,
                None,
                format!("a value of {n} entries; shape values hold at most {MAX_ENTRIES}"),
            )),
            [n] if n >= 0 => {
                let mut v = Vec::new();
                v.try_reserve_exact(n as usize).map_err(|_| {
                    self.fail(
                        Rule::AllocationFailed,
                        None,
                        format!("a value of {n} entries does not fit in memory"),
                    )
                })?;
                v.resize(n as usize, SymDim::int(value));
                Ok(ShapeValue::vector(v))
            }
            [n] => Err(self.fail(Rule::BadValue, None, format!("a length of {n}"))),
            _ => Err(self.fail(
                Rule::ValueRank,
                None,
                format!(
                    "the shape {shape:?} has rank {}; shape values have rank 0 or 1",
                    shape.len()
                ),
            )),
        }
    }

    /// An integer held in a float (`64.0`), or an error: shape values are integers.
    pub(super) fn integral(&self, v: f64, what: &str) -> R<i64> {
        if v.fract() == 0.0 && v.abs() < 9.2e18 {
            return Ok(v as i64);
        }
        Err(self.fail(
            Rule::UnknownOp,
            None,
            format!("the {what} {v} is not an integer; shape values are integers, fold a subtree computed in floats to its integers first"),
        ))
    }
}

impl ShapeValue {
    /// The 0-D value of a value of one entry.
    fn squeeze_all(&self) -> R<ShapeValue> {
        match self.rank() {
            0 => Ok(self.clone()),
            _ => self.squeeze(0),
        }
    }
}

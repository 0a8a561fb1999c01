//! [`ShapeValue`]: the value a shape subgraph of an exported model computes: its entries,
//! constructors, evaluation and display. The shape operations on it are in `ops`.

use std::fmt;

use super::{Condition, SymDim};
use std::hash::{Hash, Hasher};

/// The value a shape subgraph computes: a 0-D or 1-D integer tensor whose entries are integers
/// (including the dialects' codes, `-1` and `0`) or [`SymDim`]s, with the [`Condition`]s its
/// arithmetic needed. [`Onnx`](crate::Onnx), [`Paddle`](crate::Paddle), [`Np`](crate::Np) and
/// [`Like`](crate::Like) take one wherever they take a list; symbolic inference then runs on it
/// as on a literal spec, and its conditions join the result's.
///
/// The operations follow the frameworks (the ONNX operator and the Paddle op named on each),
/// on integers exactly as the graph computes them: the graph's integer division is a floor on
/// sizes (`T // 2`, represented as one, never assumed divisible), ONNX's `Div` truncates,
/// `Mod` takes the divisor's sign. Where a symbolic result could pass the range of `i64` for
/// some value of the symbols (where the graph's own arithmetic would wrap), the value carries
/// the bound as a condition (`1024*B <= 9223372036854775807`), unless the shapes it was read
/// from bound it already (a tensor's elements number at most `isize::MAX`). Every misuse is a
/// [`ReshapeError`](crate::ReshapeError) naming the operation and its operands: an index out of
/// range, a zero step, a rank above 1, lengths that do not broadcast, a division by zero, an
/// overflow, a symbolic entry where a number is needed.
///
/// PyTorch's `x.view(x.size(0), -1, 64)`, as exported (`Shape -> Gather -> Unsqueeze ->
/// Concat`):
///
/// ```
/// use ndarray_reshape::{Onnx, ShapeSpec, ShapeValue, SymDim};
///
/// let x = [SymDim::sym("B"), SymDim::sym("T"), SymDim::from(8), SymDim::from(64)];
/// let b = ShapeValue::shape_of(&x).gather(&ShapeValue::scalar(0))?;
/// let shape = ShapeValue::concat(&[b.unsqueeze(0)?, ShapeValue::from(vec![-1, 64])])?;
/// assert_eq!(shape.to_string(), "[B, -1, 64]");
/// let out = Onnx::new(&shape).infer_symbolic(&x)?;
/// assert_eq!(out.to_string(), "[B, 8*T, 64]");
/// assert_eq!(Onnx::new(&shape).to_onnx_symbolic(&x)?, Onnx::new([0, -1, 64]));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
///
/// Paddle's `x.reshape([x.shape[0] // 2, ...])` (`shape64 -> slice -> floor_divide -> stack`):
///
/// ```
/// use ndarray_reshape::{Paddle, ShapeSpec, ShapeValue, SymDim};
///
/// let x = [SymDim::sym("B"), SymDim::from(3136), SymDim::from(96)];
/// let b = ShapeValue::shape_of(&x).slice(0, 1, 1)?.squeeze(0)?;
/// let half = b.floor_div(&ShapeValue::scalar(2))?;
/// let shape = ShapeValue::stack(&[half, ShapeValue::scalar(-1), ShapeValue::scalar(96)])?;
/// assert_eq!(shape.to_string(), "[B // 2, -1, 96]");
/// let out = Paddle::new(&shape).infer_symbolic(&x)?;
/// assert_eq!(out.eval(&[("B", 4)]), Some(vec![2, 6272, 96]));
/// assert_eq!(out.eval(&[("B", 3)]), Some(vec![1, 9408, 96]));
/// // The -1 is an exact quotient, under the condition that it is one:
/// assert_eq!(out.conditions()[1].to_string(), "3136*B % (B // 2) == 0");
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Clone)]
pub struct ShapeValue {
    /// 0-D (one entry) or 1-D.
    pub(super) scalar: bool,
    pub(super) entries: Vec<SymDim>,
    pub(super) conditions: Vec<Condition>,
    /// Sizes known to be at most `isize::MAX` (the element counts of the tensors whose shapes
    /// the value was read from): what bounds its arithmetic within `i64`. Knowledge, not part
    /// of the value: equality ignores it.
    pub(super) sizes: Vec<SymDim>,
}

impl PartialEq for ShapeValue {
    fn eq(&self, o: &ShapeValue) -> bool {
        (self.scalar, &self.entries, &self.conditions) == (o.scalar, &o.entries, &o.conditions)
    }
}

impl Eq for ShapeValue {}

impl Hash for ShapeValue {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (self.scalar, &self.entries, &self.conditions).hash(h)
    }
}

impl ShapeValue {
    /// The 1-D value of a tensor's shape (ONNX `Shape`, Paddle `shape64`).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("N"), SymDim::from(3)]);
    /// assert_eq!(v.to_string(), "[N, 3]");
    /// ```
    pub fn shape_of(dims: &[SymDim]) -> ShapeValue {
        let mut v = ShapeValue::vector(dims.to_vec());
        // A tensor's non-zero dims multiply to at most isize::MAX.
        if dims
            .iter()
            .all(|&d| d.known().is_some() || super::at_least_one(d))
        {
            let size = dims
                .iter()
                .filter(|d| !d.is_zero())
                .fold(SymDim::from(1), |p, &d| p * d);
            if size.is_symbolic() {
                v.sizes.push(size);
            }
        }
        v
    }

    /// A 0-D integer (an ONNX scalar constant, Paddle's `full` with shape `[]`).
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// assert_eq!(ShapeValue::scalar(-1).rank(), 0);
    /// ```
    pub fn scalar(v: i64) -> ShapeValue {
        ShapeValue {
            scalar: true,
            entries: vec![SymDim::int(v)],
            conditions: Vec::new(),
            sizes: Vec::new(),
        }
    }

    pub(super) fn vector(entries: Vec<SymDim>) -> ShapeValue {
        ShapeValue {
            scalar: false,
            entries,
            conditions: Vec::new(),
            sizes: Vec::new(),
        }
    }

    /// The entries: numbers (codes such as `-1` included) and symbolic dims, one for a
    /// scalar. [`ShapeValue::shape_of`] builds a value from them again.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::concat(&[ShapeValue::shape_of(&[SymDim::sym("B")]), ShapeValue::from(vec![-1])])?;
    /// assert_eq!(v.entries(), &[SymDim::sym("B"), SymDim::int(-1)]);
    /// assert_eq!(ShapeValue::shape_of(v.entries()), v);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn entries(&self) -> &[SymDim] {
        &self.entries
    }

    /// The rank: 0 for a scalar, 1 for a vector.
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// assert_eq!(ShapeValue::from(vec![2, -1]).rank(), 1);
    /// ```
    pub fn rank(&self) -> usize {
        usize::from(!self.scalar)
    }

    /// The number of entries (1 for a scalar).
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// assert_eq!(ShapeValue::from(vec![2, -1]).len(), 2);
    /// assert_eq!(ShapeValue::scalar(7).len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it is a vector without entries (the shape of a 0-d tensor).
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// assert!(ShapeValue::shape_of(&[]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The conditions on the symbols under which the value is what the graph computes: bounds
    /// within which its int64 arithmetic does not wrap.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let t = ShapeValue::from(SymDim::sym("T"));
    /// assert!(t.floor_div(&ShapeValue::scalar(2))?.conditions().is_empty());
    /// let big = t.mul(&ShapeValue::scalar(1 << 62))?;
    /// assert_eq!(big.conditions()[0].to_string(), "4611686018427387904*T <= 9223372036854775807");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn conditions(&self) -> &[Condition] {
        &self.conditions
    }

    /// The entries under `bindings` (name, size), one for a scalar: `None` when a symbol is
    /// unbound, a condition fails, or an entry is not an integer or passes `i64::MAX` (where
    /// the graph's own integer arithmetic would overflow).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::from(64)]);
    /// assert_eq!(v.eval(&[("B", 2)]), Some(vec![2, 64]));
    /// assert_eq!(v.eval(&[]), None);
    /// ```
    pub fn eval(&self, bindings: &[(&str, usize)]) -> Option<Vec<i64>> {
        super::shape::all_hold(&self.conditions, bindings)?;
        self.entries.iter().map(|d| d.eval_int(bindings)).collect()
    }

    /// The entries and the conditions, for conversion into a spec.
    pub(crate) fn parts(&self) -> (bool, &[SymDim], &[Condition]) {
        (self.scalar, &self.entries, &self.conditions)
    }
}

/// The conditions of `values`, each once, in order.
pub(super) fn joined(values: &[&ShapeValue]) -> Vec<Condition> {
    let mut out = Vec::new();
    for c in values.iter().flat_map(|v| v.conditions.iter()) {
        add(&mut out, *c);
    }
    out
}

/// The known sizes of `values`, each once.
pub(super) fn sizes(values: &[&ShapeValue]) -> Vec<SymDim> {
    let mut out: Vec<SymDim> = Vec::new();
    for s in values.iter().flat_map(|v| v.sizes.iter()) {
        if !out.contains(s) {
            out.push(*s);
        }
    }
    out
}

pub(super) fn add(conds: &mut Vec<Condition>, c: Condition) {
    if !conds.contains(&c) {
        conds.push(c);
    }
}

impl fmt::Display for ShapeValue {
    /// `[B, -1, 64]` (1-D) or `B` (0-D), then ` if ` and the conditions.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries: Vec<String> = self.entries.iter().map(SymDim::to_string).collect();
        match self.scalar {
            true => f.write_str(&entries.join(", "))?,
            false => write!(f, "[{}]", entries.join(", "))?,
        }
        if !self.conditions.is_empty() {
            let c: Vec<String> = self.conditions.iter().map(|c| c.to_string()).collect();
            write!(f, " if {}", c.join(" and "))?;
        }
        Ok(())
    }
}

impl fmt::Debug for ShapeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ShapeValue({self})")
    }
}

/// A 1-D value of integers (an ONNX `int64` constant, Paddle's `full_int_array`).
///
/// ```
/// use ndarray_reshape::ShapeValue;
/// assert_eq!(ShapeValue::from(vec![-1, 64]).to_string(), "[-1, 64]");
/// ```
impl From<Vec<i64>> for ShapeValue {
    fn from(v: Vec<i64>) -> Self {
        ShapeValue::from(&v[..])
    }
}

/// A 1-D value of integers.
///
/// ```
/// use ndarray_reshape::ShapeValue;
/// let dims: &[i64] = &[2, 3];
/// assert_eq!(ShapeValue::from(dims), ShapeValue::from(vec![2, 3]));
/// ```
impl From<&[i64]> for ShapeValue {
    fn from(v: &[i64]) -> Self {
        ShapeValue::vector(v.iter().map(|&x| SymDim::int(x)).collect())
    }
}

/// A 1-D value of integers.
///
/// ```
/// use ndarray_reshape::ShapeValue;
/// assert_eq!(ShapeValue::from([2, -1]), ShapeValue::from(vec![2, -1]));
/// ```
impl<const N: usize> From<[i64; N]> for ShapeValue {
    fn from(v: [i64; N]) -> Self {
        ShapeValue::from(&v[..])
    }
}

/// A 0-D value of one dim (a number when it is known).
///
/// ```
/// use ndarray_reshape::{ShapeValue, SymDim};
/// assert_eq!(ShapeValue::from(SymDim::sym("B")).to_string(), "B");
/// assert_eq!(ShapeValue::from(SymDim::from(3)), ShapeValue::scalar(3));
/// ```
impl From<SymDim> for ShapeValue {
    fn from(d: SymDim) -> Self {
        ShapeValue {
            scalar: true,
            entries: vec![d],
            conditions: Vec::new(),
            sizes: Vec::new(),
        }
    }
}

//! [`ShapeValue`]: the value a shape subgraph of an exported model computes: its entries,
//! constructors, evaluation and display. The shape operations on it are in `ops`.

use std::fmt;

use std::hash::{Hash, Hasher};

use crate::error::ReshapeError;
use crate::sym::ConditionList;
use crate::sym::{bounds, lower, upper, Assumptions, Condition, Rat, SymDim};

/// The value a shape subgraph computes: a 0-D or 1-D integer tensor whose entries are integers
/// (including the dialects' codes, `-1` and `0`) or [`SymDim`]s, with the [`Condition`]s its
/// arithmetic needed. [`Onnx`](crate::Onnx), [`Paddle`](crate::Paddle), [`Np`](crate::Np) and
/// [`Like`](crate::Like) take one wherever they take a list; symbolic inference then runs on it
/// as on a literal spec, and its conditions join the result's.
///
/// The operations follow the frameworks (the ONNX operator and the Paddle op named on each),
/// on integers exactly as the graph computes them: the graph's integer division is a floor on
/// sizes (`T // 2`, represented as one, never assumed divisible), ONNX's `Div` truncates,
/// `Mod` takes the divisor's sign.
///
/// A value is *sound*: where it evaluates, the graph computes that value. It knows the integer
/// type the graph computes it in ([`dtype`](Self::dtype): `int64`, or `int32` after a cast),
/// and what any of its entries needed on the way is one of its
/// [`conditions`](Self::conditions), kept by every value derived from it (a slice that drops
/// the entry included): a symbolic result that could leave the type for some value of the
/// symbols carries the bound (`1024*B <= 9223372036854775807`) unless the shapes it was read
/// from bound it already (a tensor's elements number at most `isize::MAX`), and a divisor that
/// may be 0 carries `d != 0`. Sums and products are exempt on the way (`Sum`, `ReduceSum`,
/// `ReduceProd`, `scale`): the graph's wrapping steps reach the exact result whenever it is
/// within the type, so only the result is bounded. Every misuse is a
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
    /// The integer type the graph computes the value in.
    pub(super) ty: Ty,
}

/// The most entries a shape value an operation builds holds: a shape is a tensor's rank long,
/// and a `ConstantOfShape`, `Concat` or `Gather` past this is an error rather than memory
/// spent on entries no reshape reads.
pub(crate) const MAX_ENTRIES: usize = 4096;

/// The integer type a graph computes a shape value in: `int64` (ONNX's `Shape`, Paddle's
/// `shape64`), or another after a `Cast`. A *literal* (a constant the caller wrote, a graph's
/// `Constant`) takes the type of the value it meets, as the graph's constant has that type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Ty {
    /// Width in bits; 1 for `bool`.
    bits: u8,
    signed: bool,
    literal: bool,
}

impl Ty {
    pub(super) const INT64: Ty = Ty {
        bits: 64,
        signed: true,
        literal: false,
    };
    pub(super) const LITERAL: Ty = Ty {
        literal: true,
        ..Ty::INT64
    };
    pub(super) const BOOL: Ty = Ty {
        bits: 1,
        signed: false,
        literal: false,
    };

    pub(super) fn int(bits: u8, signed: bool) -> Ty {
        Ty {
            bits,
            signed,
            literal: false,
        }
    }

    /// The values of the type held in `i64`: `uint64` stops at `i64::MAX`.
    pub(super) fn range(self) -> (i128, i128) {
        let b = u32::from(self.bits);
        match self.signed {
            true => (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1),
            false => (0, ((1i128 << b) - 1).min(i64::MAX.into())),
        }
    }

    fn holds(self, o: Ty) -> bool {
        let ((a, b), (c, d)) = (self.range(), o.range());
        a <= c && d <= b
    }

    pub(super) fn name(self) -> &'static str {
        match (self.bits, self.signed) {
            (1, _) => "bool",
            (4, true) => "int4",
            (8, true) => "int8",
            (16, true) => "int16",
            (32, true) => "int32",
            (4, false) => "uint4",
            (8, false) => "uint8",
            (16, false) => "uint16",
            (32, false) => "uint32",
            (64, false) => "uint64",
            _ => "int64",
        }
    }
}

/// The type an operation on `values` computes in: the one type they share; a literal takes
/// the other operands' type where its numbers fit it; `bool` takes part as an integer; of
/// two integer types, the one that holds both (as NumPy and Paddle promote), `int64` if
/// neither does.
pub(super) fn joined_ty(values: &[&ShapeValue]) -> Ty {
    let typed = values.iter().filter(|v| !v.ty.literal && v.ty != Ty::BOOL);
    let mut ty = match typed
        .map(|v| v.ty)
        .reduce(|a, b| match (a.holds(b), b.holds(a)) {
            (true, _) => a,
            (_, true) => b,
            _ => Ty::INT64,
        }) {
        Some(t) => t,
        None if values.iter().all(|v| v.ty.literal) => return Ty::LITERAL,
        None => Ty::INT64,
    };
    let (lo, hi) = ty.range();
    let fits = |v: &&&ShapeValue| {
        v.entries.iter().all(|e| {
            e.constant()
                .is_some_and(|x| (lo..=hi).contains(&i128::from(x)))
        })
    };
    if !values.iter().filter(|v| v.ty.literal).all(|v| fits(&v)) {
        ty = Ty::INT64;
    }
    ty
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
        v.ty = Ty::INT64;
        // A tensor's non-zero dims multiply to at most isize::MAX; each, at least 1, is then
        // within int64 too. A dim that may be below 1 is bounded as any value is.
        if dims
            .iter()
            .all(|d| d.known().is_some() || crate::sym::at_least_one(d))
        {
            let size = dims
                .iter()
                .filter(|d| !d.is_zero())
                .fold(SymDim::from(1), |p, d| p * d.clone());
            if size.is_symbolic() {
                v.sizes.push(size);
            }
        } else {
            v.check_range();
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
            ty: Ty::LITERAL,
        }
    }

    pub(super) fn vector(entries: Vec<SymDim>) -> ShapeValue {
        ShapeValue {
            scalar: false,
            entries,
            conditions: Vec::new(),
            sizes: Vec::new(),
            ty: Ty::LITERAL,
        }
    }

    /// The integer type the graph computes the value in: `"int64"` for a tensor's shape and
    /// what is computed from it, the type of a [`cast`](Self::cast) after one (`"int32"` for
    /// tf2onnx's shape arithmetic), `"int64"` for a constant until it meets a value of
    /// another type, which it then takes. Every entry is within the type, or the value's
    /// [`conditions`](Self::conditions) say that it is.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::from(65536)]);
    /// assert_eq!(v.dtype(), "int64");
    /// let n = v.cast("int32")?.reduce_prod()?;
    /// assert_eq!(n.dtype(), "int32");
    /// // The graph's int32 product wraps past 2147483647: the value says where it holds.
    /// assert_eq!(n.to_string(), "65536*B if B <= 2147483647 and 65536*B <= 2147483647");
    /// assert_eq!(n.eval(&[("B", 32767)]), Some(vec![2147418112]));
    /// assert_eq!(n.eval(&[("B", 32768)]), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn dtype(&self) -> &'static str {
        self.ty.name()
    }

    /// Adds the conditions that keep each symbolic entry within the value's type, where its
    /// known sizes do not.
    pub(super) fn check_range(&mut self) {
        let (lo, hi) = self.ty.range();
        for i in 0..self.entries.len() {
            let e = &self.entries[i];
            if e.is_symbolic() {
                within(e.clone(), lo, hi, &self.sizes, &mut self.conditions);
            }
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
    /// within which its integer arithmetic does not wrap, divisors that are not 0, the bound of
    /// a cast; those of every value it was computed from.
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
        crate::sym::all_hold(&self.conditions, bindings)?;
        self.entries.iter().map(|d| d.eval_int(bindings)).collect()
    }

    /// The entries and the conditions, for conversion into a spec.
    pub(crate) fn parts(&self) -> (bool, &[SymDim], &[Condition]) {
        (self.scalar, &self.entries, &self.conditions)
    }
}

impl Assumptions {
    /// [`apply`](Self::apply) for a shape value.
    ///
    /// # Errors
    ///
    /// As for [`apply`](Self::apply).
    ///
    /// ```
    /// use ndarray_reshape::{Assumptions, ShapeValue, SymDim};
    /// let v = ShapeValue::from(SymDim::from(64) * SymDim::sym("B")); // bounded by int64
    /// assert_eq!(v.conditions().len(), 1);
    /// let small = Assumptions::new().at_most("B", 1 << 20).apply_value(&v)?;
    /// assert!(small.conditions().is_empty());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn apply_value(&self, value: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        let mut v = value.clone();
        v.conditions = self.kept(value.conditions())?;
        v.entries = value.entries().iter().map(|d| self.simplified(d)).collect();
        Ok(v)
    }
}

/// The length that operands of `lens` broadcast to, as NumPy broadcasts them: the one length
/// that is not 1 (0 included), else 1; `Err` with the position of the first that does not.
pub(super) fn broadcast(lens: &[usize]) -> Result<usize, usize> {
    let len = lens.iter().copied().find(|&n| n != 1).unwrap_or(1);
    match lens.iter().position(|&n| n != len && n != 1) {
        Some(p) => Err(p),
        None => Ok(len),
    }
}

impl ShapeValue {
    /// Entry `i` of the broadcast: the one entry of a value of one.
    pub(super) fn at(&self, i: usize) -> &SymDim {
        &self.entries[if self.entries.len() == 1 { 0 } else { i }]
    }
}

/// The conditions of `values`, each once, in order.
pub(super) fn joined(values: &[&ShapeValue]) -> Vec<Condition> {
    let mut out = Vec::new();
    out.add_all(values.iter().flat_map(|v| v.conditions.iter().cloned()));
    out
}

/// The known sizes of `values`, each once.
pub(super) fn sizes(values: &[&ShapeValue]) -> Vec<SymDim> {
    let mut out: Vec<SymDim> = Vec::new();
    for s in values.iter().flat_map(|v| v.sizes.iter()) {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

/// Adds to `conds` the conditions `lo <= e` and `e <= hi` that `sizes` (each at most
/// `isize::MAX`) do not give.
pub(super) fn within(e: SymDim, lo: i128, hi: i128, sizes: &[SymDim], conds: &mut Vec<Condition>) {
    // The form's own bounds (kept with it) first; the search through the known sizes only
    // where they do not settle it.
    let b = bounds(&e);
    let (lo, hi) = (Rat::int(lo), Rat::int(hi));
    let below = b.hi.is_some_and(|u| u <= hi) || upper(&e, sizes).is_some_and(|u| u <= hi);
    let above = b.lo.is_some_and(|l| l >= lo) || lower(&e, sizes).is_some_and(|l| l >= lo);
    if !below {
        conds.add(Condition::at_most(e.clone(), SymDim::int(hi.num as i64)));
    }
    if !above {
        conds.add(Condition::at_most(SymDim::int(lo.num as i64), e));
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
        let mut v = ShapeValue {
            scalar: true,
            entries: vec![d.clone()],
            conditions: Vec::new(),
            sizes: Vec::new(),
            ty: Ty::LITERAL,
        };
        if d.is_symbolic() {
            v.ty = Ty::INT64;
            v.check_range();
        }
        v
    }
}

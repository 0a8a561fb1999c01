//! Shape specs: the [`ShapeSpec`] trait, the conversions that bring spec values in, and the
//! shared arithmetic (checked products, `-1` inference).
//!
//! Every dialect is a way to compute a target shape from an input shape. Nothing here touches
//! array data.

use std::fmt;

use ndarray::{ArrayBase, ArrayRef, Data, Dimension};

use crate::error::{ErrorContext, Fail, ReshapeError, Rule};
use crate::layout::Order;
use crate::small::Small;

pub(crate) mod like;
pub(crate) mod mx;
pub(crate) mod np;
pub(crate) mod npx;
pub(crate) mod onnx;
pub(crate) mod paddle;

/// The largest element count (and the largest product of non-zero dims) an `ndarray` shape may
/// have: `isize::MAX`.
pub(crate) const LIMIT: usize = isize::MAX as usize;

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// A reshape spec of some dialect: computes the target shape from an input shape, without data.
///
/// Implemented by [`Mx`](crate::Mx), [`MxTarget`](crate::MxTarget), [`Like`](crate::Like),
/// [`Paddle`](crate::Paddle), [`Np`](crate::Np), [`Npx`](crate::Npx) and
/// [`Onnx`](crate::Onnx), and by references to them. Graph compilers
/// and model converters can call [`infer_shape`](Self::infer_shape) on shapes alone. The trait
/// is sealed so that methods can be added without breaking users.
///
/// ```
/// use ndarray_reshape::{Mx, Np, Order, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// assert_eq!(Mx::new(&[-3, -2]).infer_shape(&[2, 3, 4])?, vec![6, 4]);
/// assert_eq!(Np::new(&[3, -1], Order::F).infer_shape(&[6])?, vec![3, 2]);
/// # Ok(())
/// # }
/// ```
pub trait ShapeSpec: Sealed {
    /// The target shape for an input of shape `input`.
    ///
    /// # Errors
    ///
    /// The [`ReshapeError`] variant of the first rule the spec breaks for this input, in the
    /// dialect's order (see each spec type).
    fn infer_shape(&self, input: &[usize]) -> Result<Vec<usize>, ReshapeError> {
        let mut dims = Small::new();
        self.infer_into(input, &mut dims)?;
        Ok(dims.to_vec())
    }

    /// [`infer_shape`](Self::infer_shape) into a caller's small inline buffer (no allocation
    /// for up to 8 dims, nothing large returned by value): the view path uses this.
    #[doc(hidden)]
    fn infer_into(&self, input: &[usize], dims: &mut Small<usize>) -> Result<(), ReshapeError>;

    /// The requested reading order. [`Order::C`] for every dialect but NumPy's.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, Np, Order, ShapeSpec};
    /// assert_eq!(Mx::new(&[-1]).order(), Order::C);
    /// assert_eq!(Np::new(&[-1], Order::A).order(), Order::A);
    /// ```
    fn order(&self) -> Order {
        Order::C
    }

    /// The dialect and the spec as written, for error messages.
    #[doc(hidden)]
    fn describe(&self) -> (crate::Dialect, String);

    /// The ONNX `Reshape` that means exactly this reshape for an input of shape `input`: an
    /// explicit shape of non-negative dims, with `allowzero` set when a dim is 0 (so the 0 is a
    /// literal zero). Exporters lower MXNet, Paddle and NumPy reshapes with it.
    ///
    /// # Errors
    ///
    /// The spec's own errors for this input.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, Onnx, Paddle, ShapeSpec};
    ///
    /// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    /// let lowered = Mx::new([-4, 1, 2, -2]).to_onnx(&[2, 3, 4])?;
    /// assert_eq!(lowered, Onnx::new([1, 2, 3, 4]));
    /// let lowered = Paddle::new([0, -1]).to_onnx(&[2, 0, 3])?;
    /// assert_eq!(lowered, Onnx::new([0, 6]).allowzero(true));
    /// assert_eq!(lowered.infer_shape(&[2, 0, 3])?, vec![0, 6]);
    /// # Ok(())
    /// # }
    /// ```
    fn to_onnx(&self, input: &[usize]) -> Result<crate::Onnx, ReshapeError> {
        let shape = self.infer_shape(input)?;
        let zero = shape.contains(&0);
        Ok(crate::Onnx::new(shape).allowzero(zero))
    }
}

impl<T: ShapeSpec + ?Sized> Sealed for &T {}
impl<T: ShapeSpec + ?Sized> ShapeSpec for &T {
    #[inline]
    fn infer_into(&self, input: &[usize], dims: &mut Small<usize>) -> Result<(), ReshapeError> {
        (**self).infer_into(input, dims)
    }
    #[inline]
    fn order(&self) -> Order {
        (**self).order()
    }
    fn describe(&self) -> (crate::Dialect, String) {
        (**self).describe()
    }
}

/// An integer type spec values can be given in (`i8` to `i64`, `isize`, `u8` to `u64`, `usize`,
/// and Paddle's [`ShapeItem`]). Values are converted with `TryFrom`: a value that does not fit
/// in `i64` becomes [`ReshapeError::ValueDoesNotFit`] when the spec is used, never a wrap.
///
/// ```
/// use ndarray_reshape::{Mx, ReshapeError, ShapeSpec};
///
/// let err = Mx::new(&[u64::MAX]).infer_shape(&[4]).unwrap_err();
/// assert!(matches!(err, ReshapeError::ValueDoesNotFit(_)));
/// ```
pub trait SpecInt: Sealed {
    #[doc(hidden)]
    fn to_spec(&self) -> Result<i64, EntryError>;
    #[doc(hidden)]
    fn written(&self) -> String;
}

/// Why a spec entry could not be converted (opaque; it surfaces as a [`ReshapeError`]).
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryError {
    rule: Rule,
    detail: String,
}

macro_rules! spec_int {
    ($($t:ty),*) => {$(
        impl Sealed for $t {}
        impl SpecInt for $t {
            #[inline]
            fn to_spec(&self) -> Result<i64, EntryError> {
                i64::try_from(*self).map_err(|_| EntryError {
                    rule: Rule::ValueDoesNotFit,
                    detail: format!("value {} does not fit in i64", self),
                })
            }
            fn written(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
spec_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// One entry of a Paddle shape list that mixes integers with 0-d or one-element integer arrays
/// (Paddle accepts `[2, paddle.to_tensor(3), -1]`).
///
/// ```
/// use ndarray::{arr0, array};
/// use ndarray_reshape::{Paddle, ShapeItem, ShapeSpec};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let three = arr0(3i64);
/// let minus_one = array![-1i32];
/// let spec = Paddle::new([ShapeItem::from(2), ShapeItem::from(&three), ShapeItem::from(&minus_one)]);
/// assert_eq!(spec.infer_shape(&[6, 4])?, vec![2, 3, 4]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeItem(Result<i64, EntryError>, String);

impl Sealed for ShapeItem {}
impl SpecInt for ShapeItem {
    fn to_spec(&self) -> Result<i64, EntryError> {
        self.0.clone()
    }
    fn written(&self) -> String {
        self.1.clone()
    }
}

macro_rules! shape_item_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for ShapeItem {
            fn from(v: $t) -> Self {
                ShapeItem(v.to_spec(), v.written())
            }
        }
    )*};
}
shape_item_from_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl<S, D> From<&ArrayBase<S, D>> for ShapeItem
where
    S: Data,
    S::Elem: SpecInt,
    D: Dimension,
{
    fn from(a: &ArrayBase<S, D>) -> Self {
        ShapeItem::from(&**a)
    }
}

/// As for `&ArrayBase`: a 0-d or one-element integer array, borrowed as ndarray 0.17's
/// [`ArrayRef`].
impl<T, D> From<&ArrayRef<T, D>> for ShapeItem
where
    T: SpecInt,
    D: Dimension,
{
    fn from(a: &ArrayRef<T, D>) -> Self {
        let written = format!(
            "tensor({:?})",
            a.iter().map(|v| v.written()).collect::<Vec<_>>()
        )
        .replace('"', "");
        if a.len() != 1 {
            let detail = format!(
                "a shape entry must be a 0-d or one-element integer array, got shape {:?}",
                a.shape()
            );
            let e = EntryError {
                rule: Rule::BadShapeTensor,
                detail,
            };
            return ShapeItem(Err(e), written);
        }
        let v = a.iter().next().map_or(Ok(0), |v| v.to_spec());
        ShapeItem(v, written)
    }
}

/// The spec values of any dialect, converted to `i64` (or the first entry that could not be).
/// `Debug` and `Display` print the values as written.
///
/// ```
/// use ndarray_reshape::{Onnx, SpecValues};
/// let list = [2, -1].into_spec_list();
/// assert_eq!(format!("{list:?}"), "[2, -1]");
/// assert_eq!(format!("{:?}", Onnx::new([6, 4])), "Onnx { shape: [6, 4], allowzero: false }");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SpecList {
    vals: Small<i64>,
    bad: Option<Box<BadEntry>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct BadEntry {
    position: usize,
    rule: Rule,
    detail: String,
    written: String,
}

impl SpecList {
    fn from_iter<'a, T: SpecInt + 'a>(it: impl IntoIterator<Item = &'a T>) -> Self {
        let it = it.into_iter();
        let mut vals = Small::with_capacity(it.size_hint().0);
        let mut bad: Option<Box<BadEntry>> = None;
        for (i, v) in it.enumerate() {
            match (v.to_spec(), &mut bad) {
                (Ok(x), None) => vals.push(x),
                (Err(e), None) => {
                    // The first bad entry: from here on, also keep the spec as written.
                    let mut written: Vec<String> = vals.iter().map(i64::to_string).collect();
                    written.push(v.written());
                    vals.push(0);
                    bad = Some(Box::new(BadEntry {
                        position: i,
                        rule: e.rule,
                        detail: e.detail,
                        written: written.join(", "),
                    }));
                }
                (r, Some(b)) => {
                    vals.push(r.unwrap_or(0));
                    b.written.push_str(", ");
                    b.written.push_str(&v.written());
                }
            }
        }
        if let Some(b) = &mut bad {
            b.written = format!("[{}]", b.written);
        }
        SpecList { vals, bad }
    }

    /// The values, or the failure of the first entry that could not be converted.
    #[inline]
    pub(crate) fn values(&self) -> Result<&[i64], Fail> {
        match &self.bad {
            None => Ok(&self.vals),
            Some(b) => Err(b.fail()),
        }
    }
}

impl BadEntry {
    #[cold]
    #[inline(never)]
    fn fail(&self) -> Fail {
        Fail::at(self.rule, self.position, self.detail.clone())
    }
}

impl fmt::Debug for SpecList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for SpecList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.bad {
            Some(b) => f.write_str(&b.written),
            None => write!(f, "{:?}", &*self.vals),
        }
    }
}

/// Anything spec values can come from: arrays, slices and `Vec`s of a [`SpecInt`] type, and
/// 1-D integer arrays (Paddle's and ONNX's shape tensors).
///
/// ```
/// use ndarray::array;
/// use ndarray_reshape::ReshapeExt;
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = ndarray::Array::<f32, _>::zeros((2, 4, 6));
/// assert_eq!(x.reshape_paddle([6, 8])?.shape(), &[6, 8]);
/// assert_eq!(x.reshape_paddle(vec![6i64, -1])?.shape(), &[6, 8]);
/// assert_eq!(x.reshape_paddle(&array![8i32, 6])?.shape(), &[8, 6]);
/// # Ok(())
/// # }
/// ```
pub trait SpecValues {
    /// Convert to a [`SpecList`].
    fn into_spec_list(self) -> SpecList;
}

impl SpecValues for SpecList {
    fn into_spec_list(self) -> SpecList {
        self
    }
}
impl<T: SpecInt> SpecValues for &[T] {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(self)
    }
}
impl<T: SpecInt, const N: usize> SpecValues for &[T; N] {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(self)
    }
}
impl<T: SpecInt, const N: usize> SpecValues for [T; N] {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(&self)
    }
}
impl<T: SpecInt> SpecValues for Vec<T> {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(&self)
    }
}
impl<T: SpecInt> SpecValues for &Vec<T> {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(self)
    }
}
impl<S, D> SpecValues for &ArrayBase<S, D>
where
    S: Data,
    S::Elem: SpecInt,
    D: Dimension,
{
    /// A shape tensor must be 1-D; anything else gives [`ReshapeError::BadShapeTensor`].
    fn into_spec_list(self) -> SpecList {
        (&**self).into_spec_list()
    }
}

/// A shape tensor borrowed as ndarray 0.17's [`ArrayRef`], as for `&ArrayBase`.
impl<T, D> SpecValues for &ArrayRef<T, D>
where
    T: SpecInt,
    D: Dimension,
{
    /// A shape tensor must be 1-D; anything else gives [`ReshapeError::BadShapeTensor`].
    fn into_spec_list(self) -> SpecList {
        if self.ndim() != 1 {
            return SpecList {
                vals: Small::new(),
                bad: Some(Box::new(BadEntry {
                    position: 0,
                    rule: Rule::BadShapeTensor,
                    detail: format!("a shape tensor must be 1-D, got shape {:?}", self.shape()),
                    written: format!("tensor of shape {:?}", self.shape()),
                })),
            };
        }
        SpecList::from_iter(self.iter())
    }
}

/// Conversion into a dialect's spec type, so the headline methods take both plain lists and
/// configured specs: `x.reshape_mx([-3, -2])` and `x.reshape_mx(Mx::new(&[-1, 0]).reverse(true))`.
///
/// ```
/// use ndarray_reshape::{IntoSpec, Mx};
/// let m: Mx = [2, -1].into_spec();
/// assert_eq!(m, Mx::new(&[2, -1]));
/// ```
pub trait IntoSpec<P> {
    /// Convert into the spec type `P`.
    fn into_spec(self) -> P;
}

/// `IntoSpec<$t>` for `$t`, `&$t` and every [`SpecValues`] (through `$t::new`).
macro_rules! into_spec {
    ($t:ty) => {
        impl<T: $crate::spec::SpecValues> $crate::spec::IntoSpec<$t> for T {
            fn into_spec(self) -> $t {
                <$t>::new(self)
            }
        }
        impl $crate::spec::IntoSpec<$t> for $t {
            fn into_spec(self) -> $t {
                self
            }
        }
        impl $crate::spec::IntoSpec<$t> for &$t {
            fn into_spec(self) -> $t {
                self.clone()
            }
        }
    };
}
pub(crate) use into_spec;

/// Attach the evidence to a dialect's failure.
#[cold]
pub(crate) fn with_context(
    fail: Fail,
    dialect: crate::Dialect,
    input: &[usize],
    spec: impl fmt::Display,
) -> ReshapeError {
    ReshapeError::from_rule(
        fail.rule,
        ErrorContext {
            dialect,
            input: input.to_vec(),
            spec: spec.to_string(),
            position: fail.position,
            detail: fail.detail,
        },
    )
}

/// The element count of a shape, or `None` when the product of its non-zero dims exceeds
/// [`LIMIT`].
#[inline]
pub(crate) fn checked_size(dims: impl IntoIterator<Item = usize>) -> Option<usize> {
    let mut nonzero: usize = 1;
    let mut zero = false;
    for d in dims {
        if d == 0 {
            zero = true;
        } else {
            nonzero = nonzero.checked_mul(d).filter(|&p| p <= LIMIT)?;
        }
    }
    Some(if zero { 0 } else { nonzero })
}

/// The size of an input shape, or an `overflow` failure.
#[inline]
pub(crate) fn input_size(input: &[usize]) -> Result<usize, Fail> {
    checked_size(input.iter().copied()).ok_or_else(input_overflow)
}

#[cold]
#[inline(never)]
fn input_overflow() -> Fail {
    Fail::whole(
        Rule::Overflow,
        format!("the input's dims multiply past {}", isize::MAX),
    )
}

/// A positive spec value as a dim; one that does not fit in `usize` saturates (and is then
/// reported as `overflow`, since it exceeds [`LIMIT`]).
#[inline]
pub(crate) fn dim_of(v: i64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// An output shape under construction, and the slot of the `-1` to infer.
///
/// Failures from [`finish`](Self::finish) carry the *output index* as their position; dialects
/// whose output index is not the spec index (MXNet) map it back.
#[derive(Debug)]
pub(crate) struct Out<'a> {
    pub dims: &'a mut Small<usize>,
    pub infer: Option<usize>,
}

impl<'a> Out<'a> {
    /// Build into `dims`, which is cleared first.
    #[inline]
    pub(crate) fn new(dims: &'a mut Small<usize>) -> Self {
        dims.clear();
        Out { dims, infer: None }
    }

    #[inline]
    pub(crate) fn push(&mut self, d: usize) {
        self.dims.push(d);
    }

    /// Push the slot of the `-1`.
    #[inline]
    pub(crate) fn push_infer(&mut self) {
        self.infer = Some(self.dims.len());
        self.dims.push(1);
    }

    /// The end of an MXNet-style read ([`reading`]): [`finish`](Self::finish), with a failure's
    /// output index moved to the written-spec position that dim came from, then the output
    /// reversed back after a `reverse` read. `positions` re-runs the read with a [`Track`]
    /// that records them; it is called only on failure, so the success path records nothing.
    #[inline]
    pub(crate) fn finish_read(
        &mut self,
        size: usize,
        reverse: bool,
        positions: impl FnOnce() -> Small<usize>,
    ) -> Result<(), Fail> {
        if let Err(f) = self.finish(size) {
            return Err(remap(f, positions()));
        }
        if reverse {
            self.dims.reverse();
        }
        Ok(())
    }

    /// Push the slot of the `-1` written at spec position `p`, or fail with `multiple_infer`
    /// if there is one already.
    #[inline]
    pub(crate) fn push_infer_at(&mut self, p: usize) -> Result<(), Fail> {
        if self.infer.is_some() {
            return Err(second_infer(p));
        }
        self.push_infer();
        Ok(())
    }

    /// The shared tail of every dialect: `overflow`, `infer_zero_product`,
    /// `infer_not_divisible`, `size_mismatch`, in this order. `size` is the input's size.
    #[inline]
    pub(crate) fn finish(&mut self, size: usize) -> Result<(), Fail> {
        // overflow: the product of the known non-zero dims.
        let mut nonzero: usize = 1;
        let mut zero = false;
        for (i, &d) in self.dims.iter().enumerate() {
            if Some(i) == self.infer {
                continue;
            }
            if d == 0 {
                zero = true;
            } else {
                match nonzero.checked_mul(d) {
                    Some(p) if p <= LIMIT => nonzero = p,
                    _ => return Err(output_overflow(i)),
                }
            }
        }
        let known = if zero { 0 } else { nonzero };
        match self.infer {
            Some(slot) => {
                // A lone `-1` (a flatten) divides by 1: skip the division's latency.
                if known == 1 {
                    self.dims[slot] = size;
                } else if known == 0 || size % known != 0 {
                    return Err(infer_fail(slot, known, size));
                } else {
                    self.dims[slot] = size / known;
                }
            }
            None if known != size => return Err(size_mismatch(self.dims, known, size)),
            None => {}
        }
        Ok(())
    }
}

/// An MXNet-style read (MXNet `Reshape`, `npx.reshape`) into `dims`: `scan` the spec against
/// the input, then [`Out::finish_read`]. Spec positions are recorded only when a failure
/// needs them, by scanning again with a [`Small`] (`tracked`, the same scan).
#[inline]
pub(crate) fn read(
    dims: &mut Small<usize>,
    input: &[usize],
    reverse: bool,
    scan: impl FnOnce(&mut Out<'_>, &mut NoTrack) -> Result<(), Fail>,
    tracked: impl FnOnce(&mut Out<'_>, &mut Small<usize>) -> Result<(), Fail>,
) -> Result<(), Fail> {
    let mut out = Out::new(dims);
    scan(&mut out, &mut NoTrack)?;
    let size = input_size(input)?;
    out.finish_read(size, reverse, || {
        let mut dims = Small::new();
        let mut src = Small::new();
        // The same scan succeeded above, so it succeeds again.
        let _ = tracked(&mut Out::new(&mut dims), &mut src);
        src
    })
}

/// `f` with its output index replaced by the spec position `src` records for it.
#[cold]
#[inline(never)]
fn remap(mut f: Fail, src: Small<usize>) -> Fail {
    f.position = f.position.and_then(|k| src.get(k).copied());
    f
}

/// Where an MXNet-style read records the written-spec position of each output dim: nowhere on
/// the success path ([`NoTrack`]), into a [`Small`] when a failure must be reported.
pub(crate) trait Track {
    fn record(&mut self, p: usize);
}

/// Records nothing.
pub(crate) struct NoTrack;

impl Track for NoTrack {
    #[inline(always)]
    fn record(&mut self, _: usize) {}
}

impl Track for Small<usize> {
    #[inline]
    fn record(&mut self, p: usize) {
        self.push(p);
    }
}

// The failures of `Out::finish`, out of line: formatting them inline costs the success path a
// larger frame and more saved registers.

#[cold]
#[inline(never)]
fn second_infer(p: usize) -> Fail {
    Fail::at(Rule::MultipleInfer, p, "a second -1")
}

#[cold]
#[inline(never)]
fn output_overflow(i: usize) -> Fail {
    Fail::at(
        Rule::Overflow,
        i,
        format!("the output dims multiply past {}", isize::MAX),
    )
}

#[cold]
#[inline(never)]
fn infer_fail(slot: usize, known: usize, size: usize) -> Fail {
    if known == 0 {
        Fail::at(
            Rule::InferZeroProduct,
            slot,
            "the other dims multiply to 0, so -1 cannot be inferred",
        )
    } else {
        Fail::at(
            Rule::InferNotDivisible,
            slot,
            format!("the other dims multiply to {known}, which does not divide the size {size}"),
        )
    }
}

#[cold]
#[inline(never)]
fn size_mismatch(dims: &[usize], known: usize, size: usize) -> Fail {
    Fail::whole(
        Rule::SizeMismatch,
        format!("the output shape {dims:?} has {known} elements, the input {size}"),
    )
}

/// A value of the spec in reading order, with its position in the written spec.
pub(crate) fn reading(spec: &[i64], reverse: bool) -> impl Fn(usize) -> (i64, usize) + '_ {
    let n = spec.len();
    move |i| {
        if reverse {
            (spec[n - 1 - i], n - 1 - i)
        } else {
            (spec[i], i)
        }
    }
}

/// The input dim at read position `k`, counted from the end after a `reverse` read (the
/// counterpart of [`reading`] for the input).
pub(crate) fn input_reading(input: &[usize], reverse: bool) -> impl Fn(usize) -> usize + '_ {
    let rank = input.len();
    move |k| {
        if reverse {
            input[rank - 1 - k]
        } else {
            input[k]
        }
    }
}

/// The pair `a b` of an MXNet split (`-4` in `Reshape`, `-6` in `npx.reshape`) of the input dim
/// `d0`, written at spec position `p`: each operand `>= 0` (0 is a real zero) or `-1`, inferred
/// from `d0` alone; then the pair must multiply to `d0`.
pub(crate) fn split_pair(
    op: &str,
    d0: usize,
    a: (i64, usize),
    b: (i64, usize),
    p: usize,
) -> Result<(usize, usize), Fail> {
    for (v, pv) in [a, b] {
        if v < -1 {
            return Err(Fail::at(
                Rule::BadValue,
                pv,
                format!("value {v} inside a {op} pair; only -1 may be negative there"),
            ));
        }
    }
    let mismatch = |detail: String| Fail::at(Rule::SplitMismatch, p, detail);
    let (x, y) = match (a.0, b.0) {
        (-1, k) | (k, -1) => {
            let k = dim_of(k);
            if k == 0 || d0 % k != 0 {
                return Err(mismatch(format!(
                    "{op} cannot infer a half of {d0} next to {k}"
                )));
            }
            if a.0 == -1 {
                (d0 / k, k)
            } else {
                (k, d0 / k)
            }
        }
        (x, y) => (dim_of(x), dim_of(y)),
    };
    if x.checked_mul(y) != Some(d0) {
        return Err(mismatch(format!(
            "{op} {x} {y} does not split the input dim {d0}"
        )));
    }
    Ok((x, y))
}

/// Format `Option<i64>` bounds as `begin..end`.
pub(crate) fn fmt_range(b: Option<i64>, e: Option<i64>) -> String {
    let s = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
    format!("{}..{}", s(b), s(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_size_skips_zeros_and_bounds_the_rest() {
        assert_eq!(checked_size([2, 3, 4]), Some(24));
        assert_eq!(checked_size([0, usize::MAX / 2]), Some(0));
        assert_eq!(checked_size([0, usize::MAX]), None);
        assert_eq!(checked_size([]), Some(1));
    }

    #[test]
    fn spec_list_records_the_first_bad_entry() {
        let s = [1u64, u64::MAX, 2].into_spec_list();
        let f = s.values().unwrap_err();
        assert_eq!(f.rule, Rule::ValueDoesNotFit);
        assert_eq!(f.position, Some(1));
        assert_eq!(s.to_string(), "[1, 18446744073709551615, 2]");
    }

    #[test]
    fn shape_tensor_must_be_1d() {
        let t = ndarray::array![[1i32, 2], [3, 4]];
        let f = (&t).into_spec_list().values().unwrap_err();
        assert_eq!(f.rule, Rule::BadShapeTensor);
        let item = ShapeItem::from(&ndarray::array![1i64, 2]);
        assert_eq!(item.to_spec().unwrap_err().rule, Rule::BadShapeTensor);
    }

    #[test]
    fn finish_reports_in_order() {
        let mut d = Small::new();
        let mut o = Out::new(&mut d);
        o.push(LIMIT);
        o.push(2);
        assert_eq!(o.finish(0).unwrap_err().rule, Rule::Overflow);
        let mut o = Out::new(&mut d);
        o.push(0);
        o.push_infer();
        assert_eq!(o.finish(0).unwrap_err().rule, Rule::InferZeroProduct);
        let mut o = Out::new(&mut d);
        o.push(5);
        o.push_infer();
        assert_eq!(o.finish(6).unwrap_err().rule, Rule::InferNotDivisible);
        let mut o = Out::new(&mut d);
        o.push(5);
        assert_eq!(o.finish(6).unwrap_err().rule, Rule::SizeMismatch);
    }
}

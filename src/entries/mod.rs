//! The spec entries as they come in and as the dialects read them: the integer types
//! ([`SpecInt`]), Paddle's mixed shape lists ([`ShapeItem`]), shape values with symbolic entries
//! ([`ShapeValue`]), the converted list ([`SpecList`]) and the conversions into it
//! ([`IntoSpecList`]); a dialect reads a list's numbers ([`SpecList::values`]) or its resolved
//! entries ([`Entries`]: a dim, number or symbol, or a code), never a placeholder.
#![forbid(unsafe_code)]

use std::fmt;

use ndarray::{ArrayBase, ArrayRef, Data, Dimension};

use crate::error::{Fail, Rule};
use crate::graph::ShapeValue;
use crate::infer::{Entry, Extent};
use crate::small::Small;
use crate::sym::{Condition, SymDim};

/// An integer type spec values can be given in (`i8` to `i64`, `isize`, `u8` to `u64`, `usize`,
/// and Paddle's [`ShapeItem`]). Values are converted with `TryFrom`: a value that does not fit
/// in `i64` becomes [`ReshapeError::ValueDoesNotFit`](crate::ReshapeError::ValueDoesNotFit) when the spec is used, never a wrap.
///
/// ```
/// use ndarray_reshape::{Mx, ReshapeError, ShapeSpec};
///
/// let err = Mx::new([u64::MAX]).infer_shape(&[4]).unwrap_err();
/// assert!(matches!(err, ReshapeError::ValueDoesNotFit(_)));
/// ```
pub trait SpecInt: sealed::Int {}

/// The crate's side of [`SpecInt`]: private, so no type outside the crate implements it.
pub(crate) mod sealed {
    /// The conversion behind [`SpecInt`](super::SpecInt).
    pub trait Int {
        /// The value as a spec entry, or why it is not one.
        fn to_spec(&self) -> Result<i64, crate::error::Fail>;

        /// The value as the user wrote it, for error messages.
        fn written(&self) -> String;
    }
}
use sealed::Int;

macro_rules! spec_int {
    ($($t:ty),*) => {$(
        impl SpecInt for $t {}
        impl Int for $t {
            #[inline]
            fn to_spec(&self) -> Result<i64, Fail> {
                i64::try_from(*self).map_err(|_| {
                    Fail::whole(Rule::ValueDoesNotFit, format!("value {} does not fit in i64", self))
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
/// use ndarray_reshape::args::ShapeItem;
/// use ndarray_reshape::{Paddle, ShapeSpec};
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
pub struct ShapeItem(Result<i64, Fail>, String);

impl SpecInt for ShapeItem {}
impl Int for ShapeItem {
    fn to_spec(&self) -> Result<i64, Fail> {
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

/// As for `&ArrayBase`, taking the array by value (`ShapeItem::from(array![3])`).
impl<S, D> From<ArrayBase<S, D>> for ShapeItem
where
    S: Data,
    S::Elem: SpecInt,
    D: Dimension,
{
    fn from(a: ArrayBase<S, D>) -> Self {
        ShapeItem::from(&*a)
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
            return ShapeItem(Err(Fail::whole(Rule::BadShapeTensor, detail)), written);
        }
        let v = a.iter().next().map_or(Ok(0), |v| v.to_spec());
        ShapeItem(v, written)
    }
}

/// The spec values of any dialect, converted to `i64` (or the first entry that could not be),
/// and, for a [`ShapeValue`] spec, its symbolic entries and conditions. `Debug` and `Display`
/// print the values as written.
///
/// ```
/// use ndarray_reshape::args::IntoSpecList;
/// use ndarray_reshape::Onnx;
/// let list = [2, -1].into_spec_list();
/// assert_eq!(format!("{list:?}"), "[2, -1]");
/// assert_eq!(format!("{:?}", Onnx::new([6, 4])), "Onnx { shape: [6, 4], allowzero: false }");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SpecList {
    /// The values; a symbolic entry's place holds 1 and is read only through [`Entries`].
    vals: Small<i64>,
    /// Nothing for a list of numbers (the fast path checks one pointer).
    extra: Option<Box<Extra>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Extra {
    /// The first entry that could not be converted.
    Bad(BadEntry),
    /// A [`ShapeValue`] with symbols or conditions.
    Sym(SymEntries),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct BadEntry {
    /// The failure, at the entry's position.
    fail: Fail,
    written: String,
}

/// The symbolic entries of a spec taken from a [`ShapeValue`], and its conditions.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SymEntries {
    /// At each spec position, the symbolic entry, if it is one.
    dims: Vec<Option<SymDim>>,
    conditions: Vec<Condition>,
    /// The value, for `Display` (written only when a spec is shown: an error, a description).
    written: ShapeValue,
}

/// The entries of a [`SpecList`], resolved for one inference: what the dialects that take a
/// [`ShapeValue`] read, so none sees how a symbolic entry is stored.
#[derive(Clone, Copy)]
pub(crate) struct Entries<'a> {
    vals: &'a [i64],
    syms: Option<&'a SymEntries>,
}

impl<'a> Entries<'a> {
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.vals.len()
    }

    /// The entry at position `p` (below [`len`](Self::len)).
    #[inline(always)]
    pub(crate) fn get<E: Extent>(&self, p: usize) -> Result<Entry<E>, Fail> {
        let v = self.vals[p];
        if v <= 0 {
            return Ok(Entry::Code(v));
        }
        // A symbolic entry's place holds 1, so only a positive value can be one.
        match self.syms.and_then(|s| s.dims.get(p).cloned().flatten()) {
            None => Ok(Entry::Dim(E::lit(v))),
            Some(d) => E::sym(d, p).map(Entry::Dim),
        }
    }

    /// The entries with their positions.
    #[inline(always)]
    pub(crate) fn iter<E: Extent>(
        self,
    ) -> impl Iterator<Item = Result<(usize, Entry<E>), Fail>> + 'a {
        (0..self.len()).map(move |p| self.get(p).map(|e| (p, e)))
    }

    /// The first negative entry and its position (a symbolic entry is never one).
    pub(crate) fn first_negative(&self) -> Option<(usize, i64)> {
        self.vals.iter().copied().enumerate().find(|&(_, v)| v < 0)
    }
}

impl SpecList {
    fn from_iter<'a, T: SpecInt + ?Sized + 'a>(it: impl IntoIterator<Item = &'a T>) -> Self {
        let it = it.into_iter();
        let mut vals = Small::with_capacity(it.size_hint().0);
        let mut bad: Option<BadEntry> = None;
        for (i, v) in it.enumerate() {
            match (v.to_spec(), &mut bad) {
                (Ok(x), None) => vals.push(x),
                (Err(e), None) => {
                    // The first bad entry: from here on, also keep the spec as written.
                    let mut written: Vec<String> = vals.iter().map(i64::to_string).collect();
                    written.push(v.written());
                    vals.push(0);
                    bad = Some(BadEntry {
                        fail: Fail {
                            position: Some(i),
                            ..e
                        },
                        written: written.join(", "),
                    });
                }
                (r, Some(b)) => {
                    vals.push(r.unwrap_or(0));
                    b.written.push_str(", ");
                    b.written.push_str(&v.written());
                }
            }
        }
        let extra = bad.map(|mut b| {
            b.written = format!("[{}]", b.written);
            Box::new(Extra::Bad(b))
        });
        SpecList { vals, extra }
    }

    /// The list of a shape value: plain numbers when it has no symbols and no conditions.
    fn from_value(v: &ShapeValue) -> Self {
        let (scalar, entries, conditions) = v.parts();
        if scalar {
            let bad = BadEntry {
                fail: Fail::at(
                    Rule::BadShapeTensor,
                    0,
                    format!("a shape is 1-D, not the 0-D value {v}"),
                ),
                written: v.to_string(),
            };
            return SpecList {
                vals: Small::new(),
                extra: Some(Box::new(Extra::Bad(bad))),
            };
        }
        let mut vals = Small::with_capacity(entries.len());
        let mut dims = Vec::with_capacity(entries.len());
        for e in entries {
            match e.constant() {
                Some(x) => {
                    vals.push(x);
                    dims.push(None);
                }
                None => {
                    vals.push(1);
                    dims.push(Some(e.clone()));
                }
            }
        }
        let symbolic = dims.iter().any(Option::is_some) || !conditions.is_empty();
        let extra = symbolic.then(|| {
            Box::new(Extra::Sym(SymEntries {
                dims,
                conditions: conditions.to_vec(),
                written: v.clone(),
            }))
        });
        SpecList { vals, extra }
    }

    /// The values, or the failure of the first entry that could not be converted, or of a
    /// symbolic entry (for the dialects whose specs hold numbers only).
    #[inline]
    pub(crate) fn values(&self) -> Result<&[i64], Fail> {
        match self.extra.as_deref() {
            None => Ok(&self.vals),
            Some(Extra::Bad(b)) => Err(b.fail()),
            Some(Extra::Sym(s)) => Err(s.numbers_only()),
        }
    }

    /// The conditions of the list's [`ShapeValue`] added to `conds` (for `usize`, a
    /// `needs_number` failure when it has any), its entries read as sizes where they stand at
    /// the input's indices (`at_input`) or anywhere; a list of numbers adds none.
    #[inline(always)]
    pub(crate) fn assume<E: Extent>(
        &self,
        input: &[E],
        at_input: bool,
        conds: E::Conds,
    ) -> Result<E::Conds, Fail> {
        match self.extra.as_deref() {
            Some(Extra::Sym(s)) => {
                let input = if at_input { input } else { &[] };
                E::assume(&s.conditions, &s.dims, input, conds)
            }
            // A list of numbers has no conditions; a bad entry failed in `rules` already.
            _ => Ok(conds),
        }
    }

    /// The entries, resolved ([`Entries`]), or the failure of the first entry that could not
    /// be converted: for the dialects that take a [`ShapeValue`].
    #[inline]
    pub(crate) fn entries(&self) -> Result<Entries<'_>, Fail> {
        match self.extra.as_deref() {
            None => Ok(Entries {
                vals: &self.vals,
                syms: None,
            }),
            Some(Extra::Bad(b)) => Err(b.fail()),
            Some(Extra::Sym(s)) => Ok(Entries {
                vals: &self.vals,
                syms: Some(s),
            }),
        }
    }
}

impl SymEntries {
    #[cold]
    #[inline(never)]
    fn numbers_only(&self) -> Fail {
        let hint =
            "this dialect's specs hold numbers only (bind the symbols with ShapeValue::eval)";
        match self.dims.iter().position(Option::is_some) {
            Some(p) => Fail::at(
                Rule::NeedsNumber,
                p,
                format!(
                    "entry {p} is the symbolic {}; {hint}",
                    self.dims[p].clone().unwrap_or_default()
                ),
            ),
            None => Fail::whole(
                Rule::NeedsNumber,
                format!("the shape value {}; {hint}", self.written),
            ),
        }
    }
}

impl BadEntry {
    #[cold]
    #[inline(never)]
    fn fail(&self) -> Fail {
        self.fail.clone()
    }
}

impl fmt::Debug for SpecList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for SpecList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.extra.as_deref() {
            Some(Extra::Bad(b)) => f.write_str(&b.written),
            Some(Extra::Sym(s)) => write!(f, "{}", s.written),
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
pub trait IntoSpecList {
    /// Convert to a [`SpecList`].
    fn into_spec_list(self) -> SpecList;
}

impl IntoSpecList for SpecList {
    fn into_spec_list(self) -> SpecList {
        self
    }
}
impl<T: SpecInt> IntoSpecList for &[T] {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(self)
    }
}
impl<T: SpecInt, const N: usize> IntoSpecList for &[T; N] {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(self)
    }
}
impl<T: SpecInt, const N: usize> IntoSpecList for [T; N] {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(&self)
    }
}
/// Tuples of up to 8 integers, as ndarray takes shapes: `(3, -1)`.
macro_rules! tuple_spec {
    ($($t:ident $i:tt),+) => {
        impl<$($t: SpecInt),+> IntoSpecList for ($($t,)+) {
            fn into_spec_list(self) -> SpecList {
                SpecList::from_iter([$(&self.$i as &dyn SpecInt),+])
            }
        }
    };
}
tuple_spec!(A 0);
tuple_spec!(A 0, B 1);
tuple_spec!(A 0, B 1, C 2);
tuple_spec!(A 0, B 1, C 2, D 3);
tuple_spec!(A 0, B 1, C 2, D 3, E 4);
tuple_spec!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_spec!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_spec!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

impl<T: SpecInt> IntoSpecList for Vec<T> {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(&self)
    }
}
impl<T: SpecInt> IntoSpecList for &Vec<T> {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_iter(self)
    }
}
/// A computed shape: its symbolic entries are read by symbolic inference
/// ([`ShapeSpec::infer_symbolic`](crate::ShapeSpec::infer_symbolic)) of the dialects whose spec is a shape tensor (ONNX, Paddle,
/// NumPy, and `reshape_like`'s right-hand side), and its conditions join the result's. A
/// concrete inference, or another dialect, needs numbers:
/// [`ReshapeError::NeedsNumber`](crate::ReshapeError::NeedsNumber). A 0-D value is
/// [`ReshapeError::BadShapeTensor`](crate::ReshapeError::BadShapeTensor) when used.
impl IntoSpecList for ShapeValue {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_value(&self)
    }
}
/// As for `ShapeValue`.
impl IntoSpecList for &ShapeValue {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_value(self)
    }
}
/// Symbolic dims (a shape value's entries, [`ShapeValue::shape_of`]): the right-hand shape of
/// `reshape_like` against a tensor of symbolic shape.
impl IntoSpecList for &[SymDim] {
    fn into_spec_list(self) -> SpecList {
        SpecList::from_value(&ShapeValue::shape_of(self))
    }
}
/// As for `&[SymDim]`.
impl IntoSpecList for Vec<SymDim> {
    fn into_spec_list(self) -> SpecList {
        (&self[..]).into_spec_list()
    }
}
/// As for `&[SymDim]`.
impl IntoSpecList for &Vec<SymDim> {
    fn into_spec_list(self) -> SpecList {
        (&self[..]).into_spec_list()
    }
}
/// As for `&[SymDim]`.
impl<const N: usize> IntoSpecList for [SymDim; N] {
    fn into_spec_list(self) -> SpecList {
        (&self[..]).into_spec_list()
    }
}
/// As for `&[SymDim]`.
impl<const N: usize> IntoSpecList for &[SymDim; N] {
    fn into_spec_list(self) -> SpecList {
        (&self[..]).into_spec_list()
    }
}
impl<S, D> IntoSpecList for &ArrayBase<S, D>
where
    S: Data,
    S::Elem: SpecInt,
    D: Dimension,
{
    /// A shape tensor must be 1-D; anything else gives [`ReshapeError::BadShapeTensor`](crate::ReshapeError::BadShapeTensor).
    fn into_spec_list(self) -> SpecList {
        (&**self).into_spec_list()
    }
}

/// A shape tensor borrowed as ndarray 0.17's [`ArrayRef`], as for `&ArrayBase`.
impl<T, D> IntoSpecList for &ArrayRef<T, D>
where
    T: SpecInt,
    D: Dimension,
{
    /// A shape tensor must be 1-D; anything else gives [`ReshapeError::BadShapeTensor`](crate::ReshapeError::BadShapeTensor).
    fn into_spec_list(self) -> SpecList {
        if self.ndim() != 1 {
            return SpecList {
                vals: Small::new(),
                extra: Some(Box::new(Extra::Bad(BadEntry {
                    fail: Fail::at(
                        Rule::BadShapeTensor,
                        0,
                        format!("a shape tensor must be 1-D, got shape {:?}", self.shape()),
                    ),
                    written: format!("tensor of shape {:?}", self.shape()),
                }))),
            };
        }
        SpecList::from_iter(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_list_records_the_first_bad_entry() {
        let s = [1u64, u64::MAX, 2].into_spec_list();
        let f = s.values().unwrap_err();
        assert_eq!(f.rule, Rule::ValueDoesNotFit);
        assert_eq!(f.position, Some(1));
        assert_eq!(s.to_string(), "[1, 18446744073709551615, 2]");
    }

    #[test]
    fn lists_print_as_written() {
        let list = [2, -1].into_spec_list();
        assert_eq!(format!("{list:?}"), "[2, -1]");
        assert_eq!(list.to_string(), "[2, -1]");
        let bad = [1u64, u64::MAX].into_spec_list();
        assert_eq!(format!("{bad:?}"), "[1, 18446744073709551615]");
        assert_eq!(format!("{:?}", (3, -1).into_spec_list()), "[3, -1]");
    }

    #[test]
    fn shape_tensor_must_be_1d() {
        let t = ndarray::array![[1i32, 2], [3, 4]];
        let f = (&t).into_spec_list().values().unwrap_err();
        assert_eq!(f.rule, Rule::BadShapeTensor);
        let item = ShapeItem::from(&ndarray::array![1i64, 2]);
        assert_eq!(item.to_spec().unwrap_err().rule, Rule::BadShapeTensor);
    }
}

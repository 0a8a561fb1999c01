//! How spec values come in: the integer types ([`SpecInt`]), Paddle's mixed shape lists
//! ([`ShapeItem`]), the converted list ([`SpecList`]) and the conversions into it
//! ([`IntoSpecList`]) and into a dialect's spec type ([`IntoSpec`]).

use std::fmt;

use ndarray::{ArrayBase, ArrayRef, Data, Dimension};

use super::sealed::Int;
use super::ShapeSpec;
use crate::error::{Fail, Rule};
use crate::small::Small;

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
pub trait SpecInt: Int {}

/// Why a spec entry could not be converted; it surfaces as a
/// [`ReshapeError`](crate::ReshapeError). (`pub` in this private module only because the
/// sealed [`Int`] names it.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryError {
    rule: Rule,
    detail: String,
}

macro_rules! spec_int {
    ($($t:ty),*) => {$(
        impl SpecInt for $t {}
        impl Int for $t {
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
pub struct ShapeItem(Result<i64, EntryError>, String);

impl SpecInt for ShapeItem {}
impl Int for ShapeItem {
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
/// use ndarray_reshape::args::IntoSpecList;
/// use ndarray_reshape::Onnx;
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
    fn from_iter<'a, T: SpecInt + ?Sized + 'a>(it: impl IntoIterator<Item = &'a T>) -> Self {
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
/// configured specs: `x.reshape_mx([-3, -2])`, `x.reshape_mx(Mx::new([-1, 0]).reverse(true))`,
/// and a spec with a rank type, `x.reshape_mx(Mx::new([-3, 0]).dim::<Ix2>())`.
///
/// ```
/// use ndarray_reshape::args::IntoSpec;
/// use ndarray_reshape::Mx;
/// let m = IntoSpec::<Mx>::into_spec([2, -1]);
/// assert_eq!(m, Mx::new([2, -1]));
/// ```
pub trait IntoSpec<P> {
    /// The spec it becomes: `P`, or `P` with a rank type ([`Ranked`](crate::Ranked)).
    type Spec: ShapeSpec;

    /// Convert into the spec.
    fn into_spec(self) -> Self::Spec;
}

/// `IntoSpec<$t>` for `$t`, `&$t`, `$t` with a rank type, and every [`IntoSpecList`] (through
/// `$t::new`).
macro_rules! into_spec {
    ($t:ty) => {
        impl<T: $crate::spec::IntoSpecList> $crate::spec::IntoSpec<$t> for T {
            type Spec = $t;
            fn into_spec(self) -> $t {
                <$t>::new(self)
            }
        }
        impl $crate::spec::IntoSpec<$t> for $t {
            type Spec = $t;
            fn into_spec(self) -> $t {
                self
            }
        }
        impl $crate::spec::IntoSpec<$t> for &$t {
            type Spec = $t;
            fn into_spec(self) -> $t {
                self.clone()
            }
        }
        impl<E: ndarray::Dimension + 'static> $crate::spec::IntoSpec<$t>
            for $crate::spec::Ranked<$t, E>
        {
            type Spec = Self;
            fn into_spec(self) -> Self {
                self
            }
        }
    };
}
pub(crate) use into_spec;

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

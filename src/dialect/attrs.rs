//! Specs from MXNet operator attributes as the symbol JSON holds them (every value a string:
//! `{"shape": "(0, -1, 21)", "reverse": "False"}`), parsed the way MXNet's parameter parser
//! reads them.

use std::borrow::Cow;

use crate::dialect::like::Like;
use crate::dialect::mx::{Mx, MxTarget};
use crate::dialect::npx::Npx;
use crate::entries::IntoSpecList;
use crate::error::{Fail, Origin, ReshapeError, Rule};

/// One attribute of an MXNet node, as the `from_attrs` constructors take them: a `(key,
/// value)` pair or a reference to one, the key any string type, the value an [`AttrValue`].
/// So a node's attributes may come as a `HashMap<String, String>` or a `BTreeMap`, by value or
/// by reference, as a `Vec<(String, String)>` or `&[(&str, &str)]`, or (feature `serde_json`)
/// as the `serde_json::Map` of the node's `"attrs"`.
///
/// ```
/// use std::collections::HashMap;
/// use ndarray_reshape::{Mx, ReshapeError};
///
/// /// A node of a converter's own graph.
/// struct Node {
///     attrs: HashMap<String, String>,
/// }
///
/// fn specs(graph: &[Node]) -> Result<Vec<Mx>, ReshapeError> {
///     graph.iter().map(|node| Mx::from_attrs(&node.attrs)).collect()
/// }
///
/// let node = Node { attrs: [("shape".into(), "(2L, 3L)".into())].into() };
/// assert_eq!(specs(&[node])?, vec![Mx::new([2, 3])]);
/// let pairs: Vec<(String, String)> = vec![("shape".into(), "(0, -1)".into())];
/// assert_eq!(Mx::from_attrs(pairs)?, Mx::new([0, -1]));
/// let slice: &[(&str, &str)] = &[("shape", "[4, -1]"), ("reverse", "True")];
/// assert_eq!(Mx::from_attrs(slice)?, Mx::new([4, -1]).reverse(true));
/// # Ok::<(), ReshapeError>(())
/// ```
pub trait AttrPair: sealed::Pair {}

/// The value of an MXNet attribute: a string type as the symbol JSON holds it (`"(0, -1)"`,
/// `"True"`), or (feature `serde_json`) a `serde_json::Value`, read as its text: a string as
/// it is, a number or a boolean as MXNet writes them (`2`, `True`), `null` as `None`, an array
/// as a tuple (`[0, -1]` as `(0, -1)`).
///
/// ```
/// use ndarray_reshape::{Npx, ReshapeError};
///
/// let attrs = [("newshape", String::from("(-2, -1)"))];
/// assert_eq!(Npx::from_attrs(attrs)?, Npx::new([-2, -1]));
/// # Ok::<(), ReshapeError>(())
/// ```
pub trait AttrValue: sealed::Value {}

mod sealed {
    use std::borrow::Cow;

    /// The crate's side of [`AttrPair`](super::AttrPair).
    pub trait Pair {
        /// The attribute's name.
        fn key(&self) -> &str;
        /// The attribute's value as MXNet's parser would read it.
        fn text(&self) -> Cow<'_, str>;
    }

    /// The crate's side of [`AttrValue`](super::AttrValue).
    pub trait Value {
        /// The value as MXNet's parser would read it.
        fn text(&self) -> Cow<'_, str>;
    }
}

impl<K: AsRef<str>, V: AttrValue> AttrPair for (K, V) {}
impl<K: AsRef<str>, V: AttrValue> sealed::Pair for (K, V) {
    fn key(&self) -> &str {
        self.0.as_ref()
    }
    fn text(&self) -> Cow<'_, str> {
        self.1.text()
    }
}

impl<T: AttrPair + ?Sized> AttrPair for &T {}
impl<T: AttrPair + ?Sized> sealed::Pair for &T {
    fn key(&self) -> &str {
        (**self).key()
    }
    fn text(&self) -> Cow<'_, str> {
        (**self).text()
    }
}

macro_rules! text_value {
    ($($t:ty),*) => {$(
        impl AttrValue for $t {}
        impl sealed::Value for $t {
            fn text(&self) -> Cow<'_, str> {
                Cow::Borrowed(self.as_ref())
            }
        }
    )*};
}
text_value!(str, String, Cow<'_, str>);

impl<T: AttrValue + ?Sized> AttrValue for &T {}
impl<T: AttrValue + ?Sized> sealed::Value for &T {
    fn text(&self) -> Cow<'_, str> {
        (**self).text()
    }
}

#[cfg(feature = "serde_json")]
impl AttrValue for serde_json::Value {}
#[cfg(feature = "serde_json")]
impl sealed::Value for serde_json::Value {
    fn text(&self) -> Cow<'_, str> {
        use serde_json::Value as J;
        match self {
            J::String(s) => Cow::Borrowed(s),
            J::Null => Cow::Borrowed("None"),
            J::Bool(true) => Cow::Borrowed("True"),
            J::Bool(false) => Cow::Borrowed("False"),
            J::Number(n) => Cow::Owned(n.to_string()),
            J::Array(items) => {
                let items: Vec<Cow<'_, str>> = items.iter().map(sealed::Value::text).collect();
                Cow::Owned(format!("({})", items.join(", ")))
            }
            J::Object(_) => Cow::Owned(self.to_string()),
        }
    }
}

/// The attributes of one node: known keys only, each at most once; MXNet's hidden attributes
/// (`__name__`, such as `__profiler_scope__`) are skipped, as MXNet skips them.
struct Attrs {
    dialect: Origin,
    values: Vec<(&'static str, String)>,
}

impl Attrs {
    fn read<I>(dialect: Origin, known: &[&'static str], attrs: I) -> Result<Attrs, ReshapeError>
    where
        I: IntoIterator,
        I::Item: AttrPair,
    {
        use sealed::Pair;
        let mut values: Vec<(&'static str, String)> = Vec::new();
        for pair in attrs {
            let (k, v) = (pair.key(), pair.text());
            if k.len() > 4 && k.starts_with("__") && k.ends_with("__") {
                continue;
            }
            let Some(&key) = known.iter().find(|&&n| n == k) else {
                let why = format!("the operator has no attribute {k:?} (it has {known:?})");
                return Err(bad(dialect, k, &v, why));
            };
            if values.iter().any(|(n, _)| *n == key) {
                return Err(bad(dialect, k, &v, format!("{k:?} is given twice")));
            }
            values.push((key, v.into_owned()));
        }
        Ok(Attrs { dialect, values })
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A shape tuple, read by MXNet's own grammar (see [`parse_tuple`]); absent or `None` is
    /// `None`.
    fn tuple(&self, key: &str) -> Result<Option<Vec<i64>>, ReshapeError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => parse_tuple(v).map_err(|f| f.attach_no_input(self.dialect, attr(key, v))),
        }
    }

    /// `True`/`False` (any case), `1`/`0`; absent is `false`.
    fn boolean(&self, key: &str) -> Result<bool, ReshapeError> {
        let Some(v) = self.get(key) else {
            return Ok(false);
        };
        match v.trim() {
            "1" => Ok(true),
            "0" => Ok(false),
            t if t.eq_ignore_ascii_case("true") => Ok(true),
            t if t.eq_ignore_ascii_case("false") => Ok(false),
            _ => {
                let why = "expected True, False, 1 or 0".to_owned();
                Err(bad(self.dialect, key, v, why))
            }
        }
    }

    /// An optional integer as dmlc's `optional<int>` reads it: an integer (surrounding
    /// whitespace allowed) or `None`; absent is `None`.
    fn opt_int(&self, key: &str) -> Result<Option<i64>, ReshapeError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        if v.trim() == "None" {
            return Ok(None);
        }
        let fail = |why: String| bad(self.dialect, key, v, why);
        let (n, next) = int_at(v, 0, true).map_err(fail)?;
        match v[next..].bytes().all(is_space) {
            true => Ok(Some(n)),
            false => Err(fail(format!(
                "unexpected {:?} after the integer",
                &v[next..]
            ))),
        }
    }
}

/// Whitespace as C's `isspace` has it (MXNet's parser skips exactly these).
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// The index of the first byte of `b` at or after `i` that is not whitespace.
fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    i
}

/// A tuple attribute as MXNet's `Tuple` stream reader and dmlc's parameter parser read it:
/// `None` (no tuple), a bare integer (a one-element tuple; MXNet writes `shape=-1`), or `(` or
/// `[` and integers separated by commas, each optionally followed by Python 2's `L`, with an
/// optional trailing comma and either closing bracket; whitespace around brackets and integers
/// but not after an `L` (MXNet rejects `(3L , 4)` too); nothing but whitespace after the end.
/// An error carries the position of the entry it is about.
fn parse_tuple(v: &str) -> Result<Option<Vec<i64>>, Fail> {
    let b = v.as_bytes();
    let skip = |i: usize| skip_spaces(b, i);
    let end = |i: usize, out| match skip(i) == b.len() {
        true => Ok(out),
        false => Err(bad_tuple(
            None,
            format!("unexpected {:?} after the tuple", &v[i..]),
        )),
    };
    let mut i = skip(0);
    match b.get(i) {
        Some(c) if c.is_ascii_digit() || *c == b'-' => {
            let (n, next) = int_at(v, i, false).map_err(|why| bad_tuple(None, why))?;
            return end(next, Some(vec![n]));
        }
        Some(b'N') if v[i..].starts_with("None") => return end(i + 4, None),
        Some(b'(' | b'[') => i += 1,
        _ => {
            let why = "expected a tuple such as (2, -1) or [2, -1], an integer, or None";
            return Err(bad_tuple(None, why));
        }
    }
    let mut items = Vec::new();
    i = skip(i);
    if matches!(b.get(i), Some(b')' | b']')) {
        return end(i + 1, Some(items));
    }
    loop {
        let at = Some(items.len());
        let (n, next) = int_at(v, i, true).map_err(|why| bad_tuple(at, why))?;
        items.push(n);
        i = skip(next);
        if b.get(i) == Some(&b'L') {
            i += 1;
        }
        match b.get(i) {
            Some(b',') => {
                i = skip(i + 1);
                if matches!(b.get(i), Some(b')' | b']')) {
                    return end(i + 1, Some(items));
                }
            }
            Some(b')' | b']') => return end(i + 1, Some(items)),
            Some(_) => {
                return Err(bad_tuple(
                    at,
                    format!("expected , or ) after entry {}", items.len() - 1),
                ))
            }
            None => return Err(bad_tuple(at, "the tuple is not closed")),
        }
    }
}

/// The integer at byte `i` of `v` as C++'s `istream >> int64_t` reads it: leading whitespace,
/// a sign (`+` only where `plus` allows it: a bare value must start with a digit or `-`), then
/// digits. Gives the value and the index after it.
fn int_at(v: &str, i: usize, plus: bool) -> Result<(i64, usize), String> {
    let b = v.as_bytes();
    let start = skip_spaces(b, i);
    let mut j = start;
    if j < b.len() && (b[j] == b'-' || (plus && b[j] == b'+')) {
        j += 1;
    }
    let digits = j;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    if j == digits {
        let rest: String = v[start..].chars().take(12).collect();
        return Err(format!("expected an integer at {rest:?}"));
    }
    let text = &v[start..j];
    text.parse::<i64>()
        .map(|n| (n, j))
        .map_err(|_| format!("{text} does not fit in 64 bits"))
}

/// [`ReshapeError::BadAttribute`] for the attribute `key` = `value`.
#[cold]
fn bad(dialect: Origin, key: &str, value: &str, why: String) -> ReshapeError {
    Fail::whole(Rule::BadAttribute, why).attach_no_input(dialect, attr(key, value))
}

/// A tuple attribute's failure, at the entry `at` it is about.
#[cold]
fn bad_tuple(at: Option<usize>, why: impl Into<String>) -> Fail {
    Fail::new(Rule::BadAttribute, at, why)
}

/// An attribute as written in an error's spec.
fn attr(key: &str, value: &str) -> String {
    format!("{key}={value:?}")
}

impl Mx {
    /// The MXNet 1.x `Reshape` of a node of a symbol JSON, from its attributes (any map or
    /// list of pairs, by value or by reference: [`AttrPair`]): `shape`
    /// (a tuple) and `reverse` (`True`/`False`/`1`/`0`), both optional. Tuples are read as
    /// MXNet's parser reads them: `(0, -1, 21)`, `(2,)`, `[2, 3]`, Python 2's `(0L, -1L)`,
    /// `None`, or a bare integer (`-1`), with spaces anywhere but after an `L`; MXNet's hidden
    /// `__...__` attributes are skipped. A node that sets only the deprecated `target_shape`
    /// (MXNet before 1.0 wrote these) is an [`MxTarget`] ([`MxTarget::from_attrs`]); the error
    /// says so.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BadAttribute`] for a value that does not parse, an attribute `Reshape`
    /// does not have, a key given twice, or a node whose spec is the deprecated `target_shape`.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ReshapeError, ShapeSpec};
    ///
    /// let mx = Mx::from_attrs([("shape", "(12, -1, 0)"), ("reverse", "True")])?;
    /// assert_eq!(mx, Mx::new([12, -1, 0]).reverse(true));
    /// assert_eq!(mx.infer_shape(&[768, 768])?, vec![12, 64, 768]);
    /// let err = Mx::from_attrs([("shape", "(0, -1, x)")]).unwrap_err();
    /// assert!(matches!(err, ReshapeError::BadAttribute(_)));
    /// # Ok::<(), ReshapeError>(())
    /// ```
    pub fn from_attrs(attrs: impl IntoIterator<Item = impl AttrPair>) -> Result<Mx, ReshapeError> {
        let a = Attrs::read(Origin::Mx, RESHAPE_KEYS, attrs)?;
        let shape = a.tuple("shape")?.unwrap_or_default();
        let target = a.tuple("target_shape")?.unwrap_or_default();
        if shape.is_empty() && !target.is_empty() {
            let v = a.get("target_shape").unwrap_or_default();
            let why = "the node sets only the deprecated target_shape: read it with \
                       MxTarget::from_attrs"
                .to_owned();
            return Err(bad(Origin::Mx, "target_shape", v, why));
        }
        let reverse = a.boolean("reverse")?;
        a.boolean("keep_highest")?;
        Ok(Mx::new(shape).reverse(reverse))
    }
}

/// The attributes of MXNet 1.x `Reshape`.
const RESHAPE_KEYS: &[&str] = &["shape", "reverse", "target_shape", "keep_highest"];

impl MxTarget {
    /// The deprecated MXNet `Reshape` of a symbol JSON node, from its attributes as strings:
    /// `target_shape` (a tuple) and `keep_highest` (a boolean), read as
    /// [`Mx::from_attrs`] reads them.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BadAttribute`] for a value that does not parse, an attribute `Reshape`
    /// does not have, a key given twice, or a node that also sets `shape` (MXNet then uses
    /// `shape`: read it with [`Mx::from_attrs`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray_reshape::{Mx, MxTarget, ReshapeError, ShapeSpec};
    ///
    /// let t = MxTarget::from_attrs([("target_shape", "(0,0)"), ("keep_highest", "True")])?;
    /// assert_eq!(t, Mx::target_shape([0, 0]).keep_highest(true));
    /// assert_eq!(t.infer_shape(&[2, 3, 4])?, vec![2, 12]);
    /// # Ok::<(), ReshapeError>(())
    /// ```
    pub fn from_attrs(
        attrs: impl IntoIterator<Item = impl AttrPair>,
    ) -> Result<MxTarget, ReshapeError> {
        let a = Attrs::read(Origin::MxLegacy, RESHAPE_KEYS, attrs)?;
        if let Some(shape) = a.tuple("shape")?.filter(|s| !s.is_empty()) {
            let v = a.get("shape").unwrap_or_default();
            let why = format!(
                "the node sets shape {shape:?}, which MXNet uses instead of target_shape: \
                 read it with Mx::from_attrs"
            );
            return Err(bad(Origin::MxLegacy, "shape", v, why));
        }
        a.boolean("reverse")?;
        let target = a.tuple("target_shape")?.unwrap_or_default();
        Ok(Mx::target_shape(target).keep_highest(a.boolean("keep_highest")?))
    }
}

impl Npx {
    /// MXNet 2.x `_npx_reshape` of a symbol JSON node, from its attributes as strings:
    /// `newshape` (a tuple, required), `reverse` (a boolean) and `order` (`C`, the only one
    /// MXNet implements), read as [`Mx::from_attrs`] reads them.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BadAttribute`] for a value that does not parse, a missing `newshape`,
    /// an order other than `C`, an attribute the operator does not have, or a key given twice.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray_reshape::{Npx, ReshapeError, ShapeSpec};
    ///
    /// let npx = Npx::from_attrs([("newshape", "(-2, -1)"), ("reverse", "False")])?;
    /// assert_eq!(npx, Npx::new([-2, -1]));
    /// assert_eq!(npx.infer_shape(&[2, 3, 4])?, vec![2, 12]);
    /// # Ok::<(), ReshapeError>(())
    /// ```
    pub fn from_attrs(attrs: impl IntoIterator<Item = impl AttrPair>) -> Result<Npx, ReshapeError> {
        let a = Attrs::read(Origin::Npx, &["newshape", "reverse", "order"], attrs)?;
        if let Some(order) = a.get("order").filter(|o| o.trim() != "C") {
            let why = "MXNet implements npx.reshape in order C only".to_owned();
            return Err(bad(Origin::Npx, "order", order, why));
        }
        let Some(shape) = a.tuple("newshape")? else {
            let why = "the newshape attribute is required".to_owned();
            return Err(bad(Origin::Npx, "newshape", "", why));
        };
        Ok(Npx::new(shape).reverse(a.boolean("reverse")?))
    }
}

impl Like {
    /// MXNet `reshape_like` of a symbol JSON node, from its attributes as strings (`lhs_begin`,
    /// `lhs_end`, `rhs_begin`, `rhs_end`: an integer or `None`, all optional) and the shape of
    /// its second input, `rhs`, which the graph's shape inference gives.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BadAttribute`] for a value that does not parse, an attribute
    /// `reshape_like` does not have, or a key given twice.
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray_reshape::{Like, ReshapeError, ShapeSpec};
    ///
    /// let attrs = [("lhs_begin", "-2"), ("lhs_end", "-1"), ("rhs_begin", "0")];
    /// let like = Like::from_attrs([1, 20], attrs)?;
    /// assert_eq!(like, Like::new([1, 20]).lhs(Some(-2), Some(-1)).rhs(Some(0), None));
    /// assert_eq!(like.infer_shape(&[20, 768])?, vec![1, 20, 768]);
    /// # Ok::<(), ReshapeError>(())
    /// ```
    pub fn from_attrs(
        rhs: impl IntoSpecList,
        attrs: impl IntoIterator<Item = impl AttrPair>,
    ) -> Result<Like, ReshapeError> {
        let keys = &["lhs_begin", "lhs_end", "rhs_begin", "rhs_end"];
        let a = Attrs::read(Origin::Like, keys, attrs)?;
        Ok(Like::new(rhs)
            .lhs(a.opt_int("lhs_begin")?, a.opt_int("lhs_end")?)
            .rhs(a.opt_int("rhs_begin")?, a.opt_int("rhs_end")?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mx(shape: &str) -> Result<Mx, ReshapeError> {
        Mx::from_attrs([("shape", shape)])
    }

    #[test]
    fn tuples_as_mxnet_writes_them() {
        for (text, want) in [
            ("(0, -1, 21)", vec![0, -1, 21]),
            ("(0,-1,21)", vec![0, -1, 21]),
            ("( 2 , 3 )", vec![2, 3]),
            ("(2,)", vec![2]),
            ("[2, -1]", vec![2, -1]),
            ("[2,]", vec![2]),
            ("7", vec![7]),
            ("-1", vec![-1]),
            (" (4, 5) ", vec![4, 5]),
            ("()", vec![]),
            ("( )", vec![]),
            ("None", vec![]),
            (" None ", vec![]),
            // Python 2's long suffix, after spaces too, as MXNet's reader skips it.
            ("(0L, -1L)", vec![0, -1]),
            ("(2L,)", vec![2]),
            ("(2 L, 3)", vec![2, 3]),
            ("(3 , 4)", vec![3, 4]),
            // Either closing bracket, a plus sign inside a tuple, any C whitespace.
            ("[2, 3)", vec![2, 3]),
            ("(2, 3]", vec![2, 3]),
            ("(+2, 3)", vec![2, 3]),
            ("(\t2,\n3\r)", vec![2, 3]),
            ("-9223372036854775808", vec![i64::MIN]),
        ] {
            assert_eq!(mx(text).unwrap(), Mx::new(want), "{text}");
        }
    }

    #[test]
    fn malformed_values_are_errors() {
        for text in [
            "",
            "(",
            "(2",
            "2)",
            "(2,,3)",
            "(,)",
            "(2 3)",
            "(a)",
            "--1",
            "- 1",
            "+1",
            "(2.0)",
            "{2}",
            "(2],",
            "(99999999999999999999)",
            "None,",
            "None)",
            "Nonex",
            "Nope",
            "N",
            "((2))",
            "7L",
            "(2LL)",
            "(2L ,3)",
            "(3, 4L )",
            "(2l)",
            "(L)",
            "(2)x",
            "(2,3,,)",
            "(2,",
            "( - 2)",
            "(9223372036854775808)",
        ] {
            let err = mx(text).unwrap_err();
            assert!(
                matches!(err, ReshapeError::BadAttribute(_)),
                "{text}: {err}"
            );
            assert!(err.to_string().contains("shape="), "{err}");
        }
        let err = mx("(2, x)").unwrap_err();
        assert_eq!(err.context().position(), Some(1));
        for flag in ["yes", "", "2", "Tru"] {
            let err = Mx::from_attrs([("shape", "(2,)"), ("reverse", flag)]).unwrap_err();
            assert!(matches!(err, ReshapeError::BadAttribute(_)), "{flag}");
        }
        let err = Like::from_attrs([2], [("lhs_begin", "none")]).unwrap_err();
        assert!(matches!(err, ReshapeError::BadAttribute(_)));
    }

    #[test]
    fn booleans_and_optional_ints() {
        for (flag, want) in [
            ("True", true),
            ("true", true),
            ("1", true),
            ("False", false),
            ("0", false),
        ] {
            let m = Mx::from_attrs([("shape", "(2,)"), ("reverse", flag)]).unwrap();
            assert_eq!(m, Mx::new([2]).reverse(want), "{flag}");
        }
        let like = Like::from_attrs([3, 4], [("lhs_begin", "2"), ("lhs_end", "None")]).unwrap();
        assert_eq!(like, Like::new([3, 4]).lhs(Some(2), None));
        // Whitespace around an integer, as `istream >>` and dmlc's parser skip it.
        let like = Like::from_attrs([3, 4], [("lhs_begin", " -1 "), ("rhs_end", "\t+2")]).unwrap();
        assert_eq!(
            like,
            Like::new([3, 4]).lhs(Some(-1), None).rhs(None, Some(2))
        );
        for bad in ["2 2", "- 1", "2x", ""] {
            assert!(
                Like::from_attrs([2], [("lhs_end", bad)]).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn keys_are_checked() {
        let err = Mx::from_attrs([("shape", "(2,)"), ("shpe", "(2,)")]).unwrap_err();
        assert!(err.to_string().contains("\"shpe\""), "{err}");
        let err = Mx::from_attrs([("shape", "(2,)"), ("shape", "(2,)")]).unwrap_err();
        assert!(err.to_string().contains("twice"), "{err}");
        // Hidden attributes are skipped; a key that only starts or ends like one is unknown.
        let m = Mx::from_attrs([("shape", "(2,)"), ("__profiler_scope__", "<unk>:")]).unwrap();
        assert_eq!(m, Mx::new([2]));
        for key in ["__shape", "shape__", "____", "__"] {
            assert!(
                Mx::from_attrs([("shape", "(2,)"), (key, "1")]).is_err(),
                "{key}"
            );
        }
        assert!(Mx::from_attrs([("shape", "(2,)"), ("__a__", "1")]).is_ok());
        // target_shape alone is the legacy spec; both set, MXNet uses shape.
        assert!(Mx::from_attrs([("target_shape", "(0,0)")]).is_err());
        assert!(MxTarget::from_attrs([("target_shape", "(0,0)"), ("shape", "(2,)")]).is_err());
        let m = Mx::from_attrs([("target_shape", "(0,0)"), ("shape", "(2,)")]).unwrap();
        assert_eq!(m, Mx::new([2]));
        assert!(Npx::from_attrs([("reverse", "True")]).is_err());
        assert!(Npx::from_attrs([("newshape", "(2,)"), ("order", "F")]).is_err());
        let n = Npx::from_attrs([("newshape", "(2,)"), ("order", "C")]).unwrap();
        assert_eq!(n, Npx::new([2]));
    }

    #[test]
    fn attributes_as_users_hold_them() {
        use std::collections::{BTreeMap, HashMap};
        let want = Mx::new([0, -1]).reverse(true);
        let owned =
            || [("shape", "(0, -1)"), ("reverse", "1")].map(|(k, v)| (k.to_owned(), v.to_owned()));
        let pairs: Vec<(String, String)> = owned().to_vec();
        assert_eq!(Mx::from_attrs(&pairs).unwrap(), want);
        assert_eq!(Mx::from_attrs(pairs).unwrap(), want);
        let map: HashMap<String, String> = owned().into_iter().collect();
        assert_eq!(Mx::from_attrs(&map).unwrap(), want);
        assert_eq!(Mx::from_attrs(map).unwrap(), want);
        let tree: BTreeMap<&str, Cow<'_, str>> = [
            ("shape", Cow::Borrowed("(0, -1)")),
            ("reverse", Cow::Owned("1".into())),
        ]
        .into();
        assert_eq!(Mx::from_attrs(&tree).unwrap(), want);
        let slice: &[(&str, &str)] = &[("shape", "(0, -1)"), ("reverse", "1")];
        assert_eq!(Mx::from_attrs(slice).unwrap(), want);
        assert_eq!(Mx::from_attrs(slice.iter().copied()).unwrap(), want);
    }

    #[cfg(feature = "serde_json")]
    #[test]
    fn serde_json_values() {
        let node: serde_json::Value = serde_json::json!({
            "shape": "(0L, -1L)", "reverse": "True", "__profiler_scope__": "<unk>:"
        });
        let attrs = node.as_object().unwrap();
        assert_eq!(
            Mx::from_attrs(attrs).unwrap(),
            Mx::new([0, -1]).reverse(true)
        );
        assert_eq!(
            Mx::from_attrs(attrs.clone()).unwrap(),
            Mx::new([0, -1]).reverse(true)
        );
        // Values that are not strings read as MXNet writes them.
        let typed = serde_json::json!({"shape": [0, -1], "reverse": true});
        let m = Mx::from_attrs(typed.as_object().unwrap()).unwrap();
        assert_eq!(m, Mx::new([0, -1]).reverse(true));
        let like = serde_json::json!({"lhs_begin": 1, "lhs_end": null});
        let l = Like::from_attrs([2], like.as_object().unwrap()).unwrap();
        assert_eq!(l, Like::new([2]).lhs(Some(1), None));
        let n = serde_json::json!({"newshape": -1});
        assert_eq!(
            Npx::from_attrs(n.as_object().unwrap()).unwrap(),
            Npx::new([-1])
        );
        for bad in [
            serde_json::json!({"shape": {"a": 1}}),
            serde_json::json!({"shape": ["a"]}),
            serde_json::json!({"shape": [1.5]}),
            serde_json::json!({"reverse": 2}),
        ] {
            let err = Mx::from_attrs(bad.as_object().unwrap()).unwrap_err();
            assert!(matches!(err, ReshapeError::BadAttribute(_)), "{bad}: {err}");
        }
    }
}

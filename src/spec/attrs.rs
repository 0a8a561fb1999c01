//! Specs from MXNet operator attributes as the symbol JSON holds them (every value a string:
//! `{"shape": "(0, -1, 21)", "reverse": "False"}`), parsed the way MXNet's parameter parser
//! reads them.

use crate::error::{Dialect, Fail, ReshapeError, Rule};
use crate::spec::like::Like;
use crate::spec::mx::{Mx, MxTarget};
use crate::spec::npx::Npx;
use crate::spec::IntoSpecList;

/// The attributes of one node: known keys only, each at most once; MXNet's hidden attributes
/// (`__name__`, such as `__profiler_scope__`) are skipped, as MXNet skips them.
struct Attrs {
    dialect: Dialect,
    values: Vec<(&'static str, String)>,
}

impl Attrs {
    fn read<K, V>(
        dialect: Dialect,
        known: &[&'static str],
        attrs: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Attrs, ReshapeError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut values: Vec<(&'static str, String)> = Vec::new();
        for (k, v) in attrs {
            let (k, v) = (k.as_ref(), v.as_ref());
            if k.len() > 4 && k.starts_with("__") && k.ends_with("__") {
                continue;
            }
            let Some(&key) = known.iter().find(|&&n| n == k) else {
                let why = format!("the operator has no attribute {k:?} (it has {known:?})");
                return Err(bad(dialect, k, v, None, why));
            };
            if values.iter().any(|(n, _)| *n == key) {
                return Err(bad(dialect, k, v, None, format!("{k:?} is given twice")));
            }
            values.push((key, v.to_owned()));
        }
        Ok(Attrs { dialect, values })
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A shape tuple: `(0, -1, 21)`, `(2,)`, `[2, 3]`, `()`, a bare integer (a one-element
    /// tuple, as MXNet reads it and writes `shape=-1`); absent or `None` is `None`.
    fn tuple(&self, key: &str) -> Result<Option<Vec<i64>>, ReshapeError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let t = v.trim();
        if t == "None" {
            return Ok(None);
        }
        let digits = t.strip_prefix('-').unwrap_or(t);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return self.int(key, v, t, None).map(|n| Some(vec![n]));
        }
        let inner = match (t.chars().next(), t.chars().last()) {
            (Some('('), Some(')')) | (Some('['), Some(']')) if t.len() >= 2 => &t[1..t.len() - 1],
            _ => {
                let why = "expected a tuple such as (2, -1) or [2, -1], or None".to_owned();
                return Err(bad(self.dialect, key, v, None, why));
            }
        };
        let inner = inner.trim();
        // One trailing comma is allowed (Python writes `(2,)`), but not after nothing.
        let body = match inner.strip_suffix(',') {
            Some(b) if !b.trim().is_empty() => b,
            _ => inner,
        };
        if body.trim().is_empty() {
            return Ok(Some(Vec::new()));
        }
        let items: Result<Vec<i64>, ReshapeError> = body
            .split(',')
            .enumerate()
            .map(|(i, s)| self.int(key, v, s.trim(), Some(i)))
            .collect();
        items.map(Some)
    }

    /// An integer entry (`s`) of the attribute `key` = `v`, at `position` in its tuple.
    fn int(
        &self,
        key: &str,
        v: &str,
        s: &str,
        position: Option<usize>,
    ) -> Result<i64, ReshapeError> {
        s.parse::<i64>().map_err(|_| {
            let why = format!("{s:?} is not an integer in 64 bits");
            bad(self.dialect, key, v, position, why)
        })
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
                Err(bad(self.dialect, key, v, None, why))
            }
        }
    }

    /// An optional integer: an integer, or `None` (absent is `None`).
    fn opt_int(&self, key: &str) -> Result<Option<i64>, ReshapeError> {
        match self.get(key).map(|v| (v, v.trim())) {
            None | Some((_, "None")) => Ok(None),
            Some((v, t)) => self.int(key, v, t, None).map(Some),
        }
    }
}

/// [`ReshapeError::BadAttribute`] for the attribute `key` = `value`.
#[cold]
fn bad(
    dialect: Dialect,
    key: &str,
    value: &str,
    position: Option<usize>,
    why: String,
) -> ReshapeError {
    Fail::new(Rule::BadAttribute, position, why).attach(dialect, &[], format!("{key}={value:?}"))
}

impl Mx {
    /// The MXNet 1.x `Reshape` of a node of a symbol JSON, from its attributes as strings:
    /// `shape` (a tuple) and `reverse` (`True`/`False`/`1`/`0`), both optional. Tuples are read
    /// as MXNet reads them: `(0, -1, 21)`, `(2,)`, `[2, 3]`, with or without spaces, or a bare
    /// integer (`-1`) for one value; MXNet's
    /// hidden `__...__` attributes are skipped. A node that sets only the deprecated
    /// `target_shape` is an [`MxTarget`] ([`MxTarget::from_attrs`]).
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
    pub fn from_attrs<K, V>(attrs: impl IntoIterator<Item = (K, V)>) -> Result<Mx, ReshapeError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let a = Attrs::read(Dialect::Mx, RESHAPE_KEYS, attrs)?;
        let shape = a.tuple("shape")?.unwrap_or_default();
        let target = a.tuple("target_shape")?.unwrap_or_default();
        if shape.is_empty() && !target.is_empty() {
            let v = a.get("target_shape").unwrap_or_default();
            let why = "the node sets only the deprecated target_shape: read it with \
                       MxTarget::from_attrs"
                .to_owned();
            return Err(bad(Dialect::Mx, "target_shape", v, None, why));
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
    pub fn from_attrs<K, V>(
        attrs: impl IntoIterator<Item = (K, V)>,
    ) -> Result<MxTarget, ReshapeError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let a = Attrs::read(Dialect::MxLegacy, RESHAPE_KEYS, attrs)?;
        if let Some(shape) = a.tuple("shape")?.filter(|s| !s.is_empty()) {
            let v = a.get("shape").unwrap_or_default();
            let why = format!(
                "the node sets shape {shape:?}, which MXNet uses instead of target_shape: \
                 read it with Mx::from_attrs"
            );
            return Err(bad(Dialect::MxLegacy, "shape", v, None, why));
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
    pub fn from_attrs<K, V>(attrs: impl IntoIterator<Item = (K, V)>) -> Result<Npx, ReshapeError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let a = Attrs::read(Dialect::Npx, &["newshape", "reverse", "order"], attrs)?;
        if let Some(order) = a.get("order").filter(|o| o.trim() != "C") {
            let why = "MXNet implements npx.reshape in order C only".to_owned();
            return Err(bad(Dialect::Npx, "order", order, None, why));
        }
        let Some(shape) = a.tuple("newshape")? else {
            let why = "the newshape attribute is required".to_owned();
            return Err(bad(Dialect::Npx, "newshape", "", None, why));
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
    pub fn from_attrs<K, V>(
        rhs: impl IntoSpecList,
        attrs: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Like, ReshapeError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let keys = &["lhs_begin", "lhs_end", "rhs_begin", "rhs_end"];
        let a = Attrs::read(Dialect::Like, keys, attrs)?;
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
            ("None", vec![]),
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
            "((2))",
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
    }

    #[test]
    fn keys_are_checked() {
        let err = Mx::from_attrs([("shape", "(2,)"), ("shpe", "(2,)")]).unwrap_err();
        assert!(err.to_string().contains("\"shpe\""), "{err}");
        let err = Mx::from_attrs([("shape", "(2,)"), ("shape", "(2,)")]).unwrap_err();
        assert!(err.to_string().contains("twice"), "{err}");
        // Hidden attributes are skipped.
        let m = Mx::from_attrs([("shape", "(2,)"), ("__profiler_scope__", "<unk>:")]).unwrap();
        assert_eq!(m, Mx::new([2]));
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
    fn maps_of_owned_strings() {
        let attrs: std::collections::HashMap<String, String> =
            [("shape".to_owned(), "(0, -1)".to_owned())]
                .into_iter()
                .collect();
        assert_eq!(Mx::from_attrs(&attrs).unwrap(), Mx::new([0, -1]));
    }
}

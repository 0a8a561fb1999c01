//! A symbolic shape met at run time: its symbols solved from the concrete shape
//! ([`SymDim::bind`], [`SymShape::bind`]), or the dim that disagrees.

use std::fmt;

use super::expr::Atom;
use super::rat::Rat;
use super::rewrite::substitute;
use super::{SymDim, SymShape};
use crate::dims::LIMIT;
use crate::error::{Fail, Origin, ReshapeError, Rule};

impl SymDim {
    /// Solves the symbols of `dims` from the concrete `shape` they are matched against: a dim
    /// that is a number must equal its size, and a dim that is linear in one symbol not yet
    /// solved (`B`, `3*T`, `T // 2 + 1` once... as `a*s + b`) gives that symbol, dim by dim
    /// until every dim is solved; the rest are checked against the solution.
    ///
    /// # Errors
    ///
    /// [`BindMismatch`](ReshapeError::BindMismatch) naming the first dim (the position) that
    /// disagrees with its size, that solves its symbol to no size (`3*T` against 10), or
    /// that no other dim solves (`B*T` alone); a rank that differs.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let (b, t, k) = (SymDim::sym("B"), SymDim::sym("T"), SymDim::from);
    /// let x = [b.clone(), k(3) * t.clone(), b.clone() * t.clone()];
    /// let found = SymDim::bind(&x, &[2, 12, 8])?;
    /// assert_eq!(found.get("B"), Some(2));
    /// assert_eq!(found.get("T"), Some(4));
    /// assert_eq!(found.to_string(), "B = 2, T = 4");
    /// let e = SymDim::bind(&x, &[2, 12, 9]).unwrap_err(); // B*T is 8 there
    /// assert_eq!(e.category(), "bind_mismatch");
    /// assert_eq!(e.context().position(), Some(2));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn bind(dims: &[SymDim], shape: &[usize]) -> Result<Binding, ReshapeError> {
        bind(dims, shape).map_err(|f| {
            let written: Vec<String> = dims.iter().map(SymDim::to_string).collect();
            f.attach(
                Origin::Symbols,
                shape,
                format_args!("bind [{}]", written.join(", ")),
            )
        })
    }
}

impl SymShape {
    /// [`SymDim::bind`] of the dims, then the conditions checked under the solution.
    ///
    /// # Errors
    ///
    /// As for [`SymDim::bind`], and [`Unsatisfiable`](ReshapeError::Unsatisfiable) for a
    /// condition that fails under the solution (its index the position).
    ///
    /// ```
    /// use ndarray_reshape::{Onnx, ShapeSpec, SymDim};
    /// let s = Onnx::new([2, -1]).infer_symbolic(&[SymDim::sym("N"), SymDim::from(3)])?;
    /// assert_eq!(s.bind(&[2, 6])?.get("N"), Some(4));
    /// assert_eq!(s.bind(&[2, 9])?.get("N"), Some(6));
    /// assert_eq!(s.bind(&[3, 6]).unwrap_err().category(), "bind_mismatch"); // 2, not 3
    /// assert_eq!(s.bind(&[2, 7]).unwrap_err().category(), "bind_mismatch"); // 3*N/2 is never 7
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn bind(&self, shape: &[usize]) -> Result<Binding, ReshapeError> {
        let found = SymDim::bind(self.dims(), shape)?;
        let pairs = found.pairs();
        if let Some(i) = self
            .conditions()
            .iter()
            .position(|c| c.holds(&pairs) != Some(true))
        {
            let c = &self.conditions()[i];
            return Err(
                Fail::at(Rule::Unsatisfiable, i, format!("{c} fails where {found}")).attach(
                    Origin::Symbols,
                    shape,
                    format_args!("bind {self}"),
                ),
            );
        }
        Ok(found)
    }
}

/// The symbols solved by [`SymDim::bind`]: name and size, in the order they were solved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Binding {
    values: Vec<(String, usize)>,
}

impl Binding {
    /// The size of `name`, when it was solved.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let found = SymDim::bind(&[SymDim::sym("N")], &[5])?;
    /// assert_eq!(found.get("N"), Some(5));
    /// assert_eq!(found.get("M"), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn get(&self, name: &str) -> Option<usize> {
        self.values.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    /// The pairs as [`SymDim::eval`] and the other `eval`s take them.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let (b, t) = (SymDim::sym("B"), SymDim::sym("T"));
    /// let found = SymDim::bind(&[b.clone(), t.clone()], &[2, 7])?;
    /// assert_eq!((b * t).eval(&found.pairs()), Some(14));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn pairs(&self) -> Vec<(&str, usize)> {
        self.values.iter().map(|(n, v)| (n.as_str(), *v)).collect()
    }
}

impl fmt::Display for Binding {
    /// `B = 2, T = 4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .values
            .iter()
            .map(|(n, v)| format!("{} = {v}", super::display::shown(n)))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

fn bind(dims: &[SymDim], shape: &[usize]) -> Result<Binding, Fail> {
    if dims.len() != shape.len() {
        return Err(Fail::whole(
            Rule::BindMismatch,
            format!(
                "{} dims against a shape of rank {}",
                dims.len(),
                shape.len()
            ),
        ));
    }
    let mut found = Binding::default();
    let mut open: Vec<usize> = (0..dims.len()).collect();
    loop {
        let before = open.len();
        let mut i = 0;
        while i < open.len() {
            let p = open[i];
            let d = substitute(&dims[p], &|n: &str| found.get(n).map(SymDim::from));
            let size = shape[p];
            if let Some(v) = d.wide_constant() {
                if v != size as i128 {
                    return Err(Fail::at(
                        Rule::BindMismatch,
                        p,
                        format!(
                            "dim {p} is {} = {v} where {found}, the shape has {size}",
                            dims[p]
                        ),
                    ));
                }
                open.remove(i);
                continue;
            }
            if let Some((name, a, b)) = linear(&d) {
                // a*s + b = size: s = (size - b) / a, a size.
                let s = Rat::int(size as i128)
                    .sub(b)
                    .and_then(|x| x.div(a))
                    .filter(|s| s.is_int() && s.num >= 1 && s.num <= LIMIT as i128);
                let Some(s) = s else {
                    return Err(Fail::at(
                        Rule::BindMismatch,
                        p,
                        format!("dim {p} is {d}, which is {size} for no size {name}"),
                    ));
                };
                found.values.push((name, s.num as usize));
                open.remove(i);
                continue;
            }
            i += 1;
        }
        if open.is_empty() {
            return Ok(found);
        }
        if open.len() == before {
            let p = open[0];
            let d = substitute(&dims[p], &|n: &str| found.get(n).map(SymDim::from));
            return Err(Fail::at(
                Rule::BindMismatch,
                p,
                format!(
                    "dim {p} is {d} against {}: no dim fixes its symbols one by one",
                    shape[p]
                ),
            ));
        }
    }
}

/// `d` as `a*s + b` for one symbol `s` to the first power (`a`, `b` rational, `a` non-zero).
fn linear(d: &SymDim) -> Option<(String, Rat, Rat)> {
    let p = d.form()?.get();
    let mut b = Rat::ZERO;
    let mut found: Option<(String, Rat)> = None;
    for (m, c) in &p.terms {
        match m.as_slice() {
            [] => b = *c,
            [(atom, 1)] => match (atom.get(), &found) {
                (Atom::Sym(n), None) => found = Some((n.to_string(), *c)),
                _ => return None,
            },
            _ => return None,
        }
    }
    let (name, a) = found?;
    Some((name, a, b))
}

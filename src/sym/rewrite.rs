//! Expressions rebuilt through the algebra, so that they are canonical again: with symbols
//! replaced (a binding's values, an assumption's multiple written out), and with the
//! comparisons, extremes and selections that given ranges decide, decided, bottom-up. And the
//! symbols an expression names, and the parts of an atom (`Atom::operands`).

use super::eval::{bounds_in, Bounds, Ranges};
use super::expr::{Atom, AtomRef, Poly};
use super::rat::Rat;
use super::SymDim;
use crate::error::ReshapeError;

/// A rebuild of expressions: `sym` names a replacement for a symbol (none keeps it), and
/// `ranges`, where given, the symbols' ranges under which comparisons are decided.
pub(super) struct Rewrite<'a> {
    pub(super) sym: &'a dyn Fn(&str) -> Option<SymDim>,
    pub(super) ranges: Option<Ranges<'a>>,
}

impl Rewrite<'_> {
    pub(super) fn dim(&self, d: &SymDim) -> SymDim {
        match d.form() {
            None => d.clone(),
            Some(f) => self.poly(f.get()),
        }
    }

    fn poly(&self, p: &Poly) -> SymDim {
        let mut sum = SymDim::from(0);
        for (m, c) in &p.terms {
            let mut t = SymDim::of_poly(Some(Poly::constant(*c)));
            for (a, e) in m {
                let x = self.atom(a);
                for _ in 0..e.unsigned_abs() {
                    t = match *e > 0 {
                        true => t * &x,
                        false => t / x.clone(),
                    };
                }
            }
            sum = sum + t;
        }
        sum
    }

    /// The bounds of `x - y` under the ranges (none decides nothing).
    fn diff(&self, x: &SymDim, y: &SymDim) -> Bounds {
        let d = x.clone() - y.clone();
        match (self.ranges, d.is_valid()) {
            (Some(r), true) => bounds_in(&d, r),
            _ => Bounds::ANY,
        }
    }

    fn atom(&self, a: &AtomRef) -> SymDim {
        let invalid = |r: Result<SymDim, ReshapeError>| r.unwrap_or(SymDim::INVALID);
        let at_least = |b: Bounds, r: i128| b.lo.is_some_and(|l| l >= Rat::int(r));
        let at_most = |b: Bounds, r: i128| b.hi.is_some_and(|h| h <= Rat::int(r));
        // 1 where `yes`, 0 where `no`, else `otherwise`.
        let flag = |yes: bool, no: bool, otherwise: SymDim| match (yes, no) {
            (true, _) => SymDim::from(1),
            (_, true) => SymDim::from(0),
            _ => otherwise,
        };
        match a.get() {
            Atom::Sym(n) => {
                (self.sym)(n).unwrap_or_else(|| SymDim::of_poly(Some(Poly::atom(a.clone(), 1))))
            }
            Atom::FloorDiv(x, y) => invalid(self.dim(x).floor_div(&self.dim(y))),
            Atom::Mod(x, y) => invalid(self.dim(x).floor_mod(&self.dim(y))),
            Atom::Min(x, y) | Atom::Max(x, y) => {
                let (x, y) = (self.dim(x), self.dim(y));
                let d = self.diff(&x, &y);
                let max = matches!(a.get(), Atom::Max(..));
                match (at_least(d, 0), at_most(d, 0)) {
                    (true, _) => [y, x][usize::from(max)].clone(),
                    (_, true) => [x, y][usize::from(max)].clone(),
                    _ if max => x.max(&y),
                    _ => x.min(&y),
                }
            }
            Atom::Eq(x, y) => {
                let (x, y) = (self.dim(x), self.dim(y));
                let d = self.diff(&x, &y);
                let eq = x.equal(&y);
                flag(at_least(d, 0) && at_most(d, 0), d.excludes_zero(), eq)
            }
            // Integers: x < y is x - y <= -1.
            Atom::Lt(x, y) => {
                let (x, y) = (self.dim(x), self.dim(y));
                let d = self.diff(&x, &y);
                let lt = x.less(&y);
                flag(at_most(d, -1), at_least(d, 0), lt)
            }
            Atom::Le(x, y) => {
                let (x, y) = (self.dim(x), self.dim(y));
                let d = self.diff(&x, &y);
                let le = x.less_equal(&y);
                flag(at_most(d, 0), at_least(d, 1), le)
            }
            Atom::Select(c, x, y) => {
                let (c, x, y) = (self.dim(c), self.dim(x), self.dim(y));
                let d = self.diff(&c, &SymDim::from(0));
                match (d.excludes_zero(), at_least(d, 0) && at_most(d, 0)) {
                    (true, _) => x,
                    (_, true) => y,
                    _ => c.select(&x, &y),
                }
            }
            Atom::Group(g) => self.dim(g),
        }
    }
}

/// `d` with each symbol that `sym` names replaced.
pub(super) fn substitute(d: &SymDim, sym: &dyn Fn(&str) -> Option<SymDim>) -> SymDim {
    Rewrite { sym, ranges: None }.dim(d)
}

impl SymDim {
    /// The names of the symbols in the dim, each once, in the order they are met.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let d = SymDim::sym("B") * SymDim::sym("T").floor_div(&SymDim::from(2))?;
    /// assert_eq!(d.symbols(), vec!["B", "T"]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn symbols(&self) -> Vec<&str> {
        let mut out = Vec::new();
        collect(self, &mut out);
        out
    }
}

fn collect<'a>(d: &'a SymDim, out: &mut Vec<&'a str>) {
    let Some(f) = d.form() else {
        return;
    };
    for (m, _) in &f.get().terms {
        for (a, _) in m {
            collect_atom(a, out);
        }
    }
}

fn collect_atom<'a>(a: &'a AtomRef, out: &mut Vec<&'a str>) {
    if let Atom::Sym(n) = a.get() {
        if !out.contains(&&**n) {
            out.push(n);
        }
    }
    for operand in a.get().operands() {
        collect(operand, out);
    }
}

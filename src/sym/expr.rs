//! The canonical form behind a [`SymDim`]: a sum of terms, each a rational coefficient times a
//! product of atoms (symbols, floors, remainders, minima and maxima, comparisons, selections)
//! raised to integer powers. Each distinct form is interned while a handle on it lives, so a
//! `SymDim` is a counted handle, equal forms are the same node, and a form no value uses any
//! more is freed.

use std::sync::{LazyLock, Mutex};

use super::intern::{Handle, Table};
use super::rat::Rat;
use super::SymDim;

/// Terms in one expression; more make the result invalid.
pub(crate) const MAX_TERMS: usize = 64;
/// The largest power of one atom in a term.
pub(crate) const MAX_EXP: i32 = 127;

/// A product of atoms with non-zero powers, sorted by atom; empty for a constant.
pub(crate) type Mono = Vec<(AtomRef, i32)>;

/// A sum of terms, sorted by monomial, no zero coefficient; empty for 0.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub(crate) struct Poly {
    pub terms: Vec<(Mono, Rat)>,
}

/// The non-polynomial parts of an expression. Operands are canonical [`SymDim`]s.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Atom {
    /// A named symbol.
    Sym(Box<str>),
    /// `floor(a / b)`.
    FloorDiv(SymDim, SymDim),
    /// `a - b * floor(a / b)`: the divisor's sign.
    Mod(SymDim, SymDim),
    Min(SymDim, SymDim),
    Max(SymDim, SymDim),
    /// `1` when `a == b`, else `0`.
    Eq(SymDim, SymDim),
    /// `1` when `a < b`, else `0`.
    Lt(SymDim, SymDim),
    /// `1` when `a <= b`, else `0`.
    Le(SymDim, SymDim),
    /// `a` when `c != 0`, else `b`.
    Select(SymDim, SymDim, SymDim),
    /// A sum that a term divides by (it appears with a negative power only).
    Group(SymDim),
}

/// An interned atom.
pub(crate) type AtomRef = Handle<Atom>;
/// An interned sum that is not an integer constant: what a symbolic [`SymDim`] holds.
pub(crate) type Form = Handle<Poly>;

static ATOMS: LazyLock<Mutex<Table<Atom>>> = LazyLock::new(|| Mutex::new(Table::new()));
static SUMS: LazyLock<Mutex<Table<Poly>>> = LazyLock::new(|| Mutex::new(Table::new()));

/// The handle on atom `a`.
pub(crate) fn intern_atom(a: Atom) -> AtomRef {
    let h = ATOMS.lock().unwrap_or_else(|e| e.into_inner()).intern(a);
    h
}

/// The handle on the sum `p`.
pub(crate) fn intern_sum(p: Poly) -> Form {
    let h = SUMS.lock().unwrap_or_else(|e| e.into_inner()).intern(p);
    h
}

/// Lets go of the recent forms the tables keep alive (see [`Table::recent`]).
pub(crate) fn release_recent() {
    let atoms = std::mem::take(&mut ATOMS.lock().unwrap_or_else(|e| e.into_inner()).recent);
    let sums = std::mem::take(&mut SUMS.lock().unwrap_or_else(|e| e.into_inner()).recent);
    // Dropped outside the locks.
    drop((atoms, sums));
}

/// The forms alive in the process: (atoms, sums).
pub(crate) fn live_forms() -> (usize, usize) {
    let atoms = ATOMS.lock().unwrap_or_else(|e| e.into_inner()).live();
    let sums = SUMS.lock().unwrap_or_else(|e| e.into_inner()).live();
    (atoms, sums)
}

impl Atom {
    /// The expressions the atom is built of, in order (none for a symbol).
    pub(crate) fn operands(&self) -> impl Iterator<Item = &SymDim> {
        let (a, b, c) = match self {
            Atom::Sym(_) => (None, None, None),
            Atom::FloorDiv(x, y)
            | Atom::Mod(x, y)
            | Atom::Min(x, y)
            | Atom::Max(x, y)
            | Atom::Eq(x, y)
            | Atom::Lt(x, y)
            | Atom::Le(x, y) => (Some(x), Some(y), None),
            Atom::Select(c, x, y) => (Some(c), Some(x), Some(y)),
            Atom::Group(g) => (Some(g), None, None),
        };
        a.into_iter().chain(b).chain(c)
    }
}

impl Poly {
    pub fn constant(c: Rat) -> Poly {
        match c.num {
            0 => Poly::default(),
            _ => Poly {
                terms: vec![(Mono::new(), c)],
            },
        }
    }

    /// The single atom `a` to the power `e`.
    pub fn atom(a: AtomRef, e: i32) -> Poly {
        Poly {
            terms: vec![(vec![(a, e)], Rat::ONE)],
        }
    }

    /// The value when it has no atoms.
    pub fn as_constant(&self) -> Option<Rat> {
        match self.terms.as_slice() {
            [] => Some(Rat::ZERO),
            [(m, c)] if m.is_empty() => Some(*c),
            _ => None,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The constant term's numerator (its coefficient when it is an integer).
    pub fn constant_term(&self) -> i128 {
        match self.terms.first() {
            Some((m, c)) if m.is_empty() => c.num,
            _ => 0,
        }
    }

    /// Terms sorted and merged, zero coefficients dropped; `None` past the limits.
    fn normalized(mut terms: Vec<(Mono, Rat)>) -> Option<Poly> {
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Mono, Rat)> = Vec::with_capacity(terms.len());
        for (m, c) in terms {
            match out.last_mut() {
                Some((lm, lc)) if *lm == m => *lc = lc.add(c)?,
                _ => out.push((m, c)),
            }
        }
        out.retain(|(_, c)| c.num != 0);
        (out.len() <= MAX_TERMS).then_some(Poly { terms: out })
    }

    pub fn add(&self, o: &Poly) -> Option<Poly> {
        let terms = self.terms.iter().chain(&o.terms).cloned().collect();
        Poly::normalized(terms)
    }

    pub fn scale(&self, k: Rat) -> Option<Poly> {
        let terms: Option<Vec<_>> = self
            .terms
            .iter()
            .map(|(m, c)| Some((m.clone(), c.mul(k)?)))
            .collect();
        Poly::normalized(terms?)
    }

    /// `self * k`: every coefficient scaled, the order kept (`None` past the limits).
    pub fn times(&self, k: Rat) -> Option<Poly> {
        if k.num == 0 {
            return Some(Poly::default());
        }
        let terms: Option<Vec<_>> = self
            .terms
            .iter()
            .map(|(m, c)| Some((m.clone(), c.mul(k)?)))
            .collect();
        Some(Poly { terms: terms? })
    }

    /// `self + k`: the constant term (first in the order) changed.
    pub fn plus(&self, k: Rat) -> Option<Poly> {
        let mut terms = self.terms.clone();
        match terms.first_mut() {
            Some((m, c)) if m.is_empty() => {
                *c = c.add(k)?;
                if c.num == 0 {
                    terms.remove(0);
                }
            }
            _ if k.num != 0 => terms.insert(0, (Mono::new(), k)),
            _ => {}
        }
        Some(Poly { terms })
    }

    pub fn sub(&self, o: &Poly) -> Option<Poly> {
        self.add(&o.scale(Rat::int(-1))?)
    }

    pub fn mul(&self, o: &Poly) -> Option<Poly> {
        if self.terms.len().saturating_mul(o.terms.len()) > MAX_TERMS * MAX_TERMS {
            return None;
        }
        let mut terms = Vec::with_capacity(self.terms.len() * o.terms.len());
        for (ma, ca) in &self.terms {
            for (mb, cb) in &o.terms {
                terms.push((mono_mul(ma, mb)?, ca.mul(*cb)?));
            }
        }
        Poly::normalized(terms)
    }

    /// Whether every term has an integer coefficient and no negative power: the forms that
    /// are integers for every value of the atoms.
    pub fn is_integral(&self) -> bool {
        self.terms
            .iter()
            .all(|(m, c)| c.is_int() && m.iter().all(|(_, e)| *e > 0))
    }
}

/// The product of two monomials; `None` past [`MAX_EXP`].
pub(crate) fn mono_mul(a: &Mono, b: &Mono) -> Option<Mono> {
    let mut out = Mono::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let f = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                i += 1;
                j += 1;
                (x.0.clone(), x.1 + y.1)
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                i += 1;
                x.clone()
            }
            (Some(x), None) => {
                i += 1;
                x.clone()
            }
            (_, Some(y)) => {
                j += 1;
                y.clone()
            }
            (None, None) => unreachable!(),
        };
        if f.1.abs() > MAX_EXP {
            return None;
        }
        if f.1 != 0 {
            out.push(f);
        }
    }
    Some(out)
}

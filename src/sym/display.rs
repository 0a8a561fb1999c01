//! How a [`SymDim`] is written: Python's operators on integers (`2*T + 2`, `(H + 31) // 32`,
//! `H % 7`), exact quotients with `/` (`3*N/2`), `min`, `max`, comparisons in parentheses and
//! `where(c, a, b)` for a selection; a symbol whose name is not a plain identifier is quoted.

use std::fmt;

use super::expr::{Atom, AtomRef, Mono, Poly, Rat};
use super::{Repr, SymDim};

impl fmt::Display for SymDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Int(v) => write!(f, "{v}"),
            Repr::Invalid => f.write_str("<invalid>"),
            Repr::Expr(_) => f.write_str(&dim(self)),
        }
    }
}

fn dim(d: &SymDim) -> String {
    match &d.0 {
        Repr::Int(v) => v.to_string(),
        Repr::Invalid => "<invalid>".into(),
        Repr::Expr(f) => poly(f.get()),
    }
}

/// `d` as an operand of `//`, `%` or a product: in parentheses unless a number, a symbol or a
/// call.
fn operand(d: &SymDim) -> String {
    let s = dim(d);
    let single = match &d.0 {
        Repr::Int(v) => *v >= 0,
        Repr::Invalid => true,
        Repr::Expr(f) => match f.get().terms.as_slice() {
            [(m, c)] => *c == Rat::ONE && m.len() == 1 && m[0].1 == 1 && !infix(m[0].0.get()),
            _ => false,
        },
    };
    match single {
        true => s,
        false => format!("({s})"),
    }
}

/// Whether the atom is written with an infix operator.
fn infix(x: &Atom) -> bool {
    matches!(x, Atom::FloorDiv(..) | Atom::Mod(..) | Atom::Group(_))
}

fn atom(id: &AtomRef, alone: bool) -> String {
    let s = match id.get() {
        Atom::Sym(n) => return shown(n),
        Atom::FloorDiv(p, q) => format!("{} // {}", operand(p), operand(q)),
        Atom::Mod(p, q) => format!("{} % {}", operand(p), operand(q)),
        Atom::Min(p, q) => return format!("min({}, {})", dim(p), dim(q)),
        Atom::Max(p, q) => return format!("max({}, {})", dim(p), dim(q)),
        Atom::Eq(p, q) => return format!("({} == {})", dim(p), dim(q)),
        Atom::Lt(p, q) => return format!("({} < {})", dim(p), dim(q)),
        Atom::Le(p, q) => return format!("({} <= {})", dim(p), dim(q)),
        Atom::Select(c, p, q) => return format!("where({}, {}, {})", dim(c), dim(p), dim(q)),
        Atom::Group(g) => return format!("({})", dim(g)),
    };
    match alone {
        true => s,
        false => format!("({s})"),
    }
}

/// A term without its sign: `3*N/2`, `B*T`, `6/N`, `T // 20`; and whether it is a floor or a
/// remainder written bare, which a leading minus would read into (`-(B // 2)`, not `-B // 2`).
fn term(m: &Mono, c: Rat) -> (String, bool) {
    let alone = c.num.unsigned_abs() == 1 && c.den == 1 && m.len() == 1 && m[0].1 == 1;
    let bare = alone && infix(m[0].0.get());
    let mut up: Vec<String> = Vec::new();
    let mut down: Vec<String> = Vec::new();
    for (id, e) in m {
        let (s, e) = (atom(id, alone), *e);
        let side = if e > 0 { &mut up } else { &mut down };
        side.extend(std::iter::repeat(s).take(e.unsigned_abs() as usize));
    }
    up.sort();
    down.sort();
    if c.num.unsigned_abs() != 1 || up.is_empty() {
        up.insert(0, c.num.unsigned_abs().to_string());
    }
    if c.den != 1 {
        down.insert(0, c.den.to_string());
    }
    let mut s = up.join("*");
    match down.len() {
        0 => {}
        1 => s = format!("{s}/{}", down[0]),
        _ => s = format!("{s}/({})", down.join("*")),
    }
    (s, bare)
}

fn poly(p: &Poly) -> String {
    let mut terms: Vec<(bool, (String, bool), bool)> = p
        .terms
        .iter()
        .map(|(m, c)| (m.is_empty(), term(m, *c), c.num < 0))
        .collect();
    // Terms with atoms by how they read, the constant last.
    terms.sort();
    let mut s = String::new();
    for (i, (_, (t, bare), negative)) in terms.iter().enumerate() {
        match (i, negative) {
            (0, true) if *bare => {
                s.push_str(&format!("-({t})"));
                continue;
            }
            (0, true) => s.push('-'),
            (0, false) => {}
            (_, true) => s.push_str(" - "),
            (_, false) => s.push_str(" + "),
        }
        s.push_str(t);
    }
    if s.is_empty() {
        s.push('0');
    }
    s
}

/// A symbol's name as `Display` writes it: as it is when it is a plain identifier, else quoted
/// (with Rust's escapes), so that no name reads as a number or an expression.
pub(super) fn shown(name: &str) -> String {
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    match plain {
        true => name.to_owned(),
        false => format!("{name:?}"),
    }
}

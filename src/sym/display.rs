//! How a [`SymDim`] is written: Python's operators on integers (`2*T + 2`, `(H + 31) // 32`,
//! `H % 7`), exact quotients with `/` (`3*N/2`), `min`, `max`, comparisons in parentheses and
//! `where(c, a, b)` for a selection; a symbol whose name is not a plain identifier is quoted.

use std::collections::HashMap;
use std::fmt;

use super::expr::{Atom, AtomRef, Mono, Poly};
use super::rat::Rat;
use super::{Repr, SymDim};

/// `{}` writes the expression in one line; `{:#}` first names each subexpression that occurs
/// more than once (`$1 = (H + 31) // 32`), one per line, then writes the expression with the
/// names: the same value, readable when nested floors repeat.
///
/// ```
/// use ndarray_reshape::SymDim;
/// // Three stride-2 convolutions with padding: each output is (input + 1) // 2, and a floor
/// // of a floor is one floor.
/// let (one, two) = (SymDim::from(1), SymDim::from(2));
/// let mut h = SymDim::sym("H");
/// let mut sizes = Vec::new();
/// for _ in 0..3 {
///     h = (&h + &one).floor_div(&two)?;
///     sizes.push(h.clone());
/// }
/// let tokens = &sizes[2] * &sizes[2] + &sizes[1] * &SymDim::from(3);
/// assert_eq!(tokens.to_string(), "((H + 7) // 8)*((H + 7) // 8) + 3*((H + 3) // 4)");
/// assert_eq!(
///     format!("{tokens:#}"),
///     "$1 = (H + 7) // 8\n$1*$1 + 3*((H + 3) // 4)"
/// );
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
impl fmt::Display for SymDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Int(v) => write!(f, "{v}"),
            Repr::Invalid => f.write_str("<invalid>"),
            Repr::Expr(_) if f.alternate() => {
                let names = Names::of(std::slice::from_ref(self));
                f.write_str(&names.lines())?;
                f.write_str(&dim(self, &names))
            }
            Repr::Expr(_) => f.write_str(&dim(self, &Names::default())),
        }
    }
}

/// The names `{:#}` gives repeated subexpressions (by identity: equal forms are one form).
#[derive(Default)]
pub(super) struct Names {
    of: HashMap<*const Atom, String>,
    /// The named subexpressions, in the order they are defined (inner ones first).
    defined: Vec<AtomRef>,
}

impl Names {
    /// Names for the subexpressions of `dims` that occur more than once and are not short.
    pub(super) fn of(dims: &[SymDim]) -> Names {
        let mut seen: HashMap<*const Atom, usize> = HashMap::new();
        let mut order: Vec<AtomRef> = Vec::new();
        for d in dims {
            count(d, &mut seen, &mut order);
        }
        let mut names = Names::default();
        for id in order {
            let key: *const Atom = id.get();
            let repeated = seen.get(&key).is_some_and(|&n| n > 1);
            if repeated && !matches!(id.get(), Atom::Sym(_)) && atom(&id, true, &names).len() >= 8 {
                names
                    .of
                    .insert(key, format!("${}", names.defined.len() + 1));
                names.defined.push(id);
            }
        }
        names
    }

    /// The definitions, one line each (`$1 = ...`), each written with the names before it.
    pub(super) fn lines(&self) -> String {
        let mut out = String::new();
        let mut earlier = Names::default();
        for id in &self.defined {
            let key: *const Atom = id.get();
            out.push_str(&format!(
                "{} = {}\n",
                self.of[&key],
                atom(id, true, &earlier)
            ));
            earlier.of.insert(key, self.of[&key].clone());
        }
        out
    }
}

/// Count the atoms of `d` (each distinct atom's parts once), in post-order into `order`.
fn count(d: &SymDim, seen: &mut HashMap<*const Atom, usize>, order: &mut Vec<AtomRef>) {
    let Repr::Expr(f) = &d.0 else { return };
    for (m, _) in &f.get().terms {
        for (id, e) in m {
            let key: *const Atom = id.get();
            let n = seen.entry(key).or_insert(0);
            let first = *n == 0;
            // A power is as many occurrences as its exponent (`$1*$1`).
            *n += e.unsigned_abs() as usize;
            if !first {
                continue;
            }
            for operand in id.get().operands() {
                count(operand, seen, order);
            }
            order.push(id.clone());
        }
    }
}

/// `d` written with the names `n` gives its repeated subexpressions.
pub(super) fn dim(d: &SymDim, n: &Names) -> String {
    match &d.0 {
        Repr::Int(v) => v.to_string(),
        Repr::Invalid => "<invalid>".into(),
        Repr::Expr(f) => poly(f.get(), n),
    }
}

/// `d` as an operand of `//`, `%` or a product: in parentheses unless a number, a symbol or a
/// call.
fn operand(d: &SymDim, n: &Names) -> String {
    let s = dim(d, n);
    let single = match &d.0 {
        Repr::Int(v) => *v >= 0,
        Repr::Invalid => true,
        Repr::Expr(f) => match f.get().terms.as_slice() {
            [(m, c)] => match m.as_slice() {
                [(id, 1)] if *c == Rat::ONE => {
                    n.of.contains_key(&(id.get() as *const Atom)) || !infix(id.get())
                }
                _ => false,
            },
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

/// The atom written alone (`alone`) or as a factor; its name when `n` names it (and `alone`
/// is not its own definition: [`Names::lines`] writes those with the names before them).
fn atom(id: &AtomRef, alone: bool, n: &Names) -> String {
    if let Some(name) = n.of.get(&(id.get() as *const Atom)) {
        return name.clone();
    }
    let s = match id.get() {
        Atom::Sym(name) => return shown(name),
        Atom::FloorDiv(p, q) => format!("{} // {}", operand(p, n), operand(q, n)),
        Atom::Mod(p, q) => format!("{} % {}", operand(p, n), operand(q, n)),
        Atom::Min(p, q) => return format!("min({}, {})", dim(p, n), dim(q, n)),
        Atom::Max(p, q) => return format!("max({}, {})", dim(p, n), dim(q, n)),
        Atom::Eq(p, q) => return format!("({} == {})", dim(p, n), dim(q, n)),
        Atom::Lt(p, q) => return format!("({} < {})", dim(p, n), dim(q, n)),
        Atom::Le(p, q) => return format!("({} <= {})", dim(p, n), dim(q, n)),
        Atom::Select(c, p, q) => {
            return format!("where({}, {}, {})", dim(c, n), dim(p, n), dim(q, n))
        }
        Atom::Group(g) => return format!("({})", dim(g, n)),
    };
    match alone {
        true => s,
        false => format!("({s})"),
    }
}

/// A term without its sign: `3*N/2`, `B*T`, `6/N`, `T // 20`; and whether it is a floor or a
/// remainder written bare, which a leading minus would read into (`-(B // 2)`, not `-B // 2`).
fn term(m: &Mono, c: Rat, n: &Names) -> (String, bool) {
    let alone = c.num.unsigned_abs() == 1 && c.den == 1 && m.len() == 1 && m[0].1 == 1;
    let named = alone && n.of.contains_key(&(m[0].0.get() as *const Atom));
    let bare = alone && !named && infix(m[0].0.get());
    let mut up: Vec<String> = Vec::new();
    let mut down: Vec<String> = Vec::new();
    for (id, e) in m {
        let (s, e) = (atom(id, alone, n), *e);
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

fn poly(p: &Poly, n: &Names) -> String {
    let mut terms: Vec<(bool, (String, bool), bool)> = p
        .terms
        .iter()
        .map(|(m, c)| (m.is_empty(), term(m, *c, n), c.num < 0))
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

//! Symbolic dims for shape inference without known sizes: [`SymDim`] (an integer expression over
//! named symbols) here, its canonical form in `expr` (with its rational coefficients in `rat`
//! and the interning of forms in `intern`), the floors,
//! remainders, comparisons and selections in `algebra`, evaluation and bounds in `eval`, the
//! [`Condition`]s an inference may need and the [`SymShape`] it returns in `shape`, what a
//! caller knows of its symbols in `assume` ([`Assumptions`]), binding to a concrete shape in
//! `bind`, expressions rebuilt with symbols replaced in `rewrite`, and their text (Python's
//! integer grammar, shared subexpressions named) in `display`. The dialects run their
//! own algorithms on these (`infer/extent.rs`); the values a shape subgraph computes are the
//! `graph` module's, built on them.
#![forbid(unsafe_code)]

mod algebra;
mod assume;
mod bind;
mod display;
mod eval;
mod expr;
mod intern;
mod rat;
mod rewrite;
mod shape;

pub use assume::{Assumptions, Unify};
pub use bind::Binding;
pub(crate) use eval::{at_least_one, bounds, lower, past_limit, upper};
pub(crate) use intern::KeyedBuild;
pub(crate) use rat::Rat;
pub(crate) use shape::{all_hold, equals, integer, never_zero, ConditionList, Exact};
pub use shape::{Condition, SymShape};

use std::borrow::Cow;
use std::hash::BuildHasher;
use std::sync::{LazyLock, Mutex};

use crate::dims::LIMIT;
use expr::{Atom, Form, Poly};

/// A dimension size for shape inference: an integer expression over named symbols. Symbols
/// stand for sizes of at least 1 (and at most `isize::MAX`). Expressions are what reshapes and
/// exported graphs compute: sums, differences and products (`B*T`, `2*T + 2`), exact quotients
/// (`3*N/2` once a reshape divides), floor division and remainder (`S // 20 - 1`, `H % 7`),
/// minimum and maximum, comparisons as 0/1 values and selections
/// ([`floor_div`](Self::floor_div) and the methods after it).
///
/// Values are canonical where it matters: sums are expanded and collected (`2*N*4 == 8*N`,
/// `(T + 1)*2 == 2*T + 2`), exact divisions cancel (`64*B // 64 == B`), a floor's constant offset
/// is normalised (`(H - 1) // 32 + 1 == (H + 31) // 32`), and what the symbols' bounds decide is
/// decided (`max(B, 1) == B`, `B == -1` is 0). A known integer is held inline; a symbolic
/// form is interned while any `SymDim` holds it, so a clone is a counted handle (no copy of
/// the expression), equal forms are one node (equality is a pointer comparison), and the
/// memory of a form comes back when the last value that uses it is dropped: a process that
/// infers shapes for one model after another holds the forms of the values it keeps, not of
/// every model it has seen. A result past the representable range (a coefficient past
/// `i128`, more than 64 terms, a power past 127) is *invalid*: it displays as `<invalid>`,
/// never evaluates, and inference on it is a
/// [`ReshapeError::SymbolLimit`](crate::ReshapeError::SymbolLimit).
///
/// ```
/// use ndarray_reshape::SymDim;
///
/// let (n, t) = (SymDim::sym("N"), SymDim::sym("T"));
/// let d = SymDim::from(2) * &n * SymDim::from(4); // operands by value or by reference
/// assert_eq!(d, SymDim::from(8) * &n);
/// assert_eq!(d.to_string(), "8*N");
/// assert_eq!((&t * &n).to_string(), "N*T");
/// assert_eq!(d.eval(&[("N", 3)]), Some(24));
/// assert_eq!(d.eval(&[]), None); // N unbound
/// assert_eq!(SymDim::from(7).known(), Some(7));
/// let frames = t.floor_div(&SymDim::from(20))? - SymDim::from(1);
/// assert_eq!(frames.to_string(), "T // 20 - 1");
/// assert_eq!(frames.eval(&[("T", 12345)]), Some(616));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SymDim(Repr);

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
enum Repr {
    /// A known integer.
    Int(i64),
    /// An interned sum that is not an integer constant.
    Expr(Form),
    Invalid,
}

/// A dim of value 0 (usize's default), so that `SymDim` can live in inline buffers.
impl Default for SymDim {
    /// ```
    /// assert_eq!(ndarray_reshape::SymDim::default(), ndarray_reshape::SymDim::from(0));
    /// ```
    fn default() -> Self {
        SymDim(Repr::Int(0))
    }
}

impl From<usize> for SymDim {
    /// A known size. One past `isize::MAX` (no array can have it) is invalid.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::SymDim::from(6).to_string(), "6");
    /// ```
    fn from(v: usize) -> Self {
        match v <= LIMIT {
            true => SymDim(Repr::Int(v as i64)),
            false => SymDim::INVALID,
        }
    }
}

impl SymDim {
    pub(crate) const INVALID: SymDim = SymDim(Repr::Invalid);

    /// The symbol `name` (a size of at least 1): `N`, `batch`, `seq_len`. The same name is the
    /// same symbol everywhere in the process, found by hash. A name that is not a plain identifier (letters,
    /// digits, `_` and `.`, not starting with a digit or `.`) is shown quoted, so that it never
    /// reads as an expression: the symbol `"B*T"` is not the product `B*T`, nor `"3"` the
    /// number 3.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// assert_eq!(SymDim::sym("N"), SymDim::sym("N"));
    /// assert_ne!(SymDim::sym("N"), SymDim::sym("M"));
    /// let (b, t, bt) = (SymDim::sym("B"), SymDim::sym("T"), SymDim::sym("B*T"));
    /// assert_eq!((&b * &t).to_string(), "B*T");
    /// assert_eq!((SymDim::from(2) * &bt).to_string(), "2*\"B*T\"");
    /// assert_ne!(b * t, bt);
    /// ```
    pub fn sym(name: &str) -> SymDim {
        SymDim::of_atom(Atom::Sym(name.into()))
    }

    /// A known integer, negative ones included (a dialect's code such as `-1`, or a value a
    /// graph computes on the way).
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// assert_eq!(SymDim::int(-1), -SymDim::from(1));
    /// assert_eq!(SymDim::int(-1).constant(), Some(-1));
    /// ```
    pub fn int(v: i64) -> SymDim {
        SymDim(Repr::Int(v))
    }

    /// The size, when it is known (no symbols, an integer from 0 to `isize::MAX`).
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// assert_eq!(SymDim::from(4).known(), Some(4));
    /// assert_eq!(SymDim::sym("N").known(), None);
    /// assert_eq!(SymDim::int(-1).known(), None);
    /// ```
    pub fn known(&self) -> Option<usize> {
        match self.0 {
            Repr::Int(v) if v >= 0 => Some(v as usize),
            _ => None,
        }
    }

    /// The value when it has no symbols and is an integer of `i64`, negative ones included.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// assert_eq!((SymDim::from(3) - SymDim::from(5)).constant(), Some(-2));
    /// assert_eq!(SymDim::sym("N").constant(), None);
    /// ```
    pub fn constant(&self) -> Option<i64> {
        match self.0 {
            Repr::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The value when it has no symbols and is an integer (of `i128`: past `i64` too).
    pub(crate) fn wide_constant(&self) -> Option<i128> {
        match self.0 {
            Repr::Int(v) => Some(v.into()),
            Repr::Expr(_) => self
                .poly()?
                .as_constant()
                .filter(|c| c.is_int())
                .map(|c| c.num),
            Repr::Invalid => None,
        }
    }

    /// How many symbolic forms (sums, and the symbols, floors, comparisons and the like in
    /// them) the process holds: those that some live value uses, and those the memo of recent
    /// results keeps (at most a few thousand). A form no value uses is freed, so a process
    /// that infers one model after another holds what its live values need, not every form
    /// it has met.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let before = SymDim::live_forms();
    /// let d = SymDim::sym("a_symbol_of_this_example") * SymDim::from(3);
    /// assert!(SymDim::live_forms() > before);
    /// drop(d);
    /// ```
    pub fn live_forms() -> usize {
        let (atoms, sums) = expr::live_forms();
        atoms + sums
    }

    /// Lets go of what the process keeps beyond its own values: the memo of recent results
    /// and the last forms interned (kept so that the next inference meets them again). A
    /// service can call it after a burst of models to return that memory at once; the next
    /// inferences rebuild what they need.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let before = SymDim::live_forms();
    /// let d = SymDim::sym("a_symbol_of_this_example") * SymDim::from(5) + SymDim::from(1);
    /// drop(d);
    /// SymDim::release_caches();
    /// assert!(SymDim::live_forms() <= before);
    /// ```
    pub fn release_caches() {
        let memo = std::mem::replace(
            &mut *OPS.lock().unwrap_or_else(|e| e.into_inner()),
            vec![Memo::default(); MEMO],
        );
        drop(memo);
        expr::release_recent();
    }

    /// Whether the dim is within the representable range (see [`SymDim`]).
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// assert!(!SymDim::from(usize::MAX).is_valid());
    /// assert!(SymDim::sym("A").is_valid());
    /// ```
    pub fn is_valid(&self) -> bool {
        !matches!(self.0, Repr::Invalid)
    }

    /// Known zero.
    pub(crate) fn is_zero(&self) -> bool {
        self.0 == Repr::Int(0)
    }

    /// Whether it has symbols (or is a fraction without them).
    pub(crate) fn is_symbolic(&self) -> bool {
        matches!(self.0, Repr::Expr(_))
    }

    /// An order on handles (not on values), for canonical operand order.
    pub(crate) fn key(&self) -> &impl Ord {
        &self.0
    }

    /// The canonical sum (borrowed from the form where there is one), `None` when invalid.
    pub(crate) fn poly(&self) -> Option<Cow<'_, Poly>> {
        poly_of(&self.0)
    }

    /// The interned form of a symbolic dim.
    pub(crate) fn form(&self) -> Option<&Form> {
        match &self.0 {
            Repr::Expr(f) => Some(f),
            _ => None,
        }
    }

    /// The dim of a sum: an integer when it is one, else interned; invalid for `None`.
    pub(crate) fn of_poly(p: Option<Poly>) -> SymDim {
        let Some(p) = p else {
            return SymDim::INVALID;
        };
        if let Some(c) = p.as_constant() {
            if c.is_int() {
                if let Ok(v) = i64::try_from(c.num) {
                    return SymDim(Repr::Int(v));
                }
            }
        }
        SymDim(Repr::Expr(expr::intern_sum(p)))
    }

    /// The dim that is the atom `a`.
    pub(crate) fn of_atom(a: Atom) -> SymDim {
        SymDim::of_poly(Some(Poly::atom(expr::intern_atom(a), 1)))
    }

    /// `f` (the operation `op`) on both sums; invalid when either is. Results are remembered
    /// by operation and handles: an inference repeats the same products and differences, and
    /// a lookup costs less than building a sum (BENCHMARKS.md, "What does symbolic inference
    /// cost?").
    fn combine(self, rhs: SymDim, op: u8, f: impl FnOnce(&Poly, &Poly) -> Option<Poly>) -> SymDim {
        let key = (op, self.0.key(), rhs.0.key());
        let slot = (intern::KeyedBuild.hash_one(key) as usize) & (MEMO - 1);
        if let Some((k, d)) = &OPS.lock().unwrap_or_else(|e| e.into_inner())[slot].0 {
            if *k == key {
                return d.clone();
            }
        }
        let int = |c: &i64| Rat::int(i128::from(*c));
        let d = match (op, &self.0, &rhs.0) {
            // A form and a number: scaled or shifted in place, no product of sums to sort.
            (2, Repr::Expr(e), Repr::Int(c)) | (2, Repr::Int(c), Repr::Expr(e)) => {
                SymDim::of_poly(e.get().times(int(c)))
            }
            (0, Repr::Expr(e), Repr::Int(c)) | (0, Repr::Int(c), Repr::Expr(e)) => {
                SymDim::of_poly(e.get().plus(int(c)))
            }
            (1, Repr::Expr(e), Repr::Int(c)) => {
                SymDim::of_poly(int(c).neg().and_then(|c| e.get().plus(c)))
            }
            _ => match (poly_of(&self.0), poly_of(&rhs.0)) {
                (Some(a), Some(b)) => SymDim::of_poly(f(&a, &b)),
                _ => SymDim::INVALID,
            },
        };
        let old = OPS.lock().unwrap_or_else(|e| e.into_inner())[slot]
            .0
            .replace((key, d.clone()));
        // Dropped outside the lock: a form freed here frees its parts.
        drop(old);
        d
    }
}

/// The canonical sum of `r`, borrowed from its form when it has one; `None` when invalid.
fn poly_of(r: &Repr) -> Option<Cow<'_, Poly>> {
    match r {
        Repr::Int(v) => Some(Cow::Owned(Poly::constant(Rat::int(*v as i128)))),
        Repr::Expr(f) => Some(Cow::Borrowed(f.get())),
        Repr::Invalid => None,
    }
}

/// An operand of a remembered result: an integer, or a form by its serial number (never
/// reused, so an entry whose operand was freed is never met again; the memo does not keep
/// operands alive).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Int(i64),
    Form(u64),
    Invalid,
}

impl Repr {
    fn key(&self) -> Key {
        match self {
            Repr::Int(v) => Key::Int(*v),
            Repr::Expr(f) => Key::Form(f.serial()),
            Repr::Invalid => Key::Invalid,
        }
    }
}

/// A result of [`SymDim::combine`]: (operation, left, right) and the result.
/// Aligned to a cache line, so that a lookup reads one line.
#[derive(Clone, Default)]
#[repr(align(64))]
struct Memo(Option<((u8, Key, Key), SymDim)>);

/// The results of [`SymDim::combine`], direct-mapped by the keyed hash of (operation, left,
/// right): a lookup is one slot whatever the operands, and a collision only overwrites. The
/// results it holds are what a process keeps beyond its own values.
static OPS: LazyLock<Mutex<Vec<Memo>>> = LazyLock::new(|| Mutex::new(vec![Memo::default(); MEMO]));

/// Slots of the memo (a power of two).
const MEMO: usize = 1 << 16;

/// The arithmetic of integers on the fast path, the sums' otherwise.
macro_rules! arith {
    ($trait:ident, $method:ident, $int:ident, $op:literal, $poly:expr) => {
        impl std::ops::$trait for SymDim {
            type Output = SymDim;

            /// Exact; invalid past the representable range (see [`SymDim`]).
            fn $method(self, rhs: SymDim) -> SymDim {
                if let (Repr::Int(a), Repr::Int(b)) = (&self.0, &rhs.0) {
                    if let Some(v) = a.$int(*b) {
                        return SymDim(Repr::Int(v));
                    }
                }
                self.combine(rhs, $op, $poly)
            }
        }
    };
}

arith!(Add, add, checked_add, 0, |a: &Poly, b: &Poly| a.add(b));
arith!(Sub, sub, checked_sub, 1, |a: &Poly, b: &Poly| a.sub(b));
arith!(Mul, mul, checked_mul, 2, |a: &Poly, b: &Poly| a.mul(b));

/// The operators with either operand by reference (`&a * &b`), as on owned dims.
macro_rules! by_reference {
    ($trait:ident, $method:ident) => {
        impl std::ops::$trait<&SymDim> for SymDim {
            type Output = SymDim;

            /// As on owned dims.
            fn $method(self, rhs: &SymDim) -> SymDim {
                std::ops::$trait::$method(self, rhs.clone())
            }
        }

        impl std::ops::$trait<SymDim> for &SymDim {
            type Output = SymDim;

            /// As on owned dims.
            fn $method(self, rhs: SymDim) -> SymDim {
                std::ops::$trait::$method(self.clone(), rhs)
            }
        }

        impl std::ops::$trait<&SymDim> for &SymDim {
            type Output = SymDim;

            /// As on owned dims.
            fn $method(self, rhs: &SymDim) -> SymDim {
                std::ops::$trait::$method(self.clone(), rhs.clone())
            }
        }
    };
}

by_reference!(Add, add);
by_reference!(Sub, sub);
by_reference!(Mul, mul);
by_reference!(Div, div);

impl std::ops::Neg for SymDim {
    type Output = SymDim;

    /// `0 - self`.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// assert_eq!((-SymDim::sym("N")).to_string(), "-N");
    /// ```
    fn neg(self) -> SymDim {
        SymDim::from(0) - self
    }
}

impl std::ops::Div for SymDim {
    type Output = SymDim;

    /// The exact quotient: `3*N / 2` stays `3*N/2` (an integer only for even `N`), a quotient by
    /// a sum stays one (`64*T/(T // 2)`). Division by 0 is invalid. The graph's own integer
    /// division is [`floor_div`](SymDim::floor_div).
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let n = SymDim::sym("N");
    /// assert_eq!(SymDim::from(8) * &n / SymDim::from(8), n);
    /// assert_eq!((SymDim::from(3) * n / SymDim::from(2)).to_string(), "3*N/2");
    /// ```
    fn div(self, rhs: SymDim) -> SymDim {
        match (poly_of(&self.0), poly_of(&rhs.0)) {
            (Some(a), Some(b)) => algebra::quotient(&a, &b),
            _ => SymDim::INVALID,
        }
    }
}

impl std::fmt::Debug for SymDim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

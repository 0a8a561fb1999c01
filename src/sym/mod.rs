//! Symbolic dims for shape inference without known sizes: [`SymDim`] (a number, or a product of
//! named symbols with a rational coefficient) here, the [`Condition`]s an inference may need
//! and the [`SymShape`] it returns in `shape`. The dialects run their own algorithms on these
//! (`spec/extent.rs`); this module is only the values. [`ShapeValue`] in `value` is what a shape
//! subgraph computes from them.

mod ops;
mod shape;
mod value;

pub(crate) use shape::{integer, unit, Exact};
pub use shape::{Condition, SymShape};
pub(crate) use value::Entry;
pub use value::ShapeValue;

use std::fmt;
use std::sync::Mutex;

use crate::dims::LIMIT;
use crate::small::Small;

/// The distinct symbols one [`SymDim`] can hold (`B*T*H*W` at most); more make it invalid.
pub const MAX_SYMBOLS: usize = 4;

/// Symbol names, interned: a [`SymDim`] stores the index, so it stays small and `Copy`.
static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

/// Distinct names in a process; past this, [`SymDim::sym`] gives an invalid dim.
const MAX_NAMES: usize = 1 << 20;

fn intern(name: &str) -> Option<u32> {
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = names.iter().position(|&n| n == name) {
        return Some(i as u32);
    }
    if names.len() >= MAX_NAMES {
        return None;
    }
    // Leaked once per distinct name: a graph has a handful.
    names.push(Box::leak(name.to_owned().into_boxed_str()));
    Some(names.len() as u32 - 1)
}

pub(crate) fn name_of(id: u32) -> &'static str {
    let names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    names[id as usize]
}

/// One symbol of a product and its power (negative after a division).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
struct Factor {
    id: u32,
    exp: i8,
}

/// A dimension size for shape inference: a known number, or a product of named symbols with a
/// coefficient (`8*N`, `B*T`, `3*N/2` once a division is involved). Symbols stand for sizes of
/// at least 1. Reshapes only copy, multiply and divide dims, so products are all they need.
///
/// Values are canonical: `2*N*4 == 8*N`, and `Display` writes the coefficient first, then the
/// symbols by name (`8*N`, `B*T`, `3*N/2`). A product that leaves the representable range (a
/// coefficient past `isize::MAX`, more than [`MAX_SYMBOLS`] symbols, a power past 127) is
/// *invalid*: it displays as `<invalid>`, never evaluates, and inference on it is a
/// [`ReshapeError::SymbolLimit`](crate::ReshapeError::SymbolLimit).
///
/// ```
/// use ndarray_reshape::SymDim;
///
/// let (n, t) = (SymDim::sym("N"), SymDim::sym("T"));
/// let d = SymDim::from(2) * n * SymDim::from(4);
/// assert_eq!(d, SymDim::from(8) * n);
/// assert_eq!(d.to_string(), "8*N");
/// assert_eq!((t * n).to_string(), "N*T");
/// assert_eq!(d.eval(&[("N", 3)]), Some(24));
/// assert_eq!(d.eval(&[]), None); // N unbound
/// assert_eq!(SymDim::from(7).known(), Some(7));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SymDim {
    /// Coefficient `num / den`, reduced; `den == 0` marks an invalid dim.
    num: u64,
    den: u64,
    /// Sorted by id, non-zero powers first, then unused slots (`exp == 0`).
    factors: [Factor; MAX_SYMBOLS],
}

/// A dim of value 0 (usize's default), so that `SymDim` can live in inline buffers.
impl Default for SymDim {
    /// ```
    /// assert_eq!(ndarray_reshape::SymDim::default(), ndarray_reshape::SymDim::from(0));
    /// ```
    fn default() -> Self {
        SymDim::from(0)
    }
}

impl From<usize> for SymDim {
    /// A known size. One past `isize::MAX` (no array can have it) is invalid.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::SymDim::from(6).to_string(), "6");
    /// ```
    fn from(v: usize) -> Self {
        SymDim::ratio(v as u128, 1, [Factor::default(); MAX_SYMBOLS])
    }
}

impl SymDim {
    const INVALID: SymDim = SymDim {
        num: 0,
        den: 0,
        factors: [Factor { id: 0, exp: 0 }; MAX_SYMBOLS],
    };

    /// The symbol `name` (a size of at least 1): `N`, `batch`, `seq_len`. The same name is the
    /// same symbol everywhere in the process. A name that is not a plain identifier (letters,
    /// digits, `_` and `.`, not starting with a digit or `.`) is shown quoted, so that it never
    /// reads as an expression: the symbol `"B*T"` is not the product `B*T`, nor `"3"` the
    /// number 3.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// assert_eq!(SymDim::sym("N"), SymDim::sym("N"));
    /// assert_ne!(SymDim::sym("N"), SymDim::sym("M"));
    /// let (b, t, bt) = (SymDim::sym("B"), SymDim::sym("T"), SymDim::sym("B*T"));
    /// assert_eq!((b * t).to_string(), "B*T");
    /// assert_eq!((SymDim::from(2) * bt).to_string(), "2*\"B*T\"");
    /// assert_ne!(b * t, bt);
    /// ```
    pub fn sym(name: &str) -> SymDim {
        match intern(name) {
            Some(id) => {
                let mut factors = [Factor::default(); MAX_SYMBOLS];
                factors[0] = Factor { id, exp: 1 };
                SymDim {
                    num: 1,
                    den: 1,
                    factors,
                }
            }
            None => SymDim::INVALID,
        }
    }

    /// `num / den` times `factors`, reduced; invalid past the limits.
    fn ratio(num: u128, den: u128, factors: [Factor; MAX_SYMBOLS]) -> SymDim {
        if den == 0 {
            return SymDim::INVALID;
        }
        if num == 0 {
            return SymDim {
                num: 0,
                den: 1,
                factors: [Factor::default(); MAX_SYMBOLS],
            };
        }
        let g = gcd(num, den);
        let (num, den) = (num / g, den / g);
        if num > LIMIT as u128 || den > LIMIT as u128 {
            return SymDim::INVALID;
        }
        SymDim {
            num: num as u64,
            den: den as u64,
            factors,
        }
    }

    /// The size, when it is known (no symbols, an integer).
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// assert_eq!(SymDim::from(4).known(), Some(4));
    /// assert_eq!(SymDim::sym("N").known(), None);
    /// ```
    pub fn known(&self) -> Option<usize> {
        (self.is_valid() && self.factors[0].exp == 0 && self.den == 1).then_some(self.num as usize)
    }

    /// Whether the dim is within the representable range (see [`SymDim`]).
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let many = ["A", "B", "C", "D", "E"].iter().fold(SymDim::from(1), |d, s| d * SymDim::sym(s));
    /// assert!(!many.is_valid());
    /// assert!(SymDim::sym("A").is_valid());
    /// ```
    pub fn is_valid(&self) -> bool {
        self.den != 0
    }

    /// Whether it is a known integer or a product with an integer coefficient and no division
    /// by a symbol: the forms whose value is an integer for every binding.
    pub(crate) fn is_integral(&self) -> bool {
        self.is_valid() && self.den == 1 && self.factors.iter().all(|f| f.exp >= 0)
    }

    /// Known zero (symbols are at least 1, so only a literal 0 is).
    pub(crate) fn is_zero(&self) -> bool {
        self.is_valid() && self.num == 0
    }

    /// Whether it has symbols.
    pub(crate) fn is_symbolic(&self) -> bool {
        self.is_valid() && self.factors[0].exp != 0
    }

    /// Whether it has a symbol with a positive power (then it can be made a multiple of any
    /// number by the choice of that symbol).
    pub(crate) fn has_positive(&self) -> bool {
        self.factors.iter().any(|f| f.exp > 0)
    }

    /// `1 / self` (`self` non-zero and valid).
    pub(crate) fn recip(self) -> SymDim {
        if !self.is_valid() || self.num == 0 {
            return SymDim::INVALID;
        }
        let mut factors = self.factors;
        for f in &mut factors {
            f.exp = -f.exp;
        }
        SymDim {
            num: self.den,
            den: self.num,
            factors,
        }
    }

    /// The integer numerator and denominator sides of `self` (`a*P` over `b*Q`, all powers
    /// positive): how a condition on it is written.
    pub(crate) fn sides(self) -> (SymDim, SymDim) {
        let mut up = [Factor::default(); MAX_SYMBOLS];
        let mut down = [Factor::default(); MAX_SYMBOLS];
        let (mut u, mut d) = (0, 0);
        for f in self.factors.iter().filter(|f| f.exp != 0) {
            if f.exp > 0 {
                up[u] = *f;
                u += 1;
            } else {
                down[d] = Factor {
                    id: f.id,
                    exp: -f.exp,
                };
                d += 1;
            }
        }
        (
            SymDim::ratio(self.num as u128, 1, up),
            SymDim::ratio(self.den as u128, 1, down),
        )
    }

    /// The value under `bindings` (name, size): `None` when a symbol is unbound, bound to 0,
    /// the value is not an integer, or it passes `isize::MAX`. Exact for every binding: a
    /// product past 128 bits on the way is cancelled factor by factor.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let half = SymDim::from(3) * SymDim::sym("N") / SymDim::from(2);
    /// assert_eq!(half.eval(&[("N", 4)]), Some(6));
    /// assert_eq!(half.eval(&[("N", 3)]), None); // 4.5
    /// ```
    pub fn eval(&self, bindings: &[(&str, usize)]) -> Option<usize> {
        match quotient(*self, SymDim::from(1), bindings)? {
            Quotient::Integer(Some(v)) if v <= LIMIT as u128 => Some(v as usize),
            _ => None,
        }
    }

    /// The names of its symbols, in the order `Display` writes them.
    fn names(&self) -> Small<(&'static str, i8)> {
        let mut v: Small<(&'static str, i8)> = self
            .factors
            .iter()
            .filter(|f| f.exp != 0)
            .map(|f| (name_of(f.id), f.exp))
            .collect();
        v.sort_unstable();
        v
    }
}

/// What `up / down` is under some bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quotient {
    /// Not an integer.
    Fraction,
    /// An integer: its value, `None` past 128 bits.
    Integer(Option<u128>),
}

/// `up / down` under `bindings`, exactly: `None` when either is invalid, `down` is zero, or a
/// symbol of either is unbound or bound to 0.
pub(crate) fn quotient(up: SymDim, down: SymDim, bindings: &[(&str, usize)]) -> Option<Quotient> {
    if !up.is_valid() || !down.is_valid() || down.num == 0 {
        return None;
    }
    // Each factor (size, power, whether on top): the coefficients, then every symbol's size.
    let mut factors = [(0u64, 0u8, false); 2 * MAX_SYMBOLS + 4];
    factors[..4].copy_from_slice(&[
        (up.num, 1, true),
        (down.den, 1, true),
        (up.den, 1, false),
        (down.num, 1, false),
    ]);
    let mut len = 4;
    for (dim, is_up) in [(&up, true), (&down, false)] {
        for f in dim.factors.iter().filter(|f| f.exp != 0) {
            let name = name_of(f.id);
            let &(_, v) = bindings.iter().find(|(n, _)| *n == name)?;
            if v == 0 {
                return None;
            }
            factors[len] = (v as u64, f.exp.unsigned_abs(), (f.exp > 0) == is_up);
            len += 1;
        }
    }
    let factors = &factors[..len];
    let side = |top: bool| {
        factors
            .iter()
            .filter(move |f| f.2 == top)
            .flat_map(|&(v, p, _)| std::iter::repeat(v).take(p as usize))
    };
    fn product(side: impl IntoIterator<Item = u64>) -> Option<u128> {
        side.into_iter()
            .try_fold(1u128, |p, v| p.checked_mul(v as u128))
    }
    if let (Some(t), Some(b)) = (product(side(true)), product(side(false))) {
        return Some(match t % b {
            0 => Quotient::Integer(Some(t / b)),
            _ => Quotient::Fraction,
        });
    }
    let mut top: Vec<u64> = side(true).collect();
    // Past 128 bits: divide each bottom factor out of the top ones by their common divisors.
    // With `g = gcd(d, t)`, `d | t*R` exactly when `d/g | R`, as `d/g` and `t/g` are coprime.
    for d in side(false) {
        let mut d = d as u128;
        for t in top.iter_mut() {
            if d == 1 {
                break;
            }
            let g = gcd(d, *t as u128);
            d /= g;
            *t = (*t as u128 / g) as u64;
        }
        if d != 1 {
            return Some(Quotient::Fraction);
        }
    }
    Some(Quotient::Integer(product(top)))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl std::ops::Mul for SymDim {
    type Output = SymDim;

    /// The product; invalid past the limits (see [`SymDim`]).
    fn mul(self, rhs: SymDim) -> SymDim {
        if !self.is_valid() || !rhs.is_valid() {
            return SymDim::INVALID;
        }
        if self.num == 0 || rhs.num == 0 {
            return SymDim::from(0);
        }
        let mut factors = [Factor::default(); MAX_SYMBOLS];
        let mut n = 0;
        let (a, b) = (&self.factors, &rhs.factors);
        let (mut i, mut j) = (0, 0);
        let live = |f: &[Factor; MAX_SYMBOLS], k: usize| k < MAX_SYMBOLS && f[k].exp != 0;
        while live(a, i) || live(b, j) {
            let f = match (live(a, i), live(b, j)) {
                (true, true) if a[i].id == b[j].id => {
                    let Some(exp) = a[i].exp.checked_add(b[j].exp) else {
                        return SymDim::INVALID;
                    };
                    i += 1;
                    j += 1;
                    Factor {
                        id: a[i - 1].id,
                        exp,
                    }
                }
                (true, true) if a[i].id < b[j].id => {
                    i += 1;
                    a[i - 1]
                }
                (true, false) => {
                    i += 1;
                    a[i - 1]
                }
                _ => {
                    j += 1;
                    b[j - 1]
                }
            };
            if f.exp == 0 {
                continue;
            }
            if n == MAX_SYMBOLS {
                return SymDim::INVALID;
            }
            factors[n] = f;
            n += 1;
        }
        let num = self.num as u128 * rhs.num as u128;
        let den = self.den as u128 * rhs.den as u128;
        SymDim::ratio(num, den, factors)
    }
}

impl std::ops::Div for SymDim {
    type Output = SymDim;

    /// The quotient, exact: `3*N / 2` stays `3*N/2` (an integer only for even `N`). Division
    /// by 0 is invalid.
    ///
    /// ```
    /// use ndarray_reshape::SymDim;
    /// let n = SymDim::sym("N");
    /// assert_eq!(SymDim::from(8) * n / SymDim::from(8), n);
    /// assert_eq!((SymDim::from(3) * n / SymDim::from(2)).to_string(), "3*N/2");
    /// ```
    #[allow(clippy::suspicious_arithmetic_impl)] // a division is a product with the inverse
    fn div(self, rhs: SymDim) -> SymDim {
        self * rhs.recip()
    }
}

impl fmt::Display for SymDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.is_valid() {
            return f.write_str("<invalid>");
        }
        let names = self.names();
        let mut parts: Vec<String> = Vec::new();
        if self.num != 1 || names.iter().all(|&(_, e)| e < 0) {
            parts.push(self.num.to_string());
        }
        for &(n, e) in names.iter().filter(|&&(_, e)| e > 0) {
            parts.extend(std::iter::repeat(shown(n)).take(e as usize));
        }
        f.write_str(&parts.join("*"))?;
        let mut down: Vec<String> = Vec::new();
        if self.den != 1 {
            down.push(self.den.to_string());
        }
        for &(n, e) in names.iter().filter(|&&(_, e)| e < 0) {
            down.extend(std::iter::repeat(shown(n)).take(e.unsigned_abs() as usize));
        }
        match down.len() {
            0 => Ok(()),
            1 => write!(f, "/{}", down[0]),
            _ => write!(f, "/({})", down.join("*")),
        }
    }
}

/// A symbol's name as `Display` writes it: as it is when it is a plain identifier, else quoted
/// (with Rust's escapes), so that no name reads as a number or an expression.
fn shown(name: &str) -> String {
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    match plain {
        true => name.to_owned(),
        false => format!("{name:?}"),
    }
}

impl fmt::Debug for SymDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n() -> SymDim {
        SymDim::sym("N")
    }

    #[test]
    fn canonical_products() {
        let m = SymDim::sym("M");
        assert_eq!(
            SymDim::from(2) * n() * SymDim::from(4),
            SymDim::from(8) * n()
        );
        assert_eq!(n() * m, m * n());
        assert_eq!((n() * m / n()), m);
        assert_eq!((n() / n()), SymDim::from(1));
        assert_eq!((n() * n()).to_string(), "N*N");
        assert_eq!((SymDim::from(6) / n()).to_string(), "6/N");
        assert_eq!(
            (SymDim::from(3) / (SymDim::from(2) * n())).to_string(),
            "3/(2*N)"
        );
        assert_eq!((n() / SymDim::from(2)).to_string(), "N/2");
        assert_eq!(SymDim::from(0) * n(), SymDim::from(0));
        assert!(!(n() / SymDim::from(0)).is_valid());
        assert!(!SymDim::from(usize::MAX).is_valid());
        let big = SymDim::from(1 << 40);
        assert!(!(big * big).is_valid());
        assert_eq!((big * big).eval(&[]), None);
        let mut p = n();
        for _ in 0..7 {
            p = p * p;
        }
        assert!(!p.is_valid(), "a power past 127 is invalid");
    }

    #[test]
    fn quotients_past_128_bits_are_exact() {
        let (b, t) = (SymDim::sym("B"), SymDim::sym("T"));
        let mut r = b / t;
        for _ in 0..4 {
            r = r * r;
        }
        // LIMIT * (B/T)^16: each side past 2^220 at B = T = 2^10.
        let p = SymDim::from(LIMIT) * r;
        let at = |b, t| [("B", b), ("T", t)];
        assert_eq!(p.eval(&at(1 << 10, 1 << 10)), Some(LIMIT));
        assert_eq!(p.eval(&at(1 << 10, (1 << 10) + 1)), None);
        assert_eq!(
            quotient(p, SymDim::from(1), &at(6 << 10, 3 << 10)),
            Some(Quotient::Integer(Some(LIMIT as u128 * (1 << 16))))
        );
        assert_eq!(
            quotient(p, SymDim::from(1), &at(17 << 20, 1 << 20)),
            Some(Quotient::Integer(None)),
            "an integer past 128 bits"
        );
        assert_eq!(
            quotient(p, SymDim::from(1), &at(3 << 20, 2 << 20)),
            Some(Quotient::Fraction)
        );
        assert_eq!(quotient(p, SymDim::from(0), &at(1, 1)), None);
        assert_eq!(quotient(p, SymDim::from(1), &at(1, 0)), None);
        assert_eq!(quotient(p, SymDim::from(1), &[("B", 1)]), None);
        // A condition on those sides is decided too.
        let equal = unit(r);
        let Exact::Sometimes(c) = equal else {
            panic!("B^16/T^16 == 1 holds for some values")
        };
        assert_eq!(c.holds(&at(999, 999)), Some(true));
        assert_eq!(c.holds(&at(1000, 999)), Some(false));
        let Exact::Sometimes(c) = integer(p) else {
            panic!("an integer for some values")
        };
        assert_eq!(c.holds(&at(3 << 20, 3 << 20)), Some(true));
        assert_eq!(c.holds(&at(3 << 20, 2 << 20)), Some(false));
    }

    #[test]
    fn integer_and_unit() {
        let half = SymDim::from(3) * n() / SymDim::from(2);
        assert!(matches!(integer(half), Exact::Sometimes(_)));
        assert!(matches!(
            integer(SymDim::from(15) / SymDim::from(4)),
            Exact::Never
        ));
        assert!(matches!(
            integer(SymDim::from(6) / n()),
            Exact::Sometimes(_)
        ));
        assert!(matches!(
            integer(SymDim::from(3) / (SymDim::from(2) * n())),
            Exact::Never
        ));
        assert!(matches!(unit(n() / SymDim::from(3)), Exact::Sometimes(_)));
        assert!(matches!(unit(SymDim::from(2) * n()), Exact::Never));
        assert!(matches!(
            unit(SymDim::from(3) / (SymDim::from(2) * n())),
            Exact::Never
        ));
        assert!(matches!(
            unit(SymDim::from(4) / (SymDim::from(2) * n())),
            Exact::Sometimes(_)
        ));
        assert!(matches!(unit(SymDim::from(2)), Exact::Never));
    }

    #[test]
    fn an_invalid_factor_makes_the_product_invalid() {
        let invalid = SymDim::from(usize::MAX);
        assert!(!invalid.is_valid());
        for d in [n(), SymDim::from(0), SymDim::from(3)] {
            assert!(!(invalid * d).is_valid(), "{d}");
            assert!(!(d * invalid).is_valid(), "{d}");
        }
    }

    #[test]
    fn names_that_read_as_expressions_are_quoted() {
        for (name, shown) in [
            ("N", "N"),
            ("seq_len", "seq_len"),
            ("batch.size", "batch.size"),
            ("_0", "_0"),
            ("\u{d1}", "\u{d1}"),
            ("B*T", "\"B*T\""),
            ("N/2", "\"N/2\""),
            ("3", "\"3\""),
            ("3N", "\"3N\""),
            ("", "\"\""),
            ("a b", "\"a b\""),
            ("N, 3", "\"N, 3\""),
            ("(N)", "\"(N)\""),
            ("<invalid>", "\"<invalid>\""),
            ("q\"", "\"q\\\"\""),
            (".x", "\".x\""),
        ] {
            assert_eq!(SymDim::sym(name).to_string(), shown, "{name:?}");
        }
        let bt = SymDim::sym("B*T");
        assert_eq!((bt / SymDim::sym("3")).to_string(), "\"B*T\"/\"3\"");
        assert_ne!(bt, SymDim::sym("B") * SymDim::sym("T"));
    }
}

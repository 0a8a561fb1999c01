//! The canonical form behind a [`SymDim`]: a sum of terms, each a rational coefficient times a
//! product of atoms (symbols, floors, remainders, minima and maxima, comparisons, selections)
//! raised to integer powers. Each distinct form is interned while a handle on it lives, so a
//! `SymDim` is a counted handle, equal forms are the same node, and a form no value uses any
//! more is freed.

use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, Weak};

use super::eval::Stored;
use super::SymDim;

/// Terms in one expression; more make the result invalid.
pub(crate) const MAX_TERMS: usize = 64;
/// The largest power of one atom in a term.
pub(crate) const MAX_EXP: i32 = 127;

/// A rational number `num / den`, reduced, `den > 0`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Rat {
    pub num: i128,
    pub den: i128,
}

impl Rat {
    pub const ZERO: Rat = Rat { num: 0, den: 1 };
    pub const ONE: Rat = Rat { num: 1, den: 1 };

    pub fn int(v: i128) -> Rat {
        Rat { num: v, den: 1 }
    }

    /// `num / den` reduced; `None` for `den == 0` or past `i128`.
    pub fn new(num: i128, den: i128) -> Option<Rat> {
        if den == 0 {
            return None;
        }
        let g = gcd(num.unsigned_abs(), den.unsigned_abs()).max(1);
        let (mut n, mut d) = (num / g as i128, den / g as i128);
        if d < 0 {
            n = n.checked_neg()?;
            d = d.checked_neg()?;
        }
        Some(Rat { num: n, den: d })
    }

    pub fn add(self, o: Rat) -> Option<Rat> {
        if self.den == 1 && o.den == 1 {
            return Some(Rat::int(self.num.checked_add(o.num)?));
        }
        let g = gcd(self.den as u128, o.den as u128) as i128;
        let (a, b) = (self.den / g, o.den / g);
        let num = self
            .num
            .checked_mul(b)?
            .checked_add(o.num.checked_mul(a)?)?;
        Rat::new(num, self.den.checked_mul(b)?)
    }

    pub fn neg(self) -> Option<Rat> {
        Some(Rat {
            num: self.num.checked_neg()?,
            den: self.den,
        })
    }

    pub fn sub(self, o: Rat) -> Option<Rat> {
        self.add(o.neg()?)
    }

    pub fn mul(self, o: Rat) -> Option<Rat> {
        if self.den == 1 && o.den == 1 {
            return Some(Rat::int(self.num.checked_mul(o.num)?));
        }
        // Cross-reduce first, so that products stay small.
        let g1 = gcd(self.num.unsigned_abs(), o.den as u128).max(1) as i128;
        let g2 = gcd(o.num.unsigned_abs(), self.den as u128).max(1) as i128;
        let num = (self.num / g1).checked_mul(o.num / g2)?;
        let den = (self.den / g2).checked_mul(o.den / g1)?;
        Rat::new(num, den)
    }

    pub fn recip(self) -> Option<Rat> {
        Rat::new(self.den, self.num)
    }

    pub fn div(self, o: Rat) -> Option<Rat> {
        self.mul(o.recip()?)
    }

    pub fn is_int(self) -> bool {
        self.den == 1
    }

    /// Rounded toward negative infinity.
    pub fn floor(self) -> i128 {
        self.num.div_euclid(self.den)
    }

    pub fn pow(self, e: i32) -> Option<Rat> {
        let base = if e < 0 { self.recip()? } else { self };
        let mut out = Rat::ONE;
        for _ in 0..e.unsigned_abs() {
            out = out.mul(base)?;
        }
        Some(out)
    }
}

impl Ord for Rat {
    /// Exact, with no product that could overflow: compare the floors, then the reciprocals of
    /// the fractional parts (a continued fraction).
    fn cmp(&self, o: &Rat) -> Ordering {
        if self.den == 1 && o.den == 1 {
            return self.num.cmp(&o.num);
        }
        let (qa, ra) = (self.num.div_euclid(self.den), self.num.rem_euclid(self.den));
        let (qb, rb) = (o.num.div_euclid(o.den), o.num.rem_euclid(o.den));
        if qa != qb {
            return qa.cmp(&qb);
        }
        match (ra == 0, rb == 0) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => Rat {
                num: o.den,
                den: rb,
            }
            .cmp(&Rat {
                num: self.den,
                den: ra,
            }),
        }
    }
}

impl PartialOrd for Rat {
    fn partial_cmp(&self, o: &Rat) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

pub(crate) fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

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

/// One interned form: its serial number (the canonical order of forms; never reused), its
/// content, and its bounds once asked for (a fact of the form, asked again by every inference
/// that meets it: BENCHMARKS.md, "What does symbolic inference cost?").
pub(crate) struct Node<T> {
    id: u64,
    pub(crate) value: T,
    pub(crate) bounds: OnceLock<Stored>,
}

/// A counted handle on an interned form: equal forms are the same node while any handle on
/// it lives, so equality is a pointer comparison; the node is freed with its last handle.
pub(crate) struct Handle<T>(Arc<Node<T>>);

/// An interned atom.
pub(crate) type AtomRef = Handle<Atom>;
/// An interned sum that is not an integer constant: what a symbolic [`SymDim`] holds.
pub(crate) type Form = Handle<Poly>;

impl<T> Handle<T> {
    pub(crate) fn get(&self) -> &T {
        &self.0.value
    }

    pub(crate) fn node(&self) -> &Node<T> {
        &self.0
    }

    /// The form's serial number: its canonical order, never reused.
    pub(crate) fn serial(&self) -> u64 {
        self.0.id
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        Handle(Arc::clone(&self.0))
    }
}

impl<T> PartialEq for Handle<T> {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

impl<T> Eq for Handle<T> {}

impl<T> Hash for Handle<T> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.0.id);
    }
}

impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl<T> Ord for Handle<T> {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.id.cmp(&o.0.id)
    }
}

impl<T> std::fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0.id)
    }
}

/// A keyed folded-multiply hash (each word mixed by a 64x64 to 128-bit product of it and the
/// process's random key, folded in half): cheap for the tables' small keys, and, unlike a
/// plain multiply-rotate, not invertible step by step, so that a caller who does not know the
/// key cannot solve for colliding forms. The interning tables also bound their chains
/// ([`CHAIN`]).
#[derive(Clone, Copy)]
pub(crate) struct Keyed(u64);

/// The process's hash key, drawn once from the standard library's random source.
static KEY: LazyLock<[u64; 2]> = LazyLock::new(|| {
    let s = RandomState::new();
    [s.hash_one(0u64) | 1, s.hash_one(1u64)]
});

#[inline]
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

impl Hasher for Keyed {
    fn finish(&self) -> u64 {
        fold(self.0, KEY[0]).rotate_left(23)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
        self.write_u64(bytes.len() as u64);
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = fold(self.0 ^ v, KEY[0]).wrapping_add(KEY[1]);
    }

    fn write_u8(&mut self, v: u8) {
        self.write_u64(v.into());
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(v.into());
    }

    fn write_i32(&mut self, v: i32) {
        self.write_u64(v as u64);
    }

    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }

    fn write_u128(&mut self, v: u128) {
        self.write_u64(v as u64);
        self.write_u64((v >> 64) as u64);
    }

    fn write_i128(&mut self, v: i128) {
        self.write_u128(v as u128);
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }

    fn write_isize(&mut self, v: isize) {
        self.write_u64(v as u64);
    }
}

/// Builds [`Keyed`] hashers.
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyedBuild;

impl BuildHasher for KeyedBuild {
    type Hasher = Keyed;

    fn build_hasher(&self) -> Keyed {
        Keyed(KEY[1])
    }
}

/// A hasher for keys that are already hashes (the tables' buckets).
#[derive(Default, Clone, Copy)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

#[derive(Default, Clone, Copy)]
struct PrehashedBuild;

impl BuildHasher for PrehashedBuild {
    type Hasher = Prehashed;

    fn build_hasher(&self) -> Prehashed {
        Prehashed(0)
    }
}

/// Forms each table keeps alive after their values are gone (see [`Table::recent`]).
const RECENT: usize = 4096;

/// Live forms sharing one hash in a table past this: the hash is being steered, and the table
/// changes to SipHash (keyed anew) for the rest of the process.
const CHAIN: usize = 8;

/// The interned forms of one kind: each content once while any handle on it lives. Entries
/// are weak, so a form is freed with its last handle; the dead entries are swept once they
/// outnumber the live ones, which keeps the table within twice the live forms. A bucket holds
/// the forms of one hash: the keyed folded multiply ([`Keyed`]) until a bucket passes
/// [`CHAIN`] live forms, SipHash from then on.
struct Table<T> {
    buckets: HashMap<u64, Bucket<T>, PrehashedBuild>,
    /// The forms interned last, kept alive: the next inference (the next model) meets the
    /// same forms again, with their bounds already known (BENCHMARKS.md, "What does symbolic
    /// inference cost?").
    recent: VecDeque<Arc<Node<T>>>,
    entries: usize,
    /// Entries after the last sweep: the next one comes at twice as many.
    swept: usize,
    keyed: Option<RandomState>,
}

/// The forms of one hash: nearly always one.
enum Bucket<T> {
    One(Weak<Node<T>>),
    Many(Vec<Weak<Node<T>>>),
}

impl<T> Bucket<T> {
    fn entries(&self) -> &[Weak<Node<T>>] {
        match self {
            Bucket::One(w) => std::slice::from_ref(w),
            Bucket::Many(v) => v,
        }
    }

    /// Adds `w`, dropping the dead entries.
    fn push(&mut self, w: Weak<Node<T>>) {
        match self {
            Bucket::One(old) if old.strong_count() == 0 => *old = w,
            Bucket::One(old) => *self = Bucket::Many(vec![old.clone(), w]),
            Bucket::Many(v) => {
                v.retain(|w| w.strong_count() > 0);
                v.push(w);
            }
        }
    }
}

impl<T: Hash + Eq> Table<T> {
    fn new() -> Self {
        Table {
            buckets: HashMap::default(),
            recent: VecDeque::with_capacity(RECENT),
            entries: 0,
            swept: 0,
            keyed: None,
        }
    }

    fn hash(&self, v: &T) -> u64 {
        match &self.keyed {
            Some(k) => k.hash_one(v),
            None => KeyedBuild.hash_one(v),
        }
    }

    /// The handle on `v`, interning it.
    fn intern(&mut self, v: T) -> Handle<T> {
        let h = self.hash(&v);
        let mut live = 0;
        if let Some(bucket) = self.buckets.get(&h) {
            for w in bucket.entries() {
                if let Some(n) = w.upgrade() {
                    if n.value == v {
                        return Handle(n);
                    }
                    live += 1;
                }
            }
        }
        let node = Arc::new(Node {
            id: NEXT.fetch_add(1, AtomicOrdering::Relaxed),
            value: v,
            bounds: OnceLock::new(),
        });
        self.file(h, Arc::downgrade(&node));
        self.entries += 1;
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(Arc::clone(&node));
        if live >= CHAIN && self.keyed.is_none() {
            self.keyed = Some(RandomState::new());
            self.rehash();
        } else if self.entries > 2 * self.swept + 1024 {
            self.rehash();
        }
        Handle(node)
    }

    fn file(&mut self, h: u64, w: Weak<Node<T>>) {
        match self.buckets.get_mut(&h) {
            Some(b) => b.push(w),
            None => {
                self.buckets.insert(h, Bucket::One(w));
            }
        }
    }

    /// Drops the dead entries and files the live ones by the table's hash.
    fn rehash(&mut self) {
        let old = std::mem::take(&mut self.buckets);
        let mut entries = 0;
        for b in old.into_values() {
            for w in b.entries() {
                if let Some(n) = w.upgrade() {
                    let h = self.hash(&n.value);
                    self.file(h, w.clone());
                    entries += 1;
                }
            }
        }
        self.entries = entries;
        self.swept = entries;
    }

    fn live(&self) -> usize {
        self.buckets
            .values()
            .flat_map(Bucket::entries)
            .filter(|w| w.strong_count() > 0)
            .count()
    }
}

/// The next form's serial number.
static NEXT: AtomicU64 = AtomicU64::new(0);

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

//! The interning of forms: [`Handle`], a counted handle on a [`Node`] whose equal values are
//! one node while any handle lives (equality a pointer comparison, order a serial number), and
//! [`Table`], the weak table that finds a value's node by a keyed hash, keeps the recent ones
//! alive and switches to SipHash when a chain of equal hashes grows past [`CHAIN`].

use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, LazyLock, OnceLock, Weak};

use super::eval::Stored;

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

/// `Hasher` writes of integers of up to 64 bits, each as one word (`as u64`) instead of the
/// default's byte slice.
macro_rules! word_writes {
    ($($name:ident: $t:ty),*) => {$(
        #[inline]
        fn $name(&mut self, v: $t) {
            self.write_u64(v as u64);
        }
    )*};
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

    fn write_u128(&mut self, v: u128) {
        self.write_u64(v as u64);
        self.write_u64((v >> 64) as u64);
    }

    fn write_i128(&mut self, v: i128) {
        self.write_u128(v as u128);
    }

    word_writes!(write_u8: u8, write_u32: u32, write_i32: i32, write_i64: i64, write_usize: usize, write_isize: isize);
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
pub(crate) struct Table<T> {
    buckets: HashMap<u64, Bucket<T>, PrehashedBuild>,
    /// The forms interned last, kept alive: the next inference (the next model) meets the
    /// same forms again, with their bounds already known (BENCHMARKS.md, "What does symbolic
    /// inference cost?").
    pub(crate) recent: VecDeque<Arc<Node<T>>>,
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
    pub(crate) fn new() -> Self {
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
    pub(crate) fn intern(&mut self, v: T) -> Handle<T> {
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

    pub(crate) fn live(&self) -> usize {
        self.buckets
            .values()
            .flat_map(Bucket::entries)
            .filter(|w| w.strong_count() > 0)
            .count()
    }
}

/// The next form's serial number.
static NEXT: AtomicU64 = AtomicU64::new(0);

//! A vector of small values that lives on the stack up to [`INLINE`] entries: shapes, strides
//! and spec values on the view path, which should allocate nothing but the result's own shape.
#![forbid(unsafe_code)]

use std::fmt;
use std::ops::{Deref, DerefMut};

/// Entries kept inline; longer vectors spill to the heap.
pub(crate) const INLINE: usize = 8;

/// A small vector of cheap-to-clone values. (`pub` only because the sealed spec trait names it; the
/// module is private, so it cannot be named outside the crate.)
#[derive(Clone)]
pub struct Small<T: Clone + Default> {
    /// The number of entries: in `buf` up to [`INLINE`], in `heap` beyond.
    len: usize,
    buf: [T; INLINE],
    /// All entries, once there are more than [`INLINE`] (stale otherwise; kept for its
    /// capacity).
    heap: Vec<T>,
}

impl<T: Clone + Default> Small<T> {
    #[inline]
    pub(crate) fn new() -> Self {
        Small {
            len: 0,
            buf: std::array::from_fn(|_| T::default()),
            heap: Vec::new(),
        }
    }

    /// `n` copies of `v`.
    #[inline]
    pub(crate) fn filled(v: T, n: usize) -> Self {
        if n <= INLINE {
            Small {
                len: n,
                buf: std::array::from_fn(|_| v.clone()),
                heap: Vec::new(),
            }
        } else {
            Small {
                len: n,
                buf: std::array::from_fn(|_| T::default()),
                heap: vec![v; n],
            }
        }
    }

    #[inline]
    pub(crate) fn with_capacity(n: usize) -> Self {
        let mut s = Small::new();
        if n > INLINE {
            s.heap = Vec::with_capacity(n);
        }
        s
    }

    /// Make it `n` copies of `v` in place (no temporary moved in), keeping any heap capacity.
    #[inline]
    pub(crate) fn fill(&mut self, v: T, n: usize) {
        if n <= INLINE {
            self.buf = std::array::from_fn(|_| v.clone());
        } else {
            self.heap.clear();
            self.heap.resize(n, v);
        }
        self.len = n;
    }

    /// Empty it, keeping any heap capacity.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    fn spilled(&self) -> bool {
        self.len > INLINE
    }

    #[inline]
    pub(crate) fn push(&mut self, v: T) {
        if self.len < INLINE {
            self.buf[self.len] = v;
        } else {
            self.spill_push(v);
        }
        self.len += 1;
    }

    #[cold]
    fn spill_push(&mut self, v: T) {
        if self.len == INLINE {
            self.heap.clear();
            self.heap.reserve(2 * INLINE);
            self.heap.extend_from_slice(&self.buf);
        }
        self.heap.push(v);
    }
}

impl<T: Clone + Default> Default for Small<T> {
    fn default() -> Self {
        Small::new()
    }
}

impl<T: Clone + Default> Deref for Small<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        if self.spilled() {
            &self.heap
        } else {
            &self.buf[..self.len]
        }
    }
}

impl<T: Clone + Default> DerefMut for Small<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        if self.spilled() {
            &mut self.heap
        } else {
            &mut self.buf[..self.len]
        }
    }
}

impl<T: Clone + Default> FromIterator<T> for Small<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut s = Small::with_capacity(iter.size_hint().0);
        for v in iter {
            s.push(v);
        }
        s
    }
}

impl<T: Clone + Default + PartialEq> PartialEq for Small<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}
impl<T: Clone + Default + Eq> Eq for Small<T> {}

impl<T: Clone + Default + fmt::Debug> fmt::Debug for Small<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spills_past_inline() {
        let mut s: Small<u32> = Small::new();
        for i in 0..20 {
            s.push(i);
            assert_eq!(s.len(), i as usize + 1);
            assert_eq!(s[i as usize], i);
        }
        assert!(s.spilled());
        assert_eq!(Small::filled(1u8, 9).len(), 9);
        let t: Small<u32> = (0..20).collect();
        assert_eq!(s, t);
        // Cleared after a spill, it refills inline, then spills again without stale entries.
        s.clear();
        assert!(s.is_empty());
        for i in 0..12 {
            s.push(100 + i);
        }
        assert_eq!(&*s, &(100..112).collect::<Vec<u32>>()[..]);
        let mut g = Small::filled(5u32, 10);
        g.push(6);
        assert_eq!(&*g, &[5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6]);
        let f = Small::filled(7u8, 3);
        assert_eq!(&*f, &[7, 7, 7]);
        assert_eq!(format!("{f:?}"), "[7, 7, 7]");
        // Refilled in place: spilled to inline to spilled, then pushed past both.
        let mut r: Small<u32> = (0..20).collect();
        r.fill(3, 4);
        assert_eq!(&*r, &[3, 3, 3, 3]);
        for i in 0..6 {
            r.push(i);
        }
        assert_eq!(&*r, &[3, 3, 3, 3, 0, 1, 2, 3, 4, 5]);
        r.fill(9, 10);
        r.push(1);
        assert_eq!(&*r, &[9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1]);
    }
}

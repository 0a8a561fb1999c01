//! The pairwise joins of partial results: rows (`Tree`) and single values (`Levels`), each a
//! binary counter of levels, so that each partial result joins others of its own weight.

use crate::copy::fold::{Acc, Fold};

/// A pairwise sum (or other fold) of partial results: a binary counter of levels, so that
/// each partial result joins others of its own weight (NumPy's pairwise summation, over rows).
pub(super) struct Tree<T> {
    /// Partial rows, each with its level.
    pub(super) stack: Vec<(u32, Vec<T>)>,
    pub(super) spare: Vec<Vec<T>>,
}

impl<T: Acc> Tree<T> {
    pub(super) fn new() -> Self {
        Tree {
            stack: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// A row of `n` identities to fold a block into.
    pub(super) fn row<O: Fold<T>>(&mut self, n: usize) -> Vec<T> {
        let mut r = self.spare.pop().unwrap_or_default();
        r.clear();
        r.resize(n, O::ID);
        r
    }

    pub(super) fn push<O: Fold<T>>(&mut self, mut row: Vec<T>) {
        let mut level = 0;
        while let Some((l, _)) = self.stack.last() {
            if *l != level {
                break;
            }
            let Some((_, top)) = self.stack.pop() else {
                break;
            };
            for (a, b) in row.iter_mut().zip(&top) {
                *a = O::f(*b, *a);
            }
            self.spare.push(top);
            level += 1;
        }
        self.stack.push((level, row));
    }

    /// The fold of everything pushed.
    pub(super) fn total<O: Fold<T>>(&mut self) -> Option<Vec<T>> {
        let (_, mut acc) = self.stack.pop()?;
        while let Some((_, below)) = self.stack.pop() {
            for (a, b) in acc.iter_mut().zip(&below) {
                *a = O::f(*b, *a);
            }
            self.spare.push(below);
        }
        Some(acc)
    }
}

/// [`Tree`] for single values: at most 64 levels (one per bit of a count).
pub(super) struct Levels<T> {
    at: [(u32, T); 64],
    len: usize,
}

impl<T: Acc> Levels<T> {
    pub(super) fn new() -> Self {
        Levels {
            at: [(0, T::ZERO); 64],
            len: 0,
        }
    }

    pub(super) fn push<O: Fold<T>>(&mut self, mut v: T) {
        let mut level = 0;
        while self.len > 0 && self.at[self.len - 1].0 == level {
            self.len -= 1;
            v = O::f(self.at[self.len].1, v);
            level += 1;
        }
        self.at[self.len] = (level, v);
        self.len += 1;
    }

    /// The fold of everything pushed, then `last`.
    pub(super) fn total<O: Fold<T>>(&self, last: T) -> T {
        self.at[..self.len]
            .iter()
            .rev()
            .fold(last, |v, &(_, below)| O::f(below, v))
    }
}

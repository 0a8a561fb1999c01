//! The portable twin of `x86.rs`: the same names, no vector kernel, so that every run is
//! converted by [`Elementwise::each`](super::Elementwise::each) (on every machine but x86-64,
//! and under Miri everywhere).

use super::{Kernel, Rows, Step};

/// The vector kernels this machine runs for a conversion: none here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vector {
    /// The scalar twin.
    Scalar,
}

impl Vector {
    /// The kernels this machine has for `op`: none.
    pub(crate) fn of(_: Kernel) -> Vector {
        Vector::Scalar
    }
}

/// Converts nothing: the caller converts every element with the scalar twin.
///
/// # Safety
///
/// None needed: it reads and writes nothing.
pub(crate) unsafe fn run(
    _: Vector,
    _: Step<'_>,
    _: usize,
    _: *const u8,
    _: *mut u8,
    _: usize,
    _: Rows,
) -> usize {
    0
}

//! The portable twin of `x86/`: the same names, choosing no vector kernel, so that the scalar
//! tiles and rows run (on every machine but x86-64, and under Miri everywhere). [`Kernel`] has
//! no variant: the kernel functions take one and so are never called.

/// A vector kernel of [`tile`]: none here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {}

impl Kernel {
    /// The tile side this kernel runs in.
    pub(crate) fn tile_side(self, _: usize) -> usize {
        match self {}
    }

    /// Whether this is a strip kernel.
    pub(crate) fn is_strip(self) -> bool {
        match self {}
    }

    /// Whether this kernel takes a tile's whole run along `q` in one call.
    pub(crate) fn whole_q(self) -> bool {
        match self {}
    }
}

/// No strip kernel.
#[inline]
pub(crate) fn strip(_: usize, _: (usize, usize), _: isize, _: usize) -> Option<Kernel> {
    None
}

/// No tile kernel.
#[inline]
pub(crate) fn kernel(_: usize, _: usize, _: usize, _: usize) -> Option<Kernel> {
    None
}

/// No tabled tile kernel.
#[inline]
pub(crate) fn kernel_tabled(_: usize) -> Option<Kernel> {
    None
}

/// A plain copy: no streaming stores here.
///
/// # Safety
///
/// `src[..n]` readable, `dst[..n]` writable and disjoint from it.
#[inline]
pub(crate) unsafe fn stream(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, n) }
}

/// The reversed row element by element (the scalar twin of x86's streaming one).
///
/// # Safety
///
/// The `n * size` bytes below `src + size` readable, `dst[..n * size]` writable and disjoint
/// from them.
#[inline]
pub(crate) unsafe fn stream_reversed(src: *const u8, dst: *mut u8, n: usize, size: usize) {
    // SAFETY: the caller's contract.
    unsafe { super::reversed_scalar(src, dst, n, size) }
}

/// Nothing to order: no streaming stores here.
#[inline]
pub(crate) fn fence() {}

/// Never called: no [`Kernel`] exists here.
///
/// # Safety
///
/// None needed: it cannot be called.
#[inline]
pub(crate) unsafe fn tile(
    kernel: Kernel,
    _: *const u8,
    _: isize,
    _: *mut u8,
    _: usize,
    _: usize,
    _: usize,
) {
    match kernel {}
}

/// Never called: no [`Kernel`] exists here.
///
/// # Safety
///
/// None needed: it cannot be called.
#[inline]
pub(crate) unsafe fn tile_tabled(
    kernel: Kernel,
    _: *const u8,
    _: &[isize],
    _: *mut u8,
    _: &[usize],
) {
    match kernel {}
}

//! The x86-64 kernels and their choosers: the instruction sets found once at run time, the
//! tile kernel for an element size, copy size and strides ([`kernel`], [`kernel_tabled`]), the
//! strips ([`strip`]), and the row kernels (streaming and reversed rows); the kernels
//! themselves in `tiles.rs` (square blocks in vector registers) and `rows.rs`. The AVX-512 ones
//! are compiled with Rust 1.89 and later, whose `std::arch` has them (`cfg(avx512)`, set by
//! `build.rs`). The portable twin of this module, `portable.rs`, has the same names.

mod rows;
mod tiles;

/// Output rows of at most this many bytes make a tile's output dense: its blocks then run output
/// row by output row (BENCHMARKS.md, "The vector kernels").
pub(super) const DENSE_ROW_BYTES: usize = 1024;

/// The instruction sets of this machine that the kernels use, detected once: bit 0 AVX2, bit 1
/// AVX-512F, bit 2 an AMD processor (never under Miri, which runs the scalar twin).
#[clippy::msrv = "1.89"] // AVX-512 detection is compiled only from 1.89 on (`cfg(avx512)`)
#[inline]
fn features() -> u8 {
    use std::sync::atomic::{AtomicU8, Ordering};
    // Bit 7 marks "detected".
    static DETECTED: AtomicU8 = AtomicU8::new(0);
    let known = DETECTED.load(Ordering::Relaxed);
    if known != 0 {
        return known;
    }
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    #[cfg(avx512)]
    let avx512 = std::arch::is_x86_feature_detected!("avx512f");
    #[cfg(not(avx512))]
    let avx512 = false;
    // The vendor string of `cpuid` leaf 0: "AuthenticAMD".
    #[cfg(avx512)]
    let amd = {
        let v = std::arch::x86_64::__cpuid(0);
        (v.ebx, v.edx, v.ecx) == (0x6874_7541, 0x6974_6E65, 0x444D_4163)
    };
    #[cfg(not(avx512))]
    let amd = false;
    let found = 0x80 | u8::from(avx2) | (u8::from(avx512) << 1) | (u8::from(amd) << 2);
    DETECTED.store(found, Ordering::Relaxed);
    found
}

/// Whether this machine runs the AVX2 kernels.
#[inline]
fn avx2() -> bool {
    features() & 1 != 0
}

/// Whether this machine runs the AVX-512 kernels (compiled with Rust 1.89 and later, whose
/// `std::arch` has them; `build.rs` tells).
#[cfg(avx512)]
#[inline]
fn avx512() -> bool {
    features() & 2 != 0
}

/// Whether this machine is an AMD processor ("AuthenticAMD"), whose 8-byte AVX-512 kernel wins
/// past L1 too.
#[cfg(avx512)]
#[inline]
fn amd() -> bool {
    features() & 4 != 0
}

/// A vector kernel of [`tile`], chosen once per copy by [`kernel`]. No kernel exists off
/// x86-64 or under Miri (the enum is empty there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// 1-byte elements, 16 x 16 blocks (SSE2).
    Bytes1,
    /// 2-byte elements, 8 x 8 blocks (SSE2).
    Bytes2,
    /// 4-byte elements, 8 x 8 blocks (AVX2).
    Bytes4,
    /// 4-byte elements of a copy whose source and output fit in L1 together (AVX2).
    Bytes4InL1,
    /// 4-byte elements whose source rows are a multiple of [`WIDE_STRIDE`] apart, 16 x 16
    /// blocks (AVX-512F).
    #[cfg(avx512)]
    Bytes4Wide,
    /// 8-byte elements, 8 x 8 blocks (AVX-512F): in L1, and on AMD past it (see
    /// [`IN_L1_BYTES_8`]).
    #[cfg(avx512)]
    Bytes8,
    /// 8-byte elements whose source rows are [`CONFLICT_STRIDE_8`] apart, on AMD past L1: the
    /// blocks of [`Kernel::Bytes8`] in tiles of at most [`NARROW_TILE`] output rows.
    #[cfg(avx512)]
    Bytes8Narrow,
    /// 16-byte elements, 4 x 4 blocks (AVX-512F).
    #[cfg(avx512)]
    Bytes16,
    /// Elements of `size` (1 or 2) bytes, `k` (2 to 4) to a group, split into `k` output rows
    /// (HWC to CHW): whole strips of a tile's `q` axis at once ([`strip`]).
    Deinterleave { size: u8, k: u8 },
    /// `k` (2 to 4) source rows of elements of `size` (1 or 2) bytes merged into groups of `k`
    /// (CHW to HWC), in strips of [`STRIP`] groups ([`strip`]).
    Interleave { size: u8, k: u8 },
}

impl Kernel {
    /// The tile side along the input's contiguous axis (output rows per tile) this kernel
    /// runs in, given the engine's `side`.
    pub(crate) fn tile_side(self, side: usize) -> usize {
        match self {
            #[cfg(avx512)]
            Kernel::Bytes8Narrow => side.min(NARROW_TILE),
            Kernel::Interleave { .. } => STRIP,
            _ => side,
        }
    }

    /// Whether this is a strip kernel (its output geometry is the one [`strip`] chose it for).
    pub(crate) fn is_strip(self) -> bool {
        matches!(
            self,
            Kernel::Deinterleave { .. } | Kernel::Interleave { .. }
        )
    }

    /// Whether this kernel takes a tile's whole run along `q` in one call (the strips).
    pub(crate) fn whole_q(self) -> bool {
        matches!(self, Kernel::Deinterleave { .. })
    }
}

/// The groups of an interleaving strip (a tile's side along the source rows): long runs in
/// the source rows and the output, within L2 (4 rows of 2-byte elements: 32 KiB in, 32 out).
const STRIP: usize = 4096;

/// The strip kernel, if any, for a tile whose input is contiguous along `p` (`np` long) and
/// whose output is contiguous along `q` (`nq` long, `sq` elements apart in the source), of
/// elements of `size` bytes, with output rows along `p` `dp` elements apart: a deinterleave when
/// the `p` axis is a packed group of 2 to 4 (`np == sq`), an interleave when `q` is one
/// (`nq == dp`, the source rows `sq > 0` apart): whole strips per call, over 20 times the
/// element tiles' speed with AVX2 (BENCHMARKS.md, "Flips and small elements").
#[inline]
pub(crate) fn strip(size: usize, (np, nq): (usize, usize), sq: isize, dp: usize) -> Option<Kernel> {
    {
        if !matches!(size, 1 | 2) {
            return None;
        }
        let (size, group) = (size as u8, 2..=4);
        if group.contains(&np) && sq == np as isize {
            return Some(Kernel::Deinterleave { size, k: np as u8 });
        }
        if group.contains(&nq) && dp == nq && sq > 0 {
            return Some(Kernel::Interleave { size, k: nq as u8 });
        }
        None
    }
}

/// Copies of at most this many output bytes use [`Kernel::Bytes4InL1`] for 4-byte elements:
/// source and output then fit in a 48 KiB L1 data cache together, where it is the faster one
/// (BENCHMARKS.md, "The vector kernels").
const IN_L1_BYTES: usize = 24 * 1024;

/// Copies of at most this many output bytes use [`Kernel::Bytes8`] for 8-byte elements on
/// Intel (the scalar tiles are faster past it); AMD takes it at every size, in narrower tiles
/// at [`CONFLICT_STRIDE_8`] (BENCHMARKS.md, "The vector kernels").
#[cfg(avx512)]
const IN_L1_BYTES_8: usize = 32 * 1024;

/// On AMD, 8-byte elements past L1 whose source rows are this many bytes apart take
/// [`Kernel::Bytes8Narrow`]: the usual tiles (32 output rows 2 KiB apart, 16 to an L1 set)
/// would conflict in the cache (BENCHMARKS.md, "The vector kernels").
#[cfg(avx512)]
const CONFLICT_STRIDE_8: usize = 2048;

/// The most output rows in a tile of [`Kernel::Bytes8Narrow`].
#[cfg(avx512)]
const NARROW_TILE: usize = 16;

/// Past L1, 4-byte elements whose source rows are a multiple of this many bytes apart, into
/// output rows of at least this many bytes, take [`Kernel::Bytes4Wide`]: the 8 rows of an
/// 8 x 8 block then share few cache sets, the one case where it beats the AVX2 kernel
/// (BENCHMARKS.md, "The vector kernels").
#[cfg(avx512)]
const WIDE_STRIDE: usize = 1024;

/// The vector kernel for elements of `size` bytes in a copy of `bytes` output bytes whose
/// source rows (along the output's last axis) are `stride` bytes apart and whose output rows
/// (along the source's contiguous axis) are `out_row` bytes apart, on this machine: SSE2
/// (part of x86-64) for 1 and 2 bytes, AVX2 or AVX-512 for 4, AVX-512 for 8 and 16. None for
/// other sizes, nor without AVX-512 for 8 and 16 bytes: AVX2 kernels for them measured slower
/// than the scalar tiles (BENCHMARKS.md, "The vector kernels").
#[inline]
pub(crate) fn kernel(size: usize, bytes: usize, stride: usize, out_row: usize) -> Option<Kernel> {
    {
        #[cfg(not(avx512))]
        let _ = (stride, out_row); // only the AVX-512 kernels look at them
        match size {
            1 => Some(Kernel::Bytes1),
            2 => Some(Kernel::Bytes2),
            4 if avx2() && bytes <= IN_L1_BYTES => Some(Kernel::Bytes4InL1),
            #[cfg(avx512)]
            4 if avx512() && stride % WIDE_STRIDE == 0 && out_row >= WIDE_STRIDE => {
                Some(Kernel::Bytes4Wide)
            }
            4 if avx2() => Some(Kernel::Bytes4),
            #[cfg(avx512)]
            8 if avx512() && bytes <= IN_L1_BYTES_8 => Some(Kernel::Bytes8),
            #[cfg(avx512)]
            8 if avx512() && amd() && stride == CONFLICT_STRIDE_8 => Some(Kernel::Bytes8Narrow),
            #[cfg(avx512)]
            8 if avx512() && amd() => Some(Kernel::Bytes8),
            #[cfg(avx512)]
            16 if avx512() => Some(Kernel::Bytes16),
            _ => None,
        }
    }
}

/// Copy `n` bytes from `src` to `dst` with streaming stores where the machine has them (a plain
/// copy elsewhere); [`fence`] before the bytes are handed to another thread.
///
/// # Safety
///
/// `src[..n]` readable, `dst[..n]` writable and disjoint from it.
#[inline]
pub(crate) unsafe fn stream(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { rows::stream(src, dst, n) }
}

/// Copy the `n` elements of `size` bytes at `src`, `src - size`, `src - 2 * size`, ... (a row
/// read backwards) to `dst` in that order, with streaming stores where the machine has them
/// (a reversed row of a large flip: BENCHMARKS.md, "Flips and small elements"); [`fence`] before the bytes are
/// handed to another thread. The scalar twin copies element by element.
///
/// # Safety
///
/// The `n * size` bytes below `src + size` readable, `dst[..n * size]` writable and disjoint
/// from them; the elements plain (see [`plain_by_name`]).
#[inline]
pub(crate) unsafe fn stream_reversed(src: *const u8, dst: *mut u8, n: usize, size: usize) {
    // SAFETY: the caller's contract.
    if unsafe { rows::stream_reversed(src, dst, n, size) } {
        return;
    }
    // SAFETY: the caller's contract: element `t` of the output is the `size` bytes at
    // `src - t * size`.
    unsafe { super::reversed_scalar(src, dst, n, size) }
}

/// Order the streaming stores of [`stream`] before every later store (the end of a unit of
/// work, which another thread may then read).
#[inline]
pub(crate) fn fence() {
    // SAFETY: `sfence` is part of x86-64 (SSE).
    unsafe { std::arch::x86_64::_mm_sfence() };
}

/// The vector kernel of [`tile_tabled`] for elements of `size` bytes on this machine: the one
/// whose block rows are the longest (whole 64-byte lines with AVX-512 for 4 and 8 bytes).
#[inline]
pub(crate) fn kernel_tabled(size: usize) -> Option<Kernel> {
    {
        match size {
            1 => Some(Kernel::Bytes1),
            2 => Some(Kernel::Bytes2),
            #[cfg(avx512)]
            4 if avx512() => Some(Kernel::Bytes4Wide),
            4 if avx2() => Some(Kernel::Bytes4),
            #[cfg(avx512)]
            8 if avx512() => Some(Kernel::Bytes8),
            #[cfg(avx512)]
            16 if avx512() => Some(Kernel::Bytes16),
            _ => None,
        }
    }
}

/// `dst[i * dp + j] = src[i + j * sq]` for `i < ni`, `j < nj`, through `kernel` (strides in
/// elements): the tile kernel with the input contiguous along `i`.
///
/// # Safety
///
/// Every source element `src + i + j * sq` must be readable, every destination slot
/// `dst + i * dp + j` writable and disjoint from the source, for `i < ni`, `j < nj`; the
/// elements must be plain data (their bits are their value) of the size `kernel` was chosen
/// for by [`kernel`] on this machine.
#[inline]
pub(crate) unsafe fn tile(
    kernel: Kernel,
    src: *const u8,
    sq: isize,
    dst: *mut u8,
    dp: usize,
    ni: usize,
    nj: usize,
) {
    // SAFETY: the caller's contract; a strip kernel was chosen by [`strip`] for this geometry:
    // a deinterleave's source groups are packed (`sq == ni`), an interleave's output groups
    // are (`dp == nj`).
    unsafe {
        match kernel {
            Kernel::Deinterleave { size, k } => rows::strip(true, (size, k), src, dst, dp, nj),
            Kernel::Interleave { size, k } => {
                rows::strip(false, (size, k), src, dst, sq.unsigned_abs(), ni);
            }
            _ => dispatch(kernel, tiles::Strided { src, sq, dst, dp }, (ni, nj)),
        }
    }
}

/// `dst[out_p[i] + j] = src[i + in_q[j]]` for `i < out_p.len()`, `j < in_q.len()`, through
/// `kernel` (offsets in elements): the tile of grouped axes, whose source rows and output rows
/// are each contiguous but lie at any offsets.
///
/// # Safety
///
/// As [`tile`], for the source elements `src + i + in_q[j]` and the output slots
/// `dst + out_p[i] + j`.
#[inline]
pub(crate) unsafe fn tile_tabled(
    kernel: Kernel,
    src: *const u8,
    in_q: &[isize],
    dst: *mut u8,
    out_p: &[usize],
) {
    // SAFETY: the caller's contract.
    unsafe {
        let n = (out_p.len(), in_q.len());
        dispatch(
            kernel,
            tiles::Tabled {
                src,
                in_q,
                dst,
                out_p,
            },
            n,
        );
    }
}

/// `kernel` on the tile at `at`, its bytes read as elements of the kernel's size.
///
/// # Safety
///
/// [`tile`]'s contract for the tile `at` addresses.
#[inline(always)]
unsafe fn dispatch(kernel: Kernel, at: impl tiles::Cast, n: (usize, usize)) {
    // SAFETY: the caller's contract, for elements of the kernel's size moved as bits through a
    // type of that size; `kernel` chose the AVX2 and AVX-512 kernels only where they run.
    unsafe {
        match kernel {
            Kernel::Bytes1 => tiles::tile_1(at.cast::<u8>(), n),
            Kernel::Bytes2 => tiles::tile_2(at.cast::<u16>(), n),
            Kernel::Bytes4 => tiles::tile_4(at.cast::<f32>(), n),
            Kernel::Bytes4InL1 => tiles::tile_4_in_l1(at.cast::<f32>(), n),
            #[cfg(avx512)]
            Kernel::Bytes4Wide => tiles::tile_4_wide(at.cast::<f32>(), n),
            #[cfg(avx512)]
            Kernel::Bytes8 | Kernel::Bytes8Narrow => tiles::tile_8(at.cast::<f64>(), n),
            #[cfg(avx512)]
            Kernel::Bytes16 => tiles::tile_16(at.cast::<u128>(), n),
            // Strips run through `tile` only (`kernel_tabled` never chooses them): element by
            // element here.
            Kernel::Deinterleave { size: 1, .. } | Kernel::Interleave { size: 1, .. } => {
                tiles::tile_scalar(at.cast::<u8>(), n);
            }
            Kernel::Deinterleave { .. } | Kernel::Interleave { .. } => {
                tiles::tile_scalar(at.cast::<u16>(), n);
            }
        }
    }
}

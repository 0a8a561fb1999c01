//! Register-blocked transposes of plain-data elements: a tile of the blocked copy (see
//! [`Tiles`](super::kernels::Tiles)) moved through vector registers in square blocks, with a
//! kernel chosen once per copy ([`kernel`]) by element size (1, 2, 4 and 16 bytes, and 8 bytes
//! in L1 or on AMD), copy size, strides and the instruction sets found at run time (`x86.rs`);
//! the row kernels (streaming and reversed rows, `x86_rows.rs`); and the strips ([`strip`]),
//! which split groups of 2 to 4 small elements into rows or merge rows into groups (HWC and CHW
//! images). Elements are moved as bits (any plain type of that size), so the results are the scalar
//! kernel's bit for bit; the scalar kernel is the twin that Miri, other element sizes and other
//! machines run.

/// An element type whose clone is a copy of its bits and which has no padding: the primitive
/// numbers, `bool`, `char`, the `half` crate's `f16` and `bf16` (16-bit wrappers of a `u16`,
/// the element of half-precision models), ndarray's `num_complex::Complex` of a primitive
/// number (`#[repr(C)]`, two of them), arrays of these (`[u8; 4]`, `[[f32; 2]; 3]`), and the
/// user's types declared with [`PlainData::declare`]. Recognized by name, because stable Rust
/// can ask a generic type neither whether it is `Copy` nor whether it has padding bytes (which
/// the vector kernels must not read); any other type, `Copy` structs included, takes the
/// generic path, which is correct for all.
#[inline]
pub(super) fn plain_by_name<A>() -> bool {
    let mut name = std::any::type_name::<A>();
    // The element's count in `A` (1 unless `A` is an array), for its size below.
    let mut count = 1usize;
    while let Some(array) = name.strip_prefix('[') {
        match array.rsplit_once("; ") {
            Some((element, len)) if len.ends_with(']') => {
                name = element;
                let len = len.trim_end_matches(']').parse::<usize>().unwrap_or(0);
                count = count.saturating_mul(len);
            }
            _ => return false,
        }
    }
    if primitive(name) {
        return true;
    }
    if let Some(part) = name
        .strip_prefix("num_complex::Complex<")
        .and_then(|r| r.strip_suffix('>'))
    {
        return primitive(part) && !matches!(part, "bool" | "char");
    }
    let size = std::mem::size_of::<A>().checked_div(count).unwrap_or(0);
    declared(name, size, std::mem::align_of::<A>())
}

/// Whether `name` is a primitive plain type's.
#[inline(always)]
fn primitive(name: &str) -> bool {
    matches!(
        name,
        "f32"
            | "f64"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "bool"
            | "char"
            | "half::binary16::f16"
            | "half::bfloat::bf16"
    )
}

/// The types declared plain ([`PlainData::declare`]): name, size and alignment, all three
/// matched (two versions of one crate may name different types alike).
static DECLARED: std::sync::RwLock<Vec<(&'static str, usize, usize)>> =
    std::sync::RwLock::new(Vec::new());

/// Whether any type was declared (the copies of other types skip the lock).
static ANY_DECLARED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the type named `name`, of `size` bytes and alignment `align`, was declared plain.
#[cold]
fn declared(name: &str, size: usize, align: usize) -> bool {
    if !ANY_DECLARED.load(std::sync::atomic::Ordering::Acquire) {
        return false;
    }
    let list = DECLARED
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    list.iter()
        .any(|&(n, s, a)| n == name && s == size && a == align)
}

/// A `Copy` element type of the user's that the copies may move as bits, through the vector
/// kernels (the transposes of 1, 2, 4, 8 and 16-byte elements, `memcpy` rows) rather than one
/// clone at a time: a pixel, a quantized pair, a fixed-point number. The primitive numbers,
/// `half`'s types, ndarray's `num_complex::Complex` of a number and arrays of these are plain
/// already; a type of the user's becomes plain once it implements this trait and
/// [`declare`](Self::declare) runs (once, anywhere: the copies look it up by name, size and
/// alignment).
///
/// # Safety
///
/// The type has no padding bytes and no interior mutability, and a copy of its bytes is a
/// valid value equal to the original (what `bytemuck::Pod` promises): `#[repr(C)]` or
/// `#[repr(transparent)]` over plain fields without gaps.
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::{Order, PlainData, ReshapeExt};
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// #[repr(C)]
/// struct Rgba {
///     r: u8,
///     g: u8,
///     b: u8,
///     a: u8,
/// }
/// // SAFETY: four `u8` fields, `repr(C)`: no padding, every byte pattern valid.
/// unsafe impl PlainData for Rgba {}
///
/// Rgba::declare();
/// let img = Array::from_shape_fn((480, 640), |(y, x)| Rgba { r: y as u8, g: x as u8, b: 0, a: 255 });
/// // The transpose moves the 4-byte pixels through the 4-byte vector kernels.
/// let t = img.t().to_layout(Order::C)?;
/// assert_eq!(t[[5, 7]], img[[7, 5]]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
///
/// ndarray's complex numbers need nothing: `Complex<f64>` is 16 bytes of two `f64` and takes
/// the 16-byte kernels as it is.
///
/// ```
/// use ndarray::Array;
/// use num_complex::Complex;
/// use ndarray_reshape::{Order, ReshapeExt};
///
/// let z = Array::from_shape_fn((64, 32), |(i, j)| Complex::new(i as f64, j as f64));
/// let zt = z.t().to_layout(Order::C)?;
/// assert_eq!(zt[[3, 9]], Complex::new(9.0, 3.0));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
pub unsafe trait PlainData: Copy + Send + Sync + 'static {
    /// Let the copies move arrays of this type as bits from now on (idempotent; cheap after
    /// the first call).
    fn declare() {
        let key = (
            std::any::type_name::<Self>(),
            std::mem::size_of::<Self>(),
            std::mem::align_of::<Self>(),
        );
        let mut list = DECLARED
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !list.contains(&key) {
            list.push(key);
        }
        ANY_DECLARED.store(true, std::sync::atomic::Ordering::Release);
    }
}

/// Output rows of at most this many bytes make a tile's output dense: its blocks then run output
/// row by output row (BENCHMARKS.md, "The vector kernels").
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))] // the x86 kernels' own
pub(super) const DENSE_ROW_BYTES: usize = 1024;

/// The instruction sets of this machine that the kernels use, detected once: bit 0 AVX2, bit 1
/// AVX-512F, bit 2 an AMD processor (never under Miri, which runs the scalar twin).
#[cfg(all(target_arch = "x86_64", not(miri)))]
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
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline]
fn avx2() -> bool {
    features() & 1 != 0
}

/// Whether this machine runs the AVX-512 kernels (compiled with Rust 1.89 and later, whose
/// `std::arch` has them; `build.rs` tells).
#[cfg(all(target_arch = "x86_64", not(miri), avx512))]
#[inline]
fn avx512() -> bool {
    features() & 2 != 0
}

/// Whether this machine is an AMD processor ("AuthenticAMD"), whose 8-byte AVX-512 kernel wins
/// past L1 too.
#[cfg(all(target_arch = "x86_64", not(miri), avx512))]
#[inline]
fn amd() -> bool {
    features() & 4 != 0
}

/// A vector kernel of [`tile`], chosen once per copy by [`kernel`]. No kernel exists off
/// x86-64 or under Miri (the enum is empty there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kernel {
    /// 1-byte elements, 16 x 16 blocks (SSE2).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Bytes1,
    /// 2-byte elements, 8 x 8 blocks (SSE2).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Bytes2,
    /// 4-byte elements, 8 x 8 blocks (AVX2).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Bytes4,
    /// 4-byte elements of a copy whose source and output fit in L1 together (AVX2).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Bytes4InL1,
    /// 4-byte elements whose source rows are a multiple of [`WIDE_STRIDE`] apart, 16 x 16
    /// blocks (AVX-512F).
    #[cfg(all(target_arch = "x86_64", not(miri), avx512))]
    Bytes4Wide,
    /// 8-byte elements, 8 x 8 blocks (AVX-512F): in L1, and on AMD past it (see
    /// [`IN_L1_BYTES_8`]).
    #[cfg(all(target_arch = "x86_64", not(miri), avx512))]
    Bytes8,
    /// 8-byte elements whose source rows are [`CONFLICT_STRIDE_8`] apart, on AMD past L1: the
    /// blocks of [`Kernel::Bytes8`] in tiles of at most [`NARROW_TILE`] output rows.
    #[cfg(all(target_arch = "x86_64", not(miri), avx512))]
    Bytes8Narrow,
    /// 16-byte elements, 4 x 4 blocks (AVX-512F).
    #[cfg(all(target_arch = "x86_64", not(miri), avx512))]
    Bytes16,
    /// Elements of `size` (1 or 2) bytes, `k` (2 to 4) to a group, split into `k` output rows
    /// (HWC to CHW): whole strips of a tile's `q` axis at once ([`strip`]).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Deinterleave { size: u8, k: u8 },
    /// `k` (2 to 4) source rows of elements of `size` (1 or 2) bytes merged into groups of `k`
    /// (CHW to HWC), in strips of [`STRIP`] groups ([`strip`]).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Interleave { size: u8, k: u8 },
}

impl Kernel {
    /// The tile side along the input's contiguous axis (output rows per tile) this kernel
    /// runs in, given the engine's `side`.
    #[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(unused_variables))]
    pub(super) fn tile_side(self, side: usize) -> usize {
        match self {
            #[cfg(all(target_arch = "x86_64", not(miri), avx512))]
            Kernel::Bytes8Narrow => side.min(NARROW_TILE),
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Kernel::Interleave { .. } => STRIP,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            _ => side,
        }
    }

    /// Whether this is a strip kernel (its output geometry is the one [`strip`] chose it for).
    pub(super) fn is_strip(self) -> bool {
        match self {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Kernel::Deinterleave { .. } | Kernel::Interleave { .. } => true,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            _ => false,
        }
    }

    /// Whether this kernel takes a tile's whole run along `q` in one call (the strips).
    pub(super) fn whole_q(self) -> bool {
        match self {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Kernel::Deinterleave { .. } => true,
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            _ => false,
        }
    }
}

/// The groups of an interleaving strip (a tile's side along the source rows): long runs in
/// the source rows and the output, within L2 (4 rows of 2-byte elements: 32 KiB in, 32 out).
#[cfg(all(target_arch = "x86_64", not(miri)))]
const STRIP: usize = 4096;

/// The strip kernel, if any, for a tile whose input is contiguous along `p` (`np` long) and
/// whose output is contiguous along `q` (`nq` long, `sq` elements apart in the source), of
/// elements of `size` bytes, with output rows along `p` `dp` elements apart: a deinterleave when
/// the `p` axis is a packed group of 2 to 4 (`np == sq`), an interleave when `q` is one
/// (`nq == dp`, the source rows `sq > 0` apart): whole strips per call, over 20 times the
/// element tiles' speed with AVX2 (BENCHMARKS.md, "Flips and small elements").
#[inline]
pub(super) fn strip(size: usize, (np, nq): (usize, usize), sq: isize, dp: usize) -> Option<Kernel> {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
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
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = (size, np, nq, sq, dp);
        None
    }
}

/// The loop of the strip kernels, for `K` elements of `T` to a group: with `SPLIT`,
/// `dst[c * d + j] = src[j * K + c]` (deinterleave); without, `dst[j * K + c] = src[c * d + j]`
/// (interleave); for `c < K`, `j < n`. Written on slices, so that the compiler, which knows
/// them apart, vectorizes the groups with shuffles where the instruction set allows (`x86.rs`
/// compiles it with AVX2); compiled for the baseline it is the scalar twin.
///
/// # Safety
///
/// The `n * K` grouped elements and the `K` rows of `n` elements at `d` apart readable (the
/// source) and writable (the output), the output disjoint from the source and its rows from
/// each other (`d >= n`); plain elements.
#[inline(always)]
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))] // tested alone there
pub(super) unsafe fn strip_loop<T: Copy, const K: usize, const SPLIT: bool>(
    src: *const T,
    dst: *mut T,
    d: usize,
    n: usize,
) {
    // SAFETY: the caller's contract: the grouped side is `n * K` elements, each row `n`, the
    // rows `d >= n` apart, so the `K + 1` slices are valid and the mutable ones disjoint.
    unsafe {
        if SPLIT {
            let src = std::slice::from_raw_parts(src, n * K);
            let rows: [&mut [T]; K] =
                std::array::from_fn(|c| std::slice::from_raw_parts_mut(dst.add(c * d), n));
            for (j, group) in src.chunks_exact(K).enumerate() {
                for c in 0..K {
                    rows[c][j] = group[c];
                }
            }
        } else {
            let rows: [&[T]; K] =
                std::array::from_fn(|c| std::slice::from_raw_parts(src.add(c * d), n));
            let out = std::slice::from_raw_parts_mut(dst, n * K);
            for (j, group) in out.chunks_exact_mut(K).enumerate() {
                for c in 0..K {
                    group[c] = rows[c][j];
                }
            }
        }
    }
}

/// Copies of at most this many output bytes use [`Kernel::Bytes4InL1`] for 4-byte elements:
/// source and output then fit in a 48 KiB L1 data cache together, where it is the faster one
/// (BENCHMARKS.md, "The vector kernels").
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), allow(dead_code))] // the x86 kernels' own
const IN_L1_BYTES: usize = 24 * 1024;

/// Copies of at most this many output bytes use [`Kernel::Bytes8`] for 8-byte elements on
/// Intel (the scalar tiles are faster past it); AMD takes it at every size, in narrower tiles
/// at [`CONFLICT_STRIDE_8`] (BENCHMARKS.md, "The vector kernels").
#[cfg(all(target_arch = "x86_64", not(miri), avx512))]
const IN_L1_BYTES_8: usize = 32 * 1024;

/// On AMD, 8-byte elements past L1 whose source rows are this many bytes apart take
/// [`Kernel::Bytes8Narrow`]: the usual tiles (32 output rows 2 KiB apart, 16 to an L1 set)
/// would conflict in the cache (BENCHMARKS.md, "The vector kernels").
#[cfg(all(target_arch = "x86_64", not(miri), avx512))]
const CONFLICT_STRIDE_8: usize = 2048;

/// The most output rows in a tile of [`Kernel::Bytes8Narrow`].
#[cfg(all(target_arch = "x86_64", not(miri), avx512))]
const NARROW_TILE: usize = 16;

/// Past L1, 4-byte elements whose source rows are a multiple of this many bytes apart, into
/// output rows of at least this many bytes, take [`Kernel::Bytes4Wide`]: the 8 rows of an
/// 8 x 8 block then share few cache sets, the one case where it beats the AVX2 kernel
/// (BENCHMARKS.md, "The vector kernels").
#[cfg(all(target_arch = "x86_64", not(miri), avx512))]
const WIDE_STRIDE: usize = 1024;

/// The vector kernel for elements of `size` bytes in a copy of `bytes` output bytes whose
/// source rows (along the output's last axis) are `stride` bytes apart and whose output rows
/// (along the source's contiguous axis) are `out_row` bytes apart, on this machine: SSE2
/// (part of x86-64) for 1 and 2 bytes, AVX2 or AVX-512 for 4, AVX-512 for 8 and 16. None for
/// other sizes, nor without AVX-512 for 8 and 16 bytes: AVX2 kernels for them measured slower
/// than the scalar tiles (BENCHMARKS.md, "The vector kernels").
#[inline]
pub(super) fn kernel(size: usize, bytes: usize, stride: usize, out_row: usize) -> Option<Kernel> {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
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
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = (size, bytes, stride, out_row);
        None
    }
}

/// Row copies of plain elements with outputs of at least this many bytes write with streaming
/// (non-temporal) stores: past the last-level cache a cached store first reads the line it
/// fills (BENCHMARKS.md, "How the copy works").
pub(super) const STREAM_MIN_BYTES: usize = 8 * 1024 * 1024;

/// Copy `n` bytes from `src` to `dst` with streaming stores where the machine has them (a plain
/// copy elsewhere); [`fence`] before the bytes are handed to another thread.
///
/// # Safety
///
/// `src[..n]` readable, `dst[..n]` writable and disjoint from it.
#[inline]
pub(super) unsafe fn stream(src: *const u8, dst: *mut u8, n: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: the caller's contract.
    unsafe {
        x86_rows::stream(src, dst, n)
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    // SAFETY: the caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, n)
    }
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
pub(super) unsafe fn stream_reversed(src: *const u8, dst: *mut u8, n: usize, size: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: the caller's contract.
    if unsafe { x86_rows::stream_reversed(src, dst, n, size) } {
        return;
    }
    // SAFETY: the caller's contract: element `t` of the output is the `size` bytes at
    // `src - t * size`.
    unsafe { reversed_scalar(src, dst, n, size) }
}

/// The scalar twin of [`stream_reversed`]: element by element, cached stores.
///
/// # Safety
///
/// [`stream_reversed`]'s contract.
#[inline]
unsafe fn reversed_scalar(src: *const u8, dst: *mut u8, n: usize, size: usize) {
    for t in 0..n {
        // SAFETY: `t < n`: the `size` bytes at `src - t * size` are the row's element `t`, and
        // `dst + t * size` its slot (the caller's contract).
        unsafe { std::ptr::copy_nonoverlapping(src.sub(t * size), dst.add(t * size), size) };
    }
}

/// Order the streaming stores of [`stream`] before every later store (the end of a unit of
/// work, which another thread may then read).
#[inline]
pub(super) fn fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `sfence` is part of x86-64 (SSE).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// The vector kernel of [`tile_tabled`] for elements of `size` bytes on this machine: the one
/// whose block rows are the longest (whole 64-byte lines with AVX-512 for 4 and 8 bytes).
#[inline]
pub(super) fn kernel_tabled(size: usize) -> Option<Kernel> {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
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
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = size;
        None
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
pub(super) unsafe fn tile(
    kernel: Kernel,
    src: *const u8,
    sq: isize,
    dst: *mut u8,
    dp: usize,
    ni: usize,
    nj: usize,
) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: the caller's contract; a strip kernel was chosen by [`strip`] for this geometry:
    // a deinterleave's source groups are packed (`sq == ni`), an interleave's output groups
    // are (`dp == nj`).
    unsafe {
        match kernel {
            Kernel::Deinterleave { size, k } => x86_rows::strip(true, (size, k), src, dst, dp, nj),
            Kernel::Interleave { size, k } => {
                x86_rows::strip(false, (size, k), src, dst, sq.unsigned_abs(), ni);
            }
            _ => dispatch(kernel, x86::Strided { src, sq, dst, dp }, (ni, nj)),
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = (src, sq, dst, dp, ni, nj);
        match kernel {}
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
pub(super) unsafe fn tile_tabled(
    kernel: Kernel,
    src: *const u8,
    in_q: &[isize],
    dst: *mut u8,
    out_p: &[usize],
) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: the caller's contract.
    unsafe {
        let n = (out_p.len(), in_q.len());
        dispatch(
            kernel,
            x86::Tabled {
                src,
                in_q,
                dst,
                out_p,
            },
            n,
        );
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = (src, in_q, dst, out_p);
        match kernel {}
    }
}

/// `kernel` on the tile at `at`, its bytes read as elements of the kernel's size.
///
/// # Safety
///
/// [`tile`]'s contract for the tile `at` addresses.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
unsafe fn dispatch(kernel: Kernel, at: impl x86::Cast, n: (usize, usize)) {
    // SAFETY: the caller's contract, for elements of the kernel's size moved as bits through a
    // type of that size; `kernel` chose the AVX2 and AVX-512 kernels only where they run.
    unsafe {
        match kernel {
            Kernel::Bytes1 => x86::tile_1(at.cast::<u8>(), n),
            Kernel::Bytes2 => x86::tile_2(at.cast::<u16>(), n),
            Kernel::Bytes4 => x86::tile_4(at.cast::<f32>(), n),
            Kernel::Bytes4InL1 => x86::tile_4_in_l1(at.cast::<f32>(), n),
            #[cfg(avx512)]
            Kernel::Bytes4Wide => x86::tile_4_wide(at.cast::<f32>(), n),
            #[cfg(avx512)]
            Kernel::Bytes8 | Kernel::Bytes8Narrow => x86::tile_8(at.cast::<f64>(), n),
            #[cfg(avx512)]
            Kernel::Bytes16 => x86::tile_16(at.cast::<u128>(), n),
            // Strips run through `tile` only (`kernel_tabled` never chooses them): element by
            // element here.
            Kernel::Deinterleave { size: 1, .. } | Kernel::Interleave { size: 1, .. } => {
                x86::tile_scalar(at.cast::<u8>(), n);
            }
            Kernel::Deinterleave { .. } | Kernel::Interleave { .. } => {
                x86::tile_scalar(at.cast::<u16>(), n);
            }
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86;
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86_rows;

#[cfg(test)]
mod tests;

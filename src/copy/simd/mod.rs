//! Register-blocked transposes of plain-data elements: a tile of the blocked copy (see
//! [`Tiles`](super::kernels::Tiles)) moved through vector registers in square blocks, with a
//! kernel chosen once per copy ([`kernel`]) by element size (1, 2, 4 and 16 bytes, and 8 bytes
//! in L1 or on AMD), copy size, strides and the instruction sets found at run time; the row
//! kernels (streaming and reversed rows); and the strips ([`strip`]), which split groups of 2
//! to 4 small elements into rows or merge rows into groups (HWC and CHW images). The kernels
//! and their choosers are x86-64's (`x86/`: `tiles.rs`, `rows.rs`) or, elsewhere and under
//! Miri, `portable.rs`'s, which choose none. Elements are moved as bits (any plain type of that
//! size), so the results are the scalar kernel's bit for bit; the scalar kernel is the twin
//! that Miri, other element sizes and other machines run.

/// An element type whose clone is a copy of its bits and which has no padding: the primitive
/// numbers, `bool`, `char`, the `half` crate's `f16` and `bf16` (16-bit wrappers of a `u16`,
/// the element of half-precision models), ndarray's `num_complex::Complex` of a primitive
/// number (`#[repr(C)]`, two of them), arrays of these (`[u8; 4]`, `[[f32; 2]; 3]`), and the
/// user's types declared with [`PlainData::declare`]. Recognized by name, because stable Rust
/// can ask a generic type neither whether it is `Copy` nor whether it has padding bytes (which
/// the vector kernels must not read); any other type, `Copy` structs included, takes the
/// generic path, which is correct for all.
#[inline]
pub(crate) fn plain_by_name<A>() -> bool {
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

/// Row copies of plain elements with outputs of at least this many bytes write with streaming
/// (non-temporal) stores: past the last-level cache a cached store first reads the line it
/// fills (BENCHMARKS.md, "How the copy works").
pub(super) const STREAM_MIN_BYTES: usize = 8 * 1024 * 1024;

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

// The kernels and their choosers under the same names: x86-64's (`x86/`), or, on other
// machines and under Miri, the portable twins that choose no vector kernel (the scalar tiles
// and rows run).
#[cfg_attr(all(target_arch = "x86_64", not(miri)), path = "x86/mod.rs")]
#[cfg_attr(not(all(target_arch = "x86_64", not(miri))), path = "portable.rs")]
mod arch;

pub(super) use arch::{
    fence, kernel, kernel_tabled, stream, stream_reversed, strip, tile, tile_tabled, Kernel,
};

#[cfg(test)]
mod tests;

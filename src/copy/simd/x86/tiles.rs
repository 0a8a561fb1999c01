//! The x86-64 kernels of [`tile`](super::tile): square blocks transposed in vector registers,
//! the elements moved as bits (`u8`, `u16` and `f32` lanes: no arithmetic, so NaN payloads and
//! any plain type survive unchanged).
//!
//! | kernel | block | rounds of shuffles |
//! |---|---|---|
//! | 1 byte (SSE2) | 16 x 16 | four of byte interleaves |
//! | 2 bytes (SSE2) | 8 x 8 | three of 16-bit interleaves |
//! | 4 bytes (AVX2) | 8 x 8 | whole rows loaded; two in lanes, one lane swap |
//! | 4 bytes in L1 (AVX2) | 8 x 8 | half rows loaded into both lanes; two in lanes |
//! | 4 bytes, strides of 1 KiB multiples (AVX-512F) | 16 x 16 | two in lanes, two of lanes |
//! | 8 bytes (AVX-512F) | 8 x 8 | one of unpacks, two of lanes |
//! | 16 bytes (AVX-512F) | 4 x 4 | two of lanes |
//!
//! The in-L1 kernel does the lane-crossing step in the load ports (`vinsertf128` from memory)
//! instead of the shuffle port, which bounds the other kernel when the data is in L1; past L1
//! it loses, with twice the loads. Past L1, 8-byte elements take the scalar tiles, which write
//! whole output lines (BENCHMARKS.md, "The vector kernels"). The AVX-512 kernels need Rust
//! 1.89 (`cfg(avx512)`, set by `build.rs`).

use std::arch::x86_64::*;

use super::DENSE_ROW_BYTES;

/// Where the elements of a tile are: source element `(i, j)` at `src(i, j)`, the source
/// contiguous along `i`, and its output slot at `dst(i, j)`, the output contiguous along `j`.
pub(super) trait At<T>: Copy {
    /// The source element `(i, j)`.
    ///
    /// # Safety
    ///
    /// `(i, j)` inside the tile.
    unsafe fn src(self, i: usize, j: usize) -> *const T;
    /// The output slot of element `(i, j)`.
    ///
    /// # Safety
    ///
    /// `(i, j)` inside the tile.
    unsafe fn dst(self, i: usize, j: usize) -> *mut T;
    /// Whether the blocks run output row by output row (short output rows: whole lines written
    /// at once) rather than source row by source row (sequential reads of the source rows).
    fn dense(self) -> bool;
}

/// An [`At`] of bytes read as elements of another type of the kernel's size.
pub(super) trait Cast: Copy {
    /// The same tile with `U` elements.
    type As<U>: At<U>;
    /// The same addresses, as `U` elements (offsets stay counted in elements).
    fn cast<U>(self) -> Self::As<U>;
}

/// A tile with constant strides: source rows `sq` elements apart, output rows `dp` apart.
pub(super) struct Strided<T> {
    pub(super) src: *const T,
    pub(super) sq: isize,
    pub(super) dst: *mut T,
    pub(super) dp: usize,
}

impl<T> Clone for Strided<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Strided<T> {}

impl Cast for Strided<u8> {
    type As<U> = Strided<U>;
    #[inline(always)]
    fn cast<U>(self) -> Strided<U> {
        Strided {
            src: self.src.cast(),
            sq: self.sq,
            dst: self.dst.cast(),
            dp: self.dp,
        }
    }
}

impl<T> At<T> for Strided<T> {
    #[inline(always)]
    unsafe fn src(self, i: usize, j: usize) -> *const T {
        // SAFETY: `(i, j)` is inside the tile (the caller's contract).
        unsafe { self.src.offset(i as isize + j as isize * self.sq) }
    }
    #[inline(always)]
    unsafe fn dst(self, i: usize, j: usize) -> *mut T {
        // SAFETY: as above.
        unsafe { self.dst.add(i * self.dp + j) }
    }
    #[inline(always)]
    fn dense(self) -> bool {
        self.dp * std::mem::size_of::<T>() <= DENSE_ROW_BYTES
    }
}

/// A tile of grouped axes: source row `j` at `src + in_q[j]`, output row `i` at
/// `dst + out_p[i]` (offsets in elements); the tile is `out_p.len() x in_q.len()`.
pub(super) struct Tabled<'a, T> {
    pub(super) src: *const T,
    pub(super) in_q: &'a [isize],
    pub(super) dst: *mut T,
    pub(super) out_p: &'a [usize],
}

impl<T> Clone for Tabled<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Tabled<'_, T> {}

impl<'a> Cast for Tabled<'a, u8> {
    type As<U> = Tabled<'a, U>;
    #[inline(always)]
    fn cast<U>(self) -> Tabled<'a, U> {
        Tabled {
            src: self.src.cast(),
            in_q: self.in_q,
            dst: self.dst.cast(),
            out_p: self.out_p,
        }
    }
}

impl<T> At<T> for Tabled<'_, T> {
    #[inline(always)]
    unsafe fn src(self, i: usize, j: usize) -> *const T {
        // SAFETY: `j < in_q.len()` and the row holds element `i` (the caller's contract).
        unsafe { self.src.offset(*self.in_q.get_unchecked(j) + i as isize) }
    }
    #[inline(always)]
    unsafe fn dst(self, i: usize, j: usize) -> *mut T {
        // SAFETY: `i < out_p.len()` and the row holds slot `j` (the caller's contract).
        unsafe { self.dst.add(*self.out_p.get_unchecked(i) + j) }
    }
    #[inline(always)]
    fn dense(self) -> bool {
        true
    }
}

/// The whole `B x B` blocks of an `ni x nj` tile through `block(at, i, j)`, in the loop order
/// that suits the output, then the edges element by element.
///
/// # Safety
///
/// [`tile`](super::tile)'s contract for `T`-sized elements at `at`; `block` must write exactly
/// the transposed `B x B` block at `(i, j)`.
#[inline(always)]
unsafe fn blocked<T: Copy, X: At<T>, const B: usize>(
    at: X,
    (ni, nj): (usize, usize),
    block: impl Fn(X, usize, usize),
) {
    let (bi, bj) = (ni - ni % B, nj - nj % B);
    // Output rows outermost when the tile's output is dense, source rows outermost otherwise.
    // BENCHMARKS.md, "The vector kernels".
    if at.dense() {
        for i in (0..bi).step_by(B) {
            for j in (0..bj).step_by(B) {
                block(at, i, j);
            }
        }
    } else {
        for j in (0..bj).step_by(B) {
            for i in (0..bi).step_by(B) {
                block(at, i, j);
            }
        }
    }
    // The edges, element by element.
    for j in 0..nj {
        let i0 = if j < bj { bi } else { 0 };
        for i in i0..ni {
            // SAFETY: `i < ni`, `j < nj` (the caller's contract).
            unsafe { at.dst(i, j).write_unaligned(at.src(i, j).read_unaligned()) };
        }
    }
}

/// [`tile`](super::tile) for 1-byte elements.
///
/// # Safety
///
/// [`tile`](super::tile)'s contract (SSE2 is part of x86-64).
pub(super) unsafe fn tile_1(at: impl At<u8>, n: (usize, usize)) {
    // SAFETY: the caller's contract; `block_1` writes one 16 x 16 block.
    unsafe { blocked::<u8, _, 16>(at, n, |at, i, j| block_1(at, i, j)) }
}

/// [`tile`](super::tile) for 2-byte elements.
///
/// # Safety
///
/// [`tile`](super::tile)'s contract (SSE2 is part of x86-64).
pub(super) unsafe fn tile_2(at: impl At<u16>, n: (usize, usize)) {
    // SAFETY: the caller's contract; `block_2` writes one 8 x 8 block.
    unsafe { blocked::<u16, _, 8>(at, n, |at, i, j| block_2(at, i, j)) }
}

/// [`tile`](super::tile) for 4-byte elements.
///
/// # Safety
///
/// AVX2 present, and [`tile`](super::tile)'s contract.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tile_4(at: impl At<f32>, n: (usize, usize)) {
    // SAFETY: AVX2 present (the caller's contract); `block_4` writes one 8 x 8 block.
    unsafe { blocked::<f32, _, 8>(at, n, |at, i, j| block_4(at, i, j)) }
}

/// [`tile`](super::tile) for 4-byte elements of a copy whose source and output fit in L1.
///
/// # Safety
///
/// AVX2 present, and [`tile`](super::tile)'s contract.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tile_4_in_l1(at: impl At<f32>, n: (usize, usize)) {
    // SAFETY: AVX2 present (the caller's contract); `block_4_in_l1` writes one 8 x 8 block.
    unsafe { blocked::<f32, _, 8>(at, n, |at, i, j| block_4_in_l1(at, i, j)) }
}

/// One 16 x 16 block of bytes: source rows `r` (16 contiguous elements at `src + r * sq`) to
/// output rows `c` (16 contiguous at `dst + c * dp`). Four rounds of interleaving register `k`
/// with register `k + 8` transpose 16 registers of 16 lanes.
///
/// # Safety
///
/// The 256 source bytes readable, the 256 output slots writable.
#[inline(always)]
unsafe fn block_1(at: impl At<u8>, i: usize, j: usize) {
    // SAFETY: the caller's contract: rows 0..16 of 16 bytes each, on both sides.
    unsafe {
        let mut v = [_mm_setzero_si128(); 16];
        for (r, x) in v.iter_mut().enumerate() {
            *x = _mm_loadu_si128(at.src(i, j + r).cast());
        }
        for _ in 0..4 {
            let mut w = [_mm_setzero_si128(); 16];
            for k in 0..8 {
                w[2 * k] = _mm_unpacklo_epi8(v[k], v[k + 8]);
                w[2 * k + 1] = _mm_unpackhi_epi8(v[k], v[k + 8]);
            }
            v = w;
        }
        for (c, x) in v.iter().enumerate() {
            _mm_storeu_si128(at.dst(i + c, j).cast(), *x);
        }
    }
}

/// One 8 x 8 block of 2-byte elements, as [`block_1`] with three rounds of 16-bit interleaves.
///
/// # Safety
///
/// The 64 source elements readable, the 64 output slots writable.
#[inline(always)]
unsafe fn block_2(at: impl At<u16>, i: usize, j: usize) {
    // SAFETY: the caller's contract: rows 0..8 of 8 elements each, on both sides.
    unsafe {
        let mut v = [_mm_setzero_si128(); 8];
        for (r, x) in v.iter_mut().enumerate() {
            *x = _mm_loadu_si128(at.src(i, j + r).cast());
        }
        for _ in 0..3 {
            let mut w = [_mm_setzero_si128(); 8];
            for k in 0..4 {
                w[2 * k] = _mm_unpacklo_epi16(v[k], v[k + 4]);
                w[2 * k + 1] = _mm_unpackhi_epi16(v[k], v[k + 4]);
            }
            v = w;
        }
        for (c, x) in v.iter().enumerate() {
            _mm_storeu_si128(at.dst(i + c, j).cast(), *x);
        }
    }
}

/// One 8 x 8 block of 4-byte elements: source rows `r` (8 contiguous elements along `i` at
/// `src + r * sq`) to output rows `c` (8 contiguous along `j` at `dst + c * dp`).
///
/// # Safety
///
/// AVX2 present; the 64 source elements readable, the 64 output slots writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn block_4(at: impl At<f32>, i: usize, j: usize) {
    // SAFETY: the caller's contract: rows 0..8 of 8 elements each, on both sides.
    unsafe {
        let r0 = _mm256_loadu_ps(at.src(i, j));
        let r1 = _mm256_loadu_ps(at.src(i, j + 1));
        let r2 = _mm256_loadu_ps(at.src(i, j + 2));
        let r3 = _mm256_loadu_ps(at.src(i, j + 3));
        let r4 = _mm256_loadu_ps(at.src(i, j + 4));
        let r5 = _mm256_loadu_ps(at.src(i, j + 5));
        let r6 = _mm256_loadu_ps(at.src(i, j + 6));
        let r7 = _mm256_loadu_ps(at.src(i, j + 7));
        let t0 = _mm256_unpacklo_ps(r0, r1);
        let t1 = _mm256_unpackhi_ps(r0, r1);
        let t2 = _mm256_unpacklo_ps(r2, r3);
        let t3 = _mm256_unpackhi_ps(r2, r3);
        let t4 = _mm256_unpacklo_ps(r4, r5);
        let t5 = _mm256_unpackhi_ps(r4, r5);
        let t6 = _mm256_unpacklo_ps(r6, r7);
        let t7 = _mm256_unpackhi_ps(r6, r7);
        let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        _mm256_storeu_ps(at.dst(i, j), _mm256_permute2f128_ps::<0x20>(u0, u4));
        _mm256_storeu_ps(at.dst(i + 1, j), _mm256_permute2f128_ps::<0x20>(u1, u5));
        _mm256_storeu_ps(at.dst(i + 2, j), _mm256_permute2f128_ps::<0x20>(u2, u6));
        _mm256_storeu_ps(at.dst(i + 3, j), _mm256_permute2f128_ps::<0x20>(u3, u7));
        _mm256_storeu_ps(at.dst(i + 4, j), _mm256_permute2f128_ps::<0x31>(u0, u4));
        _mm256_storeu_ps(at.dst(i + 5, j), _mm256_permute2f128_ps::<0x31>(u1, u5));
        _mm256_storeu_ps(at.dst(i + 6, j), _mm256_permute2f128_ps::<0x31>(u2, u6));
        _mm256_storeu_ps(at.dst(i + 7, j), _mm256_permute2f128_ps::<0x31>(u3, u7));
    }
}

/// [`block_4`] for data in L1: register `t` holds half a row of source row `r` in its low lane
/// and of row `r + 4` in its high lane, so no lane swap is left.
///
/// # Safety
///
/// AVX2 present; the 64 source elements readable, the 64 output slots writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn block_4_in_l1(at: impl At<f32>, i: usize, j: usize) {
    // Columns `c .. c + 4` of rows `r` (low lane) and `r + 4` (high lane).
    macro_rules! halves {
        ($r:expr, $c:expr) => {
            _mm256_insertf128_ps::<1>(
                _mm256_castps128_ps256(_mm_loadu_ps(at.src(i + $c, j + $r))),
                _mm_loadu_ps(at.src(i + $c, j + $r + 4)),
            )
        };
    }
    // SAFETY: the caller's contract: rows 0..8 of 8 elements each, on both sides.
    unsafe {
        let (t0, t1, t2, t3) = (halves!(0, 0), halves!(1, 0), halves!(2, 0), halves!(3, 0));
        let (t4, t5, t6, t7) = (halves!(0, 4), halves!(1, 4), halves!(2, 4), halves!(3, 4));
        let u0 = _mm256_unpacklo_ps(t0, t1);
        let u1 = _mm256_unpackhi_ps(t0, t1);
        let u2 = _mm256_unpacklo_ps(t2, t3);
        let u3 = _mm256_unpackhi_ps(t2, t3);
        let u4 = _mm256_unpacklo_ps(t4, t5);
        let u5 = _mm256_unpackhi_ps(t4, t5);
        let u6 = _mm256_unpacklo_ps(t6, t7);
        let u7 = _mm256_unpackhi_ps(t6, t7);
        _mm256_storeu_ps(at.dst(i, j), _mm256_shuffle_ps::<0x44>(u0, u2));
        _mm256_storeu_ps(at.dst(i + 1, j), _mm256_shuffle_ps::<0xEE>(u0, u2));
        _mm256_storeu_ps(at.dst(i + 2, j), _mm256_shuffle_ps::<0x44>(u1, u3));
        _mm256_storeu_ps(at.dst(i + 3, j), _mm256_shuffle_ps::<0xEE>(u1, u3));
        _mm256_storeu_ps(at.dst(i + 4, j), _mm256_shuffle_ps::<0x44>(u4, u6));
        _mm256_storeu_ps(at.dst(i + 5, j), _mm256_shuffle_ps::<0xEE>(u4, u6));
        _mm256_storeu_ps(at.dst(i + 6, j), _mm256_shuffle_ps::<0x44>(u5, u7));
        _mm256_storeu_ps(at.dst(i + 7, j), _mm256_shuffle_ps::<0xEE>(u5, u7));
    }
}

/// [`tile`](super::tile) for 8-byte elements of a copy whose source and output fit in L1.
///
/// # Safety
///
/// AVX-512F present, and [`tile`](super::tile)'s contract.
#[cfg(avx512)]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn tile_8(at: impl At<f64>, n: (usize, usize)) {
    // SAFETY: AVX-512F present (the caller's contract); `block_8` writes one 8 x 8 block.
    unsafe { blocked::<f64, _, 8>(at, n, |at, i, j| block_8(at, i, j)) }
}

/// One 8 x 8 block of 8-byte elements in 512-bit registers: unpacks pair rows `2k`, `2k + 1`;
/// two rounds of 128-bit lane shuffles finish the transpose.
///
/// # Safety
///
/// AVX-512F present; the 64 source elements readable, the 64 output slots writable.
#[cfg(avx512)]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn block_8(at: impl At<f64>, i: usize, j: usize) {
    // SAFETY: the caller's contract: rows 0..8 of 8 elements each, on both sides.
    unsafe {
        let r0 = _mm512_loadu_pd(at.src(i, j));
        let r1 = _mm512_loadu_pd(at.src(i, j + 1));
        let r2 = _mm512_loadu_pd(at.src(i, j + 2));
        let r3 = _mm512_loadu_pd(at.src(i, j + 3));
        let r4 = _mm512_loadu_pd(at.src(i, j + 4));
        let r5 = _mm512_loadu_pd(at.src(i, j + 5));
        let r6 = _mm512_loadu_pd(at.src(i, j + 6));
        let r7 = _mm512_loadu_pd(at.src(i, j + 7));
        let t0 = _mm512_unpacklo_pd(r0, r1);
        let t1 = _mm512_unpackhi_pd(r0, r1);
        let t2 = _mm512_unpacklo_pd(r2, r3);
        let t3 = _mm512_unpackhi_pd(r2, r3);
        let t4 = _mm512_unpacklo_pd(r4, r5);
        let t5 = _mm512_unpackhi_pd(r4, r5);
        let t6 = _mm512_unpacklo_pd(r6, r7);
        let t7 = _mm512_unpackhi_pd(r6, r7);
        let u0 = _mm512_shuffle_f64x2::<0x88>(t0, t2);
        let u1 = _mm512_shuffle_f64x2::<0x88>(t4, t6);
        let u2 = _mm512_shuffle_f64x2::<0xDD>(t0, t2);
        let u3 = _mm512_shuffle_f64x2::<0xDD>(t4, t6);
        let v0 = _mm512_shuffle_f64x2::<0x88>(t1, t3);
        let v1 = _mm512_shuffle_f64x2::<0x88>(t5, t7);
        let v2 = _mm512_shuffle_f64x2::<0xDD>(t1, t3);
        let v3 = _mm512_shuffle_f64x2::<0xDD>(t5, t7);
        _mm512_storeu_pd(at.dst(i, j), _mm512_shuffle_f64x2::<0x88>(u0, u1));
        _mm512_storeu_pd(at.dst(i + 1, j), _mm512_shuffle_f64x2::<0x88>(v0, v1));
        _mm512_storeu_pd(at.dst(i + 2, j), _mm512_shuffle_f64x2::<0x88>(u2, u3));
        _mm512_storeu_pd(at.dst(i + 3, j), _mm512_shuffle_f64x2::<0x88>(v2, v3));
        _mm512_storeu_pd(at.dst(i + 4, j), _mm512_shuffle_f64x2::<0xDD>(u0, u1));
        _mm512_storeu_pd(at.dst(i + 5, j), _mm512_shuffle_f64x2::<0xDD>(v0, v1));
        _mm512_storeu_pd(at.dst(i + 6, j), _mm512_shuffle_f64x2::<0xDD>(u2, u3));
        _mm512_storeu_pd(at.dst(i + 7, j), _mm512_shuffle_f64x2::<0xDD>(v2, v3));
    }
}

/// [`tile`](super::tile) for 4-byte elements with AVX-512, for the source strides where it
/// beats [`tile_4`]; tiles that are not whole 16 x 16 blocks go to [`tile_4`].
///
/// # Safety
///
/// AVX-512F present, and [`tile`](super::tile)'s contract.
#[cfg(avx512)]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn tile_4_wide(at: impl At<f32>, n: (usize, usize)) {
    if !n.0.is_multiple_of(16) || !n.1.is_multiple_of(16) {
        // SAFETY: AVX-512F implies AVX2; the caller's contract.
        return unsafe { tile_4(at, n) };
    }
    // SAFETY: AVX-512F present (the caller's contract); `block_4_avx512` writes one 16 x 16
    // block.
    unsafe { blocked::<f32, _, 16>(at, n, |at, i, j| block_4_avx512(at, i, j)) }
}

/// One 16 x 16 block of 4-byte elements in 512-bit registers: two rounds of in-lane shuffles
/// leave a transposed 4 x 4 block in every 128-bit lane, two rounds of lane shuffles move the
/// lanes into place.
///
/// # Safety
///
/// AVX-512F present; the 256 source elements readable, the 256 output slots writable.
#[cfg(avx512)]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn block_4_avx512(at: impl At<f32>, i: usize, j: usize) {
    // SAFETY: the caller's contract: rows 0..16 of 16 elements each, on both sides.
    unsafe {
        let mut r = [_mm512_setzero_ps(); 16];
        for (k, x) in r.iter_mut().enumerate() {
            *x = _mm512_loadu_ps(at.src(i, j + k));
        }
        let mut t = [_mm512_setzero_ps(); 16];
        for k in 0..8 {
            t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
        }
        // u[4m + c] holds, in lane L, rows 4m .. 4m + 4 of column 4L + c.
        let mut u = [_mm512_setzero_ps(); 16];
        for m in 0..4 {
            let (a, b, c, d) = (t[4 * m], t[4 * m + 1], t[4 * m + 2], t[4 * m + 3]);
            u[4 * m] = _mm512_shuffle_ps::<0x44>(a, c);
            u[4 * m + 1] = _mm512_shuffle_ps::<0xEE>(a, c);
            u[4 * m + 2] = _mm512_shuffle_ps::<0x44>(b, d);
            u[4 * m + 3] = _mm512_shuffle_ps::<0xEE>(b, d);
        }
        for c in 0..4 {
            let x0 = _mm512_shuffle_f32x4::<0x88>(u[c], u[4 + c]);
            let x1 = _mm512_shuffle_f32x4::<0x88>(u[8 + c], u[12 + c]);
            let x2 = _mm512_shuffle_f32x4::<0xDD>(u[c], u[4 + c]);
            let x3 = _mm512_shuffle_f32x4::<0xDD>(u[8 + c], u[12 + c]);
            _mm512_storeu_ps(at.dst(i + c, j), _mm512_shuffle_f32x4::<0x88>(x0, x1));
            _mm512_storeu_ps(at.dst(i + 4 + c, j), _mm512_shuffle_f32x4::<0x88>(x2, x3));
            _mm512_storeu_ps(at.dst(i + 8 + c, j), _mm512_shuffle_f32x4::<0xDD>(x0, x1));
            _mm512_storeu_ps(at.dst(i + 12 + c, j), _mm512_shuffle_f32x4::<0xDD>(x2, x3));
        }
    }
}

/// [`tile`](super::tile) for 16-byte elements.
///
/// # Safety
///
/// AVX-512F present, and [`tile`](super::tile)'s contract.
#[cfg(avx512)]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn tile_16(at: impl At<u128>, n: (usize, usize)) {
    // SAFETY: AVX-512F present (the caller's contract); `block_16` writes one 4 x 4 block.
    unsafe { blocked::<u128, _, 4>(at, n, |at, i, j| block_16(at, i, j)) }
}

/// One 4 x 4 block of 16-byte elements, one 64-byte row per register: a round of 128-bit lane
/// shuffles pairs the halves of rows `2k` and `2k + 1`, a second one gathers each column.
///
/// # Safety
///
/// AVX-512F present; the 16 source elements readable, the 16 output slots writable.
#[cfg(avx512)]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn block_16(at: impl At<u128>, i: usize, j: usize) {
    // SAFETY: the caller's contract: rows 0..4 of 4 elements each, on both sides.
    unsafe {
        let r0 = _mm512_loadu_si512(at.src(i, j).cast());
        let r1 = _mm512_loadu_si512(at.src(i, j + 1).cast());
        let r2 = _mm512_loadu_si512(at.src(i, j + 2).cast());
        let r3 = _mm512_loadu_si512(at.src(i, j + 3).cast());
        let t0 = _mm512_shuffle_i64x2::<0x44>(r0, r1);
        let t1 = _mm512_shuffle_i64x2::<0xEE>(r0, r1);
        let t2 = _mm512_shuffle_i64x2::<0x44>(r2, r3);
        let t3 = _mm512_shuffle_i64x2::<0xEE>(r2, r3);
        _mm512_storeu_si512(at.dst(i, j).cast(), _mm512_shuffle_i64x2::<0x88>(t0, t2));
        _mm512_storeu_si512(
            at.dst(i + 1, j).cast(),
            _mm512_shuffle_i64x2::<0xDD>(t0, t2),
        );
        _mm512_storeu_si512(
            at.dst(i + 2, j).cast(),
            _mm512_shuffle_i64x2::<0x88>(t1, t3),
        );
        _mm512_storeu_si512(
            at.dst(i + 3, j).cast(),
            _mm512_shuffle_i64x2::<0xDD>(t1, t3),
        );
    }
}

/// Element by element: `*dst(i, j) = *src(i, j)` over the tile.
///
/// # Safety
///
/// [`tile`](super::tile)'s contract for the tile `at` addresses.
pub(super) unsafe fn tile_scalar<T: Copy>(at: impl At<T>, (ni, nj): (usize, usize)) {
    for i in 0..ni {
        for j in 0..nj {
            // SAFETY: `(i, j)` inside the tile.
            unsafe { *at.dst(i, j) = *at.src(i, j) };
        }
    }
}

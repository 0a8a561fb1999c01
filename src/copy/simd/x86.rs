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
//! | 8 bytes in L1 (AVX-512F) | 8 x 8 | one of unpacks, two of lanes |
//!
//! The in-L1 kernel does the lane-crossing step in the load ports (`vinsertf128` from memory)
//! instead of the shuffle port, which bounds the other kernel when the data is in L1; past L1
//! it loses, with twice the loads. Past L1, 8-byte elements take the scalar tiles, which write
//! whole output lines (BENCHMARKS.md, "The vector kernels"). The AVX-512 kernels need Rust
//! 1.89 (`cfg(avx512)`, set by `build.rs`).

use std::arch::x86_64::*;

use super::DENSE_ROW_BYTES;

/// The whole `B x B` blocks of a tile through `block(src, dst)`, in the loop order that suits
/// the output, then the edges element by element.
///
/// # Safety
///
/// [`tile`](super::tile)'s contract for `T`-sized elements; `block` must write exactly the
/// transposed `B x B` block at the pointers it is given (source rows `sq` apart, output rows
/// `dp` apart).
#[inline(always)]
unsafe fn blocked<T: Copy, const B: usize>(
    src: *const T,
    sq: isize,
    dst: *mut T,
    dp: usize,
    (ni, nj): (usize, usize),
    block: impl Fn(*const T, *mut T),
) {
    let (bi, bj) = (ni - ni % B, nj - nj % B);
    // SAFETY: the block at (i, j) lies within the tile (i + B <= ni, j + B <= nj): B source rows
    // of B contiguous elements, B output rows of B.
    let at = |i: usize, j: usize| unsafe {
        block(
            src.offset(i as isize + j as isize * sq),
            dst.add(i * dp + j),
        )
    };
    // Output rows outermost when the tile's output is dense (short output rows: whole lines
    // written at once); source rows outermost otherwise (sequential reads of the source rows).
    // BENCHMARKS.md, "The vector kernels".
    if dp * std::mem::size_of::<T>() <= DENSE_ROW_BYTES {
        for i in (0..bi).step_by(B) {
            for j in (0..bj).step_by(B) {
                at(i, j);
            }
        }
    } else {
        for j in (0..bj).step_by(B) {
            for i in (0..bi).step_by(B) {
                at(i, j);
            }
        }
    }
    // The edges, element by element.
    for j in 0..nj {
        let i0 = if j < bj { bi } else { 0 };
        for i in i0..ni {
            // SAFETY: `i < ni`, `j < nj` (the caller's contract).
            unsafe {
                let v = src.offset(i as isize + j as isize * sq).read_unaligned();
                dst.add(i * dp + j).write_unaligned(v);
            }
        }
    }
}

/// [`tile`](super::tile) for 1-byte elements.
///
/// # Safety
///
/// [`tile`](super::tile)'s contract (SSE2 is part of x86-64).
pub(super) unsafe fn tile_1(src: *const u8, sq: isize, dst: *mut u8, dp: usize, n: (usize, usize)) {
    // SAFETY: the caller's contract; `block_1` writes one 16 x 16 block.
    unsafe { blocked::<u8, 16>(src, sq, dst, dp, n, |s, d| block_1(s, sq, d, dp)) }
}

/// [`tile`](super::tile) for 2-byte elements.
///
/// # Safety
///
/// [`tile`](super::tile)'s contract (SSE2 is part of x86-64).
pub(super) unsafe fn tile_2(
    src: *const u16,
    sq: isize,
    dst: *mut u16,
    dp: usize,
    n: (usize, usize),
) {
    // SAFETY: the caller's contract; `block_2` writes one 8 x 8 block.
    unsafe { blocked::<u16, 8>(src, sq, dst, dp, n, |s, d| block_2(s, sq, d, dp)) }
}

/// [`tile`](super::tile) for 4-byte elements.
///
/// # Safety
///
/// AVX2 present, and [`tile`](super::tile)'s contract.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tile_4(
    src: *const f32,
    sq: isize,
    dst: *mut f32,
    dp: usize,
    n: (usize, usize),
) {
    // SAFETY: AVX2 present (the caller's contract); `block_4` writes one 8 x 8 block.
    unsafe { blocked::<f32, 8>(src, sq, dst, dp, n, |s, d| block_4(s, sq, d, dp)) }
}

/// [`tile`](super::tile) for 4-byte elements of a copy whose source and output fit in L1.
///
/// # Safety
///
/// AVX2 present, and [`tile`](super::tile)'s contract.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tile_4_in_l1(
    src: *const f32,
    sq: isize,
    dst: *mut f32,
    dp: usize,
    n: (usize, usize),
) {
    // SAFETY: AVX2 present (the caller's contract); `block_4_in_l1` writes one 8 x 8 block.
    unsafe { blocked::<f32, 8>(src, sq, dst, dp, n, |s, d| block_4_in_l1(s, sq, d, dp)) }
}

/// One 16 x 16 block of bytes: source rows `r` (16 contiguous elements at `src + r * sq`) to
/// output rows `c` (16 contiguous at `dst + c * dp`). Four rounds of interleaving register `k`
/// with register `k + 8` transpose 16 registers of 16 lanes.
///
/// # Safety
///
/// The 256 source bytes readable, the 256 output slots writable.
#[inline(always)]
unsafe fn block_1(src: *const u8, sq: isize, dst: *mut u8, dp: usize) {
    // SAFETY: the caller's contract: rows 0..16 of 16 bytes each, on both sides.
    unsafe {
        let mut v = [_mm_setzero_si128(); 16];
        for (r, x) in v.iter_mut().enumerate() {
            *x = _mm_loadu_si128(src.offset(r as isize * sq).cast());
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
            _mm_storeu_si128(dst.add(c * dp).cast(), *x);
        }
    }
}

/// One 8 x 8 block of 2-byte elements, as [`block_1`] with three rounds of 16-bit interleaves.
///
/// # Safety
///
/// The 64 source elements readable, the 64 output slots writable.
#[inline(always)]
unsafe fn block_2(src: *const u16, sq: isize, dst: *mut u16, dp: usize) {
    // SAFETY: the caller's contract: rows 0..8 of 8 elements each, on both sides.
    unsafe {
        let mut v = [_mm_setzero_si128(); 8];
        for (r, x) in v.iter_mut().enumerate() {
            *x = _mm_loadu_si128(src.offset(r as isize * sq).cast());
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
            _mm_storeu_si128(dst.add(c * dp).cast(), *x);
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
unsafe fn block_4(src: *const f32, sq: isize, dst: *mut f32, dp: usize) {
    // SAFETY: the caller's contract: rows 0..8 of 8 elements each, on both sides.
    unsafe {
        let r0 = _mm256_loadu_ps(src);
        let r1 = _mm256_loadu_ps(src.offset(sq));
        let r2 = _mm256_loadu_ps(src.offset(2 * sq));
        let r3 = _mm256_loadu_ps(src.offset(3 * sq));
        let r4 = _mm256_loadu_ps(src.offset(4 * sq));
        let r5 = _mm256_loadu_ps(src.offset(5 * sq));
        let r6 = _mm256_loadu_ps(src.offset(6 * sq));
        let r7 = _mm256_loadu_ps(src.offset(7 * sq));
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
        _mm256_storeu_ps(dst, _mm256_permute2f128_ps::<0x20>(u0, u4));
        _mm256_storeu_ps(dst.add(dp), _mm256_permute2f128_ps::<0x20>(u1, u5));
        _mm256_storeu_ps(dst.add(2 * dp), _mm256_permute2f128_ps::<0x20>(u2, u6));
        _mm256_storeu_ps(dst.add(3 * dp), _mm256_permute2f128_ps::<0x20>(u3, u7));
        _mm256_storeu_ps(dst.add(4 * dp), _mm256_permute2f128_ps::<0x31>(u0, u4));
        _mm256_storeu_ps(dst.add(5 * dp), _mm256_permute2f128_ps::<0x31>(u1, u5));
        _mm256_storeu_ps(dst.add(6 * dp), _mm256_permute2f128_ps::<0x31>(u2, u6));
        _mm256_storeu_ps(dst.add(7 * dp), _mm256_permute2f128_ps::<0x31>(u3, u7));
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
unsafe fn block_4_in_l1(src: *const f32, sq: isize, dst: *mut f32, dp: usize) {
    // Columns `c .. c + 4` of rows `r` (low lane) and `r + 4` (high lane).
    macro_rules! halves {
        ($r:expr, $c:expr) => {
            _mm256_insertf128_ps::<1>(
                _mm256_castps128_ps256(_mm_loadu_ps(src.offset($r * sq).add($c))),
                _mm_loadu_ps(src.offset(($r + 4) * sq).add($c)),
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
        _mm256_storeu_ps(dst, _mm256_shuffle_ps::<0x44>(u0, u2));
        _mm256_storeu_ps(dst.add(dp), _mm256_shuffle_ps::<0xEE>(u0, u2));
        _mm256_storeu_ps(dst.add(2 * dp), _mm256_shuffle_ps::<0x44>(u1, u3));
        _mm256_storeu_ps(dst.add(3 * dp), _mm256_shuffle_ps::<0xEE>(u1, u3));
        _mm256_storeu_ps(dst.add(4 * dp), _mm256_shuffle_ps::<0x44>(u4, u6));
        _mm256_storeu_ps(dst.add(5 * dp), _mm256_shuffle_ps::<0xEE>(u4, u6));
        _mm256_storeu_ps(dst.add(6 * dp), _mm256_shuffle_ps::<0x44>(u5, u7));
        _mm256_storeu_ps(dst.add(7 * dp), _mm256_shuffle_ps::<0xEE>(u5, u7));
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
pub(super) unsafe fn tile_8_in_l1(
    src: *const f64,
    sq: isize,
    dst: *mut f64,
    dp: usize,
    n: (usize, usize),
) {
    // SAFETY: AVX-512F present (the caller's contract); `block_8` writes one 8 x 8 block.
    unsafe { blocked::<f64, 8>(src, sq, dst, dp, n, |s, d| block_8(s, sq, d, dp)) }
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
unsafe fn block_8(src: *const f64, sq: isize, dst: *mut f64, dp: usize) {
    // SAFETY: the caller's contract: rows 0..8 of 8 elements each, on both sides.
    unsafe {
        let r0 = _mm512_loadu_pd(src);
        let r1 = _mm512_loadu_pd(src.offset(sq));
        let r2 = _mm512_loadu_pd(src.offset(2 * sq));
        let r3 = _mm512_loadu_pd(src.offset(3 * sq));
        let r4 = _mm512_loadu_pd(src.offset(4 * sq));
        let r5 = _mm512_loadu_pd(src.offset(5 * sq));
        let r6 = _mm512_loadu_pd(src.offset(6 * sq));
        let r7 = _mm512_loadu_pd(src.offset(7 * sq));
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
        _mm512_storeu_pd(dst, _mm512_shuffle_f64x2::<0x88>(u0, u1));
        _mm512_storeu_pd(dst.add(dp), _mm512_shuffle_f64x2::<0x88>(v0, v1));
        _mm512_storeu_pd(dst.add(2 * dp), _mm512_shuffle_f64x2::<0x88>(u2, u3));
        _mm512_storeu_pd(dst.add(3 * dp), _mm512_shuffle_f64x2::<0x88>(v2, v3));
        _mm512_storeu_pd(dst.add(4 * dp), _mm512_shuffle_f64x2::<0xDD>(u0, u1));
        _mm512_storeu_pd(dst.add(5 * dp), _mm512_shuffle_f64x2::<0xDD>(v0, v1));
        _mm512_storeu_pd(dst.add(6 * dp), _mm512_shuffle_f64x2::<0xDD>(u2, u3));
        _mm512_storeu_pd(dst.add(7 * dp), _mm512_shuffle_f64x2::<0xDD>(v2, v3));
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
pub(super) unsafe fn tile_4_wide(
    src: *const f32,
    sq: isize,
    dst: *mut f32,
    dp: usize,
    n: (usize, usize),
) {
    if !n.0.is_multiple_of(16) || !n.1.is_multiple_of(16) {
        // SAFETY: AVX-512F implies AVX2; the caller's contract.
        return unsafe { tile_4(src, sq, dst, dp, n) };
    }
    // SAFETY: AVX-512F present (the caller's contract); `block_4_avx512` writes one 16 x 16
    // block.
    unsafe { blocked::<f32, 16>(src, sq, dst, dp, n, |s, d| block_4_avx512(s, sq, d, dp)) }
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
unsafe fn block_4_avx512(src: *const f32, sq: isize, dst: *mut f32, dp: usize) {
    // SAFETY: the caller's contract: rows 0..16 of 16 elements each, on both sides.
    unsafe {
        let mut r = [_mm512_setzero_ps(); 16];
        for (k, x) in r.iter_mut().enumerate() {
            *x = _mm512_loadu_ps(src.offset(k as isize * sq));
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
            _mm512_storeu_ps(dst.add(c * dp), _mm512_shuffle_f32x4::<0x88>(x0, x1));
            _mm512_storeu_ps(dst.add((4 + c) * dp), _mm512_shuffle_f32x4::<0x88>(x2, x3));
            _mm512_storeu_ps(dst.add((8 + c) * dp), _mm512_shuffle_f32x4::<0xDD>(x0, x1));
            _mm512_storeu_ps(dst.add((12 + c) * dp), _mm512_shuffle_f32x4::<0xDD>(x2, x3));
        }
    }
}

//! The vector kernels of the conversions (AVX2, F16C, AVX-512 BF16): each converts the leading
//! whole vectors of a contiguous run and returns how many elements it did; the caller converts
//! the rest with [`Elementwise::each`](super::step::Elementwise::each), the scalar twin
//! whose bits every kernel gives.

use std::arch::x86_64::*;

use super::step::{Kernel, Step};
use super::Rows;

/// The loop of every kernel: for each of `rows.count` runs (the first at `$src` and `$dst`, the
/// next ones `rows.src` and `rows.dst` elements further), `$body` at each `$t` that starts a
/// whole vector of `$w` elements (`$t + $w <= $n`), with `$src` and `$dst` at the run's start.
/// Its value is how many elements of each run were converted. A macro, not a function taking
/// a closure, so that the body is compiled with the kernel's target features.
macro_rules! each_vector {
    ($src:ident, $dst:ident, $n:expr, $rows:expr, $w:literal, |$t:ident| $body:block) => {{
        let (rows, n): (Rows, usize) = ($rows, $n);
        for r in 0..rows.count {
            let ($src, $dst) = (
                $src.wrapping_offset(rows.src_step(r)),
                $dst.wrapping_add(r * rows.dst),
            );
            let mut $t = 0;
            while $t + $w <= n {
                $body
                $t += $w;
            }
        }
        if rows.count == 0 {
            0
        } else {
            n - n % $w
        }
    }};
}

/// The vector kernels this machine runs for a conversion, chosen once per copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vector {
    /// None: the scalar twin (conversions without a kernel, machines without the features).
    Scalar,
    /// AVX2 (with F16C for `f16`).
    Avx2,
    /// AVX-512F with AVX-512 BF16 (`f32` to `bf16`).
    #[cfg(avx512)]
    Avx512,
}

impl Vector {
    /// The kernels this machine has for `op`.
    pub(crate) fn of(op: Kernel) -> Vector {
        level(op)
    }
}

/// The kernels this machine runs for `op`.
fn level(op: Kernel) -> Vector {
    let avx2 = is_x86_feature_detected!("avx2");
    match op {
        Kernel::Each | Kernel::Same => Vector::Scalar,
        Kernel::F32ToF16 | Kernel::F16ToF32 if avx2 && is_x86_feature_detected!("f16c") => {
            Vector::Avx2
        }
        Kernel::F32ToF16 | Kernel::F16ToF32 => Vector::Scalar,
        #[cfg(avx512)]
        Kernel::F32ToBf16
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bf16") =>
        {
            Vector::Avx512
        }
        _ if avx2 => Vector::Avx2,
        _ => Vector::Scalar,
    }
}

/// Convert the leading whole vectors of each of `rows.count` runs of `n` elements (the first
/// at `src` and `dst`, the next ones `rows.src` and `rows.dst` elements further) by `step`
/// (its parameters at index `at`); returns how many elements of each run were converted.
///
/// # Safety
///
/// Each run's `n` source elements readable and `n` output slots writable, of the element
/// types `step.kernel` names, disjoint from every source element; `vector` chosen by [`level`]
/// for `step.kernel` on this machine.
pub(crate) unsafe fn run(
    vector: Vector,
    step: Step<'_>,
    at: usize,
    src: *const u8,
    dst: *mut u8,
    n: usize,
    rows: Rows,
) -> usize {
    let param = |p: &[f32]| p.get(at).copied().unwrap_or(0.0);
    let (scale, shift) = (param(step.scale), param(step.shift));
    let (s, d) = (src, dst);
    // SAFETY: the caller's contract: the types are those of the op, the features present.
    unsafe {
        match (step.kernel, vector) {
            (Kernel::Each | Kernel::Same, _) | (_, Vector::Scalar) => 0,
            #[cfg(avx512)]
            (Kernel::F32ToBf16, Vector::Avx512) => to_bf16_avx512(s.cast(), d.cast(), n, rows),
            (Kernel::F32ToBf16, _) => to_bf16(s.cast(), d.cast(), n, rows),
            (Kernel::F32ToF16, _) => to_f16(s.cast(), d.cast(), n, rows),
            (Kernel::Bf16ToF32, _) => from_bf16(s.cast(), d.cast(), n, rows),
            (Kernel::F16ToF32, _) => from_f16(s.cast(), d.cast(), n, rows),
            (Kernel::AffineU8, _) => affine_u8(s, d.cast(), n, rows, scale, shift),
            (Kernel::AffineF32, _) => affine_f32(s.cast(), d.cast(), n, rows, scale, shift),
            (Kernel::QuantizeI8, _) => quantize::<true>(s.cast(), d, n, rows, scale, shift),
            (Kernel::QuantizeU8, _) => quantize::<false>(s.cast(), d, n, rows, scale, shift),
            (Kernel::DequantizeI8, _) => dequantize::<true>(s, d.cast(), n, rows, scale, shift),
            (Kernel::DequantizeU8, _) => dequantize::<false>(s, d.cast(), n, rows, scale, shift),
        }
    }
}

/// Store 32 bytes at `dst`: with `stream`, as two streaming (non-temporal) stores where `dst`
/// is 16-byte aligned (the output is past the caches: a cached store would first read the
/// line; the copy's unit ends with a fence), a plain store otherwise.
///
/// # Safety
///
/// `dst[..32]` writable; AVX enabled by the caller.
#[inline(always)]
unsafe fn store(dst: *mut u8, v: __m256i, stream: bool) {
    // SAFETY: the caller's contract; the streaming stores only at 16-byte alignment.
    unsafe {
        if stream && dst as usize % 16 == 0 {
            _mm_stream_si128(dst.cast(), _mm256_castsi256_si128(v));
            _mm_stream_si128(dst.add(16).cast(), _mm256_extracti128_si256::<1>(v));
        } else {
            _mm256_storeu_si256(dst.cast(), v);
        }
    }
}

/// [`store`] of 16 bytes.
///
/// # Safety
///
/// `dst[..16]` writable.
#[inline(always)]
unsafe fn store_half(dst: *mut u8, v: __m128i, stream: bool) {
    // SAFETY: the caller's contract.
    unsafe {
        if stream && dst as usize % 16 == 0 {
            _mm_stream_si128(dst.cast(), v);
        } else {
            _mm_storeu_si128(dst.cast(), v);
        }
    }
}

/// `bf16` bits of 8 `f32` bit patterns in 32-bit lanes, rounded to nearest even, a NaN quieted
/// (the `half` crate's rounding, in integers).
#[inline(always)]
unsafe fn bf16_lanes(x: __m256i) -> __m256i {
    // SAFETY: AVX2, enabled by the callers.
    unsafe {
        let nan = _mm256_cmpgt_epi32(
            _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff)),
            _mm256_set1_epi32(0x7f80_0000),
        );
        let lsb = _mm256_and_si256(_mm256_srli_epi32::<16>(x), _mm256_set1_epi32(1));
        let rounded = _mm256_add_epi32(x, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb));
        let quiet = _mm256_or_si256(x, _mm256_set1_epi32(0x0040_0000));
        _mm256_srli_epi32::<16>(_mm256_blendv_epi8(rounded, quiet, nan))
    }
}

/// `f32` to `bf16`, 16 at a time.
#[target_feature(enable = "avx2")]
unsafe fn to_bf16(src: *const i32, dst: *mut u16, n: usize, rows: Rows) -> usize {
    each_vector!(src, dst, n, rows, 16, |t| {
        // SAFETY: `t + 16 <= n` (the caller's contract for `src[..n]`, `dst[..n]`).
        unsafe {
            let a = bf16_lanes(_mm256_loadu_si256(src.add(t).cast()));
            let b = bf16_lanes(_mm256_loadu_si256(src.add(t + 8).cast()));
            // The 16-bit packs interleave the 128-bit halves: put them back in order.
            let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, b));
            store(dst.add(t).cast(), packed, rows.stream);
        }
    })
}

/// `f32` to `bf16` with AVX-512 BF16's `vcvtneps2bf16`, which rounds to nearest even and
/// quiets NaNs as the `half` crate does but reads a subnormal input as 0: a vector holding one
/// takes the integer rounding instead.
#[cfg(avx512)]
#[clippy::msrv = "1.89"] // compiled only from 1.89 on (`cfg(avx512)`, from `build.rs`)
#[target_feature(enable = "avx512f,avx512bf16,avx2")]
unsafe fn to_bf16_avx512(src: *const f32, dst: *mut u16, n: usize, rows: Rows) -> usize {
    each_vector!(src, dst, n, rows, 16, |t| {
        // SAFETY: `t + 16 <= n` (the caller's contract).
        unsafe {
            let x = _mm512_loadu_ps(src.add(t));
            let bits = _mm512_castps_si512(x);
            let exp_zero = _mm512_testn_epi32_mask(bits, _mm512_set1_epi32(0x7f80_0000));
            let subnormal =
                _mm512_mask_test_epi32_mask(exp_zero, bits, _mm512_set1_epi32(0x007f_ffff));
            let out: __m256i = if subnormal == 0 {
                std::mem::transmute::<__m256bh, __m256i>(_mm512_cvtneps_pbh(x))
            } else {
                let lo = bf16_lanes(_mm256_loadu_si256(src.add(t).cast()));
                let hi = bf16_lanes(_mm256_loadu_si256(src.add(t + 8).cast()));
                _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(lo, hi))
            };
            store(dst.add(t).cast(), out, rows.stream);
        }
    })
}

/// `f32` to `f16` with F16C, rounding to nearest even (the `half` crate's result).
#[target_feature(enable = "avx2,f16c")]
unsafe fn to_f16(src: *const f32, dst: *mut u16, n: usize, rows: Rows) -> usize {
    each_vector!(src, dst, n, rows, 8, |t| {
        // SAFETY: `t + 8 <= n` (the caller's contract).
        unsafe {
            let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(src.add(t)));
            store_half(dst.add(t).cast(), h, rows.stream);
        }
    })
}

/// `bf16` to `f32`: the bits shifted up, a NaN quieted (as the `half` crate).
#[target_feature(enable = "avx2")]
unsafe fn from_bf16(src: *const u16, dst: *mut f32, n: usize, rows: Rows) -> usize {
    each_vector!(src, dst, n, rows, 8, |t| {
        // SAFETY: `t + 8 <= n` (the caller's contract).
        unsafe {
            let x = _mm256_cvtepu16_epi32(_mm_loadu_si128(src.add(t).cast()));
            let x = _mm256_slli_epi32::<16>(x);
            let nan = _mm256_cmpgt_epi32(
                _mm256_and_si256(x, _mm256_set1_epi32(0x7fff_ffff)),
                _mm256_set1_epi32(0x7f80_0000),
            );
            let x = _mm256_or_si256(x, _mm256_and_si256(nan, _mm256_set1_epi32(0x0040_0000)));
            store(dst.add(t).cast(), x, rows.stream);
        }
    })
}

/// `f16` to `f32` with F16C (exact).
#[target_feature(enable = "avx2,f16c")]
unsafe fn from_f16(src: *const u16, dst: *mut f32, n: usize, rows: Rows) -> usize {
    each_vector!(src, dst, n, rows, 8, |t| {
        // SAFETY: `t + 8 <= n` (the caller's contract).
        unsafe {
            let x = _mm256_cvtph_ps(_mm_loadu_si128(src.add(t).cast()));
            store(dst.add(t).cast(), _mm256_castps_si256(x), rows.stream);
        }
    })
}

/// `u8 as f32 * scale + shift` (a product, then a sum).
#[target_feature(enable = "avx2")]
unsafe fn affine_u8(
    src: *const u8,
    dst: *mut f32,
    n: usize,
    rows: Rows,
    scale: f32,
    shift: f32,
) -> usize {
    // SAFETY: AVX, enabled here (a safe call from Rust 1.87 on, hence the allowance).
    #[allow(unused_unsafe)]
    let (s, h) = unsafe { (_mm256_set1_ps(scale), _mm256_set1_ps(shift)) };
    each_vector!(src, dst, n, rows, 16, |t| {
        // SAFETY: `t + 16 <= n` (the caller's contract).
        unsafe {
            let bytes = _mm_loadu_si128(src.add(t).cast());
            let lo = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
            let hi = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128::<8>(bytes)));
            store(
                dst.add(t).cast(),
                _mm256_castps_si256(_mm256_add_ps(_mm256_mul_ps(lo, s), h)),
                rows.stream,
            );
            store(
                dst.add(t + 8).cast(),
                _mm256_castps_si256(_mm256_add_ps(_mm256_mul_ps(hi, s), h)),
                rows.stream,
            );
        }
    })
}

/// `f32 * scale + shift`.
#[target_feature(enable = "avx2")]
unsafe fn affine_f32(
    src: *const f32,
    dst: *mut f32,
    n: usize,
    rows: Rows,
    scale: f32,
    shift: f32,
) -> usize {
    // SAFETY: AVX, enabled here (a safe call from Rust 1.87 on, hence the allowance).
    #[allow(unused_unsafe)]
    let (s, h) = unsafe { (_mm256_set1_ps(scale), _mm256_set1_ps(shift)) };
    each_vector!(src, dst, n, rows, 8, |t| {
        // SAFETY: `t + 8 <= n` (the caller's contract).
        unsafe {
            let x = _mm256_loadu_ps(src.add(t));
            store(
                dst.add(t).cast(),
                _mm256_castps_si256(_mm256_add_ps(_mm256_mul_ps(x, s), h)),
                rows.stream,
            );
        }
    })
}

/// ONNX `QuantizeLinear` of `f32` into `i8` (`SIGNED`) or `u8`: the quotient rounded to
/// nearest even, the zero point added, `max` then `min` with the type's bounds (a NaN takes
/// the lower bound, as the scalar twin's comparisons). The division costs nothing measurable:
/// the transposing copies it runs in wait on memory (BENCHMARKS.md, "Conversions").
#[target_feature(enable = "avx2")]
unsafe fn quantize<const SIGNED: bool>(
    src: *const f32,
    dst: *mut u8,
    n: usize,
    rows: Rows,
    scale: f32,
    zero: f32,
) -> usize {
    let (lo, hi) = if SIGNED {
        (-128.0, 127.0)
    } else {
        (0.0, 255.0)
    };
    // SAFETY: AVX, enabled here (a safe call from Rust 1.87 on, hence the allowance).
    #[allow(unused_unsafe)]
    let p = unsafe {
        [
            _mm256_set1_ps(scale),
            _mm256_set1_ps(zero),
            _mm256_set1_ps(lo),
            _mm256_set1_ps(hi),
        ]
    };
    each_vector!(src, dst, n, rows, 32, |t| {
        // SAFETY: `t + 32 <= n` (the caller's contract).
        unsafe {
            let i0 = quantize_lanes(_mm256_loadu_ps(src.add(t)), p);
            let i1 = quantize_lanes(_mm256_loadu_ps(src.add(t + 8)), p);
            let i2 = quantize_lanes(_mm256_loadu_ps(src.add(t + 16)), p);
            let i3 = quantize_lanes(_mm256_loadu_ps(src.add(t + 24)), p);
            // Values in range already: the packs only narrow (lane-interleaved, then ordered).
            let w0 = _mm256_packs_epi32(i0, i1);
            let w1 = _mm256_packs_epi32(i2, i3);
            let b = if SIGNED {
                _mm256_packs_epi16(w0, w1)
            } else {
                _mm256_packus_epi16(w0, w1)
            };
            let b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            store(dst.add(t).cast(), b, rows.stream);
        }
    })
}

/// [`quantize`] of 8 lanes, with `[scale, zero, lo, hi]` in `p`: 32-bit integers in range.
#[inline(always)]
unsafe fn quantize_lanes(x: __m256, [s, z, lo, hi]: [__m256; 4]) -> __m256i {
    // SAFETY: AVX, enabled by the caller.
    unsafe {
        let v = _mm256_round_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
            _mm256_div_ps(x, s),
        );
        // `max(v, lo)` is `lo` when `v` is NaN (the second operand wins).
        let v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, z), lo), hi);
        _mm256_cvtps_epi32(v)
    }
}

/// ONNX `DequantizeLinear` of `i8` (`SIGNED`) or `u8`: `(x - zero) * scale`, the difference
/// exact in `f32`.
#[target_feature(enable = "avx2")]
unsafe fn dequantize<const SIGNED: bool>(
    src: *const u8,
    dst: *mut f32,
    n: usize,
    rows: Rows,
    scale: f32,
    zero: f32,
) -> usize {
    // SAFETY: AVX, enabled here (a safe call from Rust 1.87 on, hence the allowance).
    #[allow(unused_unsafe)]
    let (s, z) = unsafe { (_mm256_set1_ps(scale), _mm256_set1_ps(zero)) };
    each_vector!(src, dst, n, rows, 8, |t| {
        // SAFETY: `t + 8 <= n` (the caller's contract).
        unsafe {
            let bytes = _mm_loadl_epi64(src.add(t).cast());
            let wide = if SIGNED {
                _mm256_cvtepi8_epi32(bytes)
            } else {
                _mm256_cvtepu8_epi32(bytes)
            };
            let x = _mm256_sub_ps(_mm256_cvtepi32_ps(wide), z);
            store(
                dst.add(t).cast(),
                _mm256_castps_si256(_mm256_mul_ps(x, s)),
                rows.stream,
            );
        }
    })
}

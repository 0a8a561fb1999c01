//! Register-blocked transposes of plain-data elements: a tile of the blocked copy (see
//! [`Tiles`](super::kernels::Tiles)) moved through vector registers in 8 x 8 blocks of 4-byte
//! elements, with AVX2 chosen at run time. Elements are moved as bits (any plain type of that
//! size), so the results are the scalar kernel's bit for bit; the scalar kernel is the twin
//! that Miri, other element sizes and other machines run. (A 4 x 4 kernel for 8-byte elements
//! measured slower than the scalar tiles on large transposes: BENCHMARKS.md, "Peers".)

/// An element type whose clone is a copy of its bits: the primitive numbers, `bool`, `char`.
/// Recognized by name because stable Rust cannot ask whether a generic type is `Copy`; any
/// other type (including `Copy` structs) takes the generic path, which is correct for all.
/// (`reshape_copy_into`, whose elements are `Copy`, passes `plain = true` itself.)
#[inline]
pub(super) fn plain_by_name<A>() -> bool {
    matches!(
        std::any::type_name::<A>(),
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
    )
}

/// Output rows of at most this many bytes make a tile's output dense: its blocks then run output
/// row by output row (BENCHMARKS.md, "Peers").
pub(super) const DENSE_ROW_BYTES: usize = 1024;

/// Whether this machine runs the AVX2 kernels (never under Miri, which runs the scalar twin).
#[inline]
pub(super) fn avx2() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use std::sync::atomic::{AtomicU8, Ordering};
        static DETECTED: AtomicU8 = AtomicU8::new(0);
        match DETECTED.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => {
                let yes = std::arch::is_x86_feature_detected!("avx2");
                DETECTED.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
                yes
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        false
    }
}

/// `dst[i * dp + j] = src[i + j * sq]` for `i < ni`, `j < nj`, for elements of `size` bytes
/// (strides in elements): the tile kernel with the input contiguous along `i`. Returns `false`,
/// having written nothing, when no vector kernel handles `size` on this machine.
///
/// # Safety
///
/// Every source element `src + i + j * sq` must be readable, every destination slot
/// `dst + i * dp + j` writable and disjoint from the source, for `i < ni`, `j < nj`; the
/// elements must be plain data of `size` bytes (their bits are their value).
#[inline]
pub(super) unsafe fn tile(
    size: usize,
    src: *const u8,
    sq: isize,
    dst: *mut u8,
    dp: usize,
    ni: usize,
    nj: usize,
) -> bool {
    if !avx2() {
        return false;
    }
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if size == 4 {
            // SAFETY: AVX2 is present (checked above); the caller's contract for the tile,
            // whose elements are 4 bytes of plain data.
            unsafe { x86::tile_4(src.cast(), sq, dst.cast(), dp, ni, nj) };
            return true;
        }
    }
    let _ = (size, src, sq, dst, dp, ni, nj);
    false
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86 {
    use std::arch::x86_64::*;

    use super::DENSE_ROW_BYTES;

    /// [`tile`](super::tile) for 4-byte elements (moved as `f32` lanes, bits unchanged).
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
        ni: usize,
        nj: usize,
    ) {
        let (bi, bj) = (ni - ni % 8, nj - nj % 8);
        let block = |i: usize, j: usize| {
            // SAFETY: the 8 x 8 block at (i, j) lies within the tile (i + 8 <= ni,
            // j + 8 <= nj): 8 source rows of 8 contiguous elements, 8 output rows of 8.
            unsafe {
                block_4(
                    src.offset(i as isize + j as isize * sq),
                    sq,
                    dst.add(i * dp + j),
                    dp,
                )
            }
        };
        // Output rows outermost when the tile's output is dense (short output rows: whole
        // lines written at once); source rows outermost otherwise (sequential reads of the
        // source rows). BENCHMARKS.md, "Peers".
        if dp * 4 <= DENSE_ROW_BYTES {
            for i in (0..bi).step_by(8) {
                for j in (0..bj).step_by(8) {
                    block(i, j);
                }
            }
        } else {
            for j in (0..bj).step_by(8) {
                for i in (0..bi).step_by(8) {
                    block(i, j);
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

    /// One 8 x 8 block: source rows `r` (8 contiguous elements along `i` at `src + r * sq`) to
    /// output rows `c` (8 contiguous along `j` at `dst + c * dp`).
    ///
    /// # Safety
    ///
    /// AVX2 present; the 64 source elements readable, the 64 output slots writable.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn block_4(src: *const f32, sq: isize, dst: *mut f32, dp: usize) {
        // SAFETY: the caller's contract: rows 0..8 of 8 elements each.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector kernels against the definition, for every block remainder along both axes,
    /// padded strides on both sides, and both element sizes.
    fn exact<T: Copy + PartialEq + std::fmt::Debug + From<u16>>() {
        let size = std::mem::size_of::<T>();
        for ni in [1, 3, 4, 7, 8, 9, 16, 17, 31] {
            for (nj, pad) in [1, 2, 5, 8, 12, 15, 16, 33]
                .into_iter()
                .flat_map(|n| [(n, 5), (n, 1100)])
            {
                // Padded output rows: within a page (output rows outermost) or beyond (source
                // rows outermost).
                let (sq, dp) = (ni as isize + 3, nj + pad);
                let src: Vec<T> = (0..(sq as usize) * nj).map(|v| T::from(v as u16)).collect();
                let fill = T::from(u16::MAX);
                let mut dst = vec![fill; dp * ni];
                // SAFETY: the tile lies inside both buffers; `T` is plain data.
                let done = unsafe {
                    tile(
                        size,
                        src.as_ptr().cast(),
                        sq,
                        dst.as_mut_ptr().cast(),
                        dp,
                        ni,
                        nj,
                    )
                };
                if !done {
                    assert!(!avx2(), "a vector kernel exists for {size}-byte elements");
                    return;
                }
                for i in 0..ni {
                    for j in 0..dp {
                        let want = if j < nj {
                            src[i + j * sq as usize]
                        } else {
                            fill
                        };
                        assert_eq!(
                            dst[i * dp + j],
                            want,
                            "{size} bytes, {ni}x{nj} at ({i}, {j})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn four_byte_tiles_are_exact() {
        exact::<u32>();
        exact::<f32>();
    }

    #[test]
    fn other_sizes_take_the_scalar_path() {
        for size in [1, 2, 8, 16] {
            // SAFETY: a zero-sized tile touches nothing.
            let done = unsafe { tile(size, std::ptr::null(), 1, std::ptr::null_mut(), 1, 0, 0) };
            assert!(!done);
        }
    }

    #[test]
    fn primitives_are_plain_by_name() {
        assert!(plain_by_name::<f32>() && plain_by_name::<u8>() && plain_by_name::<char>());
        assert!(!plain_by_name::<String>() && !plain_by_name::<(u8, u8)>());
    }
}

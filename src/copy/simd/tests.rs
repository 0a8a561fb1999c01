//! The vector kernels, the strips and the reversed rows against their definitions and
//! their scalar twins.

use super::*;

/// The strip loop (the scalar twin, and the x86 kernel: AVX2 where the machine has it) against
/// the definition: every element size and group, lengths around the vector widths, rows
/// padded apart; untouched slots keep their values.
#[test]
fn strips_are_exact() {
    fn one<T: Copy + PartialEq + std::fmt::Debug, const K: usize>(of: fn(usize) -> T) {
        let lens: &[usize] = if cfg!(miri) {
            &[0, 1, 17]
        } else {
            &[0, 1, 7, 31, 32, 33, 100, 257]
        };
        for &n in lens {
            let d = n + 5;
            let grouped: Vec<T> = (0..n * K).map(of).collect();
            let rows: Vec<T> = (0..K * d).map(of).collect();
            let blank = of(usize::MAX);
            // Split: grouped -> rows; merge: rows -> grouped.
            let mut split = vec![blank; K * d];
            let mut merged = vec![blank; n * K];
            // SAFETY: `n * K` grouped elements and `K` rows of `n` at `d >= n` apart, in
            // separate buffers.
            unsafe {
                strip_loop::<T, K, true>(grouped.as_ptr(), split.as_mut_ptr(), d, n);
                strip_loop::<T, K, false>(rows.as_ptr(), merged.as_mut_ptr(), d, n);
            }
            for c in 0..K {
                for j in 0..d {
                    let want = if j < n { grouped[j * K + c] } else { blank };
                    assert_eq!(split[c * d + j], want, "split K {K} n {n} c {c} j {j}");
                }
                for j in 0..n {
                    assert_eq!(merged[j * K + c], rows[c * d + j], "merge K {K} n {n}");
                }
            }
            // The strip kernels this machine has, through `tile` as the copies call them: the
            // split (`K` rows of `n`, `K` apart, into rows of `d`) and the merge back.
            let size = std::mem::size_of::<T>();
            let through_tile = |src: &[T], sp: usize, dp: usize, (ni, nj), want: &[T]| {
                let Some(k) = strip(size, (ni, nj), sp as isize, dp) else {
                    return;
                };
                let mut out = vec![blank; want.len()];
                // SAFETY: as above; `T` of 1 or 2 bytes, plain; the geometry `strip` chose.
                unsafe {
                    let (src, dst) = (src.as_ptr().cast(), out.as_mut_ptr().cast());
                    tile(k, src, sp as isize, dst, dp, ni, nj);
                }
                assert_eq!(out, want, "{k:?}, K {K} n {n}");
            };
            through_tile(&grouped, K, d, (K, n), &split);
            through_tile(&rows, d, K, (n, K), &merged);
        }
    }
    one::<u8, 2>(|i| i as u8);
    one::<u8, 3>(|i| i as u8);
    one::<u8, 4>(|i| i as u8);
    one::<u16, 2>(|i| i as u16);
    one::<u16, 3>(|i| i as u16);
    one::<u16, 4>(|i| i as u16);
}

/// The reversed streaming copy against its scalar twin: every element size (1 to 16 bytes,
/// 3 and 12 without a vector kernel), lengths around the 16-byte blocks, outputs at every
/// alignment (aligned to the element or not), distinct bytes, untouched bytes kept.
#[test]
fn reversed_rows_are_exact() {
    for size in [1, 2, 3, 4, 8, 12, 16] {
        for n in [0, 1, 2, 3, 7, 8, 15, 16, 17, 33, 100] {
            for shift in 0..16 {
                let src: Vec<u8> = (0..n * size + 32).map(|v| (v * 7 % 251) as u8).collect();
                let (mut want, mut got) = (vec![255u8; n * size + 32], vec![255u8; n * size + 32]);
                // The row's element 0 at its highest address, `size` bytes from the top.
                let top = 16 + (n.max(1) - 1) * size;
                // SAFETY: the row lies in `src` (16 bytes below it to spare), the outputs
                // hold `shift + n * size` bytes; bytes are plain.
                unsafe {
                    reversed_scalar(src.as_ptr().add(top), want.as_mut_ptr().add(shift), n, size);
                    stream_reversed(src.as_ptr().add(top), got.as_mut_ptr().add(shift), n, size);
                }
                fence();
                assert_eq!(got, want, "size {size}, n {n}, shift {shift}");
                for t in 0..n {
                    let (out, at) = (shift + t * size, top - t * size);
                    assert_eq!(want[out..out + size], src[at..at + size], "{size} {n} {t}");
                }
            }
        }
    }
}

/// A vector kernel against the definition, for every block
/// remainder along both axes and padded strides on both sides, on byte buffers (so every
/// bit pattern, NaN payloads included, and unaligned elements). Every source byte is a
/// value below 255 and every untouched output byte stays 255.
fn exact(kernel: Kernel, size: usize) {
    for ni in [1, 3, 4, 7, 8, 9, 16, 17, 31, 33] {
        for (nj, pad) in [1, 2, 5, 8, 12, 15, 16, 33]
            .into_iter()
            .flat_map(|n| [(n, 5), (n, 1100)])
        {
            // Padded output rows: within a page (output rows outermost) or beyond (source
            // rows outermost). One byte of offset makes every element unaligned.
            let (sq, dp) = (ni + 3, nj + pad);
            let src: Vec<u8> = (0..1 + sq * nj * size)
                .map(|v| (v.wrapping_mul(2_654_435_761) >> 7) as u8 % 255)
                .collect();
            let mut dst = vec![255u8; 1 + dp * ni * size];
            // SAFETY: the tile lies inside both buffers; bytes are plain data.
            unsafe {
                tile(
                    kernel,
                    src.as_ptr().add(1),
                    sq as isize,
                    dst.as_mut_ptr().add(1),
                    dp,
                    ni,
                    nj,
                )
            };
            let elem = |buf: &[u8], k: usize| buf[1 + k * size..1 + (k + 1) * size].to_vec();
            assert_eq!(dst[0], 255);
            for i in 0..ni {
                for j in 0..dp {
                    let want = if j < nj {
                        elem(&src, i + j * sq)
                    } else {
                        vec![255; size]
                    };
                    assert_eq!(
                        elem(&dst, i * dp + j),
                        want,
                        "{kernel:?}, {ni}x{nj} at ({i}, {j})"
                    );
                }
            }
        }
    }
}

#[test]
fn every_kernel_is_exact() {
    let mut kernels = Vec::new();
    for size in 0..=32 {
        // Every size a chooser's threshold sits between (x86's in-L1 bounds are 24 and 32 KiB).
        for bytes in [
            16 << 10,
            24 << 10,
            (24 << 10) + 1,
            32 << 10,
            (32 << 10) + 1,
            1 << 30,
        ] {
            for stride in [1000, 2048, 4096] {
                if let Some(k) = kernel(size, bytes, stride, 4096) {
                    if !kernels.contains(&(k, size)) {
                        kernels.push((k, size));
                    }
                }
            }
        }
    }
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SSE2 is part of x86-64; this machine's CI runner has AVX2.
        assert!(kernels.len() >= 2, "{kernels:?}");
        if std::arch::is_x86_feature_detected!("avx2") {
            assert!(kernels.len() >= 4, "{kernels:?}");
        }
    }
    for (k, size) in kernels {
        exact(k, size);
    }
}

/// Every kernel of [`tile_tabled`] against the definition, with source rows and output
/// rows at shuffled offsets (descending, with gaps), every block remainder, unaligned.
#[test]
fn every_tabled_kernel_is_exact() {
    let mut ran = 0;
    for size in [1, 2, 4, 8, 16] {
        let Some(kernel) = kernel_tabled(size) else {
            continue;
        };
        ran += 1;
        for ni in [1, 4, 15, 16, 17, 33] {
            for nj in [1, 3, 8, 16, 20, 33] {
                // Row `j` of the source at offset `(nj - 1 - j) * (ni + 3)`, output row `i`
                // at `(ni - 1 - i) * (nj + 5)` (in elements).
                let in_q: Vec<isize> = (0..nj)
                    .map(|j| ((nj - 1 - j) * (ni + 3)) as isize)
                    .collect();
                let out_p: Vec<usize> = (0..ni).map(|i| (ni - 1 - i) * (nj + 5)).collect();
                let src: Vec<u8> = (0..1 + nj * (ni + 3) * size)
                    .map(|v| (v.wrapping_mul(2_654_435_761) >> 7) as u8 % 255)
                    .collect();
                let mut dst = vec![255u8; 1 + ni * (nj + 5) * size];
                // SAFETY: every row lies inside its buffer; bytes are plain data.
                unsafe {
                    tile_tabled(
                        kernel,
                        src.as_ptr().add(1),
                        &in_q,
                        dst.as_mut_ptr().add(1),
                        &out_p,
                    )
                };
                let elem = |buf: &[u8], k: usize| buf[1 + k * size..1 + (k + 1) * size].to_vec();
                let mut want = vec![255u8; dst.len()];
                for (i, &o) in out_p.iter().enumerate() {
                    for (j, &s) in in_q.iter().enumerate() {
                        let k = o + j;
                        want[1 + k * size..1 + (k + 1) * size]
                            .copy_from_slice(&elem(&src, s as usize + i));
                    }
                }
                assert_eq!(dst, want, "{kernel:?}, {ni}x{nj}");
            }
        }
    }
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    assert!(ran >= 2, "SSE2 is part of x86-64");
    let _ = ran;
}

/// [`stream`] for every length up to 200 bytes at every alignment of the output, the bytes
/// around it untouched.
#[test]
#[cfg_attr(miri, ignore)] // a plain copy there
fn stream_copies_every_length_and_alignment() {
    let src: Vec<u8> = (0..256).map(|v| (v * 7 % 251) as u8).collect();
    for at in 0..16 {
        for n in 0..200 {
            let mut dst = vec![255u8; 256];
            // SAFETY: `n + at` is within both buffers; they are distinct.
            unsafe { stream(src.as_ptr().add(3), dst.as_mut_ptr().add(at), n) };
            fence();
            assert_eq!(&dst[at..at + n], &src[3..3 + n], "{n} bytes at {at}");
            assert!(dst[..at].iter().chain(&dst[at + n..]).all(|&b| b == 255));
        }
    }
}

#[test]
fn primitives_and_their_arrays_are_plain_by_name() {
    assert!(plain_by_name::<f32>() && plain_by_name::<u8>() && plain_by_name::<char>());
    assert!(plain_by_name::<[u8; 4]>() && plain_by_name::<[[f32; 2]; 3]>());
    // Padding, or possibly padding, or not plain data at all.
    assert!(!plain_by_name::<(u8, u16)>() && !plain_by_name::<[(u8, u16); 2]>());
    assert!(!plain_by_name::<String>() && !plain_by_name::<[String; 2]>());
    // ndarray's complex numbers of a number, and arrays of them.
    assert!(plain_by_name::<num_complex::Complex<f64>>());
    assert!(plain_by_name::<[num_complex::Complex<i16>; 2]>());
    assert!(!plain_by_name::<num_complex::Complex<bool>>());
    assert!(!plain_by_name::<num_complex::Complex<String>>());
    assert!(!plain_by_name::<std::num::Wrapping<u8>>() && !plain_by_name::<()>());
}

/// A type of the user's is plain once declared, by name, size and alignment.
#[test]
fn declared_types_are_plain() {
    #[derive(Clone, Copy)]
    #[repr(C)]
    #[allow(dead_code)] // only its layout matters
    struct Pair(u16, u16);
    // SAFETY: two `u16`, `repr(C)`: no padding.
    unsafe impl super::PlainData for Pair {}
    #[derive(Clone, Copy)]
    #[allow(dead_code)]
    struct Other(u16, u16);
    assert!(!plain_by_name::<Pair>());
    <Pair as super::PlainData>::declare();
    assert!(plain_by_name::<Pair>() && plain_by_name::<[Pair; 3]>());
    assert!(!plain_by_name::<Other>());
}

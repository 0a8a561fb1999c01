//! The strip loop of the copy engine (`src/copy/simd/mod.rs`, `strip_loop`; copied here, the
//! crate keeps it private) on the 1.2 MB of an (8, 224, 224, 3) `u8` image batch, HWC to CHW
//! and back, compiled for the baseline instruction set (the scalar twin) and with AVX2 (what
//! the engine runs where the machine has it), against the element-by-element copy of the
//! element tiles. GB/s counts every byte read once and written once; five rounds of 50
//! copies, each round's figure printed.
//!
//! `cargo run --release -p ndarray_reshape_bench --bin strip_loops`

use std::hint::black_box;
use std::time::Instant;

/// `dst[c * d + j] = src[j * 3 + c]` (split) or `dst[j * 3 + c] = src[c * d + j]` (merge).
#[inline(always)]
fn strip<const SPLIT: bool>(src: &[u8], dst: &mut [u8], d: usize, n: usize) {
    const K: usize = 3;
    if SPLIT {
        let (a, rest) = dst.split_at_mut(d);
        let (b, c) = rest.split_at_mut(d);
        let mut rows: [&mut [u8]; 3] = [&mut a[..n], &mut b[..n], &mut c[..n]];
        for (j, group) in src[..n * K].chunks_exact(K).enumerate() {
            for (row, &x) in rows.iter_mut().zip(group) {
                row[j] = x;
            }
        }
    } else {
        let rows: [&[u8]; 3] = [&src[..n], &src[d..d + n], &src[2 * d..2 * d + n]];
        for (j, group) in dst[..n * K].chunks_exact_mut(K).enumerate() {
            for (x, row) in group.iter_mut().zip(&rows) {
                *x = row[j];
            }
        }
    }
}

#[target_feature(enable = "avx2")]
fn strip_avx2<const SPLIT: bool>(src: &[u8], dst: &mut [u8], d: usize, n: usize) {
    strip::<SPLIT>(src, dst, d, n);
}

/// Element by element through indices, as the scalar tiles copy.
#[inline(never)]
fn elements(
    src: &[u8],
    dst: &mut [u8],
    (sp, sq): (usize, usize),
    dp: usize,
    (ni, nj): (usize, usize),
) {
    for i in 0..ni {
        for j in 0..nj {
            dst[i * dp + j] = src[i * sp + j * sq];
        }
    }
}

fn main() {
    let (batch, pixels) = (8, 224 * 224);
    let image = batch * pixels * 3;
    let hwc: Vec<u8> = (0..image).map(|i| (i * 7 % 251) as u8).collect();
    let mut chw = vec![0u8; image];
    let mut back = vec![0u8; image];
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    type Run<'a> = (&'a str, Box<dyn Fn(&[u8], &mut [u8]) + 'a>);
    let runs: Vec<Run<'_>> = vec![
        (
            "HWC to CHW, element by element",
            Box::new(|s, d| {
                for b in 0..batch {
                    let at = b * pixels * 3;
                    elements(&s[at..], &mut d[at..], (1, 3), pixels, (3, pixels));
                }
            }),
        ),
        (
            "HWC to CHW, strip loop (baseline)",
            Box::new(|s, d| {
                for b in 0..batch {
                    let at = b * pixels * 3;
                    strip::<true>(
                        &s[at..at + 3 * pixels],
                        &mut d[at..at + 3 * pixels],
                        pixels,
                        pixels,
                    );
                }
            }),
        ),
        (
            "HWC to CHW, strip loop (AVX2)",
            Box::new(move |s, d| {
                for b in 0..batch {
                    let at = b * pixels * 3;
                    // SAFETY: AVX2 is on this machine (checked before the run).
                    unsafe {
                        strip_avx2::<true>(
                            &s[at..at + 3 * pixels],
                            &mut d[at..at + 3 * pixels],
                            pixels,
                            pixels,
                        )
                    };
                }
            }),
        ),
        (
            "CHW to HWC, element by element",
            Box::new(|s, d| {
                for b in 0..batch {
                    let at = b * pixels * 3;
                    elements(&s[at..], &mut d[at..], (1, pixels), 3, (pixels, 3));
                }
            }),
        ),
        (
            "CHW to HWC, strip loop (baseline)",
            Box::new(|s, d| {
                for b in 0..batch {
                    let at = b * pixels * 3;
                    strip::<false>(
                        &s[at..at + 3 * pixels],
                        &mut d[at..at + 3 * pixels],
                        pixels,
                        pixels,
                    );
                }
            }),
        ),
        (
            "CHW to HWC, strip loop (AVX2)",
            Box::new(move |s, d| {
                for b in 0..batch {
                    let at = b * pixels * 3;
                    // SAFETY: AVX2 is on this machine (checked before the run).
                    unsafe {
                        strip_avx2::<false>(
                            &s[at..at + 3 * pixels],
                            &mut d[at..at + 3 * pixels],
                            pixels,
                            pixels,
                        )
                    };
                }
            }),
        ),
    ];
    for (name, run) in &runs {
        if name.contains("AVX2") && !avx2 {
            println!("{name}: no AVX2 on this machine");
            continue;
        }
        // Checked: HWC to CHW and back gives the input.
        let (src, dst) = if name.starts_with("HWC") {
            (&hwc, &mut chw)
        } else {
            (&chw, &mut back)
        };
        let src = src.clone();
        run(&src, dst);
        let mut rounds = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            for _ in 0..50 {
                run(black_box(&src), black_box(&mut *dst));
            }
            rounds.push(2.0 * image as f64 * 50.0 / t.elapsed().as_secs_f64() / 1e9);
        }
        let shown: Vec<String> = rounds.iter().map(|g| format!("{g:.1}")).collect();
        println!("{name}: {} GB/s", shown.join(", "));
    }
    assert_eq!(back, hwc, "HWC to CHW and back");
}

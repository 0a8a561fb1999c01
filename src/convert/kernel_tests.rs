//! Every vector kernel of the conversions against [`Conversion::convert`], its definition, bit
//! for bit, through the copy engine's runs.

use super::{Affine, Cast, Conversion, Dequantize, Map, Quantize};
use crate::copy::convert::tests::{batched, runs};
use crate::copy::convert::Vector;
#[cfg(feature = "half")]
use crate::copy::Kernel;
use crate::test_rng::Rng;

/// `f32` bit patterns that find the edges: zeros, subnormals, the rounding ties of `bf16` and
/// `f16`, the largest finite values, infinities, quiet and signalling NaNs, and random bits.
fn edge_floats(n: usize) -> Vec<f32> {
    let mut v: Vec<u32> = vec![
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x0000_8000,
        0x0001_8000,
        0x0080_0000,
        0x3f80_8000,
        0x3f81_8000,
        0x3f80_8001,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0xff80_0001,
        0x7fbf_ffff,
        0x3380_0000,
        0x3300_0000,
        0x477f_f000,
        0x477f_e000,
        0x3880_0000,
        0x3870_0000,
        0x3f00_1000,
    ];
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    while v.len() < n {
        let x = r.next();
        // Half of them near 1 and near the f16 range, half any bits.
        v.push(match x % 4 {
            0 => x as u32,
            1 => 0x3f80_0000 | (x as u32 & 0x007f_ffff),
            2 => (0x3300_0000 + (x as u32 % 0x1600_0000)) | ((x >> 40) as u32 & 0x8000_0000),
            _ => (x >> 32) as u32 & 0x807f_ffff,
        });
    }
    v.into_iter().map(f32::from_bits).collect()
}

/// Every vector kernel against its scalar twin, bit for bit, on every run length up to 70
/// and every offset into the source (unaligned loads), one run at a time and in batches of
/// runs with streaming stores.
fn twins<A: Copy, B: Default + Clone + Copy, C: Conversion<A, B>>(
    conv: &C,
    src: &[A],
    params: Option<(usize, usize)>,
    bits: impl Fn(B) -> u64,
) {
    let vector = Vector::of(conv.step().kernel);
    for start in 0..8.min(src.len()) {
        for len in (0..70).chain([src.len() - start]) {
            let s = &src[start..(start + len).min(src.len())];
            let want: Vec<u64> = runs(conv, Vector::Scalar, params, s, 3)
                .into_iter()
                .map(&bits)
                .collect();
            let got: Vec<u64> = runs(conv, vector, params, s, 3)
                .into_iter()
                .map(&bits)
                .collect();
            assert_eq!(got, want, "{:?} at {start}, {len}", conv.step().kernel);
        }
    }
    if params.is_some() {
        return;
    }
    // Three runs of `n`, `n + 5` apart, from offsets 0 to 3 (output slots then unaligned too).
    for start in 0..4 {
        for n in [1, 15, 16, 33, 64, 100] {
            let (rows, step) = (3, n + 5);
            if start + 2 * step + n > src.len() {
                continue;
            }
            let s = &src[start..];
            let got: Vec<u64> = batched(conv, vector, s, (rows, n, step))
                .into_iter()
                .map(&bits)
                .collect();
            let want: Vec<u64> = (0..rows)
                .flat_map(|r| runs(conv, Vector::Scalar, None, &s[r * step..r * step + n], 0))
                .map(&bits)
                .collect();
            assert_eq!(
                got,
                want,
                "{:?} batched at {start}, {n}",
                conv.step().kernel
            );
        }
    }
}

#[test]
#[cfg_attr(miri, ignore)] // no vector kernels under Miri: the twins are the scalar code itself
fn vector_kernels_match_their_scalar_twins() {
    let f = edge_floats(4096);
    twins(&Affine::new(0.3, -1.7).unwrap(), &f, None, |v: f32| {
        v.to_bits().into()
    });
    let per = Affine::per_axis(0, vec![0.5, 3.0, -2.0], vec![1.0, 0.25, 7.0]).unwrap();
    twins(&per, &f, Some((5, 3)), |v: f32| v.to_bits().into());
    let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 37 % 256) as u8).collect();
    twins(
        &Affine::new(1.0 / 255.0, -0.485).unwrap(),
        &bytes,
        None,
        |v: f32| v.to_bits().into(),
    );
    let scaled: Vec<f32> = f
        .iter()
        .map(|v| v * 1e-37)
        .chain(f.iter().copied())
        .collect();
    twins(
        &Quantize::<i8>::new(0.02, -3).unwrap(),
        &scaled,
        None,
        |v: i8| v as u64,
    );
    twins(
        &Quantize::<u8>::new(0.7, 128).unwrap(),
        &scaled,
        None,
        |v: u8| v.into(),
    );
    let qi: Vec<i8> = bytes.iter().map(|&b| b as i8).collect();
    twins(
        &Dequantize::<i8>::new(0.13, -7).unwrap(),
        &qi,
        None,
        |v: f32| v.to_bits().into(),
    );
    twins(
        &Dequantize::<u8>::new(3.5, 200).unwrap(),
        &bytes,
        None,
        |v: f32| v.to_bits().into(),
    );
    twins(&Map(|v: &u8| u32::from(*v) * 3), &bytes, None, u64::from);
    twins(&Cast, &bytes, None, |v: f32| v.to_bits().into());
    // A type to itself: bits copied, streamed in the batches.
    twins(&Cast, &f, None, |v: f32| v.to_bits().into());
}

#[cfg(feature = "half")]
#[test]
#[cfg_attr(miri, ignore)]
fn half_kernels_match_their_twins_and_the_software_rounding() {
    use half::{bf16, f16};
    let f = edge_floats(1 << 15);
    twins::<f32, bf16, _>(&Cast, &f, None, |v| v.to_bits().into());
    twins::<f32, f16, _>(&Cast, &f, None, |v| v.to_bits().into());
    // Against the `half` crate's software rounding (its `const` functions), which the
    // hardware paths of `half` and of the kernels must both equal.
    let b = runs::<f32, bf16, _>(&Cast, Vector::of(Kernel::F32ToBf16), None, &f, 0);
    let h = runs::<f32, f16, _>(&Cast, Vector::of(Kernel::F32ToF16), None, &f, 0);
    for (i, &x) in f.iter().enumerate() {
        assert_eq!(
            b[i].to_bits(),
            bf16::from_f32_const(x).to_bits(),
            "bf16 of {:#x}",
            x.to_bits()
        );
        assert_eq!(
            h[i].to_bits(),
            f16::from_f32_const(x).to_bits(),
            "f16 of {:#x}",
            x.to_bits()
        );
    }
    let all16: Vec<u16> = (0..=u16::MAX).collect();
    let bs: Vec<bf16> = all16.iter().map(|&v| bf16::from_bits(v)).collect();
    let hs: Vec<f16> = all16.iter().map(|&v| f16::from_bits(v)).collect();
    twins::<bf16, f32, _>(&Cast, &bs, None, |v| v.to_bits().into());
    twins::<f16, f32, _>(&Cast, &hs, None, |v| v.to_bits().into());
    let back = runs::<f16, f32, _>(&Cast, Vector::of(Kernel::F16ToF32), None, &hs, 0);
    let back_b = runs::<bf16, f32, _>(&Cast, Vector::of(Kernel::Bf16ToF32), None, &bs, 0);
    for i in 0..all16.len() {
        assert_eq!(
            back[i].to_bits(),
            hs[i].to_f32_const().to_bits(),
            "f16 {:#x}",
            all16[i]
        );
        assert_eq!(
            back_b[i].to_bits(),
            bs[i].to_f32_const().to_bits(),
            "bf16 {:#x}",
            all16[i]
        );
    }
}

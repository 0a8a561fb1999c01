#![no_main]
//! Fuzz the converting copies: a view of rank 0 to 8 (lengths, a permutation, steps, flips and
//! a broadcast axis from the input) of arbitrary bits, read in C or F order and converted by one
//! of the conversions (casts to and from `bf16`/`f16`, saturating casts, quantization per
//! tensor or per axis with arbitrary scales and zero points, dequantization, affine steps,
//! a closure), through `convert_with`, `convert_into` and `StridedSlice::convert_to_vec`; and
//! blocked layouts packed and unpacked. Every result must equal the view read index by index
//! and converted by `Conversion::convert`, bit for bit, or be the error the parameters call
//! for; nothing may panic.

use arbitrary::{Result, Unstructured};
use half::{bf16, f16};
use ndarray::{Array, ArrayD, ArrayViewD, Axis, Dimension, IxDyn, Slice};
use ndarray_reshape::convert::{
    Affine, Blocked, Cast, Conversion, Dequantize, Map, Quantize, Saturate,
};
use ndarray_reshape::{Np, Order, ReshapeExt, StridedSlice};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = one(&mut u);
});

/// An array of arbitrary values of `T` (from the input's bytes) and a view of it: lengths,
/// a permutation, steps and flips, and sometimes a broadcast axis.
fn array<T: Clone>(
    u: &mut Unstructured<'_>,
    of: impl Fn(u32) -> T,
) -> Result<(ArrayD<T>, Vec<usize>)> {
    let rank = u.int_in_range(0usize..=8)?;
    let mut shape = Vec::with_capacity(rank);
    let mut n = 1usize;
    for _ in 0..rank {
        let most = if rank > 3 { 5 } else { 70 };
        let d = u.int_in_range(0usize..=most)?.min((1 << 15) / n.max(1));
        n *= d.max(1);
        shape.push(d);
    }
    let count: usize = shape.iter().product();
    let mut values = Vec::with_capacity(count);
    for _ in 0..count {
        values.push(of(u.arbitrary::<u32>().unwrap_or(0)));
    }
    let a = Array::from_shape_vec(IxDyn(&shape), values).unwrap();
    let mut perm: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        perm.swap(i, u.int_in_range(0..=i)?);
    }
    Ok((a, perm))
}

fn shaped<'a, T>(
    u: &mut Unstructured<'_>,
    a: &'a ArrayD<T>,
    perm: &[usize],
) -> Result<ArrayViewD<'a, T>> {
    let mut v = a.view().permuted_axes(IxDyn(perm));
    for k in 0..v.ndim() {
        match u.int_in_range(0u8..=4)? {
            0 => v.invert_axis(Axis(k)),
            1 if v.shape()[k] > 2 => v.slice_axis_inplace(Axis(k), Slice::new(0, None, 2)),
            2 if v.shape()[k] > 3 => v.slice_axis_inplace(Axis(k), Slice::new(1, None, -3)),
            _ => {}
        }
    }
    Ok(v)
}

/// The view read index by index (C, or F), each element converted at its index along the
/// conversion's axis.
fn reference<A, B, C: Conversion<A, B>>(v: &ArrayViewD<'_, A>, f: bool, conv: &C) -> Vec<B> {
    let axis = conv.axis().map(|(a, _)| a);
    let mut out = Vec::with_capacity(v.len());
    let read = if f { v.t() } else { v.view() };
    for (i, a) in read.indexed_iter() {
        // An axis the view does not have: the copies refuse it, the value is not compared.
        let i = i.slice();
        let k = axis.map(|k| {
            if f {
                v.ndim().wrapping_sub(1).wrapping_sub(k)
            } else {
                k
            }
        });
        let at = k.and_then(|k| i.get(k).copied()).unwrap_or(0);
        out.push(conv.convert(a, at));
    }
    out
}

fn check<A, B, C>(
    u: &mut Unstructured<'_>,
    v: &ArrayViewD<'_, A>,
    conv: &C,
    bits: impl Fn(&B) -> u64,
) -> Result<()>
where
    A: Clone + Send + Sync,
    B: Copy + Send + Sync + Default,
    C: Conversion<A, B>,
{
    let f = u.arbitrary::<bool>()?;
    let order = if f { Order::F } else { Order::C };
    let fits = conv
        .axis()
        .map_or(true, |(a, n)| v.shape().get(a) == Some(&n));
    let want = reference(v, f, conv);
    let want_bits: Vec<u64> = want.iter().map(&bits).collect();
    // Flattened: one output axis, whose index is the position in the reading order.
    let flat_fits = conv.axis().map_or(true, |(a, n)| a == 0 && v.len() == n);
    match v.convert_with(Np::new([-1], order), conv) {
        Ok(g) => {
            assert!(flat_fits);
            let read = if f { v.t() } else { v.view() };
            let along = conv.axis().is_some();
            let flat: Vec<u64> = read
                .iter()
                .enumerate()
                .map(|(p, a)| bits(&conv.convert(a, if along { p } else { 0 })))
                .collect();
            assert_eq!(g.iter().map(&bits).collect::<Vec<_>>(), flat);
        }
        Err(e) => assert!(!flat_fits && e.category() == "conversion_axis", "{e}"),
    }
    let same: Vec<i64> = v.shape().iter().map(|&d| d as i64).collect();
    let mut buf = vec![B::default(); v.len()];
    match v.convert_into(Np::new(same, order), conv, &mut buf) {
        Ok(_) => {
            assert!(fits);
            assert_eq!(buf.iter().map(&bits).collect::<Vec<_>>(), want_bits);
        }
        Err(e) => assert!(!fits && e.category() == "conversion_axis", "{e}"),
    }
    Ok(())
}

/// The plain-slice door on the view's own memory: `a` (C-contiguous) and the view's strides
/// and offset.
fn check_slice<A, B, C>(a: &ArrayD<A>, v: &ArrayViewD<'_, A>, conv: &C, bits: impl Fn(&B) -> u64)
where
    A: Clone + Send + Sync,
    B: Clone + Send + Sync,
    C: Conversion<A, B>,
{
    let Some(data) = a.as_slice() else { return };
    let size = std::mem::size_of::<A>().max(1);
    let offset = (v.as_ptr() as usize).wrapping_sub(a.as_ptr() as usize) / size;
    let strides: Vec<isize> = v.strides().to_vec();
    let Ok(s) = StridedSlice::new(data, v.shape(), &strides, offset) else {
        // Only an empty view may sit at an offset past the data (its pointer is not read).
        assert_eq!(v.len(), 0);
        return;
    };
    let fits = conv
        .axis()
        .map_or(true, |(k, n)| v.shape().get(k) == Some(&n));
    match s.convert_to_vec(Order::C, conv) {
        Ok(got) => {
            assert!(fits);
            let want: Vec<u64> = reference(v, false, conv).iter().map(&bits).collect();
            assert_eq!(got.iter().map(&bits).collect::<Vec<_>>(), want);
        }
        Err(e) => assert!(!fits && e.category() == "conversion_axis", "{e}"),
    }
}

fn params(u: &mut Unstructured<'_>, v_shape: &[usize]) -> Result<(usize, usize)> {
    // Mostly an axis of the view and its length; now and then neither.
    let axis = u.int_in_range(0usize..=v_shape.len())?;
    let n = match (v_shape.get(axis), u.ratio(7u8, 8)?) {
        (Some(&d), true) => d,
        _ => u.int_in_range(0usize..=9)?,
    };
    Ok((axis, n))
}

fn one(u: &mut Unstructured<'_>) -> Result<()> {
    match u.int_in_range(0u8..=9)? {
        0..=1 => {
            let (a, perm) = array(u, f32::from_bits)?;
            let v = shaped(u, &a, &perm)?;
            check(u, &v, &Cast, |b: &bf16| b.to_bits().into())?;
            check(u, &v, &Cast, |b: &f16| b.to_bits().into())?;
            check(u, &v, &Saturate, |b: &i8| *b as u64)?;
            check(u, &v, &Cast, |b: &f32| b.to_bits().into())?;
            check_slice(&a, &v, &Cast, |b: &bf16| b.to_bits().into());
        }
        2 => {
            let (a, perm) = array(u, |b| bf16::from_bits(b as u16))?;
            let v = shaped(u, &a, &perm)?;
            check(u, &v, &Cast, |b: &f32| b.to_bits().into())?;
            let (a, perm) = array(u, |b| f16::from_bits(b as u16))?;
            let v = shaped(u, &a, &perm)?;
            check(u, &v, &Cast, |b: &f32| b.to_bits().into())?;
        }
        3..=4 => {
            let (a, perm) = array(u, |b| f32::from_bits(b) * 1e-30)?;
            let v = shaped(u, &a, &perm)?;
            let (axis, n) = params(u, v.shape())?;
            let scale: Vec<f32> = (0..n)
                .map(|_| u.arbitrary::<f32>().unwrap_or(1.0))
                .collect();
            let zero: Vec<i8> = (0..n).map(|_| u.arbitrary::<i8>().unwrap_or(0)).collect();
            match Quantize::per_axis(axis, scale.clone(), zero) {
                Ok(q) => check(u, &v, &q, |b: &i8| *b as u64)?,
                Err(e) => assert!(scale.iter().any(|s| !s.is_finite() || *s == 0.0), "{e}"),
            }
            if let (Some(&s), true) = (scale.first(), u.arbitrary::<bool>()?) {
                if let Ok(q) = Quantize::<u8>::new(s, u.arbitrary()?) {
                    check(u, &v, &q, |b: &u8| u64::from(*b))?;
                }
            }
        }
        5..=6 => {
            let (a, perm) = array(u, |b| b as u8)?;
            let v = shaped(u, &a, &perm)?;
            let (axis, n) = params(u, v.shape())?;
            let scale: Vec<f32> = (0..n)
                .map(|_| u.arbitrary::<f32>().unwrap_or(1.0))
                .collect();
            let shift: Vec<f32> = (0..n)
                .map(|_| u.arbitrary::<f32>().unwrap_or(0.0))
                .collect();
            // Scales of 0 or not finite, and shifts not finite, are refused.
            let fine = scale.iter().all(|s| s.is_finite() && *s != 0.0)
                && shift.iter().all(|s| s.is_finite());
            match Affine::per_axis(axis, scale.clone(), shift) {
                Ok(affine) => {
                    assert!(fine, "degenerate affine parameters accepted");
                    check(u, &v, &affine, |b: &f32| b.to_bits().into())?;
                    check_slice(&a, &v, &affine, |b: &f32| b.to_bits().into());
                }
                Err(e) => assert!(!fine && e.category() == "conversion_axis", "{e}"),
            }
            if let Some(&s) = scale.first() {
                if let Ok(d) = Dequantize::<u8>::new(s, u.arbitrary()?) {
                    check(u, &v, &d, |b: &f32| b.to_bits().into())?;
                }
            }
            check(u, &v, &Map(|x: &u8| u32::from(*x) * 3 + 1), |b: &u32| {
                u64::from(*b)
            })?;
        }
        7 => {
            let (a, perm) = array(u, |b| b as i8)?;
            let v = shaped(u, &a, &perm)?;
            if let Ok(d) = Dequantize::<i8>::new(u.arbitrary()?, u.arbitrary()?) {
                check(u, &v, &d, |b: &f32| b.to_bits().into())?;
            }
            check(u, &v, &Saturate, |b: &u8| u64::from(*b))?;
        }
        _ => blocked(u)?,
    }
    Ok(())
}

/// A blocked layout of a random shape, block and channel axis, packed from a view and
/// unpacked back: the padding holds the fill, the rest the input.
fn blocked(u: &mut Unstructured<'_>) -> Result<()> {
    let (a, perm) = array(u, |b| (b % 1000) as f32)?;
    let v = shaped(u, &a, &perm)?;
    let block = u.int_in_range(0usize..=20)?;
    let axis = u.int_in_range(0usize..=v.ndim())?;
    let Ok(b) = Blocked::new(block) else {
        assert_eq!(block, 0);
        return Ok(());
    };
    let b = b.axis(axis);
    let packed = b.pack(&v, &Cast, -1.0f32);
    let Ok(packed) = packed else {
        assert!(axis >= v.ndim(), "{:?}", packed.err());
        return Ok(());
    };
    let c = v.shape()[axis];
    for (i, &x) in packed.indexed_iter() {
        let i = i.slice();
        let ch = i[axis] * block + i[i.len() - 1];
        let mut at: Vec<usize> = i[..i.len() - 1].to_vec();
        at[axis] = ch;
        let want = if ch < c { v[IxDyn(&at)] } else { -1.0 };
        assert_eq!(x.to_bits(), want.to_bits());
    }
    let back: ArrayD<f32> = b.unpack(&packed, c, &Cast).unwrap();
    assert_eq!(back, v);
    Ok(())
}

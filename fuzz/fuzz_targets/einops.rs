#![no_main]
//! Fuzz einops beyond `rearrange`: `reduce` of a pattern built from the fuzzer's bytes (each
//! dim split into named factors, some kept in any order, unit axes sprinkled) on a strided
//! view (permuted, stepped, reversed), every reduction, against a fold of every element into
//! its output; `pack` of arrays of random ranks against `concatenate`, and `unpack` of the
//! result back to views equal to the inputs; and raw bytes as `reduce`, `pack`, `unpack` and
//! `parse_shape` patterns. Asserts that nothing panics, that results equal the references,
//! and that `Reduce::infer_shape` agrees with the array method.

use arbitrary::{Result, Unstructured};
use ndarray::{Array, ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use ndarray_reshape::{pack, parse_shape, Reduce, Reduction, ReshapeExt};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = one(&mut u);
});

fn name(i: usize) -> String {
    format!("a{i}")
}

fn reduce_case(u: &mut Unstructured<'_>) -> Result<()> {
    let rank = u.int_in_range(0usize..=4)?;
    let mut factors: Vec<Vec<usize>> = Vec::new();
    for _ in 0..rank {
        let parts = u.int_in_range(1usize..=2)?;
        factors.push(
            (0..parts)
                .map(|_| u.int_in_range(1usize..=3))
                .collect::<Result<_>>()?,
        );
    }
    let shape: Vec<usize> = factors.iter().map(|f| f.iter().product()).collect();
    let n: usize = factors.iter().map(Vec::len).sum();
    let mut kept: Vec<usize> = (0..n)
        .filter(|_| u.ratio(1u8, 2).unwrap_or(false))
        .collect();
    for i in (1..kept.len()).rev() {
        kept.swap(i, u.int_in_range(0..=i)?);
    }
    let mut k = 0;
    let left: Vec<String> = factors
        .iter()
        .map(|f| {
            let names: Vec<String> = f
                .iter()
                .map(|_| {
                    k += 1;
                    name(k - 1)
                })
                .collect();
            match names.len() {
                1 => names[0].clone(),
                _ => format!("({})", names.join(" ")),
            }
        })
        .collect();
    let mut right: Vec<String> = kept.iter().map(|&i| name(i)).collect();
    if u.ratio(1u8, 4)? {
        right.insert(u.int_in_range(0..=right.len())?, "()".into());
    }
    let pattern = format!("{} -> {}", left.join(" "), right.join(" "));
    // A strided input: the values in a larger array, its axes permuted, stepped or reversed.
    let mut perm: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        perm.swap(i, u.int_in_range(0..=i)?);
    }
    let steps: Vec<isize> = (0..rank)
        .map(|_| u.choose(&[1isize, 1, -1, 2]).copied())
        .collect::<Result<_>>()?;
    let big_shape: Vec<usize> = (0..rank)
        .map(|j| shape[perm[j]] * steps[j].unsigned_abs())
        .collect();
    let mut big = ArrayD::from_elem(IxDyn(&big_shape), -1i64);
    let mut v = big.view_mut();
    for (j, &s) in steps.iter().enumerate() {
        v.slice_axis_inplace(Axis(j), Slice::new(0, None, s));
    }
    let mut inv = vec![0; rank];
    for (j, &p) in perm.iter().enumerate() {
        inv[p] = j;
    }
    let mut x = v.permuted_axes(IxDyn(&inv));
    let len: usize = shape.iter().product();
    let values = Array::from_iter((0..len as i64).map(|v| v % 7 - 3))
        .into_shape_with_order(IxDyn(&shape))
        .unwrap();
    x.assign(&values);
    let x = x.view();
    let split: Vec<usize> = factors.iter().flatten().copied().collect();
    let flat = values
        .as_standard_layout()
        .into_owned()
        .into_shape_with_order(IxDyn(&split))
        .unwrap();
    for r in [
        Reduction::Sum,
        Reduction::Prod,
        Reduction::Max,
        Reduction::Min,
    ] {
        let mut spec = Reduce::new(&pattern, r).expect("a built pattern parses");
        let mut k = 0;
        for f in &factors {
            for (j, &len) in f.iter().enumerate() {
                if j > 0 {
                    spec = spec.axis(&name(k), len);
                }
                k += 1;
            }
        }
        let got = x.reduce_with(&spec).expect("a built pattern applies");
        // The reference: fold every element into its output, kept axes in `kept`'s order.
        let out_shape: Vec<usize> = kept.iter().map(|&i| split[i]).collect();
        let (init, f): (i64, fn(i64, i64) -> i64) = match r {
            Reduction::Sum => (0, |a, b| a.wrapping_add(b)),
            Reduction::Prod => (1, |a, b| a.wrapping_mul(b)),
            Reduction::Max => (i64::MIN, |a, b| a.max(b)),
            _ => (i64::MAX, |a, b| a.min(b)),
        };
        let mut want = Array::from_elem(IxDyn(&out_shape), init);
        for (idx, &v) in flat.indexed_iter() {
            let o: Vec<usize> = kept.iter().map(|&i| idx[i]).collect();
            let slot = &mut want[IxDyn(&o)];
            *slot = f(*slot, v);
        }
        let got_values: Vec<i64> = got.iter().copied().collect();
        let want_values: Vec<i64> = want.iter().copied().collect();
        assert_eq!(got_values, want_values, "{pattern} {r}");
        assert_eq!(
            spec.infer_shape(x.shape()).unwrap(),
            got.shape(),
            "{pattern}"
        );
    }
    Ok(())
}

fn pack_case(u: &mut Unstructured<'_>) -> Result<()> {
    let before = u.int_in_range(0usize..=2)?;
    let after = u.int_in_range(0usize..=2)?;
    let fixed: Vec<usize> = (0..before + after)
        .map(|_| u.int_in_range(0usize..=3))
        .collect::<Result<_>>()?;
    let count = u.int_in_range(1usize..=4)?;
    let mut arrays = Vec::new();
    let mut starts = Vec::new();
    for i in 0..count {
        let stars: Vec<usize> = (0..u.int_in_range(0usize..=2)?)
            .map(|_| u.int_in_range(0usize..=3))
            .collect::<Result<_>>()?;
        starts.push(stars.clone());
        let mut shape = fixed[..before].to_vec();
        shape.extend(&stars);
        shape.extend(&fixed[before..]);
        let len: usize = shape.iter().product();
        let a = Array::from_iter((0..len as i64).map(|v| v + 1000 * i as i64))
            .into_shape_with_order(IxDyn(&shape))
            .unwrap();
        arrays.push(a);
    }
    let mut names: Vec<String> = (0..before).map(name).collect();
    names.push("*".into());
    names.extend((before..before + after).map(name));
    let pattern = names.join(" ");
    let mut views: Vec<ArrayViewD<'_, i64>> = arrays.iter().map(|a| a.view()).collect();
    for v in &mut views {
        if v.ndim() > 0 && u.ratio(1u8, 3)? {
            v.invert_axis(Axis(0));
        }
    }
    let (p, ps) = pack(&views, &pattern).expect("a built pack applies");
    assert_eq!(ps, starts);
    // The reference: each array with its `*` dims flattened (C order), concatenated.
    let flat: Vec<ArrayD<i64>> = views
        .iter()
        .zip(&starts)
        .map(|(v, s)| {
            let mut shape = fixed[..before].to_vec();
            shape.push(s.iter().product());
            shape.extend(&fixed[before..]);
            v.as_standard_layout()
                .into_owned()
                .into_shape_with_order(IxDyn(&shape))
                .unwrap()
        })
        .collect();
    let flat_views: Vec<ArrayViewD<'_, i64>> = flat.iter().map(|a| a.view()).collect();
    let want = ndarray::concatenate(Axis(before), &flat_views).unwrap();
    assert_eq!(p, want, "{pattern}");
    let parts = p
        .unpack(&pattern, &ps)
        .expect("its own packed shapes unpack");
    for (part, v) in parts.iter().zip(&views) {
        assert_eq!(part, v, "{pattern}");
    }
    Ok(())
}

fn one(u: &mut Unstructured<'_>) -> Result<()> {
    match u.int_in_range(0u8..=4)? {
        0 => {
            // Raw bytes as patterns: an error or a result, never a panic.
            let text: String = u.arbitrary()?;
            let x = Array::from_iter(0..24i64)
                .into_shape_with_order(IxDyn(&[2, 3, 4]))
                .unwrap();
            let r = *u.choose(&Reduction::ALL)?;
            let _ = x.reduce(&text, r, &[("a", 2)]);
            let _ = x.mapv(|v| v as f64).reduce(&text, r, &[]);
            let _ = pack(&[x.view(), x.view()], &text);
            let shapes: Vec<Vec<i64>> = u.arbitrary()?;
            let _ = x.unpack(&text, &shapes);
            let dims: Vec<usize> = u.arbitrary()?;
            let _ = parse_shape(&dims, &text);
            let _ = Reduce::new(&text, r).map(|s| s.infer_shape(&dims));
            Ok(())
        }
        1 | 2 => reduce_case(u),
        _ => pack_case(u),
    }
}

#![no_main]
//! Fuzz einops patterns: a pattern built from the fuzzer's bytes for a random input shape (each
//! dim split into named factors, the factors permuted, merged into groups, unit axes and, for
//! `repeat`, new axes added; sometimes the raw bytes as a pattern) on a strided view of a small
//! array (permuted, stepped, reversed). Asserts that nothing panics, that a success equals the
//! reshape-transpose-reshape chain built from ndarray calls, that `is_view()` agrees with the
//! strict `reshape_view`, and that `infer_shape` agrees with the array method.

use arbitrary::{Result, Unstructured};
use ndarray::{Array, ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use ndarray_reshape::{Rearrange, ReshapeExt, ShapeSpec};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = one(&mut u);
});

/// A pattern with what it means: the factors of each input dim (in order), the order of the
/// factors on the right (indices into the flattened factors; new axes after them), the
/// grouping of that order into output dims, and the lengths of the new axes.
struct Case {
    shape: Vec<usize>,
    factors: Vec<Vec<usize>>,
    order: Vec<usize>,
    groups: Vec<usize>,
    new: Vec<usize>,
}

fn name(i: usize) -> String {
    format!("a{i}")
}

fn case(u: &mut Unstructured<'_>) -> Result<Case> {
    let rank = u.int_in_range(0usize..=4)?;
    let mut shape = Vec::new();
    let mut factors = Vec::new();
    for _ in 0..rank {
        let parts = u.int_in_range(1usize..=3)?;
        let f: Vec<usize> = (0..parts)
            .map(|_| u.int_in_range(1usize..=3))
            .collect::<Result<_>>()?;
        shape.push(f.iter().product());
        factors.push(f);
    }
    let n: usize = factors.iter().map(Vec::len).sum();
    let new: Vec<usize> = (0..u.int_in_range(0usize..=2)?)
        .map(|_| u.int_in_range(0usize..=3))
        .collect::<Result<_>>()?;
    let mut order: Vec<usize> = (0..n + new.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, u.int_in_range(0..=i)?);
    }
    let mut groups = Vec::new();
    let mut left = order.len();
    while left > 0 {
        let g = u.int_in_range(1..=left.min(3))?;
        groups.push(g);
        left -= g;
    }
    Ok(Case {
        shape,
        factors,
        order,
        groups,
        new,
    })
}

impl Case {
    fn pattern(&self) -> String {
        let mut k = 0;
        let mut left = Vec::new();
        for f in &self.factors {
            let names: Vec<String> = f
                .iter()
                .map(|_| {
                    k += 1;
                    name(k - 1)
                })
                .collect();
            left.push(match names.len() {
                1 => names[0].clone(),
                _ => format!("({})", names.join(" ")),
            });
        }
        let mut right = Vec::new();
        let mut at = 0;
        for &g in &self.groups {
            let names: Vec<String> = self.order[at..at + g].iter().map(|&i| name(i)).collect();
            at += g;
            right.push(match names.len() {
                1 => names[0].clone(),
                _ => format!("({})", names.join(" ")),
            });
        }
        format!("{} -> {}", left.join(" "), right.join(" "))
    }

    fn spec(&self) -> Rearrange {
        let n: usize = self.factors.iter().map(Vec::len).sum();
        let mut r = match self.new.is_empty() {
            true => Rearrange::new(&self.pattern()),
            false => Rearrange::repeat(&self.pattern()),
        }
        .expect("a built pattern parses");
        let mut k = 0;
        for f in &self.factors {
            // Every factor but the first of a group given: one is inferred.
            for (j, &len) in f.iter().enumerate() {
                if j > 0 {
                    r = r.axis(&name(k), len);
                }
                k += 1;
            }
        }
        for (j, &len) in self.new.iter().enumerate() {
            r = r.axis(&name(n + j), len);
        }
        r
    }

    /// The chain einops runs: reshape to the factors, transpose, broadcast the new axes,
    /// reshape to the output, each a C-order copy.
    fn reference(&self, x: &ArrayViewD<'_, i64>) -> ArrayD<i64> {
        let split: Vec<usize> = self.factors.iter().flatten().copied().collect();
        let n = split.len();
        let a = x
            .as_standard_layout()
            .into_owned()
            .into_shape_with_order(IxDyn(&split))
            .unwrap();
        let kept: Vec<usize> = self.order.iter().copied().filter(|&i| i < n).collect();
        let mut b = a
            .permuted_axes(IxDyn(&kept))
            .as_standard_layout()
            .into_owned();
        let mut full: Vec<usize> = Vec::new();
        for (pos, &i) in self.order.iter().enumerate() {
            if i >= n {
                b.insert_axis_inplace(Axis(pos));
            }
            full.push(if i < n { split[i] } else { self.new[i - n] });
        }
        let c = b.broadcast(IxDyn(&full)).unwrap().to_owned();
        let mut out = Vec::new();
        let mut at = 0;
        for &g in &self.groups {
            out.push(full[at..at + g].iter().product());
            at += g;
        }
        c.into_shape_with_order(IxDyn(&out)).unwrap()
    }
}

fn one(u: &mut Unstructured<'_>) -> Result<()> {
    if u.ratio(1u8, 8)? {
        // Raw bytes as a pattern: an error or a result, never a panic.
        let text: String = u.arbitrary()?;
        let x = Array::from_iter(0..24i64)
            .into_shape_with_order(IxDyn(&[2, 3, 4]))
            .unwrap();
        let _ = x.rearrange(&text, &[("a", 2)]);
        let _ = x.repeat(&text, &[("b", 3)]);
        return Ok(());
    }
    let c = case(u)?;
    let len: usize = c.shape.iter().product();
    // A strided input: the values in a larger array, its axes permuted, stepped or reversed.
    let rank = c.shape.len();
    let mut perm: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        perm.swap(i, u.int_in_range(0..=i)?);
    }
    let steps: Vec<isize> = (0..rank)
        .map(|_| u.choose(&[1isize, 1, -1, 2]))
        .map(|s| s.copied())
        .collect::<Result<_>>()?;
    let big_shape: Vec<usize> = (0..rank)
        .map(|j| c.shape[perm[j]] * steps[j].unsigned_abs())
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
    let values = Array::from_iter(0..len as i64)
        .into_shape_with_order(IxDyn(&c.shape))
        .unwrap();
    x.assign(&values);
    let x = x.view();
    let spec = c.spec();
    let want = c.reference(&x);
    let got = x.reshape_with(&spec).expect("a built pattern applies");
    assert_eq!(got, want, "{spec}");
    assert_eq!(spec.infer_shape(x.shape()).unwrap(), want.shape());
    assert_eq!(got.is_view(), x.reshape_view(&spec).is_ok(), "{spec}");
    Ok(())
}

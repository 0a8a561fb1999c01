#![no_main]
//! Fuzz `StridedSlice`, the copy engine over a plain slice: a buffer of 0 to 64 K elements, a
//! shape of rank 0 to 9 (the walk, rows, tiles, grouped tiles and the parallel split), strides
//! of either sign, zero and extreme, and an offset, mostly near views that fit, some anywhere.
//! `new` must accept exactly the views whose every reachable index is inside the buffer (the
//! reference reads the view's corners), and each copy, `to_vec` and `copy_into` in C, F and A
//! order on elements of 1, 2, 4 and 8 bytes and a `Clone`-only `String`, must equal the view
//! read index by index.

use arbitrary::{Result, Unstructured};
use ndarray_reshape::{Order, StridedSlice};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = one(&mut u);
});

struct View {
    len: usize,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
}

fn view(u: &mut Unstructured<'_>) -> Result<View> {
    let rank = u.int_in_range(0usize..=9)?;
    let mut shape = Vec::with_capacity(rank);
    let mut n = 1usize;
    for _ in 0..rank {
        let d = match u.int_in_range(0u8..=15)? {
            0 => u.arbitrary::<usize>()?,
            1 => 0,
            2..=4 => u.int_in_range(17usize..=600)?,
            _ => u.int_in_range(1usize..=16)?,
        };
        // Mostly views of at most 64 K elements; a huge dim now and then (an error or empty).
        let d = if d > 600 {
            d
        } else {
            d.min((1 << 16) / n.max(1)).max(usize::from(d == 0))
        };
        n = n.saturating_mul(d);
        shape.push(d);
    }
    let mut strides = Vec::with_capacity(rank);
    for k in 0..rank {
        let s = match u.int_in_range(0u8..=11)? {
            0 => u.arbitrary::<isize>()?,
            1 => *u.choose(&[isize::MIN, isize::MAX, 0])?,
            2 => 0,
            // Packed: the product of the later dims, so that most views are dense.
            3..=7 => shape[k + 1..]
                .iter()
                .try_fold(1isize, |p, &d| p.checked_mul(d as isize))
                .unwrap_or(1),
            _ => u.int_in_range(-70isize..=70)?,
        };
        strides.push(if u.ratio(1u8, 4)? {
            s.wrapping_neg()
        } else {
            s
        });
    }
    if u.ratio(1u8, 16)? && rank > 0 {
        strides.pop();
    }
    // The span below and above element [0, ...]: a buffer and offset that hold it, mostly.
    let (mut below, mut above) = (0i128, 0i128);
    for (&d, &s) in shape.iter().zip(&strides) {
        let span = (d as i128 - 1).max(0) * s as i128;
        if span < 0 {
            below = below.saturating_sub(span)
        } else {
            above = above.saturating_add(span)
        }
    }
    let fits = u.ratio(3u8, 4)?;
    let (len, offset) = if fits && below.saturating_add(above) < 1 << 16 {
        let slack = u.int_in_range(0usize..=5)?;
        let offset = below as usize + u.int_in_range(0usize..=slack)?;
        (
            offset + above as usize + 1 + u.int_in_range(0usize..=slack)?,
            offset,
        )
    } else {
        (
            u.int_in_range(0usize..=1 << 16)?,
            u.arbitrary::<usize>()? % (1 << 17),
        )
    };
    Ok(View {
        len,
        shape,
        strides,
        offset,
    })
}

/// Whether the view can be read from a buffer of `len`: the rank matches, and it is empty, or
/// its element count fits `isize` and every corner's index is in `0..len`.
fn valid(v: &View) -> bool {
    if v.strides.len() != v.shape.len() {
        return false;
    }
    // Every empty view is valid, whatever its other dims.
    if v.shape.contains(&0) {
        return true;
    }
    let count = v.shape.iter().try_fold(1usize, |p, &d| p.checked_mul(d));
    if count.is_none_or(|p| p > isize::MAX as usize) {
        return false;
    }
    let rank = v.shape.len();
    // The corners of the view, at most 2^9.
    (0u32..1 << rank).all(|corner| {
        let at = v.shape.iter().zip(&v.strides).enumerate().fold(
            v.offset as i128,
            |at, (k, (&d, &s))| {
                if corner >> k & 1 == 1 {
                    at.saturating_add((d as i128 - 1) * s as i128)
                } else {
                    at
                }
            },
        );
        (0..v.len as i128).contains(&at)
    })
}

/// The view read index by index, the last (C) or the first (F) axis fastest.
fn reference<T: Clone>(data: &[T], v: &View, f: bool) -> Vec<T> {
    // An empty view may have other dims whose product passes `usize`.
    let n: usize = match v.shape.contains(&0) {
        true => 0,
        false => v.shape.iter().product(),
    };
    let rank = v.shape.len();
    let mut idx = vec![0usize; rank];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let at = idx
            .iter()
            .zip(&v.strides)
            .fold(v.offset as isize, |a, (&i, &s)| a + i as isize * s);
        out.push(data[usize::try_from(at).unwrap()].clone());
        for j in 0..rank {
            let k = if f { j } else { rank - 1 - j };
            idx[k] += 1;
            if idx[k] < v.shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    out
}

fn one(u: &mut Unstructured<'_>) -> Result<()> {
    let v = view(u)?;
    let order = *u.choose(&[Order::C, Order::F, Order::A])?;
    match u.int_in_range(0u8..=4)? {
        0 => check::<u8>(&v, order, |i| i as u8),
        1 => check::<u16>(&v, order, |i| i as u16),
        2 => check::<u32>(&v, order, |i| i as u32),
        3 => check::<u64>(&v, order, |i| i as u64),
        _ => check_clone(&v, order),
    }
    Ok(())
}

/// The order `order` reads the view in: `A` is F when the view is F-contiguous and not
/// C-contiguous.
fn f_order(v: &View, order: Order) -> bool {
    use ndarray_reshape::layout::resolve_order;
    resolve_order(&v.shape, &v.strides, order) == Order::F
}

fn check<T: Copy + Send + Sync + PartialEq + std::fmt::Debug>(
    v: &View,
    order: Order,
    of: fn(usize) -> T,
) {
    let data: Vec<T> = (0..v.len).map(of).collect();
    let view = StridedSlice::new(&data, &v.shape, &v.strides, v.offset);
    assert_eq!(
        view.is_ok(),
        valid(v),
        "{:?} {:?} {} of {}: {view:?}",
        v.shape,
        v.strides,
        v.offset,
        v.len
    );
    let Ok(view) = view else { return };
    // A valid view of many elements repeats few (zero strides): checked, not copied.
    if view.len() > 1 << 18 {
        return;
    }
    let want = reference(&data, v, f_order(v, order));
    assert_eq!(view.len(), want.len());
    assert_eq!(view.to_vec(order).unwrap(), want);
    let mut out = vec![of(7); want.len()];
    view.copy_into(order, &mut out).unwrap();
    assert_eq!(out, want);
    let mut short = vec![of(7); want.len().saturating_sub(1)];
    if !want.is_empty() {
        assert_eq!(
            view.copy_into(order, &mut short).unwrap_err().category(),
            "output_length"
        );
    }
}

fn check_clone(v: &View, order: Order) {
    // Strings are slow to build: a smaller buffer.
    if v.len > 1 << 12 {
        return;
    }
    let data: Vec<String> = (0..v.len).map(|i| i.to_string()).collect();
    let view = StridedSlice::new(&data, &v.shape, &v.strides, v.offset);
    assert_eq!(view.is_ok(), valid(v));
    if let Some(view) = view.ok().filter(|v| v.len() <= 1 << 12) {
        assert_eq!(
            view.to_vec(order).unwrap(),
            reference(&data, v, f_order(v, order))
        );
    }
}

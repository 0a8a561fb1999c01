#![no_main]
//! Fuzz the copy engine on permutes: a C-contiguous tensor of rank 1 to 8 (axes of 1 to 16,
//! up to 64 K elements, so the walk, rows, tiles and grouped tiles and the parallel split are
//! all reached), its axes permuted, some reversed or stepped, copied with `to_layout` in C or
//! F order and, for `Copy` types, `to_layout_into` and `reshape_copy_into`, on elements of 1,
//! 2, 3, 4, 8 and 16 bytes and a `Clone`-only `String`. Every copy is checked against the
//! input read in the order.

mod common;

use arbitrary::{Result, Unstructured};
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use ndarray_reshape::{Np, Order, ReshapeExt};

use common::Elem;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = one(&mut u);
});

/// A permute: the input's shape, the permutation, and per axis of the result a step
/// (negative: reversed).
struct Permute {
    shape: Vec<usize>,
    perm: Vec<usize>,
    steps: Vec<isize>,
}

impl Permute {
    fn arbitrary(u: &mut Unstructured<'_>) -> Result<Permute> {
        let rank = u.int_in_range(1usize..=8)?;
        let mut shape = Vec::with_capacity(rank);
        let mut len = 1usize;
        for _ in 0..rank {
            // Mostly short axes (the grouped tiles' case), some long ones.
            let d = match u.int_in_range(0u8..=7)? {
                0 => u.int_in_range(17usize..=300)?,
                _ => u.int_in_range(1usize..=16)?,
            };
            let d = d.min((1 << 16) / len).max(1);
            len *= d;
            shape.push(d);
        }
        let mut perm: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            perm.swap(i, u.int_in_range(0..=i)?);
        }
        let mut steps = Vec::with_capacity(rank);
        for _ in 0..rank {
            steps.push(*u.choose(&[1isize, 1, 1, 1, -1, 2, -3])?);
        }
        Ok(Permute { shape, perm, steps })
    }

    fn view<'a, T>(&self, base: &'a ArrayD<T>) -> ArrayViewD<'a, T> {
        let mut v = base.view().permuted_axes(IxDyn(&self.perm));
        for (k, &s) in self.steps.iter().enumerate() {
            v.slice_axis_inplace(Axis(k), Slice::new(0, None, s));
        }
        v
    }
}

fn one(u: &mut Unstructured<'_>) -> Result<()> {
    let p = Permute::arbitrary(u)?;
    let order = *u.choose(&[Order::C, Order::F])?;
    match u.int_in_range(0u8..=6)? {
        0 => check_copy::<u8>(&p, order),
        1 => check_copy::<u16>(&p, order),
        2 => check_copy::<[u8; 3]>(&p, order),
        3 => check_copy::<u32>(&p, order),
        4 => check_copy::<u64>(&p, order),
        5 => check_copy::<u128>(&p, order),
        _ => drop(check_clone::<String>(&p, order)),
    }
    Ok(())
}

fn base<T: Elem>(p: &Permute) -> ArrayD<T> {
    let n = p.shape.iter().product();
    ArrayD::from_shape_vec(IxDyn(&p.shape), (0..n).map(T::of).collect()).unwrap()
}

fn read<T: Clone>(x: &ArrayViewD<'_, T>, order: Order) -> Vec<T> {
    match order {
        Order::F => x.t().iter().cloned().collect(),
        _ => x.iter().cloned().collect(),
    }
}

/// `to_layout`, against the input read in `order`; the expected elements.
fn check_clone<T: Elem>(p: &Permute, order: Order) -> Vec<T> {
    let base = base::<T>(p);
    let x = p.view(&base);
    let want = read(&x, order);
    let laid = x.to_layout(order).unwrap();
    assert_eq!(laid.shape(), x.shape());
    assert_eq!(
        laid.as_slice_memory_order().unwrap(),
        &want[..],
        "to_layout {order:?}, shape {:?} perm {:?} steps {:?}",
        p.shape,
        p.perm,
        p.steps
    );
    want
}

/// As [`check_clone`], and into a given buffer: `to_layout_into`, `reshape_copy_into`.
fn check_copy<T: Elem + Copy + Default>(p: &Permute, order: Order) {
    let want = check_clone::<T>(p, order);
    let base = base::<T>(p);
    let x = p.view(&base);
    let mut out = vec![T::default(); x.len()];
    x.to_layout_into(order, &mut out).unwrap();
    assert_eq!(out, want, "to_layout_into {order:?}");
    let mut out = vec![T::default(); x.len()];
    x.reshape_copy_into(Np::new([-1], order), &mut out).unwrap();
    assert_eq!(out, want, "reshape_copy_into {order:?}");
}

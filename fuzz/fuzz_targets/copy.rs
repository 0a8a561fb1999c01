#![no_main]
//! Fuzz the copy engine on every element size: 1, 2, 3 (an odd array), 4, 8 and 16 bytes and a
//! `Clone`-only `String`, on strided inputs up to 64 K elements (so the small-copy walk, strided
//! rows, tiles and the parallel split are all reached), read in C or F order. Asserts that
//! every copy (`reshape_np` on a layout that needs one, `reshape_owned`, and for `Copy` types
//! `reshape_copy_into`) holds the input's elements in the reading order: the slow reference.

mod common;

use arbitrary::{Result, Unstructured};
use ndarray::{ArrayD, IxDyn};
use ndarray_reshape::{Np, Order, ReshapeExt};

use common::{Elem, Recipe};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = one(&mut u);
});

fn one(u: &mut Unstructured<'_>) -> Result<()> {
    let recipe = Recipe::arbitrary(u, 300, 1 << 16)?;
    let order = *u.choose(&[Order::C, Order::F])?;
    match u.int_in_range(0u8..=6)? {
        0 => check_copy::<u8>(&recipe, order),
        1 => check_copy::<u16>(&recipe, order),
        2 => check_copy::<[u8; 3]>(&recipe, order),
        3 => check_copy::<u32>(&recipe, order),
        4 => check_copy::<u64>(&recipe, order),
        5 => check_copy::<u128>(&recipe, order),
        _ => drop(check_clone::<String>(&recipe, order)),
    }
    Ok(())
}

fn base<T: Elem>(recipe: &Recipe) -> ArrayD<T> {
    let n = recipe.parent_len();
    ArrayD::from_shape_vec(IxDyn(&recipe.parent), (0..n).map(T::of).collect()).unwrap()
}

/// The fresh copies, against the input read in `order`.
fn check_clone<T: Elem>(recipe: &Recipe, order: Order) -> Vec<T> {
    let base = base::<T>(recipe);
    let x = recipe.view(&base);
    let want: Vec<T> = match order {
        Order::F => x.t().iter().cloned().collect(),
        _ => x.iter().cloned().collect(),
    };
    let read = |y: &ndarray::ArrayViewD<'_, T>| -> Vec<T> {
        match order {
            Order::F => y.t().iter().cloned().collect(),
            _ => y.iter().cloned().collect(),
        }
    };
    let flat = x.reshape_np([-1], order).unwrap();
    assert_eq!(read(&flat.view()), want, "reshape_np [-1] {order:?}");
    let owned = x.reshape_owned(Np::new([-1], order)).unwrap();
    assert_eq!(
        owned.as_slice_memory_order().unwrap(),
        &want[..],
        "reshape_owned {order:?}"
    );
    // The same elements back into the input's shape: a copy contiguous in the order.
    let again = x
        .reshape_owned(Np::new(
            x.shape().iter().map(|&d| d as i64).collect::<Vec<_>>(),
            order,
        ))
        .unwrap();
    assert_eq!(
        read(&again.view()),
        want,
        "reshape_owned to the input's shape {order:?}"
    );
    want
}

/// As [`check_clone`], and `reshape_copy_into` a given buffer.
fn check_copy<T: Elem + Copy + Default>(recipe: &Recipe, order: Order) {
    let want = check_clone::<T>(recipe, order);
    let base = base::<T>(recipe);
    let x = recipe.view(&base);
    let mut out = vec![T::default(); x.len()];
    x.reshape_copy_into(Np::new([-1], order), &mut out).unwrap();
    assert_eq!(out, want, "reshape_copy_into {order:?}");
}

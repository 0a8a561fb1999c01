//! Shapes read from files the caller did not write: an output no machine can hold is a
//! `ReshapeError::AllocationFailed`, returned without touching the memory, never an abort.
//!
//! The input is 4 MiB of real data broadcast to 2^40 elements; transposed and read in C order
//! it needs a copy of 4 TiB. Every method that allocates an output is asked for it. (Not under
//! Miri, which reports a huge allocation as resource exhaustion instead of failing it.)
#![cfg(not(miri))]

use ndarray::{Array, Array1, ArrayView2, Ix1, Ix2};
use ndarray_reshape::fluid::{Act, Reshape};
use ndarray_reshape::{
    Like, Mx, Np, Npx, Onnx, Order, Paddle, ReshapeError, ReshapeExt, ShapeSpec,
};

const SIDE: usize = 1 << 20;

fn column() -> Array<f32, Ix2> {
    Array::zeros((SIDE, 1))
}

/// 2^40 `f32`s, of which 2^20 are stored; C-order reads of its transpose need a copy.
fn huge(col: &Array<f32, Ix2>) -> ArrayView2<'_, f32> {
    col.broadcast((SIDE, SIDE)).unwrap().reversed_axes()
}

fn assert_alloc_failed<T: std::fmt::Debug>(r: Result<T, ReshapeError>, what: &str) {
    match r {
        Err(ReshapeError::AllocationFailed(ctx)) => {
            assert_eq!(ctx.input(), vec![SIDE, SIDE], "{what}");
            assert!(
                ctx.detail()
                    .contains("1099511627776 elements of 4 bytes, 4398046511104 bytes"),
                "{what}: {}",
                ctx.detail()
            );
        }
        other => panic!("{what}: expected allocation_failed, got {other:?}"),
    }
}

#[test]
fn every_allocating_method_returns_the_error() {
    let col = column();
    let x = huge(&col);
    assert_alloc_failed(x.reshape_np([-1], Order::C), "reshape_np");
    assert_alloc_failed(x.reshape_mx([-1]), "reshape_mx");
    assert_alloc_failed(x.reshape_paddle([-1]), "reshape_paddle");
    assert_alloc_failed(x.reshape_npx([-1]), "reshape_npx");
    assert_alloc_failed(x.reshape_onnx([-1]), "reshape_onnx");
    assert_alloc_failed(x.reshape_like(Like::new([SIDE * SIDE])), "reshape_like");
    assert_alloc_failed(x.reshape_with(Np::new([-1], Order::C)), "reshape_with");
    assert_alloc_failed(x.reshape_owned(Mx::new([-1])), "reshape_owned");
    assert_alloc_failed(
        x.reshape_with(Npx::new([-1]).dim::<Ix1>()),
        "reshape_with_dim",
    );
    assert_alloc_failed(
        x.reshape_owned(Onnx::new([-1]).dim::<Ix1>()),
        "reshape_owned_dim",
    );
    // reshape_owned copies even where a view is possible.
    let same = Np::new([SIDE, SIDE], Order::C);
    assert!(x.reshape_with(&same).unwrap().is_view());
    assert_alloc_failed(x.reshape_owned(&same), "reshape_owned of a view");
    // Through a function taking `&ArrayRef`.
    assert_alloc_failed((*x).reshape_paddle(Paddle::new([-1, 2])), "ArrayRef");
}

#[test]
fn fluid_returns_the_error() {
    let col = column();
    let x = huge(&col);
    let r = Reshape::new([-1]).act(Act::Relu).run_view(&x);
    assert_alloc_failed(r, "fluid run_view with act");
    // run takes an owned array; an owned 2^40-element array cannot exist, so its copy path is
    // covered through run_view's shared reshape_owned.
    assert_alloc_failed(
        Reshape::<f32>::new([-1]).run_view(&x).map(|_| ()),
        "fluid run_view",
    );
}

#[test]
fn byte_counts_past_usize_are_the_same_error() {
    // 2^62 elements of 4 bytes: 2^64 bytes, one past usize::MAX.
    let row: Array1<f32> = Array::zeros(SIDE);
    let x = row.broadcast((1usize << 42, SIDE)).unwrap();
    let e = x.reshape_np([-1], Order::F).unwrap_err();
    assert!(matches!(e, ReshapeError::AllocationFailed(_)), "{e}");
    assert_eq!(
        e.to_string(),
        format!(
            "allocation_failed: cannot allocate the copy's output: {} elements of 4 bytes, \
             more than {} bytes; input shape [{}, {SIDE}], numpy spec [-1] order F",
            1usize << 62,
            usize::MAX,
            1usize << 42
        )
    );
}

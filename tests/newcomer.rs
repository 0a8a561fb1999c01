//! What a new user writes in their first hour, as code that must compile and pass.

use ndarray::{array, Array};
use ndarray_reshape::{Np, ReshapeError, ReshapeExt};

/// ndarray's own `Order` works wherever an order is passed, next to this crate's.
#[test]
fn ndarray_order_is_accepted() -> Result<(), ReshapeError> {
    use ndarray::Order;
    let a = Array::from_iter(0..6)
        .into_shape_with_order((2, 3))
        .unwrap();
    let f = a.reshape_np([-1], Order::F)?;
    assert_eq!(f, array![0, 3, 1, 4, 2, 5].into_dyn());
    let c = a.reshape_np([3, 2], Order::RowMajor)?;
    assert_eq!(c, array![[0, 1], [2, 3], [4, 5]].into_dyn());
    assert_eq!(
        Np::new([-1], Order::ColumnMajor),
        Np::new([-1], ndarray_reshape::Order::F)
    );
    assert_eq!(
        ndarray_reshape::layout::resolve_order(&[2, 3], &[1, 2], Order::C),
        ndarray_reshape::Order::C
    );
    Ok(())
}

/// Spec lists by value, the way clippy's `needless_borrows_for_generic_args` wants them in user
/// code; borrowed lists are accepted too.
#[test]
fn specs_by_value_or_borrowed() -> Result<(), ReshapeError> {
    let x = Array::<f32, _>::zeros((2, 3, 4));
    assert_eq!(x.reshape_mx([-3, 0])?.shape(), &[6, 4]);
    #[allow(clippy::needless_borrows_for_generic_args)]
    let borrowed = x.reshape_mx(&[-3, 0])?;
    assert_eq!(borrowed.shape(), &[6, 4]);
    Ok(())
}

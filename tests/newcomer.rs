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

/// Tuple specs as ndarray takes shapes, `reshape_like` with a plain shape, a shape tensor entry
/// by value, and a NumPy spec without an order (C, as in NumPy and ndarray).
#[test]
fn small_frictions() -> Result<(), ReshapeError> {
    use ndarray::arr0;
    use ndarray_reshape::{Like, Order, Paddle, ShapeItem, ShapeSpec};
    let x = Array::from_iter(0..24)
        .into_shape_with_order((2, 3, 4))
        .unwrap();
    assert_eq!(x.reshape_mx((3, -1))?.shape(), &[3, 8]);
    assert_eq!(x.reshape_paddle((0, -1))?.shape(), &[2, 12]);
    assert_eq!(x.reshape_np((4, 6), Order::F)?.shape(), &[4, 6]);
    assert_eq!(x.reshape_like([3, 8])?.shape(), &[3, 8]);
    let other = Array::<u8, _>::zeros((6, 4));
    assert_eq!(x.reshape_like(other.shape())?.shape(), &[6, 4]);
    assert_eq!(x.reshape_like(vec![24])?.shape(), &[24]);
    let spec = Paddle::new([ShapeItem::from(arr0(4i64)), ShapeItem::from(-1)]);
    assert_eq!(spec.infer_shape(&[2, 3, 4])?, vec![4, 6]);
    assert_eq!(
        x.reshape_with(Np::from([6, -1]))?,
        x.reshape_np([6, 4], Order::C)?
    );
    // reshape_like errors name only the bounds that were set.
    let e = x
        .reshape_like(Like::new([5]).lhs(Some(1), None))
        .unwrap_err();
    assert!(
        e.to_string()
            .ends_with("reshape_like spec rhs shape [5] lhs_begin 1"),
        "{e}"
    );
    Ok(())
}

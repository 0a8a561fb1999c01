//! What a new user writes in their first hour, as code that must compile and pass.

use ndarray::{array, Array};
use ndarray_reshape::{Np, ReshapeError, ReshapeExt, ShapeSpec};

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
    use ndarray_reshape::args::ShapeItem;
    use ndarray_reshape::{Like, Order, Paddle, ShapeSpec};
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

/// A function that takes a typed view and returns a typed view of the caller's lifetime, in one
/// call and with one error type.
#[test]
fn typed_view_keeps_the_callers_lifetime() -> Result<(), ReshapeError> {
    use ndarray::{ArrayView2, ArrayView3, Ix2};
    use ndarray_reshape::Mx;

    fn merge_heads<'a>(x: ArrayView3<'a, f32>) -> Result<ArrayView2<'a, f32>, ReshapeError> {
        x.into_reshape(Mx::new([0, -3]).dim::<Ix2>())
    }
    let a = Array::<f32, _>::ones((2, 3, 4));
    let v = merge_heads(a.view())?;
    assert_eq!((v.dim(), v.as_ptr()), ((2, 12), a.as_ptr()));
    let err = merge_heads(a.view().permuted_axes([1, 0, 2])).unwrap_err();
    assert!(matches!(err, ReshapeError::NeedsCopy(_)));
    Ok(())
}

/// A reshape of a permuted temporary whose result outlives the statement: the consuming
/// view-or-copy call owns its copy.
#[test]
fn chained_temporary_is_not_borrowed() -> Result<(), ReshapeError> {
    use ndarray::Order;
    let x = Array::from_iter(0..6)
        .into_shape_with_order((2, 3))
        .unwrap();
    let flat = x
        .view()
        .permuted_axes([1, 0])
        .into_reshape_clone(Np::new([-1], Order::F))?;
    assert_eq!(flat.as_slice(), Some(&[0, 1, 2, 3, 4, 5][..]));
    assert!(flat.is_view()); // F order of the transpose is the original buffer
    let owned = x.reversed_axes().into_reshape_clone(Np::from([-1]))?;
    assert_eq!(owned.as_slice(), Some(&[0, 3, 1, 4, 2, 5][..]));
    Ok(())
}

/// Typed results from the headline calls, fed to `permuted_axes` and to a typed parameter.
#[test]
fn typed_results_from_headline_calls() -> Result<(), ReshapeError> {
    use ndarray::{ArrayView2, Ix2, Ix4};
    use ndarray_reshape::{IntoDim, Paddle};

    fn rows(x: ArrayView2<f32>) -> usize {
        x.nrows()
    }
    let x = Array::<f32, _>::zeros((2, 5, 12));
    let heads = x.reshape_paddle([0, 0, 3, 4])?.into_dim::<Ix4>()?;
    let t = heads.view().permuted_axes([0, 2, 1, 3]);
    assert_eq!(t.dim(), (2, 3, 5, 4));
    let m = x.reshape_mx([-3, 0])?.into_dim::<Ix2>()?;
    assert_eq!(rows(m.view()), 10);
    let typed = x.reshape_with(Paddle::new([0, -1]).dim::<Ix2>())?;
    assert_eq!(rows(typed.view()), 2);
    let mut y = x.clone();
    let mut v = y.reshape_view_mut(Paddle::new([-1, 12]).dim::<Ix2>())?;
    v[[9, 11]] = 1.0;
    assert_eq!(y[[1, 4, 11]], 1.0);
    let mut buf = vec![0.0; 120];
    let c = x.reshape_copy_into(Paddle::new([12, -1]).dim::<Ix2>(), &mut buf)?;
    assert_eq!(c.dim(), (12, 10));
    let err = x.reshape_mx([-1])?.into_dim::<Ix2>().unwrap_err();
    assert!(matches!(err, ReshapeError::RankMismatch(_)));
    assert!(err.to_string().contains("into_dim::<Ix2>"), "{err}");
    Ok(())
}

//! The public surface of `ndarray_reshape` that downstream code relies on.
//!
//! Copy this file unchanged to `tests/api_contract.rs`. It must compile and pass.
//! You may add to the API; you may not remove or rename what is used here.
//! Where a name here is a method, it may be a trait method or an inherent one.

use ndarray::{array, Array, Array1, ArrayD, ArrayView, ArrayViewMut, CowArray, IxDyn};
use ndarray_reshape::{layout, Like, Mx, Np, Order, Paddle, ReshapeError, ReshapeExt, ShapeSpec};

type R = Result<(), ReshapeError>;

fn x234() -> Array<i32, ndarray::Ix3> {
    Array::from_iter(0..24)
        .into_shape_with_order((2, 3, 4))
        .unwrap()
}

#[test]
fn mxnet_reshape() -> R {
    let x = x234();
    // The special values 0, -1, -2, -3, -4; a view when strides permit.
    let y: CowArray<'_, i32, IxDyn> = x.reshape_mx(&[-4, 1, 2, -2])?;
    assert_eq!(y.shape(), &[1, 2, 3, 4]);
    assert!(y.is_view());
    assert_eq!(x.reshape_mx([-3, -2])?.shape(), &[6, 4]);
    assert_eq!(x.reshape_mx(vec![2i64, -1])?.shape(), &[2, 12]);
    // reverse: special values inferred from right to left.
    let x = Array::<f32, _>::zeros((10, 5, 4));
    assert_eq!(x.reshape_mx(&[-1, 0])?.shape(), &[40, 5]);
    assert_eq!(
        x.reshape_mx(Mx::new(&[-1, 0]).reverse(true))?.shape(),
        &[50, 4]
    );
    // The deprecated target_shape / keep_highest parameters.
    let x = Array::<f32, _>::zeros((2, 3, 5, 5));
    assert_eq!(x.reshape_with(Mx::target_shape(&[2, 0]))?.shape(), &[2, 75]);
    let x = Array::<f32, _>::zeros((2, 3, 4));
    assert_eq!(
        x.reshape_with(Mx::target_shape(&[0, 0]).keep_highest(true))?
            .shape(),
        &[2, 12]
    );
    // Bad specs are errors, never panics.
    assert!(x234().reshape_mx(&[-1, -1]).is_err());
    assert!(x234().reshape_mx(&[5, 5]).is_err());
    Ok(())
}

#[test]
fn mxnet_reshape_like() -> R {
    let x = Array::from_iter(0..6).into_shape_with_order(6).unwrap();
    let y = Array::<u8, _>::zeros((3, 2)); // the element type of rhs does not matter
    assert_eq!(
        x.reshape_like(&y)?,
        array![[0, 1], [2, 3], [4, 5]].into_dyn()
    );

    let lhs = Array::<f64, _>::zeros((30, 7));
    let rhs = Array::<f64, _>::zeros((15, 2, 4));
    let like = Like::new(rhs.shape())
        .lhs(Some(0), Some(1))
        .rhs(Some(0), Some(2));
    assert_eq!(lhs.reshape_with(like)?.shape(), &[15, 2, 7]);
    let lhs = Array::<f64, _>::zeros((30, 12));
    let rhs = Array::<f64, _>::zeros((4, 2, 2, 3));
    let like = Like::new(rhs.shape())
        .lhs(Some(-1), None)
        .rhs(Some(1), None);
    assert_eq!(lhs.reshape_with(like)?.shape(), &[30, 2, 2, 3]);
    Ok(())
}

#[test]
fn paddle_reshape() -> R {
    let x = Array::<f32, _>::zeros((2, 4, 6));
    assert_eq!(x.reshape_paddle(&[-1, 0, 3, 2])?.shape(), &[2, 4, 3, 2]);
    assert_eq!(x.reshape_paddle([6, 8])?.shape(), &[6, 8]);
    // The shape given as a 1-D int32 or int64 tensor.
    let t32: Array1<i32> = array![8, 6];
    assert_eq!(x.reshape_paddle(&t32)?.shape(), &[8, 6]);
    let t64: Array1<i64> = array![-1, 12];
    assert_eq!(x.reshape_paddle(&t64)?.shape(), &[4, 12]);
    assert_eq!(x.reshape_with(Paddle::new(&[4, -1]))?.shape(), &[4, 12]);
    assert!(x.reshape_paddle(&[-2, 24]).is_err());
    Ok(())
}

#[test]
fn numpy_reshape_with_order() -> R {
    let a = Array::from_iter(0..6)
        .into_shape_with_order((3, 2))
        .unwrap();
    assert_eq!(
        a.reshape_np(&[2, 3], Order::C)?,
        array![[0, 1, 2], [3, 4, 5]].into_dyn()
    );
    assert_eq!(
        a.reshape_np(&[2, 3], Order::F)?,
        array![[0, 4, 3], [2, 1, 5]].into_dyn()
    );
    assert_eq!(a.reshape_np(&[3, -1], Order::C)?.shape(), &[3, 2]);
    // 'A' reads in F order when the input is F-contiguous (and not C-contiguous).
    let t = a.t();
    let y = t.reshape_np(&[-1], Order::A)?;
    assert!(y.is_view());
    assert_eq!(y, array![0, 1, 2, 3, 4, 5].into_dyn());
    // A transposed input read in C order needs a copy; the values are still right.
    let y = t.reshape_np(&[-1], Order::C)?;
    assert!(!y.is_view());
    assert_eq!(y, array![0, 2, 4, 1, 3, 5].into_dyn());
    Ok(())
}

#[test]
fn views_copies_and_ownership() -> R {
    let x = x234();
    // A strict view never copies: it fails instead.
    let v: ArrayView<'_, i32, IxDyn> = x.reshape_view(Mx::new(&[6, 4]))?;
    assert_eq!(v.as_ptr(), x.as_ptr());
    let err = x.t().reshape_view(Np::new(&[24], Order::C)).unwrap_err();
    assert!(matches!(err, ReshapeError::NeedsCopy { .. }), "{err}");
    assert!(!err.to_string().is_empty());
    // A mutable view writes through to the original data.
    let mut m = x234();
    {
        let mut mv: ArrayViewMut<'_, i32, IxDyn> = m.reshape_view_mut(Paddle::new(&[4, 6]))?;
        mv[[0, 0]] = 100;
    }
    assert_eq!(m[[0, 0, 0]], 100);
    // Consuming: a view keeps the lifetime of its data, an owned array keeps its buffer.
    fn flat<'a>(
        v: ArrayView<'a, i32, ndarray::Ix3>,
    ) -> Result<ArrayView<'a, i32, IxDyn>, ReshapeError> {
        v.into_reshape(Np::new(&[-1], Order::C))
    }
    assert_eq!(flat(x.view())?.len(), 24);
    let ptr = x.as_ptr();
    let owned: ArrayD<i32> = x.into_reshape(Mx::new(&[-3, -2]))?;
    assert_eq!(owned.as_ptr(), ptr);
    // Always a fresh copy, contiguous in the requested order.
    let c: ArrayD<i32> = x234().reshape_owned(Np::new(&[4, 6], Order::F))?;
    assert!(c.t().is_standard_layout());
    // The general entry point returns a view when it can.
    assert!(x234().reshape_with(Np::new(&[4, 6], Order::C))?.is_view());
    Ok(())
}

#[test]
fn shape_inference_without_data() -> R {
    assert_eq!(
        Mx::new(&[-1, 0]).reverse(true).infer_shape(&[10, 5, 4])?,
        vec![50, 4]
    );
    assert_eq!(
        Mx::new(&[-4, 1, 2, -2]).infer_shape(&[2, 3, 4])?,
        vec![1, 2, 3, 4]
    );
    assert_eq!(Paddle::new(&[0, -1]).infer_shape(&[2, 0, 3])?, vec![0, 6]);
    assert_eq!(Np::new(&[3, -1], Order::F).infer_shape(&[6])?, vec![3, 2]);
    assert_eq!(
        Like::new(&[15, 2, 4])
            .lhs(Some(0), Some(1))
            .rhs(Some(0), Some(2))
            .infer_shape(&[30, 7])?,
        vec![15, 2, 7]
    );
    // The stride solver on its own: (4,3) with strides (6,2) -> (2,2,3) is a view.
    assert_eq!(
        layout::view_strides(&[4, 3], &[6, 2], &[2, 2, 3], Order::C),
        Some(vec![12, 6, 2])
    );
    assert_eq!(
        layout::view_strides(&[4, 3], &[1, 4], &[12], Order::C),
        None
    );
    Ok(())
}

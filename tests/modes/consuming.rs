//! The consuming modes on every storage kind: `into_reshape_clone` (view when the strides
//! permit, else a copy), `into_reshape_dim`, and the typed mutable and buffer modes.

use ndarray::{array, s, ArcArray, Array, CowArray, Ix1, Ix2, Ix3, IxDyn};
use ndarray_reshape::{Mx, Np, Order, ReshapeError, ReshapeExt, ShapeSpec};

type R = Result<(), ReshapeError>;

fn grid() -> Array<i32, Ix2> {
    Array::from_iter(0..12)
        .into_shape_with_order((3, 4))
        .unwrap()
}

#[test]
fn owned_keeps_its_buffer_or_copies() -> R {
    let a = grid();
    let ptr = a.as_ptr();
    let b = a.into_reshape_clone(Mx::new([2, -1]))?;
    assert_eq!((b.shape(), b.as_ptr()), (&[2, 6][..], ptr));
    // A transposed owned array: C order needs a copy, whose values are the transpose's.
    let t = grid().reversed_axes();
    let c = t.into_reshape_clone(Mx::new([-1]).dim::<Ix1>())?;
    assert_eq!(c, array![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
    // A sliced owned array (data not at the start of its buffer), negative strides.
    let sl = grid().slice_move(s![1.., ..;-1]);
    let d = sl.into_reshape_clone(Np::new([-1], Order::C))?;
    assert_eq!(d.as_slice(), Some(&[7, 6, 5, 4, 11, 10, 9, 8][..]));
    Ok(())
}

#[test]
fn views_become_cow_arrays_of_their_lifetime() -> R {
    let a = grid();
    let v: CowArray<'_, i32, IxDyn> = a.view().into_reshape_clone(Mx::new([-1]))?;
    assert!(v.is_view() && v.as_ptr() == a.as_ptr());
    let c: CowArray<'_, i32, Ix2> = a.t().into_reshape_clone(Mx::new([2, -1]).dim::<Ix2>())?;
    assert!(!c.is_view());
    assert_eq!(c, array![[0, 4, 8, 1, 5, 9], [2, 6, 10, 3, 7, 11]]);
    // F order reads the transpose as the original buffer: a view again.
    let f = a.t().into_reshape_clone(Np::new([-1], Order::F))?;
    assert!(f.is_view());
    Ok(())
}

#[test]
fn arc_and_cow_arrays() -> R {
    // A unique ArcArray keeps its buffer; a shared one keeps sharing it when contiguous and
    // copies otherwise, leaving the other owner untouched.
    let a: ArcArray<i32, Ix2> = grid().into_shared();
    let ptr = a.as_ptr();
    let b = a.into_reshape_clone(Mx::new([-1]))?;
    assert_eq!(b.as_ptr(), ptr);
    let shared: ArcArray<i32, Ix2> = grid().into_shared();
    let other = shared.clone();
    let c = shared.into_reshape_clone(Mx::new([6, 2]))?;
    assert_eq!(c.as_ptr(), other.as_ptr());
    let t = other.clone().reversed_axes();
    let d = t.into_reshape_clone(Mx::new([-1]))?;
    assert_ne!(d.as_ptr(), other.as_ptr());
    assert_eq!(d[1], 4);
    assert_eq!(other[[0, 1]], 1);
    // CowArray: the view variant stays a view where possible, the owned one keeps its buffer.
    let g = grid();
    let cv = CowArray::from(g.view()).into_reshape_clone(Mx::new([4, 3]))?;
    assert!(cv.is_view());
    let co = CowArray::from(grid().reversed_axes()).into_reshape_clone(Mx::new([-1]))?;
    assert!(!co.is_view());
    assert_eq!(co[1], 4);
    Ok(())
}

#[test]
fn typed_consuming_and_errors() -> R {
    let a = grid();
    let v = a.view().into_reshape(Mx::new([1, 3, 4]).dim::<Ix3>())?;
    assert_eq!(v.dim(), (1, 3, 4));
    let err = a
        .view()
        .into_reshape(Mx::new([-1]).dim::<Ix3>())
        .unwrap_err();
    assert!(matches!(err, ReshapeError::RankMismatch(_)));
    let err = grid()
        .into_reshape_clone(Mx::new([-1]).dim::<Ix3>())
        .unwrap_err();
    assert!(matches!(err, ReshapeError::RankMismatch(_)));
    let err = grid().into_reshape_clone(Mx::new([5, -1])).unwrap_err();
    assert!(matches!(err, ReshapeError::InferNotDivisible(_)), "{err}");
    let mut m = grid();
    let err = m
        .view_mut()
        .reversed_axes()
        .reshape_view_mut(Mx::new([-1]).dim::<Ix1>())
        .unwrap_err();
    assert!(matches!(err, ReshapeError::NeedsCopy(_)));
    let mut buf = [0; 11];
    let err = a
        .reshape_copy_into(Mx::new([-1]).dim::<Ix1>(), &mut buf)
        .unwrap_err();
    assert!(matches!(err, ReshapeError::OutputLength(_)));
    let err = a
        .reshape_copy_into(Mx::new([-1]).dim::<Ix3>(), &mut [0; 12])
        .unwrap_err();
    assert!(matches!(err, ReshapeError::RankMismatch(_)));
    Ok(())
}

/// Element types that are only `Clone` take the generic copy path, with their values intact.
#[test]
fn clone_only_elements() -> R {
    let a = Array::from_iter((0..6).map(|i| i.to_string()))
        .into_shape_with_order((2, 3))
        .unwrap();
    let t = a.reversed_axes().into_reshape_clone(Mx::new([-1]))?;
    assert_eq!(t[1], "3");
    Ok(())
}

//! `reshape_in_place` on every storage kind (the array unchanged on every failure) and
//! `to_layout` / `to_layout_into` on every storage, stride pattern and element size.

use ndarray::{s, Array, Array2, ArrayD, ArrayView, ArrayViewMut, CowArray, Ix2, IxDyn};
use ndarray_reshape::{Mx, Np, Order, Paddle, ReshapeError, ReshapeExt, ShapeSpec};

type R = Result<(), ReshapeError>;

fn x234() -> ArrayD<i32> {
    Array::from_iter(0..24)
        .into_shape_with_order(IxDyn(&[2, 3, 4]))
        .unwrap()
}

/// The array's shape, strides and data pointer, to compare before and after a failure.
fn layout<S: ndarray::RawData>(
    a: &ndarray::ArrayBase<S, IxDyn>,
) -> (Vec<usize>, Vec<isize>, usize) {
    (
        a.shape().to_vec(),
        a.strides().to_vec(),
        a.as_ptr() as usize,
    )
}

#[test]
fn owned_arrays_reshape_in_place_or_stay() -> R {
    let mut x = x234();
    let ptr = x.as_ptr();
    x.reshape_in_place(Mx::new([-3, -2]))?;
    assert_eq!((x.shape(), x.as_ptr()), (&[6, 4][..], ptr));
    // A transposed owned array: a copy would be needed in C order, so nothing changes.
    let mut t = x234().reversed_axes();
    let before = layout(&t);
    let err = t.reshape_in_place(Np::new([-1], Order::C)).unwrap_err();
    assert!(matches!(err, ReshapeError::NeedsCopy(_)), "{err}");
    assert_eq!(layout(&t), before);
    // A bad spec leaves it too, and so does a spec of the wrong rank.
    assert!(t.reshape_in_place(Paddle::new([-1, -1])).is_err());
    assert_eq!(layout(&t), before);
    // In F order the transpose is contiguous: it reshapes where it stands.
    t.reshape_in_place(Np::new([-1], Order::F))?;
    assert_eq!(
        t.iter().copied().collect::<Vec<_>>(),
        (0..24).collect::<Vec<_>>()
    );
    // Sliced with `slice_move`: the elements move to the front of the same buffer.
    let mut m = x234().slice_move(s![1.., .., ..]).into_dyn();
    m.reshape_in_place(Mx::new([-1]))?;
    assert_eq!(
        m.iter().copied().collect::<Vec<_>>(),
        (12..24).collect::<Vec<_>>()
    );
    // A typed array with a typed spec keeps its dimension type.
    let mut a2: Array2<i32> = Array::from_iter(0..24)
        .into_shape_with_order((6, 4))
        .unwrap();
    a2.reshape_in_place(Paddle::new([4, -1]).dim::<Ix2>())?;
    assert_eq!(a2.dim(), (4, 6));
    assert!(a2
        .reshape_in_place(Paddle::new([-1, 5]).dim::<Ix2>())
        .is_err());
    assert_eq!((a2.dim(), a2[[3, 5]]), ((4, 6), 23));
    Ok(())
}

#[test]
fn views_and_shared_arrays_reshape_in_place_or_stay() -> R {
    let x = x234();
    // A view: the result keeps borrowing the data, with the view's lifetime.
    let mut v: ArrayView<'_, i32, IxDyn> = x.view();
    v.reshape_in_place(Paddle::new([4, 6]))?;
    assert_eq!((v.shape(), v.as_ptr()), (&[4, 6][..], x.as_ptr()));
    let mut t = x.t();
    let before = layout(&t);
    assert!(t.reshape_in_place(Mx::new([-1])).is_err());
    assert_eq!(layout(&t), before);
    // A mutable view writes through after the reshape.
    let mut y = x234();
    {
        let mut m: ArrayViewMut<'_, i32, IxDyn> = y.view_mut();
        m.reshape_in_place(Mx::new([-1]))?;
        m[23] = -1;
        let mut mt = m
            .reversed_axes()
            .into_shape_with_order(IxDyn(&[4, 6]))
            .unwrap();
        mt.swap_axes(0, 1);
        let before = layout(&mt);
        assert!(mt.reshape_in_place(Mx::new([-1])).is_err());
        assert_eq!(layout(&mt), before);
        mt[[0, 0]] = -2;
    }
    assert_eq!((y[[1, 2, 3]], y[[0, 0, 0]]), (-1, -2));
    // A shared ArcArray: contiguous reshapes keep sharing; others fail and leave it.
    let a = x234().into_shared();
    let mut b = a.clone();
    b.reshape_in_place(Mx::new([6, -1]))?;
    assert_eq!((b.shape(), b.as_ptr()), (&[6, 4][..], a.as_ptr()));
    let mut c = a.clone().reversed_axes();
    let before = layout(&c);
    let err = c.reshape_in_place(Mx::new([-1])).unwrap_err();
    assert!(matches!(err, ReshapeError::NeedsCopy(_)), "{err}");
    assert_eq!(layout(&c), before);
    // Stepped: the strides permit a view, but the shared buffer is not contiguous.
    let mut d = a.clone().slice_move(s![.., .., ..;2]).into_dyn();
    let before = layout(&d);
    let err = d.reshape_in_place(Mx::new([6, 2])).unwrap_err();
    assert!(err.to_string().contains("shared"), "{err}");
    assert_eq!(layout(&d), before);
    // A unique ArcArray reshapes its own buffer.
    let mut u = x234().into_shared();
    let ptr = u.as_ptr();
    u.reshape_in_place(Mx::new([-1]))?;
    assert_eq!(u.as_ptr(), ptr);
    // CowArray, both variants.
    let mut cv = CowArray::from(x.view());
    cv.reshape_in_place(Mx::new([-1]))?;
    assert!(cv.is_view() && cv.as_ptr() == x.as_ptr());
    let mut co = CowArray::from(x234());
    co.reshape_in_place(Mx::new([3, -1]))?;
    assert_eq!(co.shape(), &[3, 8]);
    Ok(())
}

/// `to_layout` and `to_layout_into` of `a` in both orders, checked against the definition.
fn check_layout<A>(a: ndarray::ArrayViewD<'_, A>)
where
    A: Copy + PartialEq + std::fmt::Debug + Send + Sync + Default,
{
    for order in [Order::C, Order::F, Order::A] {
        let y = a.to_layout(order).unwrap();
        assert_eq!(y, a);
        let f = ndarray_reshape::layout::resolve_order(a.shape(), a.strides(), order) == Order::F;
        let contiguous = if f {
            y.t().is_standard_layout()
        } else {
            y.is_standard_layout()
        };
        assert!(contiguous, "{order:?} of {:?} {:?}", a.shape(), a.strides());
        let mut buf = vec![A::default(); a.len()];
        let v = a.to_layout_into(order, &mut buf).unwrap();
        assert_eq!(v, a);
        let expected: Vec<A> = if f {
            a.t().iter().copied().collect()
        } else {
            a.iter().copied().collect()
        };
        assert_eq!(buf, expected);
    }
}

#[test]
#[cfg_attr(miri, ignore)] // large: the copy kernels are under Miri in `element_sizes`
fn to_layout_on_every_stride_pattern() {
    let big = Array::from_iter(0..64 * 48 * 3i64)
        .into_shape_with_order((64, 48, 3))
        .unwrap();
    check_layout(big.view().into_dyn());
    check_layout(big.t().into_dyn());
    check_layout(big.slice(s![..;-2, 3..40;3, ..]).into_dyn());
    check_layout(big.view().permuted_axes([1, 2, 0]).into_dyn());
    check_layout(big.slice(s![.., 0..0, ..]).into_dyn()); // empty
    check_layout(big.slice(s![5, 7, 1]).into_dyn()); // 0-d
    let row = Array::from_iter(0..5i64);
    check_layout(row.broadcast((4, 5)).unwrap().into_dyn()); // zero strides
                                                             // Element sizes from 1 to 16 bytes, through the vector kernels where they apply.
    let n = 300;
    let t8 = Array::from_shape_fn((n, n), |(i, j)| (i * 7 + j) as u8);
    check_layout(t8.t().into_dyn());
    let t16 = t8.mapv(u16::from);
    check_layout(t16.t().into_dyn());
    let t32 = t8.mapv(f32::from);
    check_layout(t32.t().into_dyn());
    let t64 = t8.mapv(f64::from);
    check_layout(t64.t().into_dyn());
    let t128 = t8.mapv(u128::from);
    check_layout(t128.t().into_dyn());
}

#[test]
fn to_layout_keeps_the_dimension_type_and_works_on_every_storage() -> R {
    let a: Array2<i32> = Array::from_iter(0..12)
        .into_shape_with_order((3, 4))
        .unwrap();
    let c: Array2<i32> = a.t().to_layout(Order::C)?;
    assert!(c.is_standard_layout());
    let shared = a.clone().into_shared();
    assert_eq!(shared.t().to_layout(Order::C)?, c);
    assert_eq!(CowArray::from(a.t()).to_layout(Order::C)?, c);
    let mut m = a.clone();
    assert_eq!(m.view_mut().reversed_axes().to_layout(Order::C)?, c);
    fn generic(x: &ndarray::ArrayRef2<i32>) -> Array2<i32> {
        x.to_layout(Order::F).unwrap()
    }
    let f = generic(&a);
    assert!(f.t().is_standard_layout() && f == a);
    // A wrong buffer length is an error naming the call, and the buffer is untouched.
    let mut short = [7; 11];
    let err = a.to_layout_into(Order::C, &mut short).unwrap_err();
    assert_eq!(
        err.to_string(),
        "output_length: the output buffer holds 11 elements, the copy writes 12; input shape \
         [3, 4], ndarray spec to_layout(C)"
    );
    assert_eq!(short, [7; 11]);
    Ok(())
}

//! Every storage kind through every mode: views keep the data pointer, copies are fresh and
//! contiguous in the reading order, strict modes refuse to copy, consuming modes keep storage.

use ndarray::{arr0, array, s, ArcArray, Array, ArrayD, CowArray, Ix3, IxDyn, ShapeBuilder};
use ndarray_reshape::{Like, Mx, Np, Order, Paddle, ReshapeError, ReshapeExt, ShapeSpec};

type R = Result<(), ReshapeError>;

fn x234() -> Array<i32, Ix3> {
    Array::from_iter(0..24)
        .into_shape_with_order((2, 3, 4))
        .unwrap()
}

#[test]
fn borrowed_views_keep_the_pointer_for_every_storage() -> R {
    let x = x234();
    let p = x.as_ptr();
    assert_eq!(x.reshape_mx([-1])?.as_ptr(), p);
    assert_eq!(x.view().reshape_paddle([4, 6])?.as_ptr(), p);
    let arc: ArcArray<i32, Ix3> = x.to_shared();
    let rhs = Array::<u8, _>::zeros((6, 4));
    assert_eq!(arc.reshape_like(&rhs)?.as_ptr(), arc.as_ptr());
    let cow = CowArray::from(x.view());
    assert_eq!(cow.reshape_np([24], Order::C)?.as_ptr(), p);
    let owned_cow: CowArray<'_, i32, Ix3> = CowArray::from(x234());
    assert!(owned_cow.reshape_with(Like::new([24]))?.is_view());
    Ok(())
}

#[test]
fn into_reshape_keeps_storage_for_every_kind() -> R {
    // Owned: the same buffer.
    let x = x234();
    let p = x.as_ptr();
    let y: ArrayD<i32> = x.into_reshape(Mx::new([6, -1]))?;
    assert_eq!((y.shape(), y.as_ptr()), (&[6, 4][..], p));
    // Owned with negative strides: still the same buffer, values in logical order.
    let mut x = x234();
    x.invert_axis(ndarray::Axis(2));
    let want: Vec<i32> = x.iter().copied().collect();
    let p = x.as_ptr();
    let y = x.into_reshape(Mx::new([2, 3, 2, 2]))?;
    assert_eq!(y.as_ptr(), p);
    assert!(y.iter().copied().eq(want));
    // Owned and sliced (data not at the start of the buffer): elements move to the front of the
    // same allocation, values stay right.
    let x = Array::from_iter(0..40).slice_move(s![8..32;-1]);
    let want: Vec<i32> = x.iter().copied().collect();
    let y = x.into_reshape(Np::new([4, 6], Order::C))?;
    assert!(y.iter().copied().eq(want));
    // A view keeps the lifetime of its data.
    let x = x234();
    let v = x.view().into_reshape(Paddle::new([0, -1]))?;
    assert_eq!((v.shape(), v.as_ptr()), (&[2, 12][..], x.as_ptr()));
    // A mutable view writes through.
    let mut m = x234();
    let mut mv = m.view_mut().into_reshape(Mx::new([-3, -2]))?;
    mv[[5, 3]] = -7;
    assert_eq!(m[[1, 2, 3]], -7);
    // ArcArray: unique is reshaped in place; shared keeps sharing its buffer when contiguous
    // in the reading order, and is refused rather than copied otherwise.
    let a = x234().into_shared();
    let p = a.as_ptr();
    let b = a.into_reshape(Mx::new([24]))?;
    assert_eq!(b.as_ptr(), p);
    let keep = b.clone();
    let c = b.into_reshape(Mx::new([2, 12]))?;
    assert_eq!(
        (c.shape(), c.strides(), c.as_ptr()),
        (&[2, 12][..], &[12, 1][..], p)
    );
    assert_eq!((keep.shape(), keep.as_ptr()), (&[24][..], p));
    assert_eq!(
        c.iter().copied().collect::<Vec<_>>(),
        (0..24).collect::<Vec<_>>()
    );
    let keep = c.clone();
    let f = c.into_reshape(Np::new([4, 6], Order::F));
    assert!(matches!(f, Err(ReshapeError::NeedsCopy(_))), "{f:?}");
    let t = keep.clone().reversed_axes();
    let f = t.into_reshape(Np::new([3, 8], Order::F))?;
    assert_eq!(
        (f.shape(), f.strides(), f.as_ptr()),
        (&[3, 8][..], &[1, 3][..], p)
    );
    // Every second column, still shared (with `f`): a view (rows 12 apart, 6 columns 2 apart)
    // but not contiguous, so refused.
    let stepped = keep.slice_move(s![.., ..;2]);
    assert!(stepped.reshape_view(Mx::new([-1])).is_ok());
    assert!(matches!(
        stepped.into_reshape(Mx::new([-1])),
        Err(ReshapeError::NeedsCopy(_))
    ));
    // CowArray: a view stays a view with its lifetime, an owned one keeps its buffer.
    let x = x234();
    let c = CowArray::from(x.view()).into_reshape(Mx::new([-1]))?;
    assert!(c.is_view());
    assert_eq!(c.as_ptr(), x.as_ptr());
    let o = CowArray::from(x234());
    let p = o.as_ptr();
    let c = o.into_reshape(Mx::new([-1]))?;
    assert!(c.is_owned());
    assert_eq!(c.as_ptr(), p);
    // Strides that need a copy: refused, never copied.
    let t = x234().reversed_axes();
    assert!(matches!(
        t.into_reshape(Np::new([-1], Order::C)),
        Err(ReshapeError::NeedsCopy(_))
    ));
    Ok(())
}

/// `reshape_view_mut` on a shared `ArcArray` makes its data unique first: the writes reach this
/// array only, never the other owner.
#[test]
fn mutable_views_of_a_shared_arc_array_write_to_it_alone() -> R {
    let mut a: ArcArray<i32, Ix3> = x234().into_shared();
    let other = a.clone();
    let mut flat = a.reshape_view_mut(Mx::new([-1]))?;
    flat[23] = -1;
    assert_eq!(a[[1, 2, 3]], -1);
    assert_eq!(other[[1, 2, 3]], 23);
    assert_ne!(a.as_ptr(), other.as_ptr());
    Ok(())
}

/// A shared `ArcArray` contiguous in the reading order is reshaped in its shared buffer, with
/// the shape, strides and elements a unique one gets (length-1 axes, empty and 0-d included).
#[test]
fn shared_arc_arrays_reshape_like_unique_ones_when_contiguous() -> R {
    let cases: &[(&[usize], bool, &[i64], Order)] = &[
        (&[2, 3, 4], false, &[-1], Order::C),
        (&[2, 3, 4], false, &[4, 1, -1], Order::C),
        (&[2, 3, 4], true, &[-1], Order::F),
        (&[2, 3, 4], true, &[6, 1, 4], Order::A),
        (&[1, 5, 1], false, &[5, 1, 1], Order::C),
        (&[1, 5, 1], true, &[1, 5], Order::F),
        (&[3, 0, 2], false, &[0, 7], Order::C),
        (&[], false, &[1, 1], Order::C),
        (&[1], false, &[], Order::A),
    ];
    for &(shape, f, spec, order) in cases {
        let n: usize = shape.iter().product();
        let data: Vec<i32> = (0..n as i32).collect();
        let base = Array::from_shape_vec(IxDyn(shape).set_f(f), data).unwrap();
        let unique = base
            .clone()
            .into_shared()
            .into_reshape(Np::new(spec, order))?;
        let shared = base.into_shared();
        let other = shared.clone();
        let p = shared.as_ptr();
        let r = shared.into_reshape(Np::new(spec, order))?;
        let what = format!("{shape:?} f={f} -> {spec:?} {order:?}");
        assert_eq!(r.shape(), unique.shape(), "{what}");
        if !r.is_empty() {
            assert_eq!(r.strides(), unique.strides(), "{what}");
            assert_eq!(r.as_ptr(), p, "{what}");
        }
        assert_eq!(r, unique, "{what}");
        assert_eq!(
            other.shape(),
            shape,
            "{what}: the other owner keeps its shape"
        );
    }
    Ok(())
}

#[test]
fn copies_are_fresh_and_contiguous_in_the_reading_order() -> R {
    let x = x234();
    let t = x.t();
    let c = t.reshape_with(Np::new([4, 6], Order::C))?;
    assert!(!c.is_view() && c.is_standard_layout());
    assert!(c
        .iter()
        .eq(t.to_shape(((4, 6), ndarray::Order::C)).unwrap().iter()));
    let f = x.reshape_with(Np::new([6, 4], Order::F))?;
    assert!(!f.is_view() && f.t().is_standard_layout());
    assert!(f
        .iter()
        .eq(x.to_shape(((6, 4), ndarray::Order::F)).unwrap().iter()));
    // reshape_owned copies even when a view was possible.
    let o = x.reshape_owned(Mx::new([4, 6]))?;
    assert_ne!(o.as_ptr(), x.as_ptr());
    assert!(o.is_standard_layout() && o.iter().eq(x.iter()));
    Ok(())
}

#[test]
fn strict_views_on_odd_strides() -> R {
    let base = Array::from_iter(0..60)
        .into_shape_with_order((3, 4, 5))
        .unwrap();
    // Negative steps: a view, pointing at the first logical element.
    let v = base.slice(s![..;-1, ..;-1, 1..;2]);
    let y = v.reshape_view(Np::new([-1, 2], Order::C))?;
    assert_eq!((y.as_ptr(), y.strides()), (v.as_ptr(), &[-5, 2][..]));
    assert!(y.iter().eq(v.iter()));
    // Mixed signs cannot merge: NumPy copies, so do we.
    let v = base.slice(s![..;-1, .., 1..;2]);
    assert!(matches!(
        v.reshape_view(Np::new([-1, 2], Order::C)),
        Err(ReshapeError::NeedsCopy(_))
    ));
    // Zero strides (broadcast): a view of a view.
    let row = Array::from_iter(0..4);
    let b = row.broadcast((3, 4)).unwrap();
    let y = b.reshape_view(Np::new([3, 2, 2], Order::C))?;
    assert_eq!(y.strides(), &[0, 2, 1]);
    assert!(matches!(
        b.reshape_view(Np::new([12], Order::C)),
        Err(ReshapeError::NeedsCopy(_))
    ));
    assert_eq!(
        b.reshape_with(Np::new([12], Order::C))?
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        [0, 1, 2, 3].repeat(3)
    );
    // Mutable views through negative strides write to the right elements.
    let mut m = Array::from_iter(0..12)
        .into_shape_with_order((3, 4))
        .unwrap();
    {
        let mut mv = m.slice_mut(s![.., ..;-1]);
        let mut r = mv.reshape_view_mut(Paddle::new([3, 2, 2]))?;
        r[[1, 0, 0]] = 100; // logical (1, 0) of the reversed view: m[1, 3]
    }
    assert_eq!(m[[1, 3]], 100);
    // A mutable view that would need a copy is refused.
    let mut m = Array::from_iter(0..12)
        .into_shape_with_order((3, 4))
        .unwrap();
    let mut t = m.view_mut().reversed_axes();
    assert!(matches!(
        t.reshape_view_mut(Mx::new([-1])),
        Err(ReshapeError::NeedsCopy(_))
    ));
    Ok(())
}

#[test]
fn zero_d_and_empty() -> R {
    // 0-d in, 0-d out, 1-element shapes: views.
    let z = arr0(5i32);
    let y = z.reshape_mx([1, 1])?;
    assert!(y.is_view() && y.shape() == [1, 1] && y[[0, 0]] == 5);
    let y = z.reshape_np(&[] as &[i64], Order::F)?;
    assert_eq!(y.ndim(), 0);
    let one = array![[7i32]];
    assert_eq!(one.reshape_paddle(&[] as &[i32])?[[]], 7);
    // Empty: always a view, even of a transposed or broadcast input.
    let e = Array::<f64, _>::zeros((0, 3, 4));
    let t = e.t();
    let y = t.reshape_with(Np::new([4, 0, 3], Order::C))?;
    assert!(y.is_view() && y.shape() == [4, 0, 3]);
    // NumPy's rule: -1 next to a 0 is an error even on an empty array.
    assert!(matches!(
        t.reshape_with(Np::new([4, 0, -1], Order::C)),
        Err(ReshapeError::InferZeroProduct(_))
    ));
    assert_eq!(y.as_ptr(), t.as_ptr());
    let mut e = Array::<f64, _>::zeros((2, 0));
    let mv = e.reshape_view_mut(Paddle::new([0, 5, 7]))?;
    assert_eq!(mv.shape(), &[0, 5, 7]);
    // Huge dims on an empty array: fine, as long as the non-zero product fits.
    let e = ArrayD::<u8>::zeros(IxDyn(&[0]));
    let y = e.reshape_np([1i64 << 40, 0, 1 << 20], Order::C)?;
    assert_eq!(y.shape(), &[1 << 40, 0, 1 << 20]);
    assert!(e.reshape_np([i64::MAX, 0, 2], Order::C).is_err());
    Ok(())
}

/// `check` on `Copy` elements of 1, 2, 4, 8, 16, 40 and 0 bytes.
macro_rules! every_size {
    ($check:ident) => {
        $check(|i| i as u8)?;
        $check(|i| i as u16)?;
        $check(|i| i as f32)?;
        $check(|i| i as f64)?;
        $check(|i| i as u128)?;
        $check(|i| [i as u64; 5])?;
        $check(|_| ())?; // zero-sized
    };
}

#[test]
fn element_types_of_every_size() -> R {
    fn check<A: Clone + PartialEq + std::fmt::Debug + Send + Sync>(f: impl Fn(usize) -> A) -> R {
        let x = Array::from_shape_fn((5, 7), |(i, j)| f(i * 7 + j));
        let t = x.t();
        let y = t.reshape_np([-1], Order::C)?;
        let want: Vec<A> = t.iter().cloned().collect();
        assert_eq!(y.iter().cloned().collect::<Vec<_>>(), want);
        let v = x.slice(s![..;-2, 1..;3]);
        let y = v.reshape_np([-1], Order::F)?;
        assert_eq!(
            y.iter().cloned().collect::<Vec<_>>(),
            v.t().iter().cloned().collect::<Vec<_>>()
        );
        Ok(())
    }
    every_size!(check);
    check(|i| i.to_string())?; // not `Copy`
    Ok(())
}

#[test]
fn copy_into_a_buffer_for_every_size_and_stride() -> R {
    fn check<A: Copy + PartialEq + std::fmt::Debug + Send + Sync + Default>(
        f: impl Fn(usize) -> A,
    ) -> R {
        let x = Array::from_shape_fn((6, 5, 4), |(i, j, k)| f(i * 20 + j * 4 + k));
        let views = [
            x.view(),
            x.slice(s![..;-1, .., ..]),
            x.slice(s![.., ..;-2, 1..;2]),
            x.slice(s![2..2, .., ..]),
            x.slice(s![1..2, 3..4, ..1]),
        ];
        for v in views {
            let mut p = v;
            p.swap_axes(0, 2);
            for w in [v, p] {
                for order in [Order::C, Order::F] {
                    let mut buf = vec![A::default(); w.len()];
                    let y = w.reshape_copy_into(Np::new([-1], order), &mut buf)?;
                    let want: Vec<A> = match order {
                        Order::F => w.t().iter().copied().collect(),
                        _ => w.iter().copied().collect(),
                    };
                    assert_eq!(y.iter().copied().collect::<Vec<_>>(), want);
                    assert_eq!(buf, want);
                }
            }
        }
        // A broadcast (zero stride) input and a 0-d input.
        let b = Array::from_shape_fn(3, &f);
        let bb = b.broadcast((4, 3)).unwrap();
        let mut buf = vec![A::default(); 12];
        let y = bb
            .t()
            .reshape_copy_into(Np::new([3, 4], Order::C), &mut buf)?;
        assert_eq!(y, bb.t().into_dyn());
        let z = ndarray::arr0(f(9));
        let mut one = [A::default()];
        assert_eq!(
            z.reshape_copy_into(Np::new([1, 1], Order::C), &mut one)?[[0, 0]],
            f(9)
        );
        Ok(())
    }
    every_size!(check);
    Ok(())
}

#[test]
#[cfg_attr(miri, ignore)] // 150,000 elements; the smaller copies above run under Miri
fn copy_into_large_parallel_outputs_and_writes_through() -> R {
    let x = Array::from_shape_fn((300, 500), |(i, j)| (i * 500 + j) as f32);
    let mut buf = vec![0f32; 150_000]; // 600 KB: above the parallel threshold
    {
        let mut y = x
            .t()
            .reshape_copy_into(Np::new([500, 300], Order::C), &mut buf)?;
        assert_eq!(y, x.t().into_dyn());
        y[[0, 1]] = -1.0; // a mutable view of the buffer
    }
    assert_eq!(buf[1], -1.0);
    assert_eq!(buf[2], 1000.0);
    Ok(())
}

#[test]
fn high_rank_arrays_spill_past_the_inline_buffers() -> R {
    // 12 axes of length 2: shapes, strides and specs longer than the 8 kept inline.
    let x = Array::from_iter(0..4096i64)
        .into_shape_with_order(IxDyn(&[2; 12]))
        .unwrap();
    let spec: Vec<i64> = [4; 6].to_vec();
    let v = x.reshape_mx(spec.as_slice())?;
    assert!(v.is_view() && v.shape() == [4; 6] && v.iter().eq(x.iter()));
    let back = v.reshape_np([2i64; 12], Order::C)?;
    assert!(back.is_view() && back.iter().eq(x.iter()));
    // Reversed axes: a copy through the tiled kernel, equal to ndarray's.
    let t = x.t();
    let c = t.reshape_np([-1i64, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], Order::C)?;
    assert!(!c.is_view());
    assert_eq!(c.shape()[0], 4);
    assert!(c.iter().eq(t
        .to_shape((IxDyn(c.shape()), ndarray::Order::C))
        .unwrap()
        .iter()));
    let e = x.reshape_paddle([3i64; 9]).unwrap_err();
    assert_eq!(e.category(), "size_mismatch");
    Ok(())
}

#[test]
fn rank_typed_results_on_odd_strides_empty_and_0d() -> R {
    use ndarray::{Ix0, Ix1, Ix2, Ix4};
    let x = x234();
    // A view keeps the pointer and has the dynamic-rank view's strides.
    let v = x.reshape_with(Mx::new([-4, 1, -1, -2]).dim::<Ix4>())?;
    assert!(v.is_view());
    assert_eq!((v.dim(), v.as_ptr()), ((1, 2, 3, 4), x.as_ptr()));
    let xv = x.view();
    let m = xv.reshape_view(Paddle::new([0, -1]).dim::<Ix2>())?;
    assert_eq!((m.dim(), m.strides()), ((2, 12), &[12isize, 1][..]));
    // Negative and stepped strides: views where NumPy gives one, with the same values.
    for w in [
        x.slice(s![..;-1, .., ..]),
        x.slice(s![.., ..;-2, 1..;2]),
        x.slice(s![..;-1, ..;-1, ..;-1]),
    ] {
        let d = w.reshape_mx([-1, 0])?;
        let t = w.reshape_with(Mx::new([-1, 0]).dim::<Ix2>())?;
        assert_eq!((t.is_view(), t.strides()), (d.is_view(), d.strides()));
        assert_eq!(t.into_dyn(), d);
        let wt = w.t();
        let flat = wt.reshape_with(Np::new([-1], Order::C).dim::<Ix1>())?;
        assert!(!flat.is_view() && flat.is_standard_layout());
        assert_eq!(flat.to_vec(), w.t().iter().copied().collect::<Vec<_>>());
        let f = w.reshape_owned(Np::new([4, -1], Order::F).dim::<Ix2>())?;
        assert!(f.t().is_standard_layout());
        assert_eq!(f.into_dyn(), w.reshape_owned(Np::new([4, -1], Order::F))?);
    }
    // A broadcast input (zero strides) copies.
    let b = array![1, 2, 3];
    let bb = b.broadcast((4, 3)).unwrap();
    let t = bb.reshape_with(Mx::new([-1]).dim::<Ix1>())?;
    assert_eq!(t.to_vec(), [1, 2, 3].repeat(4));
    // Empty and 0-d.
    let e = x.slice(s![.., 0..0, ..]);
    let z = e.reshape_with(Paddle::new([0, -1]).dim::<Ix2>())?;
    assert_eq!(z.shape(), e.reshape_paddle([0, -1])?.shape());
    assert_eq!(z.len(), 0);
    let z = e.reshape_owned(Np::new([0], Order::C).dim::<Ix1>())?;
    assert_eq!(z.dim(), 0);
    let a0 = arr0(7);
    assert_eq!(a0.reshape_with(Mx::new([1, 1]).dim::<Ix2>())?[[0, 0]], 7);
    let one = array![[5]];
    assert_eq!(
        one.reshape_view(Np::new([0i64; 0], Order::C).dim::<Ix0>())?[()],
        5
    );
    Ok(())
}

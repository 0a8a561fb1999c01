//! `ReshapeExt` on ndarray 0.17's `ArrayRef`, the type functions written for any storage take
//! (`&ArrayRef<A, D>`, `&mut ArrayRef<A, D>`): every method gives what it gives on the array
//! the reference came from, views share its data, and the spec types take shape tensors and
//! `reshape_like` right-hand sides borrowed as `ArrayRef` too.

use ndarray::{
    array, s, ArcArray, Array, Array1, ArrayD, ArrayRef, ArrayRef1, ArrayRef2, Dimension, Ix2, Ix3,
    IxDyn,
};
use ndarray_reshape::fluid::Reshape;
use ndarray_reshape::{
    Like, Mx, Np, Npx, Onnx, Order, Paddle, ReshapeError, ReshapeExt, ShapeSpec,
};

/// Every borrowing method on `$a`, each result as an owned `IxDyn` array (or the error's
/// text): the same calls for an `&ArrayRef` and for the array itself.
macro_rules! every_call {
    ($a:expr) => {{
        let a = $a;
        let own = |r: Result<ndarray::CowArray<'_, i32, IxDyn>, ReshapeError>| {
            r.map(|c| c.into_owned()).map_err(|e| e.to_string())
        };
        let mut buf = vec![0; a.len()];
        vec![
            own(a.reshape_mx([-1])),
            own(a.reshape_mx(Mx::new([-1, 0]).reverse(true))),
            own(a.reshape_like(Like::new([2, 6]))),
            own(a.reshape_paddle([0, -1])),
            own(a.reshape_np([-1, 2], Order::F)),
            own(a.reshape_np([-1, 2], Order::A)),
            own(a.reshape_npx(Npx::new([-1]))),
            own(a.reshape_onnx(Onnx::new([3, -1]))),
            own(a.reshape_with(Np::new([4, -1], Order::C))),
            a.reshape_owned(Np::new([-1], Order::F))
                .map_err(|e| e.to_string()),
            a.reshape_owned(Np::new([2, -1], Order::C).dim::<Ix2>())
                .map(|v| v.into_dyn())
                .map_err(|e| e.to_string()),
            a.reshape_view(Mx::new([-1]))
                .map(|v| v.to_owned())
                .map_err(|e| e.to_string()),
            a.reshape_copy_into(Np::new([-1, 3], Order::C), &mut buf)
                .map(|v| v.to_owned())
                .map_err(|e| e.to_string()),
        ]
    }};
}

/// [`every_call!`] through an `&ArrayRef`, and whether each of three possible views is one.
fn through_ref<D: Dimension>(
    a: &ArrayRef<i32, D>,
) -> (Vec<Result<ArrayD<i32>, String>>, [bool; 3]) {
    let views = [
        a.reshape_mx([-1]).is_ok_and(|c| c.is_view()),
        a.reshape_with(Np::new([2, -1], Order::C).dim::<Ix2>())
            .is_ok_and(|c| c.is_view() && c.as_ptr() == a.as_ptr()),
        a.reshape_view(Mx::new([-4, 1, -1, -2]).dim::<Ix3>())
            .is_ok_and(|v| v.as_ptr() == a.as_ptr()),
    ];
    (every_call!(a), views)
}

/// [`every_call!`] on the array itself (`ArrayBase`), for comparison.
fn through_array<S, D>(a: &ndarray::ArrayBase<S, D>) -> Vec<Result<ArrayD<i32>, String>>
where
    S: ndarray::Data<Elem = i32>,
    D: Dimension,
{
    every_call!(a)
}

#[test]
fn every_method_through_an_array_ref_matches_the_array() {
    let x = Array::from_iter(0..12)
        .into_shape_with_order((3, 4))
        .unwrap();
    let strided = Array::from_iter(0..48)
        .into_shape_with_order((6, 8))
        .unwrap();
    let cases = [
        ("contiguous", x.view()),
        ("transposed", x.t()),
        ("reversed", x.slice(s![..;-1, ..])),
    ];
    for (name, v) in cases {
        let (by_ref, _) = through_ref(&v);
        assert_eq!(by_ref, through_array(&v), "{name}");
        assert!(by_ref[..9].iter().all(|r| r.is_ok()), "{name}: {by_ref:?}");
    }
    let stepped = strided.slice(s![1..;2, ..;-2]);
    let (by_ref, _) = through_ref(&stepped);
    assert_eq!(by_ref, through_array(&stepped), "stepped");
    // Only the strict view fails: the rows are 16 apart, not 4 x 2.
    let failed: Vec<usize> = (0..by_ref.len()).filter(|&i| by_ref[i].is_err()).collect();
    assert_eq!(failed, [11], "stepped: {by_ref:?}");

    // The contiguous input: the three views are views of the same data.
    let (_, views) = through_ref(&x);
    assert_eq!(views, [true, true, true]);
    // The transposed input: flattening or regrouping its axes in C order copies, splitting the
    // first axis off as (1, 4) keeps a view.
    let (out, views) = through_ref(&x.t());
    assert_eq!(views, [false, false, true]);
    assert_eq!(
        out[0].as_ref().unwrap().as_slice().unwrap(),
        &[0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    );
    assert!(out[11].as_ref().unwrap_err().contains("without a copy"));
}

#[test]
fn mutable_views_through_an_array_ref_write_into_the_array() {
    fn zero_second_row_flat(a: &mut ArrayRef2<f32>) -> Result<(), ReshapeError> {
        let mut flat = a.reshape_view_mut(Mx::new([-1]))?;
        let cols = flat.len() / 2;
        flat.slice_mut(s![cols..]).fill(0.0);
        Ok(())
    }
    let mut x = Array::from_shape_fn((2, 3), |(i, j)| (i * 3 + j + 1) as f32);
    zero_second_row_flat(&mut x).unwrap();
    assert_eq!(x, array![[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]);

    // Not a view: the error, and the array untouched.
    let mut y = Array::from_shape_fn((3, 2), |(i, j)| (i * 2 + j + 1) as f32);
    let mut t = y.view_mut().reversed_axes();
    let err = zero_second_row_flat(&mut t).unwrap_err();
    assert!(matches!(err, ReshapeError::NeedsCopy(_)), "{err}");
    assert_eq!(y.sum(), 21.0);

    // A shared `ArcArray`: `&mut *a` makes its data unique first, so the clone keeps its values.
    let mut a = ArcArray::from_shape_fn((2, 3), |(i, j)| (i * 3 + j + 1) as f32);
    let before = a.clone();
    zero_second_row_flat(&mut a).unwrap();
    assert_eq!(a, array![[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]);
    assert_eq!(before, array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
}

#[test]
fn spec_values_and_like_rhs_borrowed_as_array_ref() {
    fn by_tensor(a: &ArrayRef2<i32>, shape: &ArrayRef1<i64>) -> Vec<usize> {
        a.reshape_paddle(shape).unwrap().shape().to_vec()
    }
    fn like(a: &ArrayRef2<i32>, rhs: &ArrayRef<u8, IxDyn>) -> Vec<usize> {
        a.reshape_like(rhs).unwrap().shape().to_vec()
    }
    let x = Array::from_iter(0..12)
        .into_shape_with_order((3, 4))
        .unwrap();
    let tensor: Array1<i64> = array![2, -1, 3];
    assert_eq!(by_tensor(&x, &tensor), vec![2, 2, 3]);
    let rhs = ArrayD::<u8>::zeros(IxDyn(&[6, 2]));
    assert_eq!(like(&x, &rhs), vec![6, 2]);

    // Paddle's shape items: a one-element tensor borrowed as an `ArrayRef`.
    let four: Array1<i32> = array![4];
    let r: &ArrayRef1<i32> = &four;
    let spec = Paddle::new(vec![ndarray_reshape::args::ShapeItem::from(r), (-1).into()]);
    assert_eq!(x.reshape_paddle(spec).unwrap().shape(), &[4, 3]);

    // A 2-D tensor as a shape: the same error as through the array.
    let bad = Array::from_elem((1, 2), 6i64);
    let by_ref: &ArrayRef2<i64> = &bad;
    let e1 = x.reshape_paddle(by_ref).unwrap_err().to_string();
    let e2 = x.reshape_paddle(&bad).unwrap_err().to_string();
    assert_eq!(e1, e2);
    assert!(e1.contains("1-D"), "{e1}");
}

#[test]
fn fluid_run_view_takes_an_array_ref() {
    fn run(a: &ArrayRef2<f32>) -> (Vec<usize>, bool) {
        let y = Reshape::new([-1]).run_view(a).unwrap();
        (y.shape().to_vec(), y.is_view())
    }
    let x = Array::<f32, _>::zeros((2, 6));
    assert_eq!(run(&x), (vec![12], true));
    assert_eq!(run(&x.t()), (vec![12], false));
}

#[test]
fn errors_through_an_array_ref_name_the_input() {
    fn go(a: &ArrayRef2<f32>) -> ReshapeError {
        a.reshape_mx([-1, -1]).unwrap_err()
    }
    let x = Array::<f32, _>::zeros((2, 6));
    let e = go(&x);
    assert!(matches!(e, ReshapeError::MultipleInfer(_)), "{e}");
    assert!(e.to_string().contains("[2, 6]"), "{e}");
}

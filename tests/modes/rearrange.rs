//! einops patterns through every mode and storage: views share the input's buffer, a
//! broadcast (`repeat`) is never a mutable or owning view, copies agree with the
//! reshape-transpose-reshape chain.

use ndarray::{ArcArray, Array, ArrayD, CowArray, Ix4, IxDyn};
use ndarray_reshape::{Rearrange, ReshapeError, ReshapeExt, ShapeSpec};

fn arange(shape: &[usize]) -> ArrayD<i64> {
    let n: usize = shape.iter().product();
    Array::from_iter(0..n as i64)
        .into_shape_with_order(IxDyn(shape))
        .unwrap()
}

/// What einops computes with numpy: reshape, transpose, reshape.
fn chain(x: &ArrayD<i64>, split: &[usize], perm: &[usize], out: &[usize]) -> ArrayD<i64> {
    let a = x
        .as_standard_layout()
        .into_owned()
        .into_shape_with_order(IxDyn(split))
        .unwrap();
    let b = a
        .permuted_axes(IxDyn(perm))
        .as_standard_layout()
        .into_owned();
    b.into_shape_with_order(IxDyn(out)).unwrap()
}

#[test]
fn views_share_the_buffer_on_every_storage() -> Result<(), ReshapeError> {
    let heads = Rearrange::new("b n (h d) -> b h n d")?.axis("h", 4);
    let x = arange(&[2, 6, 32]);
    let want = chain(&x, &[2, 6, 4, 8], &[0, 2, 1, 3], &[2, 4, 6, 8]);
    let v = x.reshape_view(&heads)?;
    assert_eq!(v.as_ptr(), x.as_ptr());
    assert_eq!(v, want);
    assert_eq!(x.view().reshape_with(&heads)?.as_ptr(), x.as_ptr());
    let r: &ndarray::ArrayRef<i64, IxDyn> = &x;
    assert_eq!(r.reshape_with(&heads)?, want);
    assert_eq!(
        r.rearrange("b n (h d) -> b h n d", &[("h", 4)])?.as_ptr(),
        x.as_ptr()
    );
    let mut m = x.clone();
    let mr: &mut ndarray::ArrayRef<i64, IxDyn> = &mut m;
    assert_eq!(mr.reshape_view_mut(&heads)?, want);
    // Typed results.
    let t = x.reshape_view((&heads).dim::<Ix4>())?;
    assert_eq!(t.dim(), (2, 4, 6, 8));
    // Consuming: an owned array keeps its buffer; an ArcArray and a CowArray too.
    let ptr = x.as_ptr();
    let owned = x.clone().into_reshape(&heads)?;
    assert_eq!(owned, want);
    let arc: ArcArray<i64, IxDyn> = x.clone().into_shared();
    assert_eq!(arc.into_reshape(&heads)?, want);
    let cow = CowArray::from(x.view());
    assert_eq!(cow.into_reshape(&heads)?.as_ptr(), ptr);
    // In place: the same buffer, axes permuted.
    let mut y = x.clone();
    let before = y.as_ptr();
    y.reshape_in_place(Rearrange::new("a b c -> c a b")?)?;
    assert_eq!((y.as_ptr(), y.shape()), (before, &[32, 2, 6][..]));
    assert_eq!(y, chain(&x, &[2, 6, 32], &[2, 0, 1], &[32, 2, 6]));
    Ok(())
}

#[test]
fn mutable_views_write_through_and_never_alias() -> Result<(), ReshapeError> {
    let mut x = arange(&[3, 4]);
    {
        let mut t = x.reshape_view_mut(Rearrange::new("h w -> w h")?)?;
        t[[3, 2]] = -1;
    }
    assert_eq!(x[[2, 3]], -1);
    // A broadcast repeats elements: a read-only view, never a mutable or owning one.
    let rep = Rearrange::repeat("h w -> h w c")?.axis("c", 2);
    let b = x.reshape_view(&rep)?;
    assert_eq!((b.as_ptr(), b.strides()), (x.as_ptr(), &[4, 1, 0][..]));
    let err = x.reshape_view_mut(&rep).unwrap_err();
    assert!(matches!(err, ReshapeError::NeedsCopy(_)), "{err}");
    assert!(err.to_string().contains("repeats elements"), "{err}");
    assert!(matches!(
        x.clone().into_reshape(&rep),
        Err(ReshapeError::NeedsCopy(_))
    ));
    let copied = x.clone().into_reshape_clone(&rep)?;
    assert_eq!(copied.shape(), &[3, 4, 2]);
    assert_eq!(copied[[2, 3, 1]], -1);
    // A view's consuming reshape may broadcast: its data is read-only.
    assert!(x.view().into_reshape(&rep).is_ok());
    Ok(())
}

#[test]
fn copies_read_the_input_once_in_every_copying_mode() -> Result<(), ReshapeError> {
    let swin = Rearrange::new("b (h p1) (w p2) c -> (b h w) p1 p2 c")?
        .axis("p1", 2)
        .axis("p2", 3);
    let x = arange(&[2, 4, 6, 3]);
    let want = chain(&x, &[2, 2, 2, 2, 3, 3], &[0, 1, 3, 2, 4, 5], &[8, 2, 3, 3]);
    assert!(matches!(
        x.reshape_view(&swin),
        Err(ReshapeError::NeedsCopy(_))
    ));
    let c = x.reshape_with(&swin)?;
    assert!(!c.is_view());
    assert_eq!(c, want);
    assert_eq!(x.reshape_owned(&swin)?, want);
    let mut buf = vec![0i64; x.len()];
    assert_eq!(x.reshape_copy_into(&swin, &mut buf)?, want);
    assert!(x.reshape_copy_into(&swin, &mut [0; 3]).is_err());
    // From a transposed (F-order) input.
    let f = x.t().as_standard_layout().into_owned();
    let ft = f.t();
    assert_eq!(ft.reshape_with(&swin)?, want);
    // repeat into a buffer: the output is larger than the input.
    let rep = Rearrange::repeat("b h w c -> b h w c k")?.axis("k", 2);
    let mut big = vec![0i64; 2 * x.len()];
    let y = x.reshape_copy_into(&rep, &mut big)?;
    assert_eq!(y[[1, 3, 5, 2, 1]], x[[1, 3, 5, 2]]);
    Ok(())
}

#[test]
fn lowering_and_explain() -> Result<(), ReshapeError> {
    use ndarray_reshape::{Onnx, OnnxNode};
    let plain = Rearrange::new("b (h w) c -> b h w c")?.axis("h", 7);
    assert_eq!(plain.to_onnx(&[2, 49, 3])?, Onnx::new([2, 7, 7, 3]));
    assert!(plain.explain(&[2, 49, 3]).is_ok());
    let t = Rearrange::new("b n c -> b c n")?;
    assert!(matches!(
        t.to_onnx(&[2, 5, 3]),
        Err(ReshapeError::OnnxInexpressible(_))
    ));
    assert!(matches!(
        t.explain(&[2, 5, 3]),
        Err(ReshapeError::NotAReshape(_))
    ));
    assert_eq!(
        t.to_onnx_nodes(&[2, 5, 3])?,
        [OnnxNode::Transpose {
            perm: vec![0, 2, 1]
        }]
    );
    let rep = Rearrange::repeat("h w -> h w c")?.axis("c", 4);
    assert_eq!(
        rep.to_onnx_nodes(&[2, 3])?,
        [
            OnnxNode::Reshape(Onnx::new([2, 3, 1])),
            OnnxNode::Expand {
                shape: vec![2, 3, 4]
            },
        ]
    );
    Ok(())
}

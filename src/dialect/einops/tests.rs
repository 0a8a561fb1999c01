use super::*;
use crate::dialect::ShapeSpec;
use crate::sym::SymDim;

fn shape(r: &Rearrange, input: &[usize]) -> Result<Vec<usize>, String> {
    r.infer_shape(input).map_err(|e| e.to_string())
}

#[test]
fn shapes_as_einops_gives_them() {
    let r = |p: &str| Rearrange::new(p).unwrap();
    assert_eq!(
        shape(&r("b (h w) c -> b h w c").axis("h", 7), &[2, 49, 3]),
        Ok(vec![2, 7, 7, 3])
    );
    assert_eq!(shape(&r("b n c -> c b n"), &[2, 49, 3]), Ok(vec![3, 2, 49]));
    assert_eq!(
        shape(&r("b n c -> b 1 n () c"), &[2, 49, 3]),
        Ok(vec![2, 1, 49, 1, 3])
    );
    assert_eq!(
        shape(&r("b ... -> b (...)"), &[2, 7, 7, 3]),
        Ok(vec![2, 147])
    );
    assert_eq!(shape(&r("... -> ..."), &[]), Ok(vec![]));
    assert_eq!(shape(&r("b ... c -> (b c) ..."), &[2, 3]), Ok(vec![6]));
    let swin = r("b (h p1) (w p2) c -> (b h w) p1 p2 c")
        .axis("p1", 7)
        .axis("p2", 7);
    assert_eq!(shape(&swin, &[2, 14, 14, 3]), Ok(vec![8, 7, 7, 3]));
    let rep = |p: &str| Rearrange::repeat(p).unwrap();
    assert_eq!(shape(&rep("h w -> (h 2) (w 2)"), &[3, 4]), Ok(vec![6, 8]));
    assert_eq!(
        shape(&rep("h w -> h w c").axis("c", 5), &[3, 4]),
        Ok(vec![3, 4, 5])
    );
    assert_eq!(
        shape(&rep("b 1 n -> b k n").axis("k", 0), &[2, 1, 3]),
        Ok(vec![2, 0, 3])
    );
}

#[test]
fn failures_name_the_rule_and_the_group() {
    let r = |p: &str| Rearrange::new(p).unwrap();
    let err = r("b (h w) c -> b h w c")
        .axis("h", 5)
        .infer_shape(&[2, 49, 3])
        .unwrap_err();
    assert_eq!(err.category(), "infer_not_divisible");
    assert_eq!(err.context().position(), Some(1)); // the input dim
    assert!(
        err.context()
            .detail()
            .starts_with("input dim 1 (49) as (h w): "),
        "{err}"
    );
    // The position is the input dim, not the unknown's place in its group.
    let err = r("(h w) c -> h w c")
        .axis("h", 5)
        .infer_shape(&[49, 3])
        .unwrap_err();
    assert_eq!(err.context().position(), Some(0));
    let err = r("a b -> b a")
        .axis("a", 3)
        .infer_shape(&[2, 5])
        .unwrap_err();
    assert_eq!(err.category(), "size_mismatch");
    assert!(
        err.context().detail().starts_with("input dim 0 (2) as a: "),
        "{err}"
    );
    let e = shape(&r("b n -> n b"), &[2, 49, 3]).unwrap_err();
    assert!(e.starts_with("pattern_rank"), "{e}");
    let e = shape(&r("b n c -> b n c").axis("q", 2), &[2, 49, 3]).unwrap_err();
    assert!(e.starts_with("axis_length"), "{e}");
    let e = shape(&r("b n c -> b n c").axis("_q", 2), &[2, 49, 3]).unwrap_err();
    assert!(e.starts_with("axis_length"), "{e}");
    let e = shape(&r("(a b) -> a b"), &[6]).unwrap_err();
    assert!(
        e.starts_with("multiple_infer") && e.contains("(a b) leaves a and b unknown"),
        "{e}"
    );
    let e = shape(&r("(a b) -> a b").axis("a", 0), &[6]).unwrap_err();
    assert!(e.starts_with("infer_zero_product"), "{e}");
    let e = shape(&r("(a b) -> a b").axis("a", 2).axis("b", 2), &[6]).unwrap_err();
    assert!(e.starts_with("size_mismatch"), "{e}");
    let e = shape(&Rearrange::repeat("h -> h c").unwrap(), &[6]).unwrap_err();
    assert!(e.starts_with("bad_pattern"), "{e}");
    let e = Rearrange::new("b (h w c -> b h w c")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("bad_pattern") && e.contains("b (h w c -> b h w c"),
        "{e}"
    );
}

#[test]
fn symbolic_splits_carry_their_conditions() {
    let (b, n) = (SymDim::sym("B"), SymDim::sym("N"));
    let r = Rearrange::new("b (h w) -> b h w").unwrap().axis("h", 2);
    let s = r.infer_symbolic(&[b, n]).unwrap();
    assert_eq!(s.eval(&[("B", 1), ("N", 6)]), Some(vec![1, 2, 3]));
    assert_eq!(s.eval(&[("B", 1), ("N", 5)]), None);
}

#[test]
fn display_and_pattern() {
    let r = Rearrange::new("a b -> b a")
        .unwrap()
        .axis("a", 2)
        .axis("b", 3);
    assert_eq!(r.to_string(), r#""a b -> b a" a=2 b=3"#);
    assert_eq!(r.pattern(), "a b -> b a");
    let rep = Rearrange::repeat("h -> h c").unwrap().axis("c", 4);
    assert_eq!(rep.to_string(), r#"repeat "h -> h c" c=4"#);
}

#[test]
fn a_pattern_that_moves_axes_is_no_reshape_through_any_reference() {
    use crate::dialect::lower::OnnxNode;
    use crate::error::ReshapeError;
    use ndarray::Ix3;
    let plain = Rearrange::new("b (h w) c -> b h w c").unwrap().axis("h", 7);
    assert!(plain.to_onnx(&[2, 49, 3]).is_ok());
    assert!(plain.explain(&[2, 49, 3]).is_ok());
    assert!(plain
        .to_onnx_symbolic(&[SymDim::sym("B"), SymDim::from(49), SymDim::from(3)])
        .is_ok());
    let t = Rearrange::new("b n c -> b c n").unwrap();
    let onnx = |e: ReshapeError| (e.category(), e.to_string().contains("to_onnx_nodes gives"));
    assert_eq!(
        onnx(t.to_onnx(&[2, 5, 3]).unwrap_err()),
        ("onnx_inexpressible", true)
    );
    assert_eq!(
        onnx(<&Rearrange as ShapeSpec>::to_onnx(&&t, &[2, 5, 3]).unwrap_err()),
        ("onnx_inexpressible", true)
    );
    let ranked = (&t).dim::<Ix3>();
    assert_eq!(
        onnx(ranked.to_onnx(&[2, 5, 3]).unwrap_err()),
        ("onnx_inexpressible", true)
    );
    let e = t.explain(&[2, 5, 3]).unwrap_err();
    assert_eq!(e.category(), "not_a_reshape");
    assert!(e.to_string().contains("no axis groups"), "{e}");
    let sym = [SymDim::sym("B"), SymDim::from(5), SymDim::from(3)];
    assert_eq!(
        t.explain_symbolic(&sym).unwrap_err().category(),
        "not_a_reshape"
    );
    assert_eq!(
        t.to_onnx_symbolic(&sym).unwrap_err().category(),
        "onnx_inexpressible"
    );
    // A reference to, or a rank type of, a dialect's spec is a reshape.
    let mx = crate::dialect::mx::Mx::new([-1]);
    assert!(<&crate::dialect::mx::Mx as ShapeSpec>::to_onnx(&&mx, &[2, 3]).is_ok());
    assert!(mx.clone().dim::<ndarray::Ix1>().to_onnx(&[2, 3]).is_ok());
    // A transpose alone: no Reshape before or after it.
    assert_eq!(
        t.to_onnx_nodes(&[2, 5, 3]).unwrap(),
        [OnnxNode::Transpose {
            perm: vec![0, 2, 1]
        }]
    );
    // Through a reference and a rank type, the arrangement the modes plan with is the same.
    use crate::dialect::sealed::Spec;
    use crate::dialect::Planned;
    let plan = |s: &dyn Fn(Planned<'_>) -> Result<(), ReshapeError>| {
        let (mut dims, mut arranged) = (Small::new(), None);
        s(Planned::new(&mut dims, &mut arranged)).unwrap();
        (dims.to_vec(), arranged)
    };
    let direct = plan(&|p| t.plan_into(&[2, 5, 3], p));
    assert!(direct.1.is_some());
    assert_eq!(direct.0, [2, 3, 5]);
    assert_eq!(plan(&|p| Spec::plan_into(&&t, &[2, 5, 3], p)), direct);
    assert_eq!(plan(&|p| ranked.plan_into(&[2, 5, 3], p)), direct);
    assert_eq!(plan(&|p| mx.plan_into(&[2, 3], p)), (vec![6], None));
}

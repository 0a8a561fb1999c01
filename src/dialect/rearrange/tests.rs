use super::*;
use crate::{ShapeSpec, SymDim};

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
    let e = shape(&r("b (h w) c -> b h w c").axis("h", 5), &[2, 49, 3]).unwrap_err();
    assert!(e.starts_with("infer_not_divisible"), "{e}");
    assert!(e.contains("(h w)"), "{e}");
    let e = shape(&r("b n -> n b"), &[2, 49, 3]).unwrap_err();
    assert!(e.starts_with("pattern_rank"), "{e}");
    let e = shape(&r("b n c -> b n c").axis("q", 2), &[2, 49, 3]).unwrap_err();
    assert!(e.starts_with("axis_length"), "{e}");
    let e = shape(&r("b n c -> b n c").axis("_q", 2), &[2, 49, 3]).unwrap_err();
    assert!(e.starts_with("axis_length"), "{e}");
    let e = shape(&r("(a b) -> a b"), &[6]).unwrap_err();
    assert!(e.starts_with("multiple_infer"), "{e}");
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

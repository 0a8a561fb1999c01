//! The shape-only einops API: `Reduce`, `Pack` and `parse_shape` on numbers and symbols, the
//! ONNX nodes of each, and `explain_pattern`.

use ndarray_reshape::{
    parse_shape, GroupKind, Onnx, OnnxNode, Pack, Rearrange, Reduce, Reduction, SymDim,
};

fn k(v: usize) -> SymDim {
    SymDim::from(v)
}

#[test]
fn reduce_shapes_on_numbers_and_symbols() {
    let r = Reduce::new("b (h h2) (w w2) c -> b h w () c", Reduction::Mean)
        .unwrap()
        .axis("h2", 2)
        .axis("w2", 4);
    assert_eq!(r.infer_shape(&[3, 10, 12, 5]).unwrap(), [3, 5, 3, 1, 5]);
    assert_eq!(
        r.infer_shape(&[3, 11, 12, 5]).unwrap_err().category(),
        "infer_not_divisible"
    );
    assert_eq!(r.reduction(), Reduction::Mean);
    assert_eq!(r.pattern(), "b (h h2) (w w2) c -> b h w () c");
    assert_eq!(
        r.to_string(),
        "reduce \"b (h h2) (w w2) c -> b h w () c\" mean h2=2 w2=4"
    );
    let (b, h) = (SymDim::sym("B"), SymDim::sym("H"));
    let s = r
        .infer_symbolic(&[b.clone(), h.clone(), k(12), k(5)])
        .unwrap();
    assert_eq!(s.dims()[0], b);
    assert_eq!(s.dims()[2], k(3));
    assert_eq!(s.conditions().len(), 1, "{s}");
    assert_eq!(s.eval(&[("B", 2), ("H", 8)]), Some(vec![2, 4, 3, 1, 5]));
    assert_eq!(s.eval(&[("B", 2), ("H", 7)]), None);
    // 12 into (w 4) with w symbolic-free: exact; 12 into (w 5) never.
    let bad = Reduce::new("b (w w2) -> b w", Reduction::Sum)
        .unwrap()
        .axis("w2", 5);
    assert!(bad.infer_symbolic(&[b.clone(), k(12)]).is_err());
    // An ellipsis only on the left reduces all its dims; an empty right side is a scalar.
    let all = Reduce::new("b ... -> b", Reduction::Max).unwrap();
    assert_eq!(all.infer_shape(&[4]).unwrap(), [4]);
    assert_eq!(all.infer_shape(&[4, 2, 3]).unwrap(), [4]);
    let scalar = Reduce::new("a b ->", Reduction::Sum).unwrap();
    assert_eq!(scalar.infer_shape(&[2, 3]).unwrap(), Vec::<usize>::new());
    assert_eq!(
        scalar.infer_shape(&[2]).unwrap_err().category(),
        "pattern_rank"
    );
}

#[test]
fn reduce_onnx_nodes_follow_the_opset() {
    let node = |r: Reduction, opset: u32| {
        Reduce::new("a b c -> c a", r)
            .unwrap()
            .to_onnx_nodes(&[2, 3, 4], opset)
            .unwrap()
    };
    let nodes = node(Reduction::Sum, 13);
    assert_eq!(
        nodes,
        [
            OnnxNode::Reduce {
                reduction: Reduction::Sum,
                axes: vec![1],
                keepdims: false,
                axes_input: true
            },
            OnnxNode::Transpose { perm: vec![1, 0] },
        ]
    );
    let attr = |nodes: &[OnnxNode]| match &nodes[0] {
        OnnxNode::Reduce { axes_input, .. } => *axes_input,
        other => panic!("{other:?}"),
    };
    assert!(!attr(&node(Reduction::Sum, 12)));
    assert!(attr(&node(Reduction::Sum, 13)));
    assert!(!attr(&node(Reduction::Max, 17)));
    assert!(attr(&node(Reduction::Max, 18)));
    let any = Reduce::new("a b -> a", Reduction::Any).unwrap();
    assert_eq!(
        any.to_onnx_nodes(&[2, 3], 19).unwrap_err().category(),
        "onnx_inexpressible"
    );
    assert_eq!(any.to_onnx_nodes(&[2, 3], 20).unwrap()[0].op(), "ReduceMax");
    // A unit axis kept: the Reshape after the reduction puts it back.
    let kept = Reduce::new("b c h w -> b c () ()", Reduction::Mean).unwrap();
    let nodes = kept.to_onnx_nodes(&[2, 3, 4, 5], 18).unwrap();
    assert_eq!(
        nodes.last(),
        Some(&OnnxNode::Reshape(Onnx::new([2, 3, 1, 1])))
    );
    // Nothing reduced and nothing moved: no node at all.
    let same = Reduce::new("a b -> a b", Reduction::Sum).unwrap();
    assert!(same.to_onnx_nodes(&[2, 3], 18).unwrap().is_empty());
}

#[test]
fn pack_shapes_on_numbers_and_symbols() {
    let p = Pack::new("b * c").unwrap();
    assert_eq!(p.pattern(), "b * c");
    assert_eq!(p.to_string(), "pack \"b * c\"");
    let (shape, ps) = p
        .pack_shapes(&[&[2, 5], &[2, 3, 0, 5], &[2, 7, 5]])
        .unwrap();
    assert_eq!(shape, [2, 8, 5]);
    assert_eq!(ps, vec![vec![], vec![3, 0], vec![7]]);
    assert_eq!(p.pack_shapes(&[]).unwrap_err().category(), "bad_pattern");
    assert_eq!(
        p.pack_shapes(&[&[2]]).unwrap_err().category(),
        "pattern_rank"
    );
    // A leading star, a trailing star.
    assert_eq!(
        Pack::new("* d")
            .unwrap()
            .pack_shapes(&[&[4, 3, 2], &[2]])
            .unwrap()
            .0,
        [13, 2]
    );
    assert_eq!(
        Pack::new("b *")
            .unwrap()
            .pack_shapes(&[&[4, 3, 2], &[4]])
            .unwrap()
            .0,
        [4, 7]
    );
    // Symbols: fixed axes equal as expressions, or held under a condition.
    let (b, n, m) = (SymDim::sym("B"), SymDim::sym("N"), SymDim::sym("M"));
    let (shape, conds) = p
        .pack_symbolic(&[
            vec![b.clone(), k(5)],
            vec![b.clone(), n.clone(), m.clone(), k(5)],
        ])
        .unwrap();
    assert_eq!(shape, vec![b.clone(), &(&n * &m) + &k(1), k(5)]);
    assert!(conds.is_empty());
    let (_, conds) = p
        .pack_symbolic(&[vec![b.clone(), k(5)], vec![n.clone(), k(5)]])
        .unwrap();
    assert_eq!(conds.len(), 1); // B == N
    assert_eq!(
        p.pack_symbolic(&[vec![b.clone(), k(5)], vec![b.clone(), k(6)]])
            .unwrap_err()
            .category(),
        "dim_mismatch"
    );
}

#[test]
fn unpack_shapes_on_numbers_and_symbols() {
    let p = Pack::new("b * c").unwrap();
    let packed = [2, 12, 5];
    assert_eq!(
        p.unpack_shapes(&packed, &[vec![3usize], vec![], vec![4, 2]])
            .unwrap(),
        vec![vec![2, 3, 5], vec![2, 5], vec![2, 4, 2, 5]]
    );
    assert_eq!(
        p.unpack_shapes(&packed, &[vec![3i64], vec![-1, 3]])
            .unwrap()[1],
        [2, 3, 3, 5]
    );
    assert_eq!(
        p.unpack_shapes::<i64>(&packed, &[]).unwrap(),
        Vec::<Vec<usize>>::new()
    );
    assert_eq!(
        p.unpack_shapes(&packed, &[vec![13i64], vec![-1]])
            .unwrap_err()
            .category(),
        "dim_mismatch"
    );
    assert_eq!(
        p.unpack_shapes(&packed, &[vec![5i64], vec![-1, 2]])
            .unwrap_err()
            .category(),
        "infer_not_divisible"
    );
    assert_eq!(
        p.unpack_shapes(&packed, &[vec![-1i64, -1]])
            .unwrap_err()
            .category(),
        "multiple_infer"
    );
    assert_eq!(
        p.unpack_shapes(&[2, 12], &[vec![12i64]])
            .unwrap_err()
            .category(),
        "pattern_rank"
    );
    // Symbols.
    let (b, n) = (SymDim::sym("B"), SymDim::sym("N"));
    let packed = [b.clone(), &n * &k(4), k(5)];
    let (parts, conds) = p
        .unpack_symbolic(&packed, &[vec![None, Some(k(4))]])
        .unwrap();
    assert_eq!(parts[0], vec![b.clone(), n.clone(), k(4), k(5)]);
    assert!(conds.is_empty());
    let (_, conds) = p
        .unpack_symbolic(&packed, &[vec![Some(n.clone())], vec![Some(k(3))]])
        .unwrap();
    assert_eq!(conds.len(), 1); // N + 3 == 4N
    assert!(p
        .unpack_symbolic(&packed, &[vec![None], vec![None]])
        .is_err());
    // Parts past isize::MAX fill no axis, on numbers and on symbols alike.
    let half = 1usize << 62;
    let (big, big_sym) = ([2, half, 5], [k(2), k(half), k(5)]);
    let err = p
        .unpack_shapes(&big, &[vec![half as i64], vec![half as i64], vec![-1]])
        .unwrap_err();
    assert_eq!(err.category(), "dim_mismatch", "{err}");
    let err = p
        .unpack_symbolic(
            &big_sym,
            &[vec![Some(k(half))], vec![Some(k(half))], vec![None]],
        )
        .unwrap_err();
    assert_eq!(err.category(), "dim_mismatch", "{err}");
    assert!(err.to_string().contains("isize::MAX"), "{err}");
    // What the -1 takes is never negative: N - 5 holds where 5 <= N.
    let (parts, conds) = p
        .unpack_symbolic(
            &[b.clone(), n.clone(), k(5)],
            &[vec![Some(k(5))], vec![None]],
        )
        .unwrap();
    assert_eq!(parts[1], vec![b.clone(), &n - &k(5), k(5)]);
    assert_eq!(conds.len(), 1, "{conds:?}");
    assert_eq!(conds[0].holds(&[("B", 1), ("N", 4)]), Some(false));
    assert_eq!(conds[0].holds(&[("B", 1), ("N", 5)]), Some(true));
    // ONNX: Split then Reshape where it changes something.
    let (split, each) = p
        .unpack_onnx_nodes(&[2, 12, 5], &[vec![4i64, 2], vec![-1]])
        .unwrap();
    assert_eq!(
        split,
        OnnxNode::Split {
            axis: 1,
            split: vec![8, 4]
        }
    );
    assert_eq!(each[0], [OnnxNode::Reshape(Onnx::new([2, 4, 2, 5]))]);
    assert!(each[1].is_empty());
}

#[test]
fn parse_shape_reads_every_form() {
    let named = |p: &str, s: &[usize]| {
        parse_shape(s, p).map(|v| {
            v.into_iter()
                .map(|(n, l)| format!("{n}={l}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
    };
    assert_eq!(named("a (b) _ _", &[2, 3, 4, 5]).unwrap(), "a=2 b=3");
    assert_eq!(named("a ... c", &[2, 3, 4, 5]).unwrap(), "a=2 c=5");
    assert_eq!(named("a ... c", &[2, 5]).unwrap(), "a=2 c=5");
    assert_eq!(named("... c", &[5]).unwrap(), "c=5");
    assert_eq!(named("a () (1) 1 3", &[2, 1, 1, 1, 3]).unwrap(), "a=2");
    assert_eq!(named("", &[]).unwrap(), "");
    assert_eq!(
        parse_shape(&[2], "a ... c").unwrap_err().category(),
        "pattern_rank"
    );
    assert_eq!(
        parse_shape(&[2, 2], "a a").unwrap_err().category(),
        "bad_pattern"
    );
    assert_eq!(
        parse_shape(&[2, 2], "a -> a").unwrap_err().category(),
        "bad_pattern"
    );
}

#[test]
fn patterns_explain_their_axes() {
    let e = Rearrange::new("b (h w) c -> b c h w")
        .unwrap()
        .axis("w", 7)
        .explain_pattern(&[2, 49, 3])
        .unwrap();
    assert_eq!(e.axis_names(), ["b", "h", "w", "c"]);
    assert_eq!(e.permutation(), [0, 3, 1, 2]);
    assert_eq!(e.split().output(), &[2, 7, 7, 3]);
    assert_eq!(e.split().groups()[1].kind, GroupKind::Split);
    assert!(e.new_axes().is_empty());
    assert_eq!(e.merge().input(), &[2, 3, 7, 7]);
    assert_eq!(e.merge().output(), &[2, 3, 7, 7]);
    // A C-contiguous input: moving c before h forces nothing in the merge (no merge), so a view.
    assert_eq!(e.copy_group(&[147, 3, 1]), None);
    assert_eq!(e.copy_group(&[147, 3]), None); // strides of another rank: nothing to explain
    let r = Rearrange::repeat("h w -> (h 2) w c").unwrap().axis("c", 3);
    let e = r.explain_pattern(&[4, 5]).unwrap();
    assert_eq!(e.new_axes(), [1, 3]);
    assert_eq!(e.merge().output(), &[8, 5, 3]);
    assert_eq!(e.copy_group(&[5, 1]), Some(0)); // (h 2): a repeat inside a merge copies
    let only_reshape = Rearrange::new("b (h w) -> b h w").unwrap().axis("h", 2);
    assert_eq!(
        only_reshape
            .explain_pattern(&[3, 4])
            .unwrap_err()
            .category(),
        "bad_pattern"
    );
}

#[test]
fn pack_shapes_refuse_what_no_array_has() {
    let p = Pack::new("b * c").unwrap();
    // A packed axis past isize::MAX: an overflow, not a wrap.
    let half = 1usize << 62;
    let e = p.pack_shapes(&[&[1, half, 1], &[1, half, 1]]).unwrap_err();
    assert_eq!(e.category(), "overflow");
    assert!(p.pack_shapes(&[&[1, half - 1, 1], &[1, half, 1]]).is_ok());
    // Symbolic inputs with too few dims, first or later.
    let b = SymDim::sym("B");
    let e = p
        .pack_symbolic(&[vec![b.clone()], vec![b.clone(), k(3)]])
        .unwrap_err();
    assert_eq!(e.category(), "pattern_rank");
    let e = p
        .pack_symbolic(&[vec![b.clone(), k(3)], vec![b.clone()]])
        .unwrap_err();
    assert_eq!(e.category(), "pattern_rank");
    // Exactly the fixed axes: an empty `*` part, one element.
    let (shape, _) = p
        .pack_symbolic(&[vec![b.clone(), k(3)], vec![b.clone(), k(3)]])
        .unwrap();
    assert_eq!(shape, vec![b.clone(), k(2), k(3)]);
    let q = Pack::new("b c *").unwrap();
    assert_eq!(
        q.pack_symbolic(&[vec![b.clone(), k(3)]]).unwrap().0,
        vec![b, k(3), k(1)]
    );
}

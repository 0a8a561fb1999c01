//! `ShapeValue`: each operation's framework semantics, its exact errors, and shape values as the
//! spec of every dialect that takes a shape tensor.

use std::slice::from_ref;

use ndarray::Array;
use ndarray_reshape::{
    Like, Mx, Np, Npx, Onnx, OpAttr, Order, Paddle, ReshapeError, ReshapeExt, ShapeSpec,
    ShapeValue, SymDim,
};

fn s(name: &str) -> SymDim {
    SymDim::sym(name)
}

fn k(v: usize) -> SymDim {
    SymDim::from(v)
}

fn v(x: &[i64]) -> ShapeValue {
    ShapeValue::from(x)
}

/// The value `[B, T, 768]`.
fn btc() -> ShapeValue {
    ShapeValue::shape_of(&[s("B"), s("T"), k(768)])
}

#[test]
fn slice_follows_onnx_clamping() {
    let x = v(&[10, 20, 30, 40, 50]);
    let cases: &[(i64, i64, i64, &[i64])] = &[
        (1, 3, 1, &[20, 30]),
        (0, i64::MAX, 2, &[10, 30, 50]),
        (-2, i64::MAX, 1, &[40, 50]),
        (i64::MIN, 2, 1, &[10, 20]),
        (-100, 100, 1, &[10, 20, 30, 40, 50]),
        (3, 1, 1, &[]),
        (4, 0, -1, &[50, 40, 30, 20]),
        (i64::MAX, i64::MIN, -1, &[50, 40, 30, 20, 10]),
        (-1, -100, -2, &[50, 30, 10]),
        (10, 2, -1, &[50, 40]),
        (0, 5, i64::MAX, &[10]),
        (4, -6, i64::MIN, &[50]),
    ];
    for &(start, end, step, want) in cases {
        let got = x.slice(start, end, step).unwrap();
        assert_eq!(got, v(want), "slice({start}, {end}, {step})");
    }
    assert_eq!(v(&[]).slice(0, 1, -1).unwrap(), v(&[]));
}

#[test]
fn integer_division_truncates_or_floors() {
    let cases: &[(i64, i64, i64, i64)] = &[
        (7, 2, 3, 3),
        (-7, 2, -3, -4),
        (7, -2, -3, -4),
        (-7, -2, 3, 3),
        (-8, 2, -4, -4),
        (0, -3, 0, 0),
        (i64::MIN, 1, i64::MIN, i64::MIN),
    ];
    for &(a, b, trunc, floor) in cases {
        let (x, y) = (ShapeValue::scalar(a), ShapeValue::scalar(b));
        assert_eq!(x.div(&y).unwrap(), ShapeValue::scalar(trunc), "{a} / {b}");
        assert_eq!(
            x.floor_div(&y).unwrap(),
            ShapeValue::scalar(floor),
            "{a} // {b}"
        );
    }
}

#[test]
fn symbolic_division_is_the_graphs_floor() {
    let b = ShapeValue::from(s("B"));
    // A tensor's dim (at most isize::MAX): within int64 with no condition.
    let dim = ShapeValue::shape_of(&[k(64) * s("B")]).squeeze(0).unwrap();
    let exact = dim.floor_div(&ShapeValue::scalar(16)).unwrap();
    assert_eq!(exact.to_string(), "4*B");
    assert!(exact.conditions().is_empty());
    // The same expression written by hand could be any int64 value: it says where it is one.
    let written = ShapeValue::from(k(64) * s("B"));
    assert_eq!(written.to_string(), "64*B if 64*B <= 9223372036854775807");
    let q = written.floor_div(&ShapeValue::scalar(16)).unwrap();
    assert_eq!(q.to_string(), "4*B if 64*B <= 9223372036854775807");
    // ONNX Div on a size is its floor: no condition, exact for every B.
    let half = b.div(&ShapeValue::scalar(2)).unwrap();
    assert_eq!(half.to_string(), "B // 2");
    assert!(half.conditions().is_empty());
    assert_eq!(half.eval(&[("B", 6)]), Some(vec![3]));
    assert_eq!(half.eval(&[("B", 7)]), Some(vec![3]));
    // A number over a symbol, a symbol over a symbol.
    let per = ShapeValue::scalar(64).div(&b).unwrap();
    assert_eq!(per.to_string(), "64 // B");
    assert_eq!(per.eval(&[("B", 16)]), Some(vec![4]));
    assert_eq!(per.eval(&[("B", 48)]), Some(vec![1]));
    let bt = ShapeValue::shape_of(&[s("B") * s("T")]).squeeze(0).unwrap();
    assert_eq!(bt.div(&ShapeValue::from(s("T"))).unwrap(), b);
    assert_eq!(
        ShapeValue::scalar(0).div(&b).unwrap(),
        ShapeValue::scalar(0)
    );
    // Floors of floors fold: (B // 2) // 2 is B // 4.
    let quarter = half.div(&ShapeValue::scalar(2)).unwrap();
    assert_eq!(quarter.eval(&[("B", 12)]), Some(vec![3]));
    assert_eq!(quarter.eval(&[("B", 7)]), Some(vec![1]));
    // B // 2 * 2 is not B.
    let back = half.mul(&ShapeValue::scalar(2)).unwrap();
    assert_eq!(back.eval(&[("B", 7)]), Some(vec![6]));
    // Truncation where a sign is unknown: (B - 5) / 2 at B = 2 is -1, its floor -2.
    let below = b.sub(&ShapeValue::scalar(5)).unwrap();
    let t = below.div(&ShapeValue::scalar(2)).unwrap();
    assert_eq!(t.eval(&[("B", 2)]), Some(vec![-1]));
    assert_eq!(t.eval(&[("B", 9)]), Some(vec![2]));
    let f = below.floor_div(&ShapeValue::scalar(2)).unwrap();
    assert_eq!(f.eval(&[("B", 2)]), Some(vec![-2]));
}

/// The graph's int64 arithmetic wraps where a symbolic value would pass `i64::MAX`: the value
/// carries that bound, so `B * 2^62 / 2^62` is `B` only where `B * 2^62` is an `i64`.
#[test]
fn values_past_i64_carry_their_bound() {
    let b = ShapeValue::shape_of(&[s("B")]);
    let big = ShapeValue::scalar(1 << 62);
    let v = b.mul(&big).unwrap().div(&big).unwrap();
    assert_eq!(v.entries(), &[s("B")]);
    assert_eq!(
        v.conditions()[0].to_string(),
        "4611686018427387904*B <= 9223372036854775807"
    );
    assert_eq!(v.eval(&[("B", 1)]), Some(vec![1]));
    assert_eq!(v.eval(&[("B", 5)]), None);
    assert_eq!(v.conditions()[0].holds(&[("B", 5)]), Some(false));
    // A size read from a tensor's shape bounds its sub-products: no condition.
    let x = ShapeValue::shape_of(&[s("B"), k(3), s("H"), s("W")]);
    let hw = x
        .gather(&ShapeValue::scalar(2))
        .unwrap()
        .mul(&x.gather(&ShapeValue::scalar(3)).unwrap())
        .unwrap();
    assert!(hw.conditions().is_empty(), "{hw}");
    // Sides past i128 are decided where the sign is known.
    let huge = ShapeValue::from(s("B") * s("T") * s("H"))
        .mul(&ShapeValue::scalar(i64::MAX))
        .unwrap();
    let at = [("B", 1 << 60), ("T", 1 << 60), ("H", 1 << 60)];
    assert!(huge
        .conditions()
        .iter()
        .any(|c| c.holds(&at) == Some(false)));
    assert_eq!(huge.eval(&at), None);
}

#[test]
fn broadcasting_follows_onnx() {
    let x = v(&[2, 3, 4]);
    assert_eq!(x.mul(&v(&[10])).unwrap(), v(&[20, 30, 40]));
    assert_eq!(v(&[10]).mul(&x).unwrap(), v(&[20, 30, 40]));
    assert_eq!(x.mul(&ShapeValue::scalar(2)).unwrap().rank(), 1);
    assert_eq!(
        ShapeValue::scalar(2).mul(&ShapeValue::scalar(3)).unwrap(),
        ShapeValue::scalar(6)
    );
    assert_eq!(x.mul(&x).unwrap(), v(&[4, 9, 16]));
    assert_eq!(v(&[]).mul(&ShapeValue::scalar(2)).unwrap(), v(&[]));
    assert_eq!(
        x.mul(&v(&[1, 2])).unwrap_err().category(),
        "length_mismatch"
    );
}

#[test]
fn gather_and_the_rank_operations() {
    let x = btc();
    assert_eq!(
        x.gather(&ShapeValue::scalar(1)).unwrap(),
        ShapeValue::from(s("T"))
    );
    assert_eq!(
        x.gather(&v(&[-1, 0, 0])).unwrap().to_string(),
        "[768, B, B]"
    );
    assert_eq!(x.gather(&v(&[])).unwrap(), v(&[]));
    let one = x.slice(1, 2, 1).unwrap();
    assert_eq!(one.squeeze(-1).unwrap(), ShapeValue::from(s("T")));
    assert_eq!(one.squeeze(0).unwrap().unsqueeze(-1).unwrap(), one);
    assert_eq!(ShapeValue::concat(&[]).unwrap(), v(&[]));
    assert_eq!(ShapeValue::stack(&[]).unwrap(), v(&[]));
    let parts = [ShapeValue::from(s("B")), ShapeValue::scalar(-1)];
    assert_eq!(ShapeValue::stack(&parts).unwrap().to_string(), "[B, -1]");
    assert_eq!((x.rank(), x.len(), x.is_empty()), (1, 3, false));
    assert_eq!(format!("{x:?}"), "ShapeValue([B, T, 768])");
}

/// Every misuse: the rule, and a message naming the operation and its operands.
#[test]
fn errors_name_the_operation_and_operands() {
    let x = btc();
    let b = ShapeValue::from(s("B"));
    let cases: Vec<(Result<ShapeValue, ReshapeError>, &str, &str)> = vec![
        (
            x.gather(&ShapeValue::scalar(3)),
            "index_out_of_range",
            "index_out_of_range: index 3 is out of range for length 3; shape op gather([B, T, 768], 3), operand 1",
        ),
        (
            x.gather(&b),
            "needs_number",
            "needs_number: the index B is symbolic; shape op gather([B, T, 768], B), operand 1",
        ),
        (
            b.gather(&ShapeValue::scalar(0)),
            "value_rank",
            "value_rank: gather takes a 1-D value, got the 0-D B; shape op gather(B, 0), operand 0",
        ),
        (
            x.slice(0, 2, 0),
            "zero_step",
            "zero_step: the step is 0; shape op slice([B, T, 768], 0, 2, 0), operand 3",
        ),
        (
            x.unsqueeze(0),
            "value_rank",
            "value_rank: the value is 1-D; unsqueezing it gives rank 2; shape op unsqueeze([B, T, 768], 0), operand 0",
        ),
        (
            b.unsqueeze(1),
            "index_out_of_range",
            "index_out_of_range: axis 1 is out of range for a 1-D result; shape op unsqueeze(B, 1), operand 1",
        ),
        (
            x.squeeze(0),
            "length_mismatch",
            "length_mismatch: the length is 3, not 1; shape op squeeze([B, T, 768], 0), operand 0",
        ),
        (
            ShapeValue::concat(&[x.clone(), b.clone()]),
            "value_rank",
            "value_rank: value 1 (B) is 0-D; concat takes 1-D values; shape op concat([B, T, 768], B), operand 1",
        ),
        (
            ShapeValue::stack(&[b.clone(), x.clone()]),
            "value_rank",
            "value_rank: value 1 ([B, T, 768]) is 1-D; stacking it gives rank 2; shape op stack(B, [B, T, 768]), operand 1",
        ),
        (
            x.div(&ShapeValue::scalar(0)),
            "division_by_zero",
            "division_by_zero: B / 0; shape op div([B, T, 768], 0), operand 1",
        ),
        (
            x.mul(&v(&[1, 2])),
            "length_mismatch",
            "length_mismatch: lengths 3 and 2 do not broadcast; shape op mul([B, T, 768], [1, 2]), operand 1",
        ),
        (
            ShapeValue::scalar(i64::MAX).mul(&ShapeValue::scalar(2)),
            "overflow",
            "overflow: 9223372036854775807 * 2 overflows i64; shape op mul(9223372036854775807, 2), operand 1",
        ),
        (
            ShapeValue::scalar(i64::MIN).div(&ShapeValue::scalar(-1)),
            "overflow",
            "overflow: -9223372036854775808 / -1 overflows i64; shape op div(-9223372036854775808, -1), operand 1",
        ),
        (
            b.floor_mod(&ShapeValue::scalar(0)),
            "division_by_zero",
            "division_by_zero: B / 0; shape op floor_mod(B, 0), operand 1",
        ),
        (
            b.scale(0.5, 0.0, true),
            "unknown_op",
            "unknown_op: scale 0.5 and bias 0 are not both integers; shape op scale(B, 0.5, 0), operand 1",
        ),
    ];
    for (got, rule, msg) in cases {
        let e = got.unwrap_err();
        assert_eq!(e.category(), rule, "{e}");
        assert_eq!(e.to_string(), msg);
        assert!(e.context().input().is_empty());
        assert_eq!(e.context().symbolic_input(), None);
    }
    // A negative number times a size is a value like any other.
    assert_eq!(b.mul(&ShapeValue::scalar(-1)).unwrap().to_string(), "-B");
    // Past the symbolic range: a product of more than 64 terms.
    let sum = ["A", "C", "D", "E", "F", "G", "H", "I", "J"]
        .iter()
        .fold(ShapeValue::scalar(1), |p, n| {
            p.add(&ShapeValue::from(s(n))).unwrap_or(p)
        });
    assert_eq!(
        sum.mul(&sum)
            .and_then(|p| p.mul(&sum))
            .unwrap_err()
            .category(),
        "symbol_limit"
    );
}

#[test]
fn shape_values_as_specs() -> Result<(), ReshapeError> {
    let x = [s("B"), s("T"), k(768)];
    let heads = ShapeValue::concat(&[ShapeValue::shape_of(&x).slice(0, 2, 1)?, v(&[12, -1])])?;
    let out = Onnx::new(&heads).infer_symbolic(&x)?;
    assert_eq!(out.to_string(), "[B, T, 12, 64]");
    assert_eq!(
        Onnx::new(&heads).to_onnx_symbolic(&x)?,
        Onnx::new([0, 0, 12, 64])
    );
    assert_eq!(
        Np::new(&heads, Order::C).infer_symbolic(&x)?.to_string(),
        "[B, T, 12, 64]"
    );
    assert_eq!(
        Paddle::new(&heads).infer_symbolic(&x)?.to_string(),
        "[B, T, 12, 64]"
    );
    // The spec prints as the value; explain works on it.
    let e = Onnx::new(&heads).infer_shape(&[2, 3, 768]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "needs_number: entry 0 is the symbolic B: infer with infer_symbolic, or bind the \
         symbols first (ShapeValue::eval); input shape [2, 3, 768], onnx spec [B, T, 12, -1], \
         position 0"
    );
    let ex = Onnx::new(&heads).explain_symbolic(&x)?;
    assert_eq!(ex.unmodified_dims(), vec![(0, 0), (1, 1)]);
    // The value's conditions join the result's, before the inference's own.
    let half = ShapeValue::shape_of(&x)
        .gather(&ShapeValue::scalar(1))?
        .div(&ShapeValue::scalar(2))?;
    let pairs = ShapeValue::stack(&[
        ShapeValue::scalar(0),
        half,
        ShapeValue::scalar(3),
        ShapeValue::scalar(-1),
    ])?;
    let out = Paddle::new(&pairs).infer_symbolic(&x)?;
    assert_eq!(
        out.to_string(),
        "[B, T // 2, 3, 256*T/(T // 2)] if 1 <= T // 2 and 256*T % (T // 2) == 0"
    );
    assert_eq!(out.eval(&[("B", 2), ("T", 4)]), Some(vec![2, 2, 3, 512]));
    assert_eq!(out.eval(&[("B", 2), ("T", 3)]), Some(vec![2, 1, 3, 768]));
    assert_eq!(out.eval(&[("B", 2), ("T", 7)]), None); // 1792 / 3
    assert_eq!(out.eval(&[("B", 2), ("T", 1)]), None); // T // 2 is 0: the -1 is undetermined
                                                       // Conditions alone make a concrete inference impossible to check: an error.
    let cond_only = ShapeValue::shape_of(&[s("T")])
        .mul(&ShapeValue::scalar(1 << 62))?
        .mul(&ShapeValue::scalar(0))?;
    let e = Onnx::new(&cond_only)
        .allowzero(true)
        .infer_shape(&[0])
        .unwrap_err();
    assert_eq!(e.category(), "needs_number");
    assert!(
        e.to_string()
            .contains("holds only if 4611686018427387904*T <= 9223372036854775807"),
        "{e}"
    );
    // A concrete value is a plain spec, in every mode.
    let a = Array::from_iter(0..24)
        .into_shape_with_order((2, 3, 4))
        .unwrap();
    let y = a.reshape_onnx(&v(&[0, -1]))?;
    assert!(y.is_view());
    assert_eq!(y.shape(), &[2, 12]);
    assert_eq!(a.reshape_paddle(v(&[4, 6]))?.shape(), &[4, 6]);
    assert_eq!(a.reshape_np(v(&[-1, 2]), Order::F)?.shape(), &[12, 2]);
    assert_eq!(Onnx::new(v(&[2, -1])).shape_values(), Some(&[2i64, -1][..]));
    // A symbolic one is an error from the array methods, never a panic.
    assert_eq!(
        a.reshape_onnx(&heads).unwrap_err().category(),
        "needs_number"
    );
    // A 0-D value is not a shape.
    let e = Onnx::new(ShapeValue::scalar(6))
        .infer_shape(&[2, 3])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad_shape_tensor: a shape is 1-D, not the 0-D value 6; input shape [2, 3], onnx spec 6, position 0"
    );
    // The dialects whose specs hold numbers only say so.
    let e = Mx::new(&heads).infer_symbolic(&x).unwrap_err();
    assert_eq!(e.category(), "needs_number");
    assert!(
        e.to_string()
            .contains("this dialect's specs hold numbers only"),
        "{e}"
    );
    assert_eq!(
        Npx::new(&heads)
            .infer_shape(&[2, 3])
            .unwrap_err()
            .category(),
        "needs_number"
    );
    assert_eq!(Onnx::new(&heads).shape_values(), None);
    Ok(())
}

#[test]
fn reshape_like_a_symbolic_shape() -> Result<(), ReshapeError> {
    let x = [s("N"), k(3), k(4)];
    let rhs = vec![s("N"), k(2), k(6)];
    let like = Like::new(&rhs).lhs(Some(1), None).rhs(Some(1), None);
    assert_eq!(like.infer_symbolic(&x)?.to_string(), "[N, 2, 6]");
    // A right-hand side of another size holds only where the sizes agree.
    let other = [s("M"), k(12)];
    let out = Like::new(&other[..]).infer_symbolic(&x)?;
    assert_eq!(out.to_string(), "[M, 12] if N == M");
    assert_eq!(
        Like::new(rhs).infer_shape(&[2, 12]).unwrap_err().category(),
        "needs_number"
    );
    Ok(())
}

type Attrs<'a> = &'a [(&'a str, OpAttr)];

fn onnx(
    op: &str,
    inputs: &[ShapeValue],
    attrs: Attrs,
    opset: i64,
) -> Result<ShapeValue, ReshapeError> {
    ShapeValue::onnx_op(op, inputs, attrs, opset)
}

fn paddle(op: &str, inputs: &[ShapeValue], attrs: Attrs) -> Result<ShapeValue, ReshapeError> {
    ShapeValue::paddle_op(op, inputs, attrs)
}

fn a(v: impl Into<OpAttr>) -> OpAttr {
    v.into()
}

/// The category of an error, or "ok".
fn cat(r: Result<ShapeValue, ReshapeError>) -> &'static str {
    r.map_or_else(|e| e.category(), |_| "ok")
}

#[test]
fn onnx_table_follows_each_opset() -> Result<(), ReshapeError> {
    let x = btc();
    let none = ShapeValue::from(Vec::<i64>::new());
    // Shape: start/end from opset 15, clamped; not an attribute before.
    assert_eq!(
        onnx("Shape", from_ref(&x), &[("start", a(1))], 15)?,
        ShapeValue::shape_of(&[s("T"), k(768)])
    );
    assert_eq!(onnx("Shape", from_ref(&x), &[("end", a(-1))], 21)?.len(), 2);
    assert_eq!(
        cat(onnx("Shape", from_ref(&x), &[("start", a(1))], 14)),
        "bad_attribute"
    );
    assert_eq!(
        onnx("Size", from_ref(&x), &[], 13)?.entries(),
        &[k(768) * s("B") * s("T")]
    );
    // Slice: attributes before opset 10, inputs after, with axes, steps and an absent axes.
    let x5 = v(&[10, 20, 30, 40, 50]);
    let at9 = [("starts", a(vec![1i64])), ("ends", a(vec![4i64]))];
    assert_eq!(onnx("Slice", from_ref(&x5), &at9, 9)?, v(&[20, 30, 40]));
    assert_eq!(cat(onnx("Slice", from_ref(&x5), &at9, 10)), "bad_attribute");
    let ins = [x5.clone(), v(&[-1]), v(&[i64::MIN]), v(&[0]), v(&[-2])];
    assert_eq!(onnx("Slice", &ins, &[], 13)?, v(&[50, 30, 10]));
    let ins = [x5.clone(), v(&[0]), v(&[5]), none.clone(), v(&[2])];
    assert_eq!(onnx("Slice", &ins, &[], 13)?, v(&[10, 30, 50]));
    let ins = [x5.clone(), v(&[0, 0]), v(&[1, 1]), v(&[0, -1])];
    assert_eq!(cat(onnx("Slice", &ins, &[], 13)), "bad_attribute"); // axis 0 twice
    let ins = [x5.clone(), v(&[0]), v(&[1, 2])];
    assert_eq!(cat(onnx("Slice", &ins, &[], 13)), "length_mismatch");
    // Unsqueeze and Squeeze: the axes attribute before 13, an input from 13.
    let four = ShapeValue::scalar(4);
    assert_eq!(
        onnx(
            "Unsqueeze",
            from_ref(&four),
            &[("axes", a(vec![-1i64]))],
            11
        )?,
        v(&[4])
    );
    assert_eq!(
        onnx("Unsqueeze", &[four.clone(), v(&[0])], &[], 13)?,
        v(&[4])
    );
    assert_eq!(
        cat(onnx("Unsqueeze", &[four.clone(), v(&[0, 1])], &[], 13)),
        "value_rank"
    );
    assert_eq!(
        cat(onnx("Unsqueeze", from_ref(&four), &[], 13)),
        "bad_attribute"
    );
    assert_eq!(onnx("Squeeze", &[v(&[4])], &[], 13)?, four);
    assert_eq!(onnx("Squeeze", &[v(&[4, 5])], &[], 13)?, v(&[4, 5]));
    assert_eq!(onnx("Squeeze", &[v(&[4]), v(&[0])], &[], 13)?, four);
    assert_eq!(
        onnx("Squeeze", &[v(&[4])], &[("axes", a(vec![0i64]))], 11)?,
        four
    );
    assert_eq!(
        cat(onnx("Squeeze", &[v(&[4, 5]), v(&[0])], &[], 13)),
        "length_mismatch"
    );
    let sym_axes = ShapeValue::shape_of(&[s("B")]);
    assert_eq!(
        cat(onnx("Unsqueeze", &[four.clone(), sym_axes], &[], 13)),
        "needs_number"
    );
    // Gather, Concat.
    assert_eq!(
        onnx("Gather", &[x.clone(), v(&[2, 0])], &[("axis", a(0))], 13)?.entries(),
        &[k(768), s("B")]
    );
    assert_eq!(
        cat(onnx("Gather", &[x.clone(), v(&[0])], &[("axis", a(1))], 13)),
        "index_out_of_range"
    );
    assert_eq!(cat(onnx("Concat", from_ref(&x), &[], 13)), "bad_attribute"); // axis is required
                                                                             // Reshape of a value: 0 copies unless allowzero; the result has rank 0 or 1.
    assert_eq!(
        onnx("Reshape", &[v(&[7]), v(&[])], &[], 13)?,
        ShapeValue::scalar(7)
    );
    assert_eq!(
        onnx("Reshape", &[four.clone(), v(&[-1])], &[], 13)?,
        v(&[4])
    );
    assert_eq!(
        onnx("Reshape", &[v(&[1, 2]), v(&[0])], &[], 13)?,
        v(&[1, 2])
    );
    assert_eq!(
        cat(onnx(
            "Reshape",
            &[v(&[1, 2]), v(&[0])],
            &[("allowzero", a(1))],
            14
        )),
        "size_mismatch"
    );
    assert_eq!(
        cat(onnx("Reshape", &[v(&[1, 2]), v(&[1, 2])], &[], 13)),
        "value_rank"
    );
    assert_eq!(
        cat(onnx("Reshape", &[v(&[1, 2]), v(&[3])], &[], 13)),
        "size_mismatch"
    );
    // Cast: type codes and names; integers wrap as the runtime's static_cast.
    assert_eq!(
        onnx("Cast", &[v(&[1 << 32, -1])], &[("to", a(6))], 13)?,
        v(&[0, -1])
    );
    assert_eq!(
        onnx("Cast", &[v(&[300, -1])], &[("to", a("uint8"))], 13)?,
        v(&[44, 255])
    );
    assert_eq!(
        onnx("Cast", &[v(&[0, 3])], &[("to", a(9))], 13)?,
        v(&[0, 1])
    );
    assert_eq!(
        cat(onnx("Cast", &[v(&[-1])], &[("to", a(13))], 13)),
        "overflow"
    );
    assert_eq!(
        cat(onnx("Cast", &[v(&[1])], &[("to", a(1))], 13)),
        "unknown_op"
    );
    assert_eq!(
        cat(onnx("Cast", &[v(&[1])], &[("to", a(99))], 13)),
        "bad_attribute"
    );
    assert_eq!(cat(onnx("Cast", &[v(&[1])], &[], 13)), "bad_attribute");
    let bt = ShapeValue::shape_of(&[s("B") * s("T")]).squeeze(0)?;
    let c = onnx("Cast", &[bt], &[("to", a(6))], 13)?;
    assert_eq!(c.dtype(), "int32");
    assert_eq!(c.conditions()[0].to_string(), "B*T <= 2147483647");
    assert_eq!(c.eval(&[("B", 1 << 16), ("T", 1 << 15)]), None);
    assert_eq!(c.eval(&[("B", 4), ("T", 5)]), Some(vec![20]));
    // Constants.
    assert_eq!(
        onnx("Constant", &[], &[("value", a(3))], 13)?,
        ShapeValue::scalar(3)
    );
    assert_eq!(
        onnx("Constant", &[], &[("value_ints", a(vec![3i64]))], 13)?,
        v(&[3])
    );
    assert_eq!(
        cat(onnx("Constant", &[], &[("value_float", a(3.0))], 13)),
        "unknown_op"
    );
    assert_eq!(cat(onnx("Constant", &[], &[], 13)), "bad_attribute");
    assert_eq!(
        onnx("ConstantOfShape", &[v(&[3])], &[("value", a(1))], 13)?,
        v(&[1, 1, 1])
    );
    assert_eq!(
        onnx("ConstantOfShape", &[v(&[])], &[("value", a(5))], 13)?,
        ShapeValue::scalar(5)
    );
    assert_eq!(
        cat(onnx("ConstantOfShape", &[v(&[3])], &[], 13)),
        "unknown_op"
    ); // float zeros
    assert_eq!(
        cat(onnx(
            "ConstantOfShape",
            &[v(&[2, 2])],
            &[("value", a(0))],
            13
        )),
        "value_rank"
    );
    assert_eq!(
        cat(onnx(
            "ConstantOfShape",
            &[v(&[i64::MAX])],
            &[("value", a(0))],
            13
        )),
        "value_too_long"
    );
    // Arithmetic, variadic extremes, logic.
    let b = ShapeValue::from(s("B"));
    assert_eq!(
        onnx(
            "Max",
            &[b.clone(), ShapeValue::scalar(1), ShapeValue::scalar(0)],
            &[],
            13
        )?,
        b
    );
    assert_eq!(
        onnx(
            "Sum",
            &[v(&[1, 2]), ShapeValue::scalar(3), v(&[10, 20])],
            &[],
            13
        )?,
        v(&[14, 25])
    );
    assert_eq!(onnx("Neg", &[v(&[3, -4])], &[], 13)?, v(&[-3, 4]));
    assert_eq!(
        cat(onnx("Neg", &[ShapeValue::scalar(i64::MIN)], &[], 13)),
        "overflow"
    );
    assert_eq!(onnx("Not", &[v(&[0, 1])], &[], 13)?, v(&[1, 0]));
    let eq = onnx("Equal", &[b.clone(), ShapeValue::scalar(-1)], &[], 13)?;
    assert_eq!(eq, ShapeValue::scalar(0));
    let gt = onnx("Greater", &[b.clone(), ShapeValue::scalar(3)], &[], 13)?;
    let both = onnx(
        "And",
        &[
            gt,
            onnx("LessOrEqual", &[b.clone(), ShapeValue::scalar(8)], &[], 13)?,
        ],
        &[],
        13,
    )?;
    let picked = onnx(
        "Where",
        &[both, ShapeValue::scalar(1), ShapeValue::scalar(2)],
        &[],
        13,
    )?;
    for (bv, want) in [(3, 2), (4, 1), (8, 1), (9, 2)] {
        assert_eq!(picked.eval(&[("B", bv)]), Some(vec![want]), "B = {bv}");
    }
    assert_eq!(
        onnx(
            "Mod",
            &[v(&[-7, 7]), ShapeValue::scalar(3)],
            &[("fmod", a(1))],
            13
        )?,
        v(&[-1, 1])
    );
    assert_eq!(cat(onnx("Add", from_ref(&b), &[], 13)), "bad_attribute");
    // Reductions: keepdims, axes an attribute before 18 (ReduceSum: 13), noop_with_empty_axes.
    let x3 = v(&[2, 3, 4]);
    assert_eq!(
        onnx("ReduceProd", from_ref(&x3), &[("keepdims", a(0))], 13)?,
        ShapeValue::scalar(24)
    );
    assert_eq!(onnx("ReduceProd", from_ref(&x3), &[], 13)?, v(&[24]));
    assert_eq!(
        onnx("ReduceProd", from_ref(&x3), &[("axes", a(vec![0i64]))], 13)?,
        v(&[24])
    );
    assert_eq!(
        cat(onnx(
            "ReduceProd",
            from_ref(&x3),
            &[("axes", a(vec![0i64]))],
            18
        )),
        "bad_attribute"
    );
    assert_eq!(
        onnx(
            "ReduceSum",
            &[x3.clone(), v(&[0])],
            &[("keepdims", a(0))],
            13
        )?,
        ShapeValue::scalar(9)
    );
    assert_eq!(
        onnx(
            "ReduceSum",
            from_ref(&x3),
            &[("noop_with_empty_axes", a(1))],
            13
        )?,
        x3
    );
    assert_eq!(
        onnx("ReduceMax", from_ref(&x3), &[("keepdims", a(0))], 18)?,
        ShapeValue::scalar(4)
    );
    assert_eq!(
        cat(onnx("ReduceMin", &[v(&[])], &[], 18)),
        "length_mismatch"
    );
    assert_eq!(
        onnx("ReduceProd", &[v(&[])], &[("keepdims", a(0))], 18)?,
        ShapeValue::scalar(1)
    );
    // The opset itself, and names the table does not know.
    assert_eq!(cat(onnx("Identity", from_ref(&b), &[], 0)), "bad_attribute");
    let e = onnx("Range", from_ref(&b), &[], 13).unwrap_err();
    assert_eq!(e.category(), "unknown_op");
    assert!(e.to_string().contains("Range(B) opset 13"), "{e}");
    Ok(())
}

#[test]
fn paddle_table_reads_pir_and_older_programs() -> Result<(), ReshapeError> {
    let x = btc();
    // shape64 -> slice(decrease_axis) -> stack, as every PIR program reads a dim.
    let shape = paddle(
        "pd_op.shape64",
        from_ref(&x),
        &[("stop_gradient", a(vec![1i64]))],
    )?;
    let axes = [
        ("axes", a(vec![0i64])),
        ("decrease_axis", a(vec![0i64])),
        ("infer_flags", a(vec![1i64])),
    ];
    let t = paddle("pd_op.slice", &[shape.clone(), v(&[1]), v(&[2])], &axes)?;
    assert_eq!(t, ShapeValue::from(s("T")));
    // Older programs: starts and ends as attributes.
    let old = [
        ("axes", a(vec![0i64])),
        ("starts", a(vec![-1i64])),
        ("ends", a(vec![i64::MAX])),
    ];
    assert_eq!(paddle("slice", from_ref(&shape), &old)?, v(&[768]));
    assert_eq!(
        cat(paddle(
            "pd_op.slice",
            &[shape.clone(), v(&[1]), v(&[2])],
            &[]
        )),
        "bad_attribute"
    );
    let st = [("axes", a(vec![0i64]))];
    assert_eq!(
        paddle(
            "pd_op.strided_slice",
            &[v(&[1, 2, 3, 4]), v(&[3]), v(&[-5]), v(&[-2])],
            &st
        )?,
        v(&[4, 2])
    );
    // full, full_int_array, fill_constant with a type code; a float full holding an integer.
    let full = [
        ("shape", a(vec![2i64])),
        ("value", a(-1.0)),
        ("dtype", a("int64")),
    ];
    assert_eq!(paddle("pd_op.full", &[], &full)?, v(&[-1, -1]));
    let half = [
        ("shape", a(Vec::<i64>::new())),
        ("value", a(0.5)),
        ("dtype", a("float32")),
    ];
    assert_eq!(cat(paddle("pd_op.full", &[], &half)), "unknown_op");
    let fill = [
        ("shape", a(vec![1i64])),
        ("value", a(64.0)),
        ("dtype", a(5)),
    ];
    assert_eq!(paddle("fill_constant", &[], &fill)?, v(&[64]));
    assert_eq!(
        paddle("pd_op.full_int_array", &[], &[("value", a(vec![0i64, -1]))])?,
        v(&[0, -1])
    );
    // scale: by an attribute or an input; float scales that are not integers are errors.
    let b = ShapeValue::from(s("B"));
    let by = paddle(
        "pd_op.scale",
        &[b.clone(), v(&[64])],
        &[("bias", a(1.0)), ("bias_after_scale", a(false))],
    )?;
    assert_eq!(by.entries(), &[k(64) * s("B") + k(64)]);
    assert_eq!(
        cat(paddle("pd_op.scale", from_ref(&b), &[("scale", a(0.5))])),
        "unknown_op"
    );
    // cast: names and the older type codes.
    assert_eq!(
        paddle("pd_op.cast", &[v(&[1 << 31])], &[("dtype", a("int32"))])?,
        v(&[-(1 << 31)])
    );
    assert_eq!(paddle("cast", &[v(&[2])], &[("out_dtype", a(0))])?, v(&[1]));
    assert_eq!(
        cat(paddle("pd_op.cast", &[v(&[2])], &[("dtype", a(99))])),
        "bad_attribute"
    );
    // Element-wise arithmetic and comparisons, PIR and older names alike.
    assert_eq!(
        paddle("pd_op.floor_divide", &[v(&[-7]), v(&[2])], &[])?,
        v(&[-4])
    );
    assert_eq!(
        paddle(
            "elementwise_floordiv",
            &[v(&[-7]), v(&[2])],
            &[("axis", a(-1))]
        )?,
        v(&[-4])
    );
    assert_eq!(
        paddle("pd_op.remainder", &[v(&[-7]), v(&[3])], &[])?,
        v(&[2])
    );
    assert_eq!(
        paddle("pd_op.maximum", &[b.clone(), ShapeValue::scalar(1)], &[])?,
        b
    );
    let lt = paddle("pd_op.less_than", &[b.clone(), ShapeValue::scalar(4)], &[])?;
    assert_eq!(lt.eval(&[("B", 3)]), Some(vec![1]));
    assert_eq!(
        paddle("pd_op.logical_not", from_ref(&lt), &[])?.eval(&[("B", 3)]),
        Some(vec![0])
    );
    // stack, concat (the axis operand as the attribute), reshape, unsqueeze, squeeze, gather.
    let stacked = paddle(
        "pd_op.stack",
        &[b.clone(), ShapeValue::scalar(-1)],
        &[("axis", a(0))],
    )?;
    assert_eq!(stacked.entries(), &[s("B"), -k(1)]);
    assert_eq!(
        cat(paddle("pd_op.stack", from_ref(&b), &[("axis", a(1))])),
        "index_out_of_range"
    );
    assert_eq!(
        paddle("pd_op.concat", &[v(&[1]), v(&[2, 3])], &[("axis", a(0))])?,
        v(&[1, 2, 3])
    );
    assert_eq!(paddle("pd_op.reshape", &[v(&[5]), v(&[0])], &[])?, v(&[5]));
    assert_eq!(
        paddle("pd_op.unsqueeze", &[ShapeValue::scalar(5), v(&[0])], &[])?,
        v(&[5])
    );
    assert_eq!(
        paddle("pd_op.squeeze", &[v(&[5])], &[("axis", a(vec![0i64]))])?,
        ShapeValue::scalar(5)
    );
    assert_eq!(
        paddle("pd_op.gather", &[x.clone(), v(&[1])], &[])?.entries(),
        &[s("T")]
    );
    assert_eq!(
        paddle("pd_op.numel", from_ref(&x), &[])?.entries(),
        &[k(768) * s("B") * s("T")]
    );
    // Paddle's integer divide changed its result type between releases: not guessed.
    assert_eq!(
        cat(paddle("pd_op.divide", &[v(&[6]), v(&[4])], &[])),
        "unknown_op"
    );
    assert_eq!(cat(paddle("pd_op.add", from_ref(&b), &[])), "bad_attribute");
    Ok(())
}

#[test]
fn casts_wrap_as_the_runtimes_do() -> Result<(), ReshapeError> {
    // Every integer type by its names, a number outside it wrapping as a C++ static_cast.
    let cases: &[(&str, i64, i64)] = &[
        ("int64", i64::MIN, i64::MIN),
        ("long", -5, -5),
        ("int32", 3_000_000_000, -1_294_967_296),
        ("int", 2_147_483_648, -2_147_483_648),
        ("int16", 40_000, -25_536),
        ("short", -32_769, 32_767),
        ("int8", 200, -56),
        ("int4", 9, -7),
        ("uint64", 7, 7),
        ("uint32", 5_000_000_000, 705_032_704),
        ("uint16", -1, 65_535),
        ("uint8", 256, 0),
        ("uint4", 17, 1),
        ("bool", -3, 1),
        ("paddle.int32", 1, 1),
        ("INT16", 70_000, 4_464),
    ];
    for &(to, x, want) in cases {
        let got = ShapeValue::scalar(x).cast(to)?;
        assert_eq!(got, ShapeValue::scalar(want), "{x} as {to}");
    }
    // Symbolic: the bound of the type where the sizes do not give it.
    let b = ShapeValue::from(s("B"));
    let conds = |to: &str| -> Result<Vec<String>, ReshapeError> {
        Ok(b.cast(to)?
            .conditions()
            .iter()
            .map(|c| c.to_string())
            .collect())
    };
    assert_eq!(conds("int16")?, ["B <= 32767"]);
    assert_eq!(conds("int8")?, ["B <= 127"]);
    assert_eq!(conds("uint16")?, ["B <= 65535"]);
    assert_eq!(conds("uint4")?, ["B <= 15"]);
    assert!(conds("int64")?.is_empty());
    let neg = ShapeValue::from(-s("B")).cast("uint32")?;
    assert_eq!(neg.conditions()[0].to_string(), "0 <= -B");
    assert_eq!(b.cast("bool")?, ShapeValue::scalar(1)); // a size is never 0
    assert_eq!(
        ShapeValue::scalar(-1)
            .cast("uint64")
            .unwrap_err()
            .category(),
        "overflow"
    );
    assert_eq!(b.cast("complex64").unwrap_err().category(), "bad_attribute");
    for float in [
        "float16", "float32", "float64", "bfloat16", "float8", "double", "half",
    ] {
        assert_eq!(
            b.cast(float).unwrap_err().category(),
            "unknown_op",
            "{float}"
        );
    }
    Ok(())
}

#[test]
fn onnx_division_truncates_in_its_simplest_form() -> Result<(), ReshapeError> {
    let b = ShapeValue::from(s("B"));
    let two = ShapeValue::scalar(2);
    // Signs known alike: the floor; known to differ: the negated floor of the negation.
    assert_eq!(b.div(&two)?.to_string(), "B // 2");
    assert_eq!(b.div(&ShapeValue::scalar(-2))?.to_string(), "-(B // 2)");
    assert_eq!(b.neg()?.div(&two)?.to_string(), "-(B // 2)");
    // Unknown sign: written out, exact on both sides of zero.
    let d = b.sub(&ShapeValue::scalar(5))?.div(&two)?;
    for (bv, want) in [(1, -2), (2, -1), (3, -1), (4, 0), (5, 0), (6, 0), (9, 2)] {
        assert_eq!(d.eval(&[("B", bv)]), Some(vec![want]), "B = {bv}");
    }
    let m = b.sub(&ShapeValue::scalar(5))?.trunc_mod(&two)?;
    for (bv, want) in [(2, -1), (4, -1), (5, 0), (8, 1)] {
        assert_eq!(m.eval(&[("B", bv)]), Some(vec![want]), "B = {bv}");
    }
    Ok(())
}

#[test]
fn symbolic_dims_at_their_edges() -> Result<(), ReshapeError> {
    assert_eq!(SymDim::int(-1).known(), None);
    assert_eq!(SymDim::int(0).known(), Some(0));
    let e = SymDim::int(i64::MIN)
        .floor_div(&SymDim::int(-1))
        .unwrap_err();
    assert_eq!(e.category(), "overflow");
    assert_eq!(
        SymDim::int(i64::MIN).floor_mod(&SymDim::int(-1))?,
        SymDim::from(0)
    );
    assert_eq!(SymDim::int(-7).floor_div(&SymDim::int(2))?, SymDim::int(-4));
    assert_eq!(SymDim::int(7).floor_div(&SymDim::int(-2))?, SymDim::int(-4));
    assert_eq!(SymDim::int(-7).floor_div(&SymDim::int(-2))?, SymDim::int(3));
    assert_eq!(SymDim::int(6).floor_div(&SymDim::int(-2))?, SymDim::int(-3));
    assert_eq!(SymDim::int(7).floor_mod(&SymDim::int(-2))?, SymDim::int(-1));
    // By a negative constant, symbolically: the same as numbers.
    let h = s("H");
    let q = h.floor_div(&SymDim::int(-3))?;
    let r = h.floor_mod(&SymDim::int(-3))?;
    assert_eq!(q.to_string(), "(2*H) // 3 - H"); // floor(-H/3), its offset normalised
    for hv in [1usize, 2, 3, 4, 7, 9] {
        let x = hv as i64;
        // Python's floor: toward negative infinity; the remainder takes the divisor's sign.
        let floor = x / -3 - i64::from(x % 3 != 0);
        assert_eq!(q.eval_int(&[("H", hv)]), Some(floor), "H = {hv}");
        assert_eq!(r.eval_int(&[("H", hv)]), Some(x + 3 * floor), "H = {hv}");
    }
    Ok(())
}

#[test]
fn attributes_display_and_convert() -> Result<(), ReshapeError> {
    let shown: Vec<String> = [
        OpAttr::from(3i64),
        OpAttr::from(vec![0i64, 2]),
        OpAttr::from(64.0),
        OpAttr::from(vec![0.5, 1.0]),
        OpAttr::from(true),
        OpAttr::from("int64"),
    ]
    .iter()
    .map(OpAttr::to_string)
    .collect();
    assert_eq!(
        shown,
        ["3", "[0, 2]", "64.0", "[0.5, 1.0]", "true", "\"int64\""]
    );
    // One integer where a list is read; an integer where a float is; 0 and 1 where a flag is.
    let four = ShapeValue::scalar(4);
    let one = ShapeValue::onnx_op("Unsqueeze", from_ref(&four), &[("axes", a(0))], 11)?;
    assert_eq!(one, v(&[4]));
    let b = ShapeValue::from(s("B"));
    let at = [("scale", a(3)), ("bias", a(1)), ("bias_after_scale", a(0))];
    let scaled = ShapeValue::paddle_op("pd_op.scale", from_ref(&b), &at)?;
    assert_eq!(scaled.entries(), &[k(3) * s("B") + k(3)]);
    let bad = [("bias_after_scale", a(2))];
    assert_eq!(
        cat(ShapeValue::paddle_op("pd_op.scale", from_ref(&b), &bad)),
        "bad_attribute"
    );
    let bad = [("axes", a("0"))];
    assert_eq!(
        cat(ShapeValue::onnx_op("Unsqueeze", from_ref(&four), &bad, 11)),
        "bad_attribute"
    );
    Ok(())
}

#[test]
fn table_errors_say_what_the_signature_is() {
    let b = ShapeValue::from(s("B"));
    let msg = |r: Result<ShapeValue, ReshapeError>| r.unwrap_err().to_string();
    assert_eq!(
        msg(onnx("Add", from_ref(&b), &[], 13)),
        "bad_attribute: Add takes 2 inputs, got 1; shape op Add(B) opset 13"
    );
    assert_eq!(
        msg(onnx("Concat", &[], &[("axis", a(0))], 13)),
        "bad_attribute: Concat takes at least 1 inputs, got 0; shape op Concat(; axis = 0) opset 13"
    );
    assert_eq!(
        msg(onnx("Slice", from_ref(&b), &[], 13)),
        "bad_attribute: Slice takes 3 to 5 inputs, got 1; shape op Slice(B) opset 13"
    );
    assert_eq!(
        msg(onnx("Gather", &[b.clone(), b.clone()], &[("axis", a(0)), ("axis", a(0))], 13)),
        "bad_attribute: the attribute axis is given twice; shape op Gather(B, B; axis = 0, axis = 0) opset 13"
    );
    assert_eq!(
        msg(onnx("Where", &[b.clone(), b.clone(), b.clone()], &[("x", a(1))], 13)),
        "bad_attribute: Where at opset 13 has no attribute x; shape op Where(B, B, B; x = 1) opset 13"
    );
    assert_eq!(
        msg(onnx("NonZero", from_ref(&b), &[], 13)),
        "unknown_op: no operator NonZero in the ONNX shape-op table; shape op NonZero(B) opset 13"
    );
    assert_eq!(
        msg(paddle("pd_op.nonzero", from_ref(&b), &[])),
        "unknown_op: no operator pd_op.nonzero in the Paddle shape-op table; shape op pd_op.nonzero(B)"
    );
    assert_eq!(
        msg(paddle("pd_op.cast", from_ref(&b), &[("dtype", a(1.5))])),
        "bad_attribute: the dtype 1.5 is not a type; shape op pd_op.cast(B; dtype = 1.5)"
    );
}

#[test]
fn values_reshape_fill_and_reduce_at_their_edges() -> Result<(), ReshapeError> {
    let four = ShapeValue::scalar(4);
    let r = |x: &ShapeValue, to: &[i64], az: i64| {
        ShapeValue::onnx_op("Reshape", &[x.clone(), v(to)], &[("allowzero", a(az))], 14)
    };
    // Rank 0 and 1 targets, checked against the entries.
    assert_eq!(r(&four, &[], 0)?, four);
    assert_eq!(r(&v(&[4]), &[], 0)?, four);
    assert_eq!(r(&four, &[1], 0)?, v(&[4]));
    assert_eq!(r(&v(&[1, 2, 3]), &[-1], 0)?, v(&[1, 2, 3]));
    assert_eq!(r(&v(&[1, 2, 3]), &[3], 1)?, v(&[1, 2, 3]));
    assert_eq!(r(&v(&[]), &[0], 1)?, v(&[]));
    // The ONNX dialect's rules and their names: no dim 0 to copy, sizes that differ.
    assert_eq!(cat(r(&four, &[0], 0)), "zero_out_of_rank");
    assert_eq!(cat(r(&v(&[1, 2]), &[], 0)), "size_mismatch");
    assert_eq!(cat(r(&v(&[1, 2]), &[-2], 0)), "bad_value");
    assert_eq!(cat(r(&v(&[1, 2]), &[-1, -1], 0)), "value_rank");
    assert_eq!(cat(r(&v(&[1, 2]), &[1, 2], 0)), "value_rank");
    // ConstantOfShape: a negative length is a bad value, not an allocation.
    let fill =
        |shape: &[i64]| ShapeValue::onnx_op("ConstantOfShape", &[v(shape)], &[("value", a(1))], 13);
    assert_eq!(cat(fill(&[-1])), "bad_value");
    assert_eq!(fill(&[0])?, v(&[]));
    // An explicitly empty axes attribute reduces every axis, as no attribute does.
    let x3 = v(&[2, 3, 4]);
    let empty: Vec<i64> = Vec::new();
    let all = ShapeValue::onnx_op(
        "ReduceProd",
        from_ref(&x3),
        &[("axes", a(empty)), ("keepdims", a(0))],
        13,
    )?;
    assert_eq!(all, ShapeValue::scalar(24));
    let noop = [("noop_with_empty_axes", a(1)), ("keepdims", a(0))];
    assert_eq!(
        ShapeValue::onnx_op("ReduceMax", from_ref(&x3), &noop, 18)?,
        x3
    );
    assert_eq!(
        ShapeValue::onnx_op("ReduceMin", &[x3.clone(), v(&[-1])], &noop, 18)?,
        ShapeValue::scalar(2)
    );
    Ok(())
}

#[test]
fn expressions_read_as_python_reads_them() -> Result<(), ReshapeError> {
    let (h, w, t) = (s("H"), s("W"), s("T"));
    let two = k(2);
    let cases = [
        (h.floor_div(&two)?, "H // 2"),
        (k(3) * h.floor_div(&two)?, "3*(H // 2)"),
        (h.floor_div(&two)? * w.floor_div(&two)?, "(H // 2)*(W // 2)"),
        ((h.clone() + k(1)).floor_div(&two)?, "(H + 1) // 2"),
        ((h.clone() * w.clone()).floor_div(&two)?, "(H*W) // 2"),
        (h.floor_div(&w)?, "H // W"),
        (h.floor_div(&(k(2) * w.clone()))?, "H // (2*W)"),
        (h.floor_mod(&k(7))?.floor_div(&two)?, "(H % 7) // 2"),
        (t.clone() - h.floor_div(&two)?, "-(H // 2) + T"),
        (t + h.floor_div(&two)?, "H // 2 + T"),
        (-(h.floor_div(&two)?), "-(H // 2)"),
        (-(h.floor_mod(&k(7))?), "-(H % 7)"),
        (-(k(3) * h.floor_div(&two)?), "-3*(H // 2)"),
        (h.floor_div(&two)? * h.floor_div(&two)?, "(H // 2)*(H // 2)"),
        (h.min(&w), "min(H, W)"),
        (SymDim::int(-3).floor_div(&h)?, "(-3) // H"),
        (h.floor_div(&SymDim::int(-1))?, "-H"),
    ];
    for (d, want) in cases {
        assert_eq!(d.to_string(), want);
    }
    // A name that is not a plain identifier is quoted, so that none reads as an expression.
    for (name, shown) in [
        ("B", "B"),
        ("_b2", "_b2"),
        ("x.size", "x.size"),
        ("1x", "\"1x\""),
        ("x-y", "\"x-y\""),
        ("a b", "\"a b\""),
        (".x", "\".x\""),
        ("", "\"\""),
        ("x:0", "\"x:0\""),
    ] {
        assert_eq!(s(name).to_string(), shown, "{name:?}");
    }
    Ok(())
}

#[test]
fn type_codes_of_both_frameworks() -> Result<(), ReshapeError> {
    // ONNX TensorProto.DataType: the integer types cast (300 shows each one's wrap), the
    // others are floats (not computed) or no integer type.
    let x = ShapeValue::scalar(300);
    let onnx_cast = |code: i64| ShapeValue::onnx_op("Cast", from_ref(&x), &[("to", a(code))], 13);
    for (code, want) in [
        (2, 44),
        (3, 44),
        (4, 300),
        (5, 300),
        (6, 300),
        (7, 300),
        (9, 1),
        (12, 300),
        (13, 300),
        (21, 12),
        (22, -4),
        (25, 0),
    ] {
        assert_eq!(
            onnx_cast(code)?,
            ShapeValue::scalar(want),
            "ONNX type {code}"
        );
    }
    for code in [1, 10, 11, 16, 17, 18, 19, 20, 23, 24] {
        assert_eq!(cat(onnx_cast(code)), "unknown_op", "ONNX type {code}");
    }
    for code in [0, 8, 14, 15, 26, -1] {
        assert_eq!(cat(onnx_cast(code)), "bad_attribute", "ONNX type {code}");
    }
    // Paddle's VarType codes of older programs.
    let paddle_cast =
        |code: i64| ShapeValue::paddle_op("cast", from_ref(&x), &[("out_dtype", a(code))]);
    for (code, want) in [(0, 1), (1, 300), (2, 300), (3, 300), (20, 44), (21, 44)] {
        assert_eq!(
            paddle_cast(code)?,
            ShapeValue::scalar(want),
            "Paddle type {code}"
        );
    }
    for code in [4, 5, 6, 22] {
        assert_eq!(cat(paddle_cast(code)), "unknown_op", "Paddle type {code}");
    }
    assert_eq!(cat(paddle_cast(7)), "bad_attribute");
    Ok(())
}

#[test]
fn values_compare_by_entries_rank_and_conditions() -> Result<(), ReshapeError> {
    assert_ne!(v(&[1, 2]), v(&[1, 3]));
    assert_ne!(v(&[4]), ShapeValue::scalar(4));
    let b = ShapeValue::from(s("B"));
    let bounded = b
        .mul(&ShapeValue::scalar(1 << 62))?
        .div(&ShapeValue::scalar(1 << 62))?;
    assert_eq!(bounded.entries(), b.entries());
    assert_ne!(bounded, b); // the same entries, under a condition
                            // Paddle's where, and its strided slice by a step of 3.
    let c = ShapeValue::paddle_op("pd_op.less_than", &[b.clone(), ShapeValue::scalar(3)], &[])?;
    let w = ShapeValue::paddle_op("pd_op.where", &[c, ShapeValue::scalar(7), b.clone()], &[])?;
    assert_eq!(w.eval(&[("B", 2)]), Some(vec![7]));
    assert_eq!(w.eval(&[("B", 5)]), Some(vec![5]));
    let st = [("axes", a(vec![0i64]))];
    let x = v(&[1, 2, 3, 4, 5, 6, 7]);
    let sl = ShapeValue::paddle_op(
        "pd_op.strided_slice",
        &[x.clone(), v(&[0]), v(&[7]), v(&[3])],
        &st,
    )?;
    assert_eq!(sl, v(&[1, 4, 7]));
    let bad = ShapeValue::paddle_op(
        "pd_op.strided_slice",
        &[x.clone(), v(&[0]), v(&[7]), v(&[3, 1])],
        &st,
    );
    assert_eq!(cat(bad), "length_mismatch");
    let bad = ShapeValue::paddle_op("pd_op.slice", &[x.clone(), v(&[0, 1]), v(&[7])], &st);
    assert_eq!(cat(bad), "length_mismatch");
    assert_eq!(
        cat(ShapeValue::paddle_op(
            "pd_op.shape64",
            &[ShapeValue::scalar(3)],
            &[]
        )),
        "value_rank"
    );
    assert_eq!(
        ShapeValue::paddle_op("pd_op.assign", &[ShapeValue::scalar(3)], &[])?,
        ShapeValue::scalar(3)
    );
    // ONNX Slice: axes and steps must match the starts; a float ConstantOfShape is refused.
    let bad = ShapeValue::onnx_op(
        "Slice",
        &[x.clone(), v(&[0]), v(&[7]), v(&[0]), v(&[1, 1])],
        &[],
        13,
    );
    assert_eq!(cat(bad), "length_mismatch");
    let bad = ShapeValue::onnx_op("ConstantOfShape", &[v(&[2])], &[("value", a(1.0))], 13);
    assert_eq!(cat(bad), "unknown_op");
    let bad = ShapeValue::onnx_op("Constant", &[], &[("value", a(vec![1.0, 2.0]))], 13);
    assert_eq!(cat(bad), "unknown_op");
    assert_eq!(
        cat(ShapeValue::onnx_op("Identity", from_ref(&b), &[], 1)),
        "ok"
    ); // opset 1 is one
    Ok(())
}

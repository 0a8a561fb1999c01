//! Shape values are what the graph computes in its own integer type: an intermediate that would
//! leave `int64` (or `int32` after a cast) is a condition of every value derived from it, a
//! divisor that may be 0 is one too, and a slice that drops an entry keeps what that entry
//! needed. Sums and products that wrap on the way to an exact result give that result.

use ndarray_reshape::{Onnx, OpAttr, ShapeSpec, ShapeValue};

use crate::{k, s, R};

#[test]
fn an_intermediate_past_int64_is_a_condition_of_what_follows() -> R {
    let v2 = ShapeValue::from(k(51) * s("N") * s("T"));
    let v7 = v2.div(&ShapeValue::scalar(4294967296))?;
    let edge = [("N", 1usize << 62), ("T", 2)];
    assert_eq!(v2.eval(&edge), None);
    // The graph's product wraps before it divides: no value is claimed there.
    assert_eq!(v7.eval(&edge), None);
    assert_eq!(
        v7.eval(&[("N", 1 << 20), ("T", 1 << 20)]),
        Some(vec![13056])
    );
    let q = ShapeValue::from(k(5) * s("q") * s("B") * s("B")).div(&ShapeValue::scalar(8))?;
    assert_eq!(q.eval(&[("B", 1 << 31), ("q", 2)]), None);
    assert_eq!(q.eval(&[("B", 1 << 20), ("q", 2)]), Some(vec![5 << 38]));
    Ok(())
}

#[test]
fn int32_arithmetic_is_bounded_by_int32() -> R {
    // ReduceProd(Cast(Shape([B, 65536]), INT32)): the int32 product wraps at B = 32768.
    let shape = ShapeValue::shape_of(&[s("B"), k(65536)]);
    let cast = ShapeValue::onnx_op("Cast", &[shape], &[("to", OpAttr::from(6))], 17)?;
    assert_eq!(cast.dtype(), "int32");
    let n = ShapeValue::onnx_op("ReduceProd", &[cast], &[("keepdims", OpAttr::from(0))], 17)?;
    assert_eq!(n.dtype(), "int32");
    assert_eq!(n.eval(&[("B", 32767)]), Some(vec![2147418112]));
    assert_eq!(n.eval(&[("B", 32768)]), None);
    // Paddle's cast to int32 likewise.
    let shape = ShapeValue::shape_of(&[s("B"), k(65536)]);
    let cast = ShapeValue::paddle_op("pd_op.cast", &[shape], &[("dtype", OpAttr::from("int32"))])?;
    let n = ShapeValue::paddle_op("pd_op.numel", &[cast], &[])?;
    assert_eq!(n.eval(&[("B", 32768)]), None);
    // A constant takes the type of the value it meets; numbers past int32 are an overflow.
    let c = ShapeValue::scalar(70000).cast("int32")?;
    assert_eq!(c.mul(&ShapeValue::scalar(2))?.dtype(), "int32");
    assert_eq!(
        c.mul(&ShapeValue::scalar(40000)).unwrap_err().category(),
        "overflow"
    );
    // Two integer types meet in the one that holds both, as NumPy and Paddle promote.
    let wide = ShapeValue::scalar(1)
        .cast("int16")?
        .add(&ShapeValue::scalar(1).cast("uint32")?)?;
    assert_eq!(wide.dtype(), "int64");
    Ok(())
}

#[test]
fn a_dropped_entry_keeps_what_it_needed() -> R {
    let t = ShapeValue::from(s("T"));
    let two = ShapeValue::from(vec![2i64]);
    let v6 = t.floor_div(&two)?.div(&two.div(&t)?)?;
    assert_eq!(v6.eval(&[("T", 6)]), None); // 2 // 6 is 0: the graph divides by zero
    assert_eq!(v6.eval(&[("T", 2)]), Some(vec![1]));
    let dropped = v6.slice(0, -3, 3)?;
    assert!(dropped.is_empty());
    assert_eq!(dropped.eval(&[("T", 6)]), None);
    assert_eq!(dropped.eval(&[("T", 2)]), Some(vec![]));
    assert_eq!(dropped.to_string(), "[] if 2 // T != 0");
    // Through gather, concat, squeeze and a spec's inference alike.
    let g = ShapeValue::concat(&[v6.gather(&ShapeValue::from(vec![0i64]))?, two.clone()])?;
    assert_eq!(g.eval(&[("T", 6)]), None);
    let spec = ShapeValue::concat(&[ShapeValue::from(vec![-1i64]), dropped])?;
    let out = Onnx::new(&spec).infer_symbolic(&[s("T"), k(4)])?;
    assert_eq!(out.eval(&[("T", 6)]), None);
    assert_eq!(out.eval(&[("T", 2)]), Some(vec![8]));
    // A divisor that is never 0 needs nothing.
    assert!(t
        .floor_div(&ShapeValue::from(s("B")))?
        .conditions()
        .is_empty());
    Ok(())
}

#[test]
fn sums_and_products_that_wrap_to_an_exact_result_are_that_result() -> R {
    let big = ShapeValue::from(vec![1i64 << 62, 4, 0]);
    assert_eq!(big.reduce_prod()?, ShapeValue::scalar(0));
    let sum = ShapeValue::from(vec![i64::MAX, 1, -1]);
    let r = ShapeValue::onnx_op("ReduceSum", &[sum], &[("keepdims", OpAttr::from(0))], 17)?;
    assert_eq!(r, ShapeValue::scalar(i64::MAX));
    let parts: Vec<ShapeValue> = [i64::MAX, 1, -1]
        .iter()
        .map(|&x| ShapeValue::scalar(x))
        .collect();
    assert_eq!(
        ShapeValue::onnx_op("Sum", &parts, &[], 17)?,
        ShapeValue::scalar(i64::MAX)
    );
    // scale: 2 * 2^62 - 2^62 wraps on the way (2^63) and the result, 2^62, is exact.
    let p = (1u64 << 62) as f64;
    assert_eq!(
        ShapeValue::scalar(2).scale(p, -p, true)?,
        ShapeValue::scalar(1 << 62)
    );
    assert_eq!(
        ShapeValue::scalar(3)
            .scale(p, 0.0, true)
            .unwrap_err()
            .category(),
        "overflow"
    );
    // A result past int64 is an overflow: the graph's wrapped value is not the exact one.
    assert_eq!(
        ShapeValue::from(vec![1i64 << 62, 4])
            .reduce_prod()
            .unwrap_err()
            .category(),
        "overflow"
    );
    assert_eq!(
        ShapeValue::from(vec![1i64 << 62, 1 << 62, 1 << 62, 3])
            .reduce_prod()
            .unwrap_err()
            .category(),
        "overflow"
    );
    Ok(())
}

//! The operator tables read attributes and inputs as the runtimes do: ONNX's scalars held in
//! one-element tensors, NumPy's broadcasting of empty values, ONNX's refusals, and a bound on
//! the length of what they build.

use ndarray_reshape::{OpAttr, ShapeValue, SymDim};

fn onnx(op: &str, inputs: &[ShapeValue], attrs: &[(&str, OpAttr)]) -> Result<ShapeValue, String> {
    ShapeValue::onnx_op(op, inputs, attrs, 17).map_err(|e| e.to_string())
}

fn v(x: &[i64]) -> ShapeValue {
    ShapeValue::from(x)
}

#[test]
fn constant_of_shape_takes_its_value_as_a_one_element_tensor() {
    let value = [("value", OpAttr::from(vec![7i64]))];
    assert_eq!(
        onnx("ConstantOfShape", &[v(&[3])], &value),
        Ok(v(&[7, 7, 7]))
    );
    assert_eq!(
        onnx("ConstantOfShape", &[v(&[2])], &[("value", OpAttr::from(7))]),
        Ok(v(&[7, 7]))
    );
    // Any other form names the attribute and the form it needs.
    let two = [("value", OpAttr::from(vec![7i64, 8]))];
    let e = onnx("ConstantOfShape", &[v(&[3])], &two).unwrap_err();
    assert!(
        e.contains("the attribute value = [7, 8] is not an integer (or a list of one)"),
        "{e}"
    );
    let e = onnx(
        "Gather",
        &[v(&[3, 4]), ShapeValue::scalar(0)],
        &[("axis", OpAttr::from("0"))],
    )
    .unwrap_err();
    assert!(
        e.contains("the attribute axis = \"0\" is not an integer"),
        "{e}"
    );
    // A 0-D shape input is refused, as ONNX refuses it; an empty 1-D one gives a 0-D value.
    let e = onnx("ConstantOfShape", &[ShapeValue::scalar(3)], &value).unwrap_err();
    assert!(e.starts_with("value_rank: "), "{e}");
    assert_eq!(
        onnx("ConstantOfShape", &[v(&[])], &value),
        Ok(ShapeValue::scalar(7))
    );
}

#[test]
fn where_broadcasts_empty_values_as_numpy_does() {
    let empty = v(&[]);
    let one = v(&[1]);
    let scalar = ShapeValue::scalar(4);
    assert_eq!(
        onnx("Where", &[one.clone(), empty.clone(), scalar.clone()], &[]),
        Ok(empty.clone())
    );
    assert_eq!(
        onnx("Where", &[scalar.clone(), one.clone(), empty.clone()], &[]),
        Ok(empty.clone())
    );
    assert_eq!(
        onnx("Where", &[empty.clone(), empty.clone(), empty.clone()], &[]),
        Ok(empty.clone())
    );
    // As Add broadcasts them.
    assert_eq!(
        onnx("Add", &[one.clone(), empty.clone()], &[]),
        Ok(empty.clone())
    );
    // Lengths 2 and 3 still do not.
    let e = onnx("Where", &[v(&[1, 0]), v(&[1, 2, 3]), scalar], &[]).unwrap_err();
    assert!(e.starts_with("length_mismatch: "), "{e}");
    // A symbolic condition of no entries.
    let b = ShapeValue::shape_of(&[SymDim::sym("B")]);
    assert_eq!(
        onnx("Where", &[b.slice(0, 0, 1).unwrap(), b.clone(), one], &[]),
        Ok(empty)
    );
}

#[test]
fn values_past_4096_entries_are_errors() {
    let fill = [("value", OpAttr::from(0))];
    assert_eq!(
        onnx("ConstantOfShape", &[v(&[4096])], &fill).map(|x| x.len()),
        Ok(4096)
    );
    let e = onnx("ConstantOfShape", &[v(&[1 << 26])], &fill).unwrap_err();
    assert!(e.starts_with("value_too_long: "), "{e}");
    let e = ShapeValue::paddle_op(
        "pd_op.full",
        &[],
        &[
            ("shape", OpAttr::from(vec![1i64 << 40])),
            ("value", OpAttr::from(1.0)),
        ],
    )
    .unwrap_err();
    assert_eq!(e.category(), "value_too_long");
    let half = onnx("ConstantOfShape", &[v(&[2048])], &fill).unwrap();
    assert_eq!(
        ShapeValue::concat(&[half.clone(), half.clone()])
            .map(|x| x.len())
            .ok(),
        Some(4096)
    );
    let e = ShapeValue::concat(&[half.clone(), half.clone(), v(&[1])]).unwrap_err();
    assert_eq!(e.category(), "value_too_long");
    let idx = ShapeValue::from(vec![0i64; 4097]);
    assert_eq!(
        v(&[5]).gather(&idx).unwrap_err().category(),
        "value_too_long"
    );
}

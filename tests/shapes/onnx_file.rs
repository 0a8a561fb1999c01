//! `.onnx` files (feature `onnx`): a model read into a [`Graph`], walked, written back with its
//! `value_info`, and read again; bytes that are no model are errors, never panics.

use ndarray_reshape::{Assumptions, Graph, SymDim};

fn neck() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/data/neck.onnx"
    ))
    .unwrap()
}

#[test]
fn a_model_reads_walks_and_writes_back() {
    let bytes = neck();
    let g = Graph::from_onnx(&bytes).unwrap();
    assert_eq!(g.opset_of(""), Some(17));
    assert_eq!(g.outputs(), ["heads"]);
    let shapes = g.infer(&Assumptions::new()).unwrap();
    // Raw little-endian initializers: an int64 pair with a -1, and float scales.
    assert_eq!(
        shapes.fact("rest").unwrap().value().unwrap().to_string(),
        "[8, -1]"
    );
    assert_eq!(
        shapes.fact("up").unwrap().to_string(),
        "float32[batch, 8, 2*((height + 7) // 8), 2*((width + 7) // 8)]"
    );
    let bound = shapes
        .bind(&[("images", &[2, 3, 64, 96])])
        .map_err(|e| e.to_string())
        .unwrap();
    assert_eq!(bound.shape("heads"), Some(&[2, 8, 16 * 24][..]));
    // 60 rows: 15 of them after two strides, 16 after three strides and the 2x Resize; the
    // Concat's skip connection needs the two to agree.
    let e = shapes.bind(&[("images", &[1, 3, 60, 96])]).unwrap_err();
    assert_eq!(e.category(), "unsatisfiable");
    assert!(e.to_string().contains("skip"), "{e}");

    let written = shapes.to_onnx(&bytes).unwrap();
    let again = Graph::from_onnx(&written)
        .unwrap()
        .infer(&Assumptions::new())
        .unwrap();
    for (name, fact) in shapes.tensors() {
        assert_eq!(again.fact(name), Some(fact), "{name}");
    }
    // Written twice, the value_info is replaced, not appended.
    let twice = again.to_onnx(&written).unwrap();
    assert_eq!(twice, written);
    // Every byte before the graph is the model's own.
    assert_eq!(written[..8], bytes[..8]);
}

#[test]
fn assumptions_simplify_the_walk() {
    let g = Graph::from_onnx(&neck()).unwrap();
    let known = Assumptions::new()
        .multiple_of("height", 32)
        .multiple_of("width", 32);
    let shapes = g.infer(&known).unwrap();
    let h = SymDim::sym("height");
    assert_eq!(
        shapes.fact("c3").unwrap().shape().unwrap()[2],
        h / SymDim::from(8)
    );
    assert!(shapes
        .conditions()
        .iter()
        .all(|c| !c.node().contains("skip")));
}

#[test]
fn bytes_that_are_no_model_are_errors() {
    let bytes = neck();
    for bad in [
        &b""[..],
        b"\xff\xff\xff",
        &bytes[..bytes.len() / 2],
        b"\x0a\x05hello",
    ] {
        match Graph::from_onnx(bad) {
            Ok(g) => assert!(g.nodes().is_empty(), "{bad:?}"),
            Err(e) => assert_eq!(e.category(), "bad_model"),
        }
    }
    assert_eq!(Graph::from_onnx(b"").unwrap_err().category(), "bad_model");
    let shapes = Graph::from_onnx(&bytes)
        .unwrap()
        .infer(&Assumptions::new())
        .unwrap();
    assert_eq!(
        shapes.to_onnx(b"\x08\x07").unwrap_err().category(),
        "bad_model"
    );
}

//! onnxruntime's contributed operators (`com.microsoft`), each on the shapes its documentation
//! (`docs/ContribOperators.md` of onnxruntime 1.2x) gives, symbolic batch and sequence.

use ndarray_reshape::{Assumptions, ElemType, Graph, GraphNode, InputDim, NodeAttr, OpAttr};

/// The output shapes of one `op` node on inputs of `dims` (`B`, `S` and `P` as symbols; an
/// empty list is an input left out), written as `Display` writes them.
fn outputs(op: &str, inputs: &[&[&str]], attrs: &[(&str, OpAttr)], outs: usize) -> Vec<String> {
    let mut g = Graph::new(17);
    g.import("com.microsoft", 1);
    let mut names = Vec::new();
    for (i, dims) in inputs.iter().enumerate() {
        if dims.is_empty() {
            names.push(String::new());
            continue;
        }
        let name = format!("in{i}");
        let dims = dims.iter().map(|d| match d.parse::<usize>() {
            Ok(v) => InputDim::Known(v),
            Err(_) => InputDim::named(d),
        });
        g.input(&name, ElemType::FLOAT, dims);
        names.push(name);
    }
    let out: Vec<String> = (0..outs).map(|o| format!("out{o}")).collect();
    let mut node = GraphNode::new(op, &names, &out).domain("com.microsoft");
    for (k, v) in attrs {
        node = node.attr(k, NodeAttr::Value(v.clone()));
    }
    g.node(node);
    let shapes = g
        .infer(&Assumptions::new())
        .unwrap_or_else(|e| panic!("{op}: {e}"));
    out.iter()
        .map(|o| shapes.fact(o).unwrap().to_string())
        .collect()
}

#[test]
fn contributed_operators_follow_onnxruntime_docs() {
    let int = |v: i64| OpAttr::from(v);
    // MatMulNBits: A [B, S, K] with a 4-bit B of N columns.
    assert_eq!(
        outputs(
            "MatMulNBits",
            &[&["B", "S", "64"], &["32", "2", "16"], &["64"]],
            &[
                ("K", int(64)),
                ("N", int(32)),
                ("bits", int(4)),
                ("block_size", int(32))
            ],
            1
        ),
        ["float32[B, S, 32]"]
    );
    // FusedMatMul with transB: [B, S, 64] x [128, 64]^T.
    assert_eq!(
        outputs(
            "FusedMatMul",
            &[&["B", "S", "64"], &["128", "64"]],
            &[("transB", int(1))],
            1
        ),
        ["float32[B, S, 128]"]
    );
    assert_eq!(
        outputs(
            "DynamicQuantizeMatMul",
            &[&["B", "S", "64"], &["64", "32"], &["1"]],
            &[],
            1
        ),
        ["float32[B, S, 32]"]
    );
    // SkipLayerNormalization: output, mean, inv_std_var, input_skip_bias_sum.
    assert_eq!(
        outputs(
            "SkipLayerNormalization",
            &[&["B", "S", "64"], &["B", "S", "64"], &["64"], &["64"]],
            &[],
            4
        ),
        [
            "float32[B, S, 64]",
            "float32[B, S, 1]",
            "float32[B, S, 1]",
            "float32[B, S, 64]"
        ]
    );
    // EmbedLayerNormalization: ids [B, S], word embedding [V, H].
    let ids: &[&str] = &["B", "S"];
    assert_eq!(
        outputs(
            "EmbedLayerNormalization",
            &[
                ids,
                ids,
                &["1000", "64"],
                &["512", "64"],
                &["2", "64"],
                &["64"],
                &["64"]
            ],
            &[],
            3
        ),
        ["float32[B, S, 64]", "int32[B]", "float32[B, S, 64]"]
    );
    // Attention: weights [H, 3H]; present [2, B, heads, P + S, head] with a past.
    assert_eq!(
        outputs(
            "Attention",
            &[
                &["B", "S", "64"],
                &["64", "192"],
                &["192"],
                &[],
                &["2", "B", "4", "P", "16"]
            ],
            &[("num_heads", int(4))],
            2
        ),
        ["float32[B, S, 64]", "float32[2, B, 4, P + S, 16]"]
    );
    assert_eq!(
        outputs(
            "Attention",
            &[&["B", "S", "64"], &["64", "160"]],
            &[
                ("num_heads", int(4)),
                ("qkv_hidden_sizes", OpAttr::from([64i64, 64, 32]))
            ],
            1
        ),
        ["float32[B, S, 32]"]
    );
    // MultiHeadAttention: query [B, S, D], key and value [B, L, D] or [B, N, L, H].
    assert_eq!(
        outputs(
            "MultiHeadAttention",
            &[&["B", "S", "64"], &["B", "P", "64"], &["B", "P", "48"]],
            &[("num_heads", int(4))],
            1
        ),
        ["float32[B, S, 48]"]
    );
    assert_eq!(
        outputs(
            "MultiHeadAttention",
            &[
                &["B", "S", "64"],
                &["B", "4", "P", "16"],
                &["B", "4", "P", "12"]
            ],
            &[("num_heads", int(4))],
            1
        ),
        ["float32[B, S, 48]"]
    );
    // GroupQueryAttention: packed query, key and value; the caches' length is data.
    let gqa = outputs(
        "GroupQueryAttention",
        &[
            &["B", "S", "128"],
            &[],
            &[],
            &["B", "2", "P", "16"],
            &["B", "2", "P", "16"],
            &["B"],
            &["1"],
        ],
        &[("num_heads", int(4)), ("kv_num_heads", int(2))],
        3,
    );
    assert_eq!(gqa[0], "float32[B, S, 64]");
    assert!(gqa[1].contains("out1.2"), "{}", gqa[1]);
    assert_eq!(
        outputs(
            "RotaryEmbedding",
            &[
                &["B", "S", "64"],
                &["B", "S"],
                &["512", "16"],
                &["512", "16"]
            ],
            &[],
            1
        ),
        ["float32[B, S, 64]"]
    );
    assert_eq!(
        outputs("BiasGelu", &[&["B", "S", "64"], &["64"]], &[], 1),
        ["float32[B, S, 64]"]
    );
    assert_eq!(
        outputs(
            "QuickGelu",
            &[&["B", "S", "64"]],
            &[("alpha", OpAttr::from(1.702))],
            1
        ),
        ["float32[B, S, 64]"]
    );
    // DynamicQuantizeLSTM: hidden_size 32, bidirectional, layout 0.
    let lstm = outputs(
        "DynamicQuantizeLSTM",
        &[&["S", "B", "40"], &["2", "40", "128"], &["2", "32", "128"]],
        &[
            ("hidden_size", int(32)),
            ("direction", OpAttr::from("bidirectional")),
        ],
        3,
    );
    assert_eq!(
        lstm,
        [
            "float32[S, 2, B, 32]",
            "float32[2, B, 32]",
            "float32[2, B, 32]"
        ]
    );
}

/// A graph with a recurrent layer's inputs: `x` of 8 features over the two named axes, `w`
/// and `r` of `directions` and `gates` rows (hidden size 16).
fn recurrent(axes: [&str; 2], directions: usize, gates: usize) -> Graph {
    let mut g = Graph::new(17);
    let [a, b] = axes.map(InputDim::named);
    g.input("x", ElemType::FLOAT, [a, b, 8.into()]);
    g.input(
        "w",
        ElemType::FLOAT,
        [directions.into(), gates.into(), 8.into()],
    );
    g.input(
        "r",
        ElemType::FLOAT,
        [directions.into(), gates.into(), 16.into()],
    );
    g
}

#[test]
fn recurrent_layouts_and_directions() {
    let mut g = recurrent(["B", "T"], 1, 48);
    // GRU with layout 1 (batch first), the hidden size from R.
    g.node(GraphNode::new("GRU", ["x", "w", "r"], ["y", "h"]).attr("layout", OpAttr::from(1)));
    let shapes = g.infer(&Assumptions::new()).unwrap();
    assert_eq!(
        shapes.fact("y").unwrap().to_string(),
        "float32[B, T, 1, 16]"
    );
    assert_eq!(shapes.fact("h").unwrap().to_string(), "float32[B, 1, 16]");
    let mut g = recurrent(["T", "B"], 2, 64);
    g.node(
        GraphNode::new("LSTM", ["x", "w", "r"], ["y", "h", "c"])
            .attr("hidden_size", OpAttr::from(16))
            .attr("direction", OpAttr::from("bidirectional")),
    );
    let shapes = g.infer(&Assumptions::new()).unwrap();
    assert_eq!(
        shapes.fact("y").unwrap().to_string(),
        "float32[T, 2, B, 16]"
    );
    assert_eq!(shapes.fact("c").unwrap().to_string(), "float32[2, B, 16]");
    // A direction that is none is an error naming it.
    let mut bad = g.clone();
    bad.node(
        GraphNode::new("RNN", ["x", "w", "r"], ["y2"]).attr("direction", OpAttr::from("sideways")),
    );
    let e = bad.infer(&Assumptions::new()).unwrap_err();
    assert!(e.to_string().contains("sideways"), "{e}");
}

/// A scan axis at `i64::MIN` is an error naming it, not an overflow.
#[test]
fn a_scan_axis_past_any_rank_is_an_error() {
    let mut body = Graph::default();
    body.input("s", ElemType::FLOAT, [InputDim::from(2)]);
    body.input("x", ElemType::FLOAT, [InputDim::from(2)]);
    body.node(GraphNode::new("Add", ["s", "x"], ["t"]));
    body.output("t");
    body.output("t");
    let mut g = Graph::new(17);
    g.input("s0", ElemType::FLOAT, [InputDim::from(2)]);
    g.input(
        "xs",
        ElemType::FLOAT,
        [InputDim::named("T"), InputDim::from(2)],
    );
    let scan = |axis: i64| {
        GraphNode::new("Scan", ["s0", "xs"], ["s", "ys"])
            .attr("num_scan_inputs", OpAttr::from(1))
            .attr("scan_input_axes", OpAttr::from(vec![axis]))
            .attr("body", NodeAttr::Graph(body.clone()))
    };
    let mut ok = g.clone();
    ok.node(scan(0));
    let shapes = ok.infer(&Assumptions::new()).unwrap();
    assert_eq!(shapes.fact("ys").unwrap().to_string(), "float32[T, 2]");
    g.node(scan(i64::MIN));
    let e = g.infer(&Assumptions::new()).unwrap_err();
    assert_eq!(e.category(), "index_out_of_range", "{e}");
}

//! The shape rules' table: one row per operator family. A row of an operator the shape-value
//! table holds takes its signature (opsets, inputs, attributes) and value rule from there, so
//! each is declared once; a data operator's row declares its signature here.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::ShapeRule;
use super::{
    contrib, elementwise as ew, image, index, layout, like_input, linear, recurrent, signal, window,
};
use crate::graph::{onnx_rows, Row, MANY};

/// One row: the operators it answers to, their signature (`None`: the shape-value table's
/// row), and their shape rule.
pub(crate) struct OpRow {
    names: &'static [&'static str],
    signature: Option<Row>,
    pub(crate) shape: ShapeRule,
}

impl OpRow {
    /// Operators of the shape-value table: its signature and value rule.
    const fn valued(names: &'static [&'static str], shape: ShapeRule) -> OpRow {
        OpRow {
            names,
            signature: None,
            shape,
        }
    }

    /// Data operators with this signature.
    const fn data(
        names: &'static [&'static str],
        inputs: (usize, usize),
        attrs: &'static [&'static str],
        shape: ShapeRule,
    ) -> OpRow {
        OpRow {
            names,
            signature: Some(Row::signature(names, inputs, attrs)),
            shape,
        }
    }

    /// Data operators whose attributes the rule reads as it goes (contributed operators,
    /// whose attribute sets grow between onnxruntime versions).
    const fn open(
        names: &'static [&'static str],
        inputs: (usize, usize),
        shape: ShapeRule,
    ) -> OpRow {
        OpRow {
            names,
            signature: Some(Row::signature(names, inputs, &[]).any_attributes()),
            shape,
        }
    }

    const fn from(mut self, v: i64) -> OpRow {
        if let Some(r) = self.signature {
            self.signature = Some(r.from(v));
        }
        self
    }

    const fn until(mut self, v: i64) -> OpRow {
        if let Some(r) = self.signature {
            self.signature = Some(r.until(v));
        }
        self
    }
}

/// The signature (with its value rule, where the operator has one) and shape rule of `op` in
/// `domain` at `opset`.
pub(crate) fn find(domain: &str, op: &str, opset: i64) -> Option<(&'static Row, ShapeRule)> {
    // Each operator's signatures with their shape rules, by domain and name, found once.
    type Index = HashMap<(&'static str, &'static str), Vec<(&'static Row, ShapeRule)>>;
    static INDEX: LazyLock<Index> = LazyLock::new(|| {
        let mut index = Index::new();
        for (domain, rows) in [("", ONNX), ("com.microsoft", CONTRIB)] {
            for r in rows {
                for &name in r.names {
                    let at = index.entry((domain, name)).or_default();
                    match &r.signature {
                        Some(s) => at.push((s, r.shape)),
                        None => at.extend(onnx_rows(name).map(|s| (s, r.shape))),
                    }
                }
            }
        }
        index
    });
    INDEX
        .get(&(domain, op))?
        .iter()
        .find(|(s, _)| s.holds_at(opset))
        .copied()
}

#[rustfmt::skip]
const UNARY: &[&str] = &[
    "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Reciprocal", "Sin", "Cos", "Tan",
    "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Floor", "Ceil", "Round",
    "Sign", "Softplus", "Softsign", "Mish", "HardSwish", "BitwiseNot",
];
#[rustfmt::skip]
const REDUCE: &[&str] = &[
    "ReduceMean", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare",
];
const REDUCE_AXES: &[&str] = &["axes", "keepdims"];
const REDUCE_INPUT: &[&str] = &["keepdims", "noop_with_empty_axes"];
const CONV: &[&str] = &[
    "auto_pad",
    "dilations",
    "group",
    "kernel_shape",
    "pads",
    "strides",
];
#[rustfmt::skip]
const CONV_TRANSPOSE: &[&str] = &[
    "auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads",
    "strides",
];
#[rustfmt::skip]
const MAX_POOL: &[&str] = &[
    "auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides",
];
#[rustfmt::skip]
const AVERAGE_POOL: &[&str] = &[
    "auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides",
];
const LP_POOL: &[&str] = &[
    "auto_pad",
    "ceil_mode",
    "dilations",
    "kernel_shape",
    "p",
    "pads",
    "strides",
];
#[rustfmt::skip]
const RESIZE_11: &[&str] = &[
    "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value",
    "mode", "nearest_mode",
];
#[rustfmt::skip]
const RESIZE_18: &[&str] = &[
    "antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
    "extrapolation_value", "keep_aspect_ratio_policy", "mode", "nearest_mode",
];
#[rustfmt::skip]
const RNN: &[&str] = &[
    "activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size",
    "layout",
];
#[rustfmt::skip]
const LSTM: &[&str] = &[
    "activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size",
    "input_forget", "layout",
];
#[rustfmt::skip]
const GRU: &[&str] = &[
    "activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size",
    "layout", "linear_before_reset",
];
/// `Attention` from opset 23 (its `nonpad_kv_seqlen` input and window attributes from 24).
#[rustfmt::skip]
const ATTENTION: &[&str] = &[
    "is_causal", "kv_num_heads", "left_window_size", "q_num_heads", "qk_matmul_output_mode",
    "right_window_size", "scale", "softcap", "softmax_precision",
];
const QUANTIZE: &[&str] = &[
    "axis",
    "block_size",
    "output_dtype",
    "precision",
    "saturate",
];
const DEQUANTIZE: &[&str] = &["axis", "block_size", "output_dtype"];
const GROUP_NORM: &[&str] = &["epsilon", "num_groups", "stash_type"];
const LAYER_NORM: &[&str] = &["axis", "epsilon", "stash_type"];
const BATCH_NORM: &[&str] = &["epsilon", "momentum", "spatial", "training_mode"];

/// The default domain, each operator at the opsets its signature holds for.
#[rustfmt::skip]
const ONNX: &[OpRow] = &[
    // The shape-value table's operators.
    OpRow::valued(&["Add", "Sub", "Mul", "Div", "Mod", "Min", "Max", "Sum"], ew::broadcast),
    OpRow::valued(&["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"], ew::compare),
    OpRow::valued(&["And", "Or", "Xor"], ew::compare),
    OpRow::valued(&["Where"], ew::select),
    OpRow::valued(&["Neg", "Abs", "Not", "Identity"], like_input),
    OpRow::valued(&["Cast"], ew::cast),
    OpRow::valued(&["Shape"], layout::shape),
    OpRow::valued(&["Size"], layout::size),
    OpRow::valued(&["ConstantOfShape"], layout::constant_of_shape),
    OpRow::valued(&["Gather"], index::gather),
    OpRow::valued(&["Slice"], layout::slice),
    OpRow::valued(&["Concat"], layout::concat),
    OpRow::valued(&["Unsqueeze"], layout::unsqueeze),
    OpRow::valued(&["Squeeze"], layout::squeeze),
    OpRow::valued(&["Reshape"], layout::reshape),
    OpRow::valued(&["ReduceProd", "ReduceSum", "ReduceMin", "ReduceMax"], index::reduce),
    // Element-wise and normalizations.
    OpRow::data(UNARY, (1, 1), &[], like_input),
    OpRow::data(&["Elu", "Celu", "LeakyRelu", "ThresholdedRelu"], (1, 1), &["alpha"], like_input),
    OpRow::data(&["Selu"], (1, 1), &["alpha", "gamma"], like_input),
    OpRow::data(&["HardSigmoid"], (1, 1), &["alpha", "beta"], like_input),
    OpRow::data(&["Gelu"], (1, 1), &["approximate"], like_input).from(20),
    OpRow::data(&["Shrink"], (1, 1), &["bias", "lambd"], like_input),
    OpRow::data(&["Softmax", "LogSoftmax", "Hardmax"], (1, 1), &["axis"], like_input),
    OpRow::data(&["LpNormalization"], (1, 1), &["axis", "p"], like_input),
    OpRow::data(&["MeanVarianceNormalization"], (1, 1), &["axes"], like_input),
    OpRow::data(&["LRN"], (1, 1), &["alpha", "beta", "bias", "size"], like_input),
    OpRow::data(&["InstanceNormalization"], (3, 3), &["epsilon"], like_input),
    OpRow::data(&["CumSum"], (2, 2), &["exclusive", "reverse"], like_input),
    OpRow::data(&["Trilu"], (1, 2), &["upper"], like_input),
    OpRow::data(&["Clip"], (1, 1), &["max", "min"], like_input).until(10),
    OpRow::data(&["Clip"], (1, 3), &[], like_input).from(11),
    OpRow::data(&["IsNaN"], (1, 1), &[], ew::test),
    OpRow::data(&["IsInf"], (1, 1), &["detect_negative", "detect_positive"], ew::test),
    OpRow::data(&["CastLike"], (2, 2), &["round_mode", "saturate"], ew::cast_like),
    OpRow::data(&["Dropout"], (1, 1), &["ratio", "seed"], ew::dropout).until(11),
    OpRow::data(&["Dropout"], (1, 3), &["seed"], ew::dropout).from(12),
    OpRow::data(&["Pow", "PRelu", "BitwiseAnd", "BitwiseOr", "BitwiseXor"], (2, 2), &[], ew::broadcast),
    OpRow::data(&["BitShift"], (2, 2), &["direction"], ew::broadcast),
    OpRow::data(&["Mean"], (1, MANY), &[], ew::broadcast),
    OpRow::data(&["Expand"], (2, 2), &[], ew::expand),
    OpRow::data(&["BatchNormalization"], (5, 5), BATCH_NORM, ew::batch_norm),
    OpRow::data(&["LayerNormalization"], (2, 3), LAYER_NORM, ew::layer_norm).from(17),
    OpRow::data(&["RMSNormalization"], (2, 2), LAYER_NORM, ew::layer_norm).from(23),
    OpRow::data(&["GroupNormalization"], (3, 3), GROUP_NORM, like_input).from(18),
    // Products.
    OpRow::data(&["MatMul"], (2, 2), &[], linear::matmul),
    OpRow::data(&["MatMulInteger"], (2, 4), &[], linear::matmul_integer),
    OpRow::data(&["QLinearMatMul"], (8, 8), &[], linear::qlinear_matmul),
    OpRow::data(&["Gemm"], (2, 3), &["alpha", "beta", "transA", "transB"], linear::gemm),
    OpRow::data(&["Einsum"], (1, MANY), &["equation"], linear::einsum),
    // Windows.
    OpRow::data(&["Conv"], (2, 3), CONV, window::conv),
    OpRow::data(&["ConvInteger"], (2, 4), CONV, window::conv),
    OpRow::data(&["QLinearConv"], (8, 9), CONV, window::conv),
    OpRow::data(&["ConvTranspose"], (2, 3), CONV_TRANSPOSE, window::conv_transpose),
    OpRow::data(&["MaxPool"], (1, 1), MAX_POOL, window::pool),
    OpRow::data(&["AveragePool"], (1, 1), AVERAGE_POOL, window::pool),
    OpRow::data(&["LpPool"], (1, 1), LP_POOL, window::pool),
    OpRow::data(&["GlobalAveragePool", "GlobalMaxPool"], (1, 1), &[], window::global_pool),
    OpRow::data(&["GlobalLpPool"], (1, 1), &["p"], window::global_pool),
    // Layout.
    OpRow::data(&["Flatten"], (1, 1), &["axis"], layout::flatten),
    OpRow::data(&["Transpose"], (1, 1), &["perm"], layout::transpose),
    OpRow::data(&["Split"], (1, 1), &["axis", "split"], layout::split).until(12),
    OpRow::data(&["Split"], (1, 2), &["axis"], layout::split).from(13).until(17),
    OpRow::data(&["Split"], (1, 2), &["axis", "num_outputs"], layout::split).from(18),
    OpRow::data(&["Tile"], (2, 2), &[], layout::tile),
    OpRow::data(&["Pad"], (1, 1), &["mode", "pads", "value"], layout::pad).until(10),
    OpRow::data(&["Pad"], (2, 3), &["mode"], layout::pad).from(11).until(17),
    OpRow::data(&["Pad"], (2, 4), &["mode"], layout::pad).from(18),
    OpRow::data(&["DepthToSpace"], (1, 1), &["blocksize", "mode"], layout::depth_to_space),
    OpRow::data(&["SpaceToDepth"], (1, 1), &["blocksize", "mode"], layout::space_to_depth),
    OpRow::data(&["Resize"], (2, 2), &["mode"], layout::resize).from(10).until(10),
    OpRow::data(&["Resize"], (3, 4), RESIZE_11, layout::resize).from(11).until(12),
    OpRow::data(&["Resize"], (1, 4), RESIZE_11, layout::resize).from(13).until(17),
    OpRow::data(&["Resize"], (1, 4), RESIZE_18, layout::resize).from(18),
    OpRow::data(&["Upsample"], (1, 1), &["mode", "scales"], layout::resize).until(8),
    OpRow::data(&["Upsample"], (2, 2), &["mode"], layout::resize).from(9).until(9),
    OpRow::data(&["Range"], (3, 3), &[], layout::range),
    OpRow::data(&["OneHot"], (3, 3), &["axis"], layout::one_hot),
    // Indexing, reductions, quantization.
    OpRow::data(&["GatherElements"], (2, 2), &["axis"], index::gather_elements),
    OpRow::data(&["GatherND"], (2, 2), &["batch_dims"], index::gather_nd),
    OpRow::data(&["ScatterND"], (3, 3), &["reduction"], like_input),
    OpRow::data(&["ScatterElements"], (3, 3), &["axis", "reduction"], like_input),
    OpRow::data(&["Scatter"], (3, 3), &["axis"], like_input).until(10),
    OpRow::data(&["ArgMax", "ArgMin"], (1, 1), &["axis", "keepdims", "select_last_index"], index::arg),
    OpRow::data(REDUCE, (1, 1), REDUCE_AXES, index::reduce).until(17),
    OpRow::data(REDUCE, (1, 2), REDUCE_INPUT, index::reduce).from(18),
    OpRow::data(&["TopK"], (1, 1), &["axis", "k"], index::top_k).until(9),
    OpRow::data(&["TopK"], (2, 2), &["axis"], index::top_k).from(10).until(10),
    OpRow::data(&["TopK"], (2, 2), &["axis", "largest", "sorted"], index::top_k).from(11),
    OpRow::data(&["NonZero"], (1, 1), &[], index::non_zero),
    OpRow::data(&["Unique"], (1, 1), &["axis", "sorted"], index::unique),
    OpRow::data(&["Compress"], (2, 2), &["axis"], index::compress),
    OpRow::data(&["NonMaxSuppression"], (2, 5), &["center_point_box"], index::nms),
    OpRow::data(&["QuantizeLinear"], (2, 3), QUANTIZE, index::quantize),
    OpRow::data(&["DequantizeLinear"], (2, 3), DEQUANTIZE, index::dequantize),
    OpRow::data(&["DynamicQuantizeLinear"], (1, 1), &[], index::dynamic_quantize),
    // Recurrent layers and attention.
    OpRow::data(&["LSTM"], (3, 8), LSTM, recurrent::recurrent),
    OpRow::data(&["GRU"], (3, 6), GRU, recurrent::recurrent),
    OpRow::data(&["RNN"], (3, 6), RNN, recurrent::recurrent),
    OpRow::data(&["Attention"], (3, 7), ATTENTION, contrib::attention).from(23),
    OpRow::data(&["RotaryEmbedding"], (3, 4), &["interleaved", "num_heads", "rotary_embedding_dim"], contrib::rotary).from(23),
    // Spectral, losses, strings, and the operators of opsets 24 and on.
    OpRow::data(&["DFT"], (1, 2), &["axis", "inverse", "onesided"], signal::dft).from(17).until(19),
    OpRow::data(&["DFT"], (1, 3), &["inverse", "onesided"], signal::dft).from(20),
    OpRow::data(&["STFT"], (2, 4), &["onesided"], signal::stft).from(17),
    OpRow::data(&["HannWindow", "HammingWindow", "BlackmanWindow"], (1, 1), &["output_datatype", "periodic"], signal::window_fn).from(17),
    OpRow::data(&["MelWeightMatrix"], (5, 5), &["output_datatype"], signal::mel_weights).from(17),
    OpRow::data(&["NegativeLogLikelihoodLoss"], (2, 3), &["ignore_index", "reduction"], signal::loss),
    OpRow::data(&["SoftmaxCrossEntropyLoss"], (2, 3), &["ignore_index", "reduction"], signal::loss),
    OpRow::data(&["Det"], (1, 1), &[], signal::det),
    OpRow::data(&["EyeLike"], (1, 1), &["dtype", "k"], signal::like_of_dtype),
    OpRow::data(&["Bernoulli"], (1, 1), &["dtype", "seed"], signal::like_of_dtype),
    OpRow::data(&["BitCast"], (1, 1), &["to"], signal::bit_cast),
    OpRow::data(&["StringConcat"], (2, 2), &[], signal::string_concat),
    OpRow::data(&["RegexFullMatch"], (1, 1), &["pattern"], signal::regex_match),
    OpRow::data(&["StringNormalizer"], (1, 1), &["case_change_action", "is_case_sensitive", "locale", "stopwords"], signal::string_normalizer),
    OpRow::data(&["StringSplit"], (1, 1), &["delimiter", "maxsplit"], signal::string_split),
    OpRow::data(&["ImageDecoder"], (1, 1), &["pixel_format"], signal::image_decoder),
    OpRow::data(&["TfIdfVectorizer"], (1, 1), &["max_gram_length", "max_skip_count", "min_gram_length", "mode", "ngram_counts", "ngram_indexes", "pool_int64s", "pool_strings", "weights"], signal::tfidf),
    OpRow::data(&["CumProd"], (2, 2), &["exclusive", "reverse"], like_input),
    OpRow::data(&["ReverseSequence"], (2, 2), &["batch_axis", "time_axis"], like_input),
    OpRow::data(&["TensorScatter"], (3, 3), &["axis", "mode"], like_input),
    OpRow::data(&["Swish"], (1, 1), &["alpha"], like_input),
    OpRow::data(&["SwiGLU"], (1, 2), &["alpha"], signal::swiglu),
    OpRow::data(&["CausalConvWithState"], (2, 4), &["activation", "group"], signal::causal_conv),
    OpRow::data(&["LinearAttention"], (3, 6), &["chunk_size", "kv_num_heads", "q_num_heads", "scale", "update_rule"], signal::linear_attention),
    // Images.
    OpRow::data(&["GridSample"], (2, 2), &["align_corners", "mode", "padding_mode"], image::grid_sample),
    OpRow::data(&["AffineGrid"], (2, 2), &["align_corners"], image::affine_grid),
    OpRow::data(&["RoiAlign"], (3, 3), &["coordinate_transformation_mode", "mode", "output_height", "output_width", "sampling_ratio", "spatial_scale"], image::roi_align),
    OpRow::data(&["Col2Im"], (3, 3), &["dilations", "pads", "strides"], image::col2im),
    OpRow::data(&["CenterCropPad"], (2, 2), &["axes"], image::center_crop_pad),
    OpRow::data(&["MaxUnpool"], (2, 3), &["kernel_shape", "pads", "strides"], image::max_unpool),
    OpRow::data(&["DeformConv"], (3, 5), &["dilations", "group", "kernel_shape", "offset_group", "pads", "strides"], window::conv),
];

/// onnxruntime's contributed operators (`com.microsoft`, version 1).
#[rustfmt::skip]
const CONTRIB: &[OpRow] = &[
    OpRow::open(&["DynamicQuantizeLSTM"], (3, 12), recurrent::recurrent),
    OpRow::open(&["DynamicQuantizeMatMul"], (3, 5), contrib::dynamic_quantize_matmul),
    OpRow::open(&["MatMulNBits"], (3, 6), contrib::matmul_nbits),
    OpRow::open(&["FusedMatMul"], (2, 2), contrib::fused_matmul),
    OpRow::open(&["Gelu", "FastGelu", "BiasGelu", "QuickGelu"], (1, 2), contrib::gelu),
    OpRow::open(&["SkipLayerNormalization"], (3, 5), contrib::skip_layer_norm),
    OpRow::open(&["EmbedLayerNormalization"], (7, 9), contrib::embed_layer_norm),
    OpRow::open(&["Attention"], (2, 7), contrib::ms_attention),
    OpRow::open(&["MultiHeadAttention"], (1, 10), contrib::multi_head_attention),
    OpRow::open(&["GroupQueryAttention"], (7, 11), contrib::group_query_attention),
    OpRow::open(&["RotaryEmbedding"], (4, 4), contrib::rotary),
];

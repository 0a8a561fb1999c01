//! ONNX nodes run as onnxruntime runs them, on C-contiguous tensors: the anchors the lowered
//! node lists are checked against.

use ndarray::{ArrayD, IxDyn};
use ndarray_reshape::{Onnx, ShapeSpec};

/// ONNX `Reshape`: the tensor's elements in C order under the node's output shape.
pub fn reshape<T: Clone>(t: ArrayD<T>, node: &Onnx) -> Result<ArrayD<T>, String> {
    let shape = node.infer_shape(t.shape()).map_err(|e| e.to_string())?;
    t.as_standard_layout()
        .into_owned()
        .into_shape_with_order(IxDyn(&shape))
        .map_err(|e| e.to_string())
}

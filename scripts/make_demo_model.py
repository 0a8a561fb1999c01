#!/usr/bin/env python3
"""Writes examples/data/neck.onnx: a small YOLO-style neck (three stride-2 convolutions, a
nearest 2x Resize, a skip Concat, a 1x1 convolution, and a Reshape whose target the graph
computes from Shape), with symbolic batch, height and width and zero weights, for the
`onnx_shapes` example and the `onnx` feature's doc examples.

Usage: python3 scripts/make_demo_model.py   (needs onnx and numpy, in a throwaway virtualenv)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "data", "neck.onnx")


def conv(name, x, cin, cout, k, stride, pad):
    w = numpy_helper.from_array(np.zeros((cout, cin, k, k), np.float32), f"{name}.w")
    node = helper.make_node("Conv", [x, w.name], [name], name=name, kernel_shape=[k, k],
                            strides=[stride, stride], pads=[pad] * 4)
    return node, w


nodes, inits = [], []
for name, x, cin in (("c1", "images", 3), ("c2", "c1", 8), ("c3", "c2", 8)):
    n, w = conv(name, x, cin, 8, 3, 2, 1)
    nodes.append(n)
    inits.append(w)
inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"))
nodes.append(helper.make_node("Resize", ["c3", "", "scales"], ["up"], name="up", mode="nearest"))
nodes.append(helper.make_node("Concat", ["up", "c2"], ["skip"], name="skip", axis=1))
n, w = conv("mix", "skip", 16, 8, 1, 1, 0)
nodes.append(n)
inits.append(w)
inits.append(numpy_helper.from_array(np.array(0, np.int64), "zero"))
inits.append(numpy_helper.from_array(np.array([0], np.int64), "axes"))
inits.append(numpy_helper.from_array(np.array([8, -1], np.int64), "rest"))
nodes += [
    helper.make_node("Shape", ["mix"], ["mix_shape"], name="mix_shape"),
    helper.make_node("Gather", ["mix_shape", "zero"], ["batch_size"], name="batch_size", axis=0),
    helper.make_node("Unsqueeze", ["batch_size", "axes"], ["batch_1d"], name="batch_1d"),
    helper.make_node("Concat", ["batch_1d", "rest"], ["target"], name="target", axis=0),
    helper.make_node("Reshape", ["mix", "target"], ["heads"], name="heads"),
]
graph = helper.make_graph(
    nodes, "neck",
    [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, "height", "width"])],
    [helper.make_tensor_value_info("heads", TensorProto.FLOAT, ["batch", 8, "tokens"])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ndarray_reshape")
onnx.checker.check_model(model)
onnx.save(model, OUT)
print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)")

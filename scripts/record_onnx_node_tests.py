#!/usr/bin/env python3
"""Record ONNX's own node tests for the whole-graph shape rules (tests/shapes/node_tests.rs).

ONNX ships one small model per operator case with numpy-computed outputs
(`onnx.backend.test.case.node.collect_testcases`). For each case this writes one JSON line to
tests/data/onnx_nodes.jsonl in the graph-record form of ../shared/opshapes/ (opset imports,
graph inputs with their concrete shapes, nodes with attributes, subgraphs nested), plus:
  values   {input: {dtype, shape, values}} for the inputs of at most 64 elements (what a
           shape rule may read: a target shape, axes, scales, bounds);
  outputs  {output: shape} as numpy computed them.
Cases whose inputs or outputs are not tensors (sequences, optionals, maps) are left out, and
so are the `_expanded` cases (the same operator case again through its function body, 3.7 MB
of the 4.8 a full recording takes; the opshapes models walk multi-node graphs); both are
counted in the summary this prints.

Usage: python3 scripts/record_onnx_node_tests.py [OUT]   (needs onnx and numpy; run it in a
throwaway virtualenv: python3 -m venv /tmp/v && /tmp/v/bin/pip install onnx numpy)
"""
import collections
import json
import math
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.backend.test.case.node import collect_testcases

SMALL = 64


def number(x):
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def tensor(t):
    a = numpy_helper.to_array(t)
    out = {"dtype": dtype(t.data_type), "shape": list(a.shape)}
    if a.size <= SMALL and a.dtype.kind in "biuf":
        out["values"] = [number(v) for v in a.reshape(-1)]
    return out


# ONNX's type codes by the names the graph records (and ElemType::from_name) use.
NAMES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string",
         9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128",
         16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz",
         21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0", 25: "uint2"}


def dtype(code):
    return NAMES[code]


def attribute(a):
    v = helper.get_attribute_value(a)
    if a.type == onnx.AttributeProto.TENSOR:
        return {"tensor": tensor(v)}
    if a.type == onnx.AttributeProto.GRAPH:
        return {"graph": graph(v, {})}
    if a.type == onnx.AttributeProto.GRAPHS:
        return {"graphs": [graph(g, {}) for g in v]}
    if a.type in (onnx.AttributeProto.SPARSE_TENSOR, onnx.AttributeProto.TYPE_PROTO, onnx.AttributeProto.TYPE_PROTOS,
                  onnx.AttributeProto.TENSORS, onnx.AttributeProto.SPARSE_TENSORS):
        raise Unsupported(f"attribute {a.name} of type {a.type}")
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, list):
        return [x.decode() if isinstance(x, bytes) else number(x) for x in v]
    return number(v)


class Unsupported(Exception):
    pass


def value_info(v, shapes):
    t = v.type
    if not t.HasField("tensor_type"):
        raise Unsupported(f"{v.name} is a {t.WhichOneof('value')}")
    dims = shapes.get(v.name)
    if dims is None:
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.tensor_type.shape.dim] \
            if t.tensor_type.HasField("shape") else None
    return {"name": v.name, "elem_type": t.tensor_type.elem_type, "dims": dims}


def graph(g, shapes):
    return {
        "name": g.name,
        "inputs": [value_info(v, shapes) for v in g.input],
        "outputs": [value_info(v, {}) for v in g.output],
        "initializers": [dict(name=t.name, **tensor(t)) for t in g.initializer],
        "nodes": [{"op_type": n.op_type, "domain": n.domain, "name": n.name, "inputs": list(n.input),
                   "outputs": list(n.output), "attributes": {a.name: attribute(a) for a in n.attribute}}
                  for n in g.node],
    }


def array(x):
    """A data set's tensor as an array (a TensorProto for the types numpy lacks, a numpy
    scalar for 0-D), or None for a sequence, optional or map."""
    if isinstance(x, onnx.TensorProto):
        return np.zeros(list(x.dims), dtype=np.uint8) if x.data_type in (16, 17, 18, 19, 20, 21, 22, 23, 24, 25) \
            else numpy_helper.to_array(x)
    if isinstance(x, np.generic):
        return np.asarray(x)
    return x if isinstance(x, np.ndarray) else None


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "tests", "data", "onnx_nodes.jsonl")
    left = collections.Counter()
    lines = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    for case in sorted(cases, key=lambda c: c.name):
        if not case.data_sets:
            left["no data set"] += 1
            continue
        if case.name.endswith("_expanded"):
            left["an _expanded function body"] += 1
            continue
        inputs, outputs = (list(map(array, d)) for d in case.data_sets[0])
        g = case.model.graph
        try:
            if any(x is None for x in inputs + outputs):
                raise Unsupported("a sequence, optional or map input or output")
            shapes = {v.name: list(x.shape) for v, x in zip(g.input, inputs)}
            record = {
                "name": case.name,
                "opset_imports": [{"domain": o.domain, "version": o.version} for o in case.model.opset_import],
                "graph": graph(g, shapes),
                "values": {},
                "outputs": {v.name: list(x.shape) for v, x in zip(g.output, outputs)},
            }
            for v, x in zip(g.input, inputs):
                if x.size <= SMALL and x.dtype.kind in "biuf" and v.type.tensor_type.elem_type not in range(16, 26):
                    record["values"][v.name] = {"shape": list(x.shape), "values": [number(e) for e in x.reshape(-1)]}
        except Unsupported as e:
            left[str(e).split(" of type")[0] if "attribute" in str(e) else "a sequence, optional or map input or output"] += 1
            continue
        lines.append(json.dumps(record, sort_keys=True))
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} of {len(cases)} cases recorded to {out_path} (onnx {onnx.__version__})")
    for why, n in left.most_common():
        print(f"  left out: {n} with {why}")


if __name__ == "__main__":
    main()

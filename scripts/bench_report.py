#!/usr/bin/env python3
"""Turn criterion's results (target/criterion) into the tables and the plot of BENCHMARKS.md.

    cargo bench -p ndarray_reshape_bench --bench copy --bench view
    python3 scripts/bench_report.py            # prints markdown tables, writes docs/ladder.svg

Every number comes from one run's `new/estimates.json` (the median), so the ratios compare
measurements taken in the same run. Only the standard library is used.
"""

import json
import math
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CRIT = os.path.join(ROOT, "target", "criterion")
SVG = os.path.join(ROOT, "docs", "ladder.svg")
BASELINE = "ndarray_to_shape"
OURS = "ndarray_reshape"


def load():
    """{group: {function: {param: (median_ns, bytes)}}} from every benchmark.json found."""
    out = {}
    for dirpath, _dirs, files in os.walk(CRIT):
        if os.path.basename(dirpath) != "new" or "benchmark.json" not in files:
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            bench = json.load(f)
        with open(os.path.join(dirpath, "estimates.json")) as f:
            est = json.load(f)
        tp = bench.get("throughput") or {}
        nbytes = tp.get("Bytes") or tp.get("BytesDecimal")
        param = bench.get("value_str") or ""
        out.setdefault(bench["group_id"], {}).setdefault(bench["function_id"], {})[param] = (
            est["median"]["point_estimate"],
            nbytes,
        )
    return out


def gbps(ns, nbytes):
    return nbytes / ns if nbytes else float("nan")  # bytes per ns == GB/s


def fmt_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.2f} {unit}"
    return f"{ns:.1f} ns"


def copy_tables(data):
    lines = [
        "| case | ndarray_reshape | ndarray `to_shape` | ndarray `as_standard_layout` | ratio to `to_shape` |",
        "|---|---|---|---|---|",
    ]
    for group in sorted(g for g in data if not g.startswith(("ladder", "small", "view"))):
        fns = data[group]
        if OURS not in fns or BASELINE not in fns:
            continue
        ours_ns, nbytes = fns[OURS][""]
        base_ns, _ = fns[BASELINE][""]
        asl = fns.get("ndarray_as_standard_layout", {}).get("")
        asl_s = f"{gbps(asl[0], nbytes):.2f} GB/s" if asl else "–"
        lines.append(
            f"| {group} | {gbps(ours_ns, nbytes):.2f} GB/s | {gbps(base_ns, nbytes):.2f} GB/s | "
            f"{asl_s} | **{base_ns / ours_ns:.1f}x** |"
        )
    return "\n".join(lines)


EXTRA = [
    ("memcpy_fresh", "fresh `Vec` memcpy"),
    ("ndarray_reshape_into_warm", "`reshape_copy_into` warm"),
    ("memcpy_warm", "warm memcpy"),
]


def param_table(data, group, unit):
    fns = data.get(group)
    if not fns:
        return ""
    params = sorted(fns[OURS], key=lambda p: int(p))
    extra = [(k, label) for k, label in EXTRA if k in fns]
    head = f"| output ({unit}) | ndarray_reshape | ndarray `to_shape` | ratio |"
    sep = "|---|---|---|---|"
    for _, label in extra:
        head += f" {label} |"
        sep += "---|"
    lines = [head, sep]
    for p in params:
        o_ns, nbytes = fns[OURS][p]
        b_ns, _ = fns[BASELINE][p]
        row = (
            f"| {p} | {gbps(o_ns, nbytes):.2f} GB/s ({fmt_time(o_ns)}) | "
            f"{gbps(b_ns, nbytes):.2f} GB/s ({fmt_time(b_ns)}) | **{b_ns / o_ns:.2f}x** |"
        )
        for k, _ in extra:
            if p in fns[k]:
                m_ns, _ = fns[k][p]
                row += f" {gbps(m_ns, nbytes):.2f} GB/s |"
            else:
                row += " |"
        lines.append(row)
    return "\n".join(lines)


def small_table(data):
    fns = data.get("small_transpose_f32")
    if not fns:
        return ""
    lines = [
        "| output (bytes) | `IxDyn` input: ndarray_reshape | ndarray `to_shape` | ratio "
        "| `Ix2` input: ndarray_reshape | ndarray `to_shape` | ratio "
        "| `Ix2` input, `reshape_with(spec.dim::<Ix1>())` | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    def pair(ours, base, p):
        """(our time, the baseline's time) at parameter `p`, when both were measured."""
        if ours in fns and base in fns and p in fns[ours] and p in fns[base]:
            return fns[ours][p][0], fns[base][p][0]
        return None

    for p in sorted(fns[OURS], key=lambda p: int(p)):
        row = f"| {p} |"
        for ours, base in [(OURS, BASELINE), (OURS + "_ix2", BASELINE + "_ix2")]:
            t = pair(ours, base, p)
            row += f" {fmt_time(t[0])} | {fmt_time(t[1])} | **{t[1] / t[0]:.2f}x** |" if t else " | | |"
        t = pair(OURS + "_ix2_typed", BASELINE + "_ix2", p)
        row += f" {fmt_time(t[0])} | **{t[1] / t[0]:.2f}x** |" if t else " | |"
        lines.append(row)
    return "\n".join(lines)


def view_table(data):
    lines = ["| case | function | time |", "|---|---|---|"]
    for group in sorted(g for g in data if g.startswith("view")):
        for fn, params in sorted(data[group].items(), key=lambda kv: kv[1][""][0]):
            lines.append(f"| {group} | {fn} | {fmt_time(params[''][0])} |")
    return "\n".join(lines)


def svg_plot(data, path):
    fns = data.get("ladder_transpose_f32")
    if not fns:
        return False
    series = [
        (OURS, "#1f77b4", "ndarray_reshape (this crate), fresh output", ""),
        (BASELINE, "#d62728", "ndarray to_shape, fresh output", ""),
        ("memcpy_fresh", "#7f7f7f", "memcpy into a fresh Vec", ""),
        ("ndarray_reshape_into_warm", "#1f77b4", "reshape_copy_into, reused output", "6,4"),
        ("memcpy_warm", "#7f7f7f", "memcpy into a reused buffer", "6,4"),
    ]
    pts = {}
    for key, _, _, _ in series:
        if key in fns:
            pts[key] = sorted((int(p), gbps(ns, nb)) for p, (ns, nb) in fns[key].items())
    xs = [x for v in pts.values() for x, _ in v]
    ymax = max(y for v in pts.values() for _, y in v) * 1.15
    w, h, ml, mr, mt, mb = 720, 420, 70, 30, 40, 60
    lx0, lx1 = math.log2(min(xs)), math.log2(max(xs))

    def X(x):
        return ml + (math.log2(x) - lx0) / max(lx1 - lx0, 1e-9) * (w - ml - mr)

    def Y(y):
        return h - mb - y / ymax * (h - mt - mb)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{w / 2}" y="22" text-anchor="middle" font-size="14">'
        "Transposed f32 square read in C order (2 cores): solid fresh output, dashed reused</text>",
    ]
    step = 2 if ymax < 16 else 4
    for gy in range(0, int(ymax) + 1, step):
        out.append(f'<line x1="{ml}" x2="{w - mr}" y1="{Y(gy):.1f}" y2="{Y(gy):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{ml - 8}" y="{Y(gy) + 4:.1f}" text-anchor="end">{gy}</text>')
    for x in sorted(set(xs)):
        label = f"{x} MiB" if x < 1024 else f"{x // 1024} GiB"
        out.append(f'<line x1="{X(x):.1f}" x2="{X(x):.1f}" y1="{mt}" y2="{h - mb}" stroke="#eee"/>')
        out.append(f'<text x="{X(x):.1f}" y="{h - mb + 18}" text-anchor="middle">{label}</text>')
    out.append(f'<text x="{w / 2}" y="{h - 15}" text-anchor="middle">output size</text>')
    out.append(
        f'<text x="18" y="{h / 2}" text-anchor="middle" transform="rotate(-90 18 {h / 2})">'
        "GB/s (bytes read + written)</text>"
    )
    for i, (key, color, label, dash) in enumerate(series):
        if key not in pts:
            continue
        poly = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in pts[key])
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<polyline fill="none" stroke="{color}" stroke-width="2.5"{dashed} points="{poly}"/>'
        )
        for x, y in pts[key]:
            out.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3.5" fill="{color}"/>')
        ly = mt + 14 + 18 * i
        lx = w - mr - 290  # top right: above every curve past the first point
        out.append(
            f'<line x1="{lx}" x2="{lx + 24}" y1="{ly}" y2="{ly}" stroke="{color}" '
            f'stroke-width="2.5"{dashed}/>'
        )
        out.append(f'<text x="{lx + 30}" y="{ly + 4}">{label}</text>')
    out.append("</svg>")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return True


def main():
    if not os.path.isdir(CRIT):
        sys.exit("no target/criterion: run `cargo bench -p ndarray_reshape_bench --bench copy --bench view` first")
    data = load()
    print("## Copies (default rayon pool)\n")
    print(copy_tables(data))
    print("\n## Small arrays (bytes of output)\n")
    print(small_table(data))
    print("\n## Size ladder (MiB of output)\n")
    print(param_table(data, "ladder_transpose_f32", "MiB"))
    print("\n## Views\n")
    print(view_table(data))
    if svg_plot(data, SVG):
        print(f"\n(wrote {os.path.relpath(SVG, ROOT)})")


if __name__ == "__main__":
    main()

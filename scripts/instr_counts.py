#!/usr/bin/env python3
"""Instructions per call of the fixed-cost paths (benches/src/bin/call_paths.rs), under callgrind.

Deterministic where wall-clock timings on a shared machine are not: use it to compare a change
with the commit before it, and this crate with ndarray's `to_shape` on the same reshape. Each
path runs N and 2N times; the difference divided by N is the cost of one call, without the
program's start-up. Needs valgrind. Built with one codegen unit, so the counts follow the code
and not how the compiler happens to partition it (a module moved can shift them by 2%).

    python3 scripts/instr_counts.py            # markdown table on stdout
    python3 scripts/instr_counts.py view_      # only the paths whose name contains "view_"
"""
import os
import re
import subprocess
import sys

N = 1000
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "call_paths")


def instructions(name, n):
    env = dict(os.environ, PATH_NAME=name, N=str(n))
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", BIN],
        env=env, capture_output=True, text=True, check=True,
    ).stderr
    m = re.search(r"refs:\s+([\d,]+)", out)
    if not m:
        sys.exit(f"no instruction count for {name}:\n{out}")
    return int(m.group(1).replace(",", ""))


def main():
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "-p", "ndarray_reshape_bench", "--bin", "call_paths"],
        cwd=ROOT, check=True, env=dict(os.environ, CARGO_PROFILE_RELEASE_CODEGEN_UNITS="1"),
    )
    listing = subprocess.run([BIN], capture_output=True, text=True, check=True).stdout
    names = [line.split(":")[0] for line in listing.splitlines() if ":" in line]
    want = sys.argv[1] if len(sys.argv) > 1 else ""
    names = [n for n in names if want in n]
    per_call = {n: (instructions(n, 2 * N) - instructions(n, N)) / N for n in names}

    def baseline(name):
        group, fn = name.split("/")
        typed = re.search(r"_ix\d$", fn) is not None
        candidates = [m for m in per_call if m.startswith(group + "/ndarray_")]
        dyn = [m for m in candidates if m.endswith("_ixdyn")]
        fixed = [m for m in candidates if not m.endswith("_ixdyn")]
        if fn.startswith("ndarray_"):
            return None
        pick = fixed if typed or not dyn else dyn
        return pick[0] if pick else None

    print("| path | instructions per call | ndarray baseline | ratio |")
    print("|---|---|---|---|")
    for n in names:
        b = baseline(n)
        if b is None:
            print(f"| {n} | {per_call[n]:.0f} | | |")
        else:
            print(f"| {n} | {per_call[n]:.0f} | {b.split('/')[1]} ({per_call[b]:.0f}) "
                  f"| **{per_call[n] / per_call[b]:.2f}x** |")


if __name__ == "__main__":
    main()

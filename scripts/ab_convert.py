#!/usr/bin/env python3
"""Two builds of `convert_peers` (benches/src/bin/convert_peers.rs) alternated case by case:
the crate's fresh and warm converting copies at 1 and 2 threads, each build's best of ROUNDS
medians, and the ratio new/old. For a change to the engine: are the conversions within noise?

    python3 scripts/ab_convert.py OLD_BIN NEW_BIN [ROUNDS]
"""
import random
import subprocess
import sys


def start(path):
    return subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def ask(p, line):
    p.stdin.write(line + "\n")
    p.stdin.flush()
    return float(p.stdout.readline())


def main():
    old, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    listing = subprocess.run([new], input="list\n", capture_output=True, text=True).stdout
    cases = []
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 4:
            cases.append((parts[0], [c for c in parts[3].split(",") if c.startswith("ours")]))
    builds = {"old": start(old), "new": start(new)}
    best = {}
    for _ in range(rounds):
        for case, contestants in cases:
            for threads in (1, 2):
                for c in contestants:
                    order = list(builds)
                    random.shuffle(order)
                    for b in order:
                        ns = ask(builds[b], f"{case} {threads} {c} 7")
                        key = (case, threads, c, b)
                        best[key] = min(best.get(key, ns), ns)
    for p in builds.values():
        p.stdin.close()
    for case, contestants in cases:
        for threads in (1, 2):
            for c in contestants:
                o, n = best[(case, threads, c, "old")], best[(case, threads, c, "new")]
                print(f"ab {case} t{threads} {c}: old={o / 1e3:.1f}us new={n / 1e3:.1f}us new/old={n / o:.3f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# The README's two commands from nothing (crates already downloaded), timed for each revision
# given, in interleaved rounds (this machine drifts between runs): BENCHMARKS.md, "The README's
# two commands, cold".
#
# usage: scripts/cold_times.sh [-r ROUNDS] [REV ...]    (REV: a commit, or . for the work tree;
#                                                        default: . for 2 rounds)
set -euo pipefail
rounds=2
if [ "${1:-}" = "-r" ]; then
  rounds=$2
  shift 2
fi
[ $# -gt 0 ] || set -- .
root=$(git rev-parse --show-toplevel)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

dirs=()
for rev in "$@"; do
  if [ "$rev" = . ]; then
    dirs+=("$root")
  else
    dir="$scratch/src-${#dirs[@]}"
    git clone -q "$root" "$dir"
    git -C "$dir" checkout -q "$rev"
    dirs+=("$dir")
  fi
done

now() { date +%s.%N; }
printf '%-12s %6s %10s %8s %6s\n' revision round example tests "doc"
for round in $(seq 1 "$rounds"); do
  for k in "${!dirs[@]}"; do
    export CARGO_TARGET_DIR="$scratch/target"
    rm -rf "$CARGO_TARGET_DIR"
    cd "${dirs[$k]}"
    t0=$(now)
    cargo run -q --example quickstart >/dev/null
    t1=$(now)
    log=$(cargo test -q 2>&1)
    t2=$(now)
    doc=$(echo "$log" | grep "finished in" | tail -n 1 | awk '{print $NF}')
    label=$(git rev-parse --short HEAD)
    [ "${dirs[$k]}" = "$root" ] && ! git diff --quiet HEAD && label="$label+"
    printf '%-12s %6s %9.1fs %7.1fs %6s\n' "$label" "$round" \
      "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" "$doc"
  done
done

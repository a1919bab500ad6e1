#!/usr/bin/env bash
# Writes the results a speed-up must not change into OUT_DIR: summary.json (and
# requests.csv where the scenario asks for it) of every scenarios/*.yaml, and the
# summary.json of the throughput benchmark at 100k requests. Run it before and after a
# change and compare the two folders with `diff -r` (docs/performance.md).
#   bench/summaries.sh OUT_DIR [BUILD_DIR]
set -euo pipefail
OUT="$1"
BUILD="${2:-build}"
SERVESIM="$BUILD/servesim"
mkdir -p "$OUT"
for s in scenarios/*.yaml; do
  name=$(basename "$s" .yaml)
  "$SERVESIM" run "$s" --out "$OUT/$name" >/dev/null
done
"$BUILD/bench/sim_throughput" 100000 16 --summary "$OUT/bench-100k-16.json"
"$BUILD/bench/sim_throughput" 20000 64 --no-prefix-cache --summary "$OUT/bench-20k-64-nocache.json"

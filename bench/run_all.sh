#!/usr/bin/env bash
# Every figure of docs/performance.md, in one go. Run from the repository root
# after building (cmake --build build --target servesim sim_throughput step_latency).
#   bench/run_all.sh [BUILD_DIR] [--quick] [--big]
# --quick: 10k/100k requests only and replicas up to 256 (about a minute);
# --big:   also 10M requests (about a minute more per million-request second).
set -euo pipefail
BUILD=build
QUICK=0
BIG=0
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1 ;;
    --big) BIG=1 ;;
    *) BUILD="$a" ;;
  esac
done
BIN="$BUILD/bench/sim_throughput"
SERVESIM="$BUILD/servesim"

SIZES="10000 100000"
[ "$QUICK" = 1 ] || SIZES="$SIZES 1000000"
[ "$BIG" = 1 ] && SIZES="$SIZES 10000000"
echo "== requests curve (16 replicas, prefix cache on, light load: 4 req/s per replica)"
for n in $SIZES; do "$BIN" "$n" 16; done
echo "== requests curve (16 replicas, prefix cache on, busy load: 16 req/s per replica)"
for n in $SIZES; do "$BIN" "$n" 16 --rate 16; done
echo "== prefix cache off (16 replicas, light load)"
"$BIN" 100000 16 --no-prefix-cache

echo "== replicas curve (100k requests, 4 req/s per replica)"
REPLICAS="1 4 16 64 256"
[ "$QUICK" = 1 ] || REPLICAS="$REPLICAS 1024"
for r in $REPLICAS; do "$BIN" 100000 "$r"; done

echo "== cost-model query"
"$BUILD/bench/step_latency"
start=$(date +%s%N)
for _ in $(seq 20); do
  "$SERVESIM" step --model llama-3-8b --hardware h100-sxm --prefill 1200 --decode 20:1200 --json >/dev/null
done
end=$(date +%s%N)
echo "servesim step (whole process, 20 calls): $(( (end - start) / 20000000 )) ms per call"

# Points big enough (~0.6 s each) that process start and the machine's drift weigh little.
SWEEP_REQUESTS=200000
[ "$QUICK" = 1 ] && SWEEP_REQUESTS=20000
echo "== sweep --jobs 1 vs 2 (4 points of $SWEEP_REQUESTS requests)"
OUT=$(mktemp -d)
for j in 1 2; do
  start=$(date +%s%N)
  "$SERVESIM" sweep bench/throughput.yaml --set stop.requests=$SWEEP_REQUESTS \
    --axis workload.0.arrival.rate=56,60,64,68 --jobs "$j" --out "$OUT/j$j" >/dev/null
  end=$(date +%s%N)
  echo "sweep --jobs $j: $(( (end - start) / 1000000 )) ms"
done
rm -rf "$OUT"

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

# Preemption-heavy variants: the prefix cache's recompute path (private hashes, hits on a
# request's own blocks), swap, speculation and disaggregation under memory pressure, where
# the bookkeeping that speed-ups touch decides the results. summary.json and requests.csv.
variant() {
  local name="$1"
  shift
  "$SERVESIM" run "$@" --set outputs.requests_csv=true --out "$OUT/variant-$name" >/dev/null
}
variant prefix-20k scenarios/prefix-caching.yaml --set cluster.pools.0.engine.kv_cache_tokens=20000
variant prefix-30k-swap scenarios/prefix-caching.yaml --set cluster.pools.0.engine.kv_cache_tokens=30000 \
  --set cluster.pools.0.engine.preemption_mode=swap
variant prefix-25k-lor scenarios/prefix-caching.yaml --set cluster.pools.0.engine.kv_cache_tokens=25000 \
  --set cluster.router=least-outstanding
variant spec-prefix-30k scenarios/speculative_concurrency.yaml --set workload.0.arrival.concurrency=64 \
  --set cluster.pools.0.engine.prefix_cache=true --set cluster.pools.0.engine.kv_cache_tokens=30000
variant disagg-prefix-60k scenarios/disaggregated.yaml --set cluster.pools.0.engine.prefix_cache=true \
  --set cluster.pools.1.engine.prefix_cache=true --set cluster.pools.1.engine.kv_cache_tokens=60000 \
  --set workload.0.arrival.rate=16
for kv in 30000 40000; do
  for rate in 50 300; do
    variant "bench-$kv-$rate" bench/throughput.yaml --set stop.requests=20000 --set cluster.pools.0.replicas=2 \
      --set workload.0.arrival.rate=$rate --set cluster.pools.0.engine.kv_cache_tokens=$kv
  done
done

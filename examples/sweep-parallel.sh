#!/bin/bash
# A sweep split into SHARDS shards that GNU parallel runs side by side (add -S host1,host2 to
# PARALLEL_OPTS for several hosts sharing a file system), then merged into exactly the table
# the unsharded sweep writes (`servesim sweep --shard`, `servesim merge`; docs/sweeps.md).
#
#   examples/sweep-parallel.sh SCENARIO.yaml OUT_DIR SHARDS --axis KEY=V1,V2,... [sweep options]
#   -> OUT_DIR/shard-I/sweep.json for each shard, OUT_DIR/all/sweep.json and sweep.csv
#
# SERVESIM (default build/servesim) is the program, JOBS (default 4) the shards run at once.
set -euo pipefail
servesim="${SERVESIM:-build/servesim}"
scenario="$1" out="$2" shards="$3"
shift 3
# shellcheck disable=SC2086
parallel --will-cite ${PARALLEL_OPTS:-} -q -j "${JOBS:-4}" \
  "$servesim" sweep "$scenario" "$@" --jobs 1 -q --shard "{}/$shards" --out "$out/shard-{}" \
  ::: $(seq 0 $((shards - 1)))
"$servesim" merge "$out"/shard-* -o "$out/all" -q

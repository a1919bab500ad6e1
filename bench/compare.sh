#!/usr/bin/env bash
# A/B timing of two builds of sim_throughput on a machine whose speed drifts: runs them
# alternately N times each and prints every wall time and each build's minimum (the run
# least disturbed by the rest of the machine). Extra arguments go to sim_throughput.
#   bench/compare.sh BUILD_A BUILD_B [N] [-- REQUESTS REPLICAS [options]]
# e.g. bench/compare.sh /tmp/base/build build 4 -- 100000 1024
set -euo pipefail
A="$1"
B="$2"
shift 2
N=4
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  N="$1"
  shift
fi
[ "${1:-}" = "--" ] && shift
ARGS=("$@")
[ ${#ARGS[@]} -eq 0 ] && ARGS=(100000 16)
declare -A best
for _ in $(seq "$N"); do
  for build in "$A" "$B"; do
    wall=$("$build/bench/sim_throughput" "${ARGS[@]}" | grep -o 'wall [0-9.]*' | cut -d' ' -f2)
    echo "$build $wall s"
    if [ -z "${best[$build]:-}" ] || awk -v a="$wall" -v b="${best[$build]}" 'BEGIN { exit !(a < b) }'; then
      best[$build]=$wall
    fi
  done
done
echo "minimum of $N: $A ${best[$A]} s, $B ${best[$B]} s"

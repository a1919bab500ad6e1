#!/usr/bin/env bash
# Builds servesim and the benchmarks with GCC's profile-guided optimisation in BUILD_DIR:
# an instrumented build (SERVESIM_PGO=generate), a training run of each program, then the
# optimised build (SERVESIM_PGO=use) in the same folder, whose object paths name the
# profile's files. Results are the same as a plain build's; only the speed differs
# (docs/performance.md). Takes two Release builds of three programs plus about a minute.
#   bench/build_pgo.sh [BUILD_DIR]      (default build-pgo)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build-pgo}"
PROFILE="$(realpath -m "$BUILD")/pgo-profile"
TARGETS=(servesim sim_throughput step_latency)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

configure() {
  cmake -S . -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DSERVESIM_TESTS=OFF \
    -DSERVESIM_PGO="$1" -DSERVESIM_PGO_DIR="$PROFILE" >/dev/null
}

rm -rf "$PROFILE"
echo "build_pgo: instrumented build in $BUILD"
configure generate
cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}"

echo "build_pgo: training"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# The benchmark's loads (light, busy, many replicas, no prefix cache), then every scenario:
# each engine policy, router, trace format and output the scenarios use.
"$BUILD/bench/sim_throughput" 100000 16 >/dev/null
"$BUILD/bench/sim_throughput" 50000 16 --rate 16 >/dev/null
"$BUILD/bench/sim_throughput" 20000 256 >/dev/null
"$BUILD/bench/sim_throughput" 20000 64 --no-prefix-cache >/dev/null
for s in scenarios/*.yaml; do
  "$BUILD/servesim" run "$s" --out "$out/$(basename "$s" .yaml)" >/dev/null
done
"$BUILD/bench/step_latency" >/dev/null
[ -n "$(ls -A "$PROFILE" 2>/dev/null)" ] || { echo "build_pgo: the training wrote no profile to $PROFILE" >&2; exit 1; }

echo "build_pgo: optimised build"
configure use
cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}"
echo "build_pgo: done: $BUILD/servesim, $BUILD/bench/sim_throughput, $BUILD/bench/step_latency"

#!/usr/bin/env bash
# Shared by scripts/demo and scripts/test: install what is missing from Debian's packages,
# then configure and build into build/ (or $SERVESIM_BUILD_DIR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SERVESIM_BUILD_DIR:-$ROOT/build}"
PACKAGES=(build-essential cmake ninja-build libboost-graph-dev libboost-program-options-dev
          nlohmann-json3-dev libyaml-cpp-dev catch2
          python3-matplotlib)  # scripts/plot.py
# Only scripts/fuzz installs these: clang and its compiler-rt, which holds libFuzzer.
FUZZ_PACKAGES=(clang libclang-rt-dev)

install_missing_packages() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "servesim: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

configure_and_build() {
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  fi
  # SERVESIM_BUILD_TARGET limits the build to one target (scripts/demo needs only the CLI).
  cmake --build "$BUILD_DIR" -j "$(nproc)" ${SERVESIM_BUILD_TARGET:+--target "$SERVESIM_BUILD_TARGET"}
}

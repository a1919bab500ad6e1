#!/usr/bin/env bash
# Shared by scripts/demo and scripts/test: install what is missing from Debian's packages,
# then configure and build into build/ (or $SERVESIM_BUILD_DIR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SERVESIM_BUILD_DIR:-$ROOT/build}"
PACKAGES=(build-essential cmake ninja-build libboost-graph-dev libboost-program-options-dev
          nlohmann-json3-dev libyaml-cpp-dev catch2 zlib1g-dev
          python3-matplotlib)  # scripts/plot.py
# For the instrumented build (scripts/fuzz, the fuzz smoke runs of scripts/test, and
# scripts/test --sanitize): clang and its compiler-rt, which holds libFuzzer.
FUZZ_PACKAGES=(clang libclang-rt-dev)
# The one instrumented build: clang, ASan+UBSan, libFuzzer coverage. The fuzz targets and the
# sanitized test suite link the same library objects, so one build serves both.
SANITIZE_BUILD_DIR="${SERVESIM_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"

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
  # Configure when the folder is new, and also when an earlier configure failed (say, before
  # the packages were installed): that leaves a CMakeCache.txt but no build.ninja/Makefile.
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] || { [ ! -f "$BUILD_DIR/build.ninja" ] && [ ! -f "$BUILD_DIR/Makefile" ]; }; then
    cmake -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  fi
  # SERVESIM_BUILD_TARGET limits the build to one target (scripts/demo needs only the CLI).
  cmake --build "$BUILD_DIR" -j "$(nproc)" ${SERVESIM_BUILD_TARGET:+--target "$SERVESIM_BUILD_TARGET"}
}

# Does this clang link a libFuzzer program? (Debian ships libFuzzer in libclang-rt-N-dev.)
have_libfuzzer() {
  command -v clang++ >/dev/null || return 1
  local dir rc=0
  dir="$(mktemp -d)"
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$dir/t.cpp"
  clang++ -fsanitize=fuzzer,address "$dir/t.cpp" -o "$dir/t" >/dev/null 2>&1 || rc=$?
  rm -rf "$dir"
  return $rc
}

# Configures $SANITIZE_BUILD_DIR (once) with clang: -DSERVESIM_FUZZ=ON (ASan + UBSan +
# libFuzzer coverage in every object) and the tests, at -O1 -g: about half the compile time of
# -O2, stack traces with line numbers; ASan's own advice. A folder configured otherwise (an
# older gcc sanitizer build) is reconfigured from scratch.
configure_instrumented() {
  local dir="$SANITIZE_BUILD_DIR"
  if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^SERVESIM_FUZZ:BOOL=ON' "$dir/CMakeCache.txt"; then
    echo "servesim: $dir was not configured for the clang instrumented build; reconfiguring it" >&2
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
  fi
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    local generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    CC=clang CXX=clang++ cmake -S "$ROOT" -B "$dir" "${generator[@]}" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
      -DSERVESIM_FUZZ=ON -DSERVESIM_TESTS=ON >/dev/null
  fi
}

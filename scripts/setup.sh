#!/usr/bin/env bash
# Shared by scripts/demo and scripts/test: install what is missing from Debian's packages,
# then configure and build into build/ (or $SERVESIM_BUILD_DIR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SERVESIM_BUILD_DIR:-$ROOT/build}"
# What the servesim binary needs to build (Catch2 too: a configure with the tests on looks
# for it), then what the Python package and the plots need. scripts/demo installs the first
# list, builds and prints the quickstart's result, and only then installs the second.
BUILD_PACKAGES=(build-essential cmake ninja-build libboost-graph-dev libboost-program-options-dev
                nlohmann-json3-dev libyaml-cpp-dev catch2 zlib1g-dev)
PYTHON_PACKAGES=(python3-matplotlib  # scripts/plot.py
                 pybind11-dev python3-dev python3-pandas python3-pytest  # the Python package (python/)
                 python3-venv python3-wheel)  # `pip install .` (setup.py) and its test python_pip_install
PACKAGES=("${BUILD_PACKAGES[@]}" "${PYTHON_PACKAGES[@]}")
# For the test suite only: a real browser to render `servesim report`'s page
# (tests/report/html_report_test.cpp), headless; the engines the sweep recipes run on
# (python/tests/test_distributed.py); Jupyter to run examples/quickstart.ipynb.
TEST_PACKAGES=(chromium parallel python3-distributed slurm-wlm munge
               python3-nbconvert python3-nbclient python3-ipykernel)
# For the instrumented build (scripts/fuzz, the fuzz smoke runs of scripts/test, and
# scripts/test --sanitize): clang and its compiler-rt, which holds libFuzzer.
FUZZ_PACKAGES=(clang libclang-rt-dev)
# The one instrumented build: clang, ASan+UBSan, libFuzzer coverage. The fuzz targets and the
# sanitized test suite link the same library objects, so one build serves both.
SANITIZE_BUILD_DIR="${SERVESIM_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"

# Installs what is missing of PACKAGES and of the packages named as arguments; with
# --only, of the arguments alone.
install_missing_packages() {
  local wanted=("${PACKAGES[@]}")
  if [ "${1:-}" = --only ]; then
    shift
    wanted=()
  fi
  local missing=()
  for p in "${wanted[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "servesim: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Configures $BUILD_DIR (Release, unity batches, no link-time optimisation: LTO's link of the
# three programs took longer than compiling them and makes a run ~7% faster, which the
# benchmark build keeps: docs/performance.md) when the folder is new, when an earlier configure
# failed (say, before the packages were installed: that leaves a CMakeCache.txt but no
# build.ninja/Makefile), or when SERVESIM_RECONFIGURE=1 (packages installed since), then
# builds SERVESIM_BUILD_TARGET (default: everything).
configure_and_build() {
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] || { [ ! -f "$BUILD_DIR/build.ninja" ] && [ ! -f "$BUILD_DIR/Makefile" ]; }; then
    cmake -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DSERVESIM_LTO=OFF "$@" >/dev/null
  elif [ "${SERVESIM_RECONFIGURE:-0}" = 1 ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" >/dev/null
  fi
  # SERVESIM_BUILD_TARGET limits the build to these targets (scripts/demo needs the CLI and
  # the Python extension, not the test suite).
  # shellcheck disable=SC2086
  cmake --build "$BUILD_DIR" -j "$(nproc)" ${SERVESIM_BUILD_TARGET:+--target $SERVESIM_BUILD_TARGET}
}

# Makes `import servesim` work for Debian's /usr/bin/python3 from any folder: a .pth file in
# its site-packages naming $BUILD_DIR/python, where the build puts the package. Rebuilding
# updates the package in place. Skipped with a note when the extension was not built.
install_python_package() {
  local py=/usr/bin/python3
  [ -x "$py" ] || { echo "servesim: note: no /usr/bin/python3; the Python package is not installed" >&2; return 0; }
  if ! ls "$BUILD_DIR"/python/servesim/_servesim*.so >/dev/null 2>&1; then
    echo "servesim: note: the Python extension was not built (pybind11-dev missing?); not installed" >&2
    return 0
  fi
  local site
  site="$("$py" -c 'import site; print(site.getsitepackages()[0])')"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo mkdir -p "$site"
  echo "$BUILD_DIR/python" | $sudo tee "$site/servesim.pth" >/dev/null
}

# Puts `servesim` on PATH: a link to $BUILD_DIR/servesim in /usr/local/bin (with sudo where
# not root), or in ~/.local/bin where that cannot be written, with a note when that folder
# is not on PATH. The link follows rebuilds.
install_cli_on_path() {
  local target="$BUILD_DIR/servesim" dir=/usr/local/bin sudo=""
  [ -x "$target" ] || return 0
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ -d "$dir" ] && { [ -w "$dir" ] || { [ -n "$sudo" ] && sudo -n true 2>/dev/null; }; }; then
    [ -w "$dir" ] && sudo=""
    $sudo ln -sfn "$target" "$dir/servesim"
  else
    dir="$HOME/.local/bin"
    mkdir -p "$dir"
    ln -sfn "$target" "$dir/servesim"
  fi
  case ":$PATH:" in
    *":$dir:"*) ;;
    *) echo "servesim: note: $dir/servesim links the binary; add $dir to PATH to call it as servesim" >&2 ;;
  esac
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
# libFuzzer coverage in every object) and the tests, at -O1 (about half the compile time of
# -O2; ASan's own advice) with line tables only (-gline-tables-only: stack traces keep file
# and line, and a batch compiles ~18% faster than with full -g). A folder configured
# otherwise (an older gcc sanitizer build) is reconfigured from scratch.
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
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
      -DSERVESIM_FUZZ=ON -DSERVESIM_TESTS=ON >/dev/null
  fi
}

#!/bin/bash
# Installs what is missing, then configures and builds shoal into build/ (or $SHOAL_BUILD_DIR):
# every target, or only the targets named as arguments (scripts/demo.sh builds the four binaries
# it runs).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
build_dir=${SHOAL_BUILD_DIR:-build}
# Ninja for a new build directory: a library's sources start compiling as soon as the generated
# headers they include exist, where Make waits for every library below to be archived first, so
# both cores stay busy to the end (docs/benchmarks.md, "Build and test time", third round). A
# directory configured before keeps its generator (CMake refuses to switch one).
generator=()
if [ ! -f "$build_dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=${SHOAL_BUILD_TYPE:-RelWithDebInfo} >/dev/null
targets=()
if [ $# -gt 0 ]; then
  targets=(--target "$@")
fi
cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}"

#!/bin/bash
# Installs what is missing, then configures and builds shoal into build/ (or $SHOAL_BUILD_DIR):
# every target, or only the targets named as arguments (scripts/demo.sh builds the four binaries
# it runs).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
build_dir=${SHOAL_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=${SHOAL_BUILD_TYPE:-RelWithDebInfo} >/dev/null
targets=()
if [ $# -gt 0 ]; then
  targets=(--target "$@")
fi
cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}"

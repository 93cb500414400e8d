#!/bin/bash
# The test command: installs what is missing, builds everything once, runs every test (unit,
# actor, multi-process integration, benchmark smoke) in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
build_dir=${SHOAL_BUILD_DIR:-build}
cd "$build_dir"
ctest -j"$(nproc)" --output-on-failure --timeout 300

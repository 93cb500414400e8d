#!/bin/bash
# The test command: installs what is missing, builds everything once, runs every test (unit,
# actor, multi-process integration, benchmark smoke) in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
build_dir=${SHOAL_BUILD_DIR:-build}
cd "$build_dir"
# Twice as many tests as cores: the tests mostly wait for daemons and timers (a sixth of two cores
# busy at -j2), and -j4 on 2 cores halved ctest's time (docs/benchmarks.md, "Build and test time").
ctest -j"$((2 * $(nproc)))" --output-on-failure --timeout 300

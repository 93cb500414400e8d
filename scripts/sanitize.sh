#!/bin/bash
# Builds shoal with AddressSanitizer and UndefinedBehaviorSanitizer into build-asan/ and runs
# every test there. Run it before resolving anything that touches memory or concurrency.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSHOAL_SANITIZERS=address,undefined >/dev/null
cmake --build build-asan -j"$(nproc)"
cd build-asan
# Daemons exit through _Exit, so LeakSanitizer's exit-time report never runs there anyway.
# microbench_smoke is left out: its backfill rows repeat 10,000-job passes 30 times, which takes
# over 5 minutes unoptimized under ASan, and the same policy code runs under the sanitizers in
# unit_policy's simulated workloads.
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest -j"$(nproc)" --output-on-failure --timeout 600 -E microbench_smoke "$@"

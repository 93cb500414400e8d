#!/bin/bash
# Fuzzes the hostlist parser with libFuzzer for SECONDS (default 60): builds test/fuzz's
# hostlist_fuzz with clang into BUILD_DIR (default build-fuzz), every library instrumented for
# coverage with AddressSanitizer and UndefinedBehaviorSanitizer, and runs it on a copy of the seed
# corpus (test/fuzz/corpus/hostlist), which grows in BUILD_DIR/corpus across runs. A crash, hang
# or violated property leaves the input in BUILD_DIR/artifacts; replay it with
#   BUILD_DIR/bin/hostlist_fuzz BUILD_DIR/artifacts/<file>
# usage: scripts/fuzz.sh [SECONDS] [extra libFuzzer flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
build="${BUILD_DIR:-build-fuzz}"
jobs="${JOBS:-2}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
  >/dev/null
cmake --build "$build" -j"$jobs" --target hostlist_fuzz
mkdir -p "$build/corpus" "$build/artifacts"
cp -n test/fuzz/corpus/hostlist/* "$build/corpus/"
ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  "$build/bin/hostlist_fuzz" -max_total_time="$seconds" -max_len=256 -timeout=10 \
  -rss_limit_mb=4096 -artifact_prefix="$build/artifacts/" -print_final_stats=1 "$@" \
  "$build/corpus"

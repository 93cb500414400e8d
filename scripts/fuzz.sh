#!/bin/bash
# Fuzzes shoal's parsers with libFuzzer, SECONDS (default 60) each: hostlist (the hostlist
# parser), client_frame (the front door's request and reply decoder), wire_messages (every
# message decoder: what CAF, shoal-stepd and the state files hand the codec), config (the config
# parser) and job_options (the CLI's job options and script directives) in turn, or only the one --target names. Builds test/fuzz's TARGET_fuzz binaries with
# clang into BUILD_DIR (default build-fuzz), every library instrumented for coverage with
# AddressSanitizer and UndefinedBehaviorSanitizer, and runs each on a copy of its seed corpus
# (test/fuzz/corpus/TARGET; wire_messages: the seeds the build writes), which grows across runs in BUILD_DIR/corpus for hostlist and in
# BUILD_DIR/corpus-TARGET for the others. A crash, hang or violated property leaves the input in
# BUILD_DIR/artifacts (hostlist) or BUILD_DIR/artifacts-TARGET; replay it with
#   BUILD_DIR/bin/TARGET_fuzz <file>
# The exit status is that of the last target that failed, 0 when none did.
# usage: scripts/fuzz.sh [--target hostlist|client_frame|wire_messages|config|job_options] [SECONDS] [extra libFuzzer flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
all_targets=(hostlist client_frame wire_messages config job_options)
targets=("${all_targets[@]}")
case "${1:-}" in
  --target | --target=*)
    if [[ "$1" == --target ]]; then
      chosen="${2:-}"
      shift 2 || shift
    else
      chosen="${1#--target=}"
      shift
    fi
    case "$chosen" in
      hostlist | client_frame | wire_messages | config | job_options) ;;
      *)
        echo "fuzz.sh: --target takes one of: ${all_targets[*]}" >&2
        exit 2
        ;;
    esac
    targets=("$chosen")
    ;;
esac
seconds="${1:-60}"
shift || true
build="${BUILD_DIR:-build-fuzz}"
jobs="${JOBS:-2}"

# Inputs longer than this are cut: the hostlist parser's interesting inputs are short, the
# largest client_frame seed (a reply with every field set) is 2.5 KiB, and config_fuzz skips
# texts over 4 KiB, as job_options_fuzz does scripts.
max_len() {
  case "$1" in
    hostlist) echo 256 ;;
    client_frame | wire_messages) echo 8192 ;;
    config | job_options) echo 4096 ;;
  esac
}

# The corpus and artifacts of hostlist keep the places they had before the other targets
# existed, so a corpus grown in earlier runs goes on growing. The others' are siblings, not
# subdirectories: libFuzzer reads a corpus directory recursively.
corpus_dir() {
  if [[ "$1" == hostlist ]]; then echo "$build/corpus"; else echo "$build/corpus-$1"; fi
}
artifacts_dir() {
  if [[ "$1" == hostlist ]]; then echo "$build/artifacts"; else echo "$build/artifacts-$1"; fi
}

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
  >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=("${t}_fuzz"); done
cmake --build "$build" -j"$jobs" --target "${build_targets[@]}"

status=0
for t in "${targets[@]}"; do
  corpus="$(corpus_dir "$t")"
  artifacts="$(artifacts_dir "$t")"
  mkdir -p "$corpus" "$artifacts"
  seeds="test/fuzz/corpus/$t"
  if [[ "$t" == wire_messages ]]; then seeds="$build/test/fuzz/corpus/wire_messages"; fi
  cp -n "$seeds"/* "$corpus/"
  if [[ ${#targets[@]} -gt 1 ]]; then echo "== ${t}_fuzz: ${seconds} s"; fi
  ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/bin/${t}_fuzz" -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=10 \
    -rss_limit_mb=4096 -artifact_prefix="$artifacts/" -print_final_stats=1 "$@" \
    "$corpus" || status=$?
done
exit "$status"

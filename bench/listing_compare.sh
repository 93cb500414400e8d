#!/usr/bin/env bash
# Listing latency with many jobs, one CLI against another on the same cluster (issue 36, item 1).
#
#   bench/listing_compare.sh --bin build/bin [--old-cli /path/to/old/shoal] [--finished N]
#                            [--pending N] [--runs N]
#
# Starts `shoal start --simulate=16` from --bin, fills it with N finished array tasks and N held
# jobs, then times each listing command with the new CLI and, given --old-cli, with the old one,
# alternately (new, old, new, old, ...), and prints the median wall milliseconds of each and
# their ratio. Both talk to the same controller (the new one), so the ratio is what the CLI's
# request changes: an old CLI asks for every field of every job.
set -euo pipefail

bin=""
old_cli=""
finished=3000
pending=1000
runs=15
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --old-cli) old_cli="$2"; shift 2 ;;
    --finished) finished="$2"; shift 2 ;;
    --pending) pending="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "listing_compare: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x "$bin/shoal" ]] || { echo "listing_compare: --bin DIR must hold shoal" >&2; exit 2; }
bin=$(cd "$bin" && pwd)
shoal="$bin/shoal"

work=$(mktemp -d /tmp/shoal-listing-XXXXXX)
cluster_pid=""
cleanup() {
  [[ -n "$cluster_pid" ]] && kill -INT "$cluster_pid" 2>/dev/null && wait "$cluster_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

cd "$work"
"$shoal" start --simulate=16 >"$work/start.log" 2>&1 &
cluster_pid=$!
for _ in $(seq 1 120); do
  conf=$(sed -n 's/.*SHOAL_CONF=\([^ ]*\).*/\1/p' "$work/start.log" | head -1)
  [[ -n "$conf" ]] && break
  sleep 0.5
done
[[ -n "${conf:-}" ]] || { echo "listing_compare: the cluster did not start" >&2; cat "$work/start.log" >&2; exit 1; }
export SHOAL_CONF="$conf"
until "$shoal" queue >/dev/null 2>&1; do sleep 0.2; done

echo "cores: $(nproc); jobs: $finished finished array tasks, $pending held"
# Arrays of at most 1,000 tasks (the default MaxArraySize is 1001).
for ((left = finished; left > 0; left -= 1000)); do
  "$shoal" batch --array="1-$((left < 1000 ? left : 1000))" --wrap=true >/dev/null
done
for _ in $(seq 1 "$pending"); do "$shoal" batch -H --wrap=true; done >/dev/null
while [[ $("$shoal" queue -t all -h -o JobID,State | grep -c COMPLETED || true) -lt "$finished" ]]; do
  sleep 1
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now_ms() { echo $(( $(date +%s%N) / 1000 )); }

# One listing: its median in ms with the new CLI, and with the old one when given.
compare() {
  local label="$1"; shift
  local new=() old=()
  "$shoal" "$@" >/dev/null
  [[ -n "$old_cli" ]] && "$old_cli" "$@" >/dev/null
  for _ in $(seq 1 "$runs"); do
    local t0; t0=$(now_ms); "$shoal" "$@" >/dev/null; new+=($(( $(now_ms) - t0 )))
    if [[ -n "$old_cli" ]]; then
      t0=$(now_ms); "$old_cli" "$@" >/dev/null; old+=($(( $(now_ms) - t0 )))
    fi
  done
  local n o
  n=$(printf '%s\n' "${new[@]}" | median)
  if [[ -n "$old_cli" ]]; then
    o=$(printf '%s\n' "${old[@]}" | median)
    printf '%-44s new %7.1f ms   old %7.1f ms   new/old %.2f\n' "$label" \
      "$(echo "$n / 1000" | bc -l)" "$(echo "$o / 1000" | bc -l)" "$(echo "$n / $o" | bc -l)"
  else
    printf '%-44s new %7.1f ms\n' "$label" "$(echo "$n / 1000" | bc -l)"
  fi
}

compare "queue -t all -o JobID,State" queue -t all -o JobID,State
compare "queue -t all (default columns)" queue -t all
compare "squeue -t all -o '%i %t'" queue -t all -o "%i %t"
compare "queue -t R (none running)" queue -t R
compare "queue -u nobody -t all" queue -u nobody -t all
compare "queue (pending and running only)" queue

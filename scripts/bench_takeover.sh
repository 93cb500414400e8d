#!/bin/bash
# Backup controller takeover time: a primary and a backup shoalctld and two shoald on 127.0.0.1
# (two SlurmctldHost lines with their own ports). Each round kills the primary with SIGKILL and
# at once issues `shoal queue`, which waits for a controller in control; the time runs from the
# kill to that command's successful exit. The primary is then restarted, and the next round
# starts once it has control back. Prints every round, the median, min and max.
# Usage: scripts/bench_takeover.sh [ROUNDS (default 5)] [SLURMCTLD_TIMEOUT_S (default 3)]
# Needs a build (SHOAL_BUILD_DIR, default build/) with shoal, shoalctld and shoald.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
timeout_s=${2:-3}
bin=$(cd "${SHOAL_BUILD_DIR:-build}/bin" && pwd)
dir=$(mktemp -d /tmp/shoal-takeover-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

# Two free loopback ports.
read -r p1 p2 < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
cat >"$dir/shoal.conf" <<CONF
ClusterName=takeover
SlurmctldHost=ctl1(127.0.0.1:$p1)
SlurmctldHost=ctl2(127.0.0.1:$p2)
SlurmctldTimeout=$timeout_s
MetricsPort=0
NodeMetricsPort=0
HeartBeatInterval=1
SlurmdTimeout=5
StateSaveLocation=$dir/state
NodeName=node[1-2] NodeAddr=127.0.0.1
PartitionName=debug Nodes=node[1-2] Default=YES MaxTime=INFINITE
CONF
export SHOAL_CONF=$dir/shoal.conf

now_ms() { echo $(($(date +%s%N) / 1000000)); }
start_primary() {
  "$bin/shoalctld" --controller ctl1 >>"$dir/ctl1.log" 2>&1 &
  primary=$!
  pids+=("$primary")
}
# Until the primary is in control again and both nodes are IDLE through it.
wait_primary_in_control() {
  for _ in $(seq 600); do
    if [ "$(grep -c 'controller in control role=primary' "$dir/ctl1.log")" -ge "$1" ] &&
      [ "$("$bin/shoal" info -N -h -o State 2>/dev/null | grep -c IDLE)" = 2 ]; then
      return 0
    fi
    sleep 0.1
  done
  echo "the primary did not take control back; logs in $dir" >&2
  trap - EXIT
  exit 1
}

start_primary
"$bin/shoalctld" --controller ctl2 >"$dir/ctl2.log" 2>&1 &
pids+=($!)
for n in node1 node2; do
  "$bin/shoald" -N "$n" >"$dir/$n.log" 2>&1 &
  pids+=($!)
done
wait_primary_in_control 1

echo "# shoal backup controller takeover, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# cores: $(nproc); SlurmctldTimeout=$timeout_s (ping every max(1, $timeout_s/3) s)"
echo "# command: scripts/bench_takeover.sh $rounds $timeout_s"
times=()
for round in $(seq "$rounds"); do
  kill -KILL "$primary"
  wait "$primary" 2>/dev/null || true
  t0=$(now_ms)
  "$bin/shoal" queue >/dev/null 2>&1
  t1=$(now_ms)
  times+=($((t1 - t0)))
  echo "round $round: kill -9 of the primary to a successful shoal queue: $((t1 - t0)) ms"
  start_primary
  wait_primary_in_control $((round + 1))
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
echo "takeover ms: median $median, min $(echo "$sorted" | head -1), max $(echo "$sorted" | tail -1)" \
  "(aim: under SlurmctldTimeout + 2 s = $((timeout_s * 1000 + 2000)) ms)"

#!/bin/bash
# shoal and real Slurm side by side on this host (issue 36, docs/benchmarks.md): both under MUNGE
# (one private munged, its own key and socket in a temp dir), 16 node daemons each, every figure
# measured alternately (shoal, Slurm, shoal, Slurm, ...) and reported as the median of its runs.
#   bench/side_by_side.sh --bin build/bin [--only squeue|sinfo|rss|batch|array] [--runs N] [--jobs N]
# --jobs N (default 1000): the serial batch and the array size, squeue at N and 10 N held jobs, the
# RSS after 3 N finished jobs. --runs N (default 5): runs of each listing (3 at most of the batch
# and array figures, which take 25-90 s a run on Slurm). A full run took 12 min on 2 busy cores.
# It stops and cleans up on Ctrl-C (the whole process group gets SIGINT) or on SIGTERM once the
# command it is in returns (a submission loop: up to a run's length).
# Slurm (slurmctld, slurmd, sbatch, squeue, sinfo from Debian's slurm-wlm) is never installed by
# this script: where it is missing, or this is not root, the Slurm column says so and is skipped.
# Not a pass/fail test: nothing here asserts a timing (the README's test command does not run it).
set -euo pipefail

usage() {
  echo "usage: $0 --bin DIR [--only squeue|sinfo|rss|batch|array] [--runs N] [--jobs N]" >&2
  exit 2
}

bin="" only="" runs=5 jobs=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=${2:?}; shift 2 ;;
    --only) only=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "$0: unknown option $1" >&2; usage ;;
  esac
done
[ -n "$bin" ] || usage
case "$only" in "" | squeue | sinfo | rss | batch | array) ;; *) usage ;; esac
[[ "$runs" =~ ^[1-9][0-9]*$ && "$jobs" =~ ^[1-9][0-9]*$ ]] || usage
bin=$(cd "$bin" && pwd)
for b in shoal shoalctld shoald; do
  [ -x "$bin/$b" ] || { echo "$0: no $bin/$b" >&2; exit 2; }
done
command -v munged >/dev/null && command -v mungekey >/dev/null || {
  echo "side by side: skipped: both sides run under MUNGE and munged/mungekey are not installed"
  exit 0
}
# The serial batch and the array end to end are long on Slurm (about 40 jobs/s): at most 3 runs.
heavy_runs=$((runs < 3 ? runs : 3))

slurm=yes slurm_why=""
for b in slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$b" >/dev/null || { slurm="" slurm_why="Slurm not installed (no $b)"; break; }
done
if [ -n "$slurm" ] && [ "$(id -u)" != 0 ]; then
  slurm="" slurm_why="Slurm's daemons need root here (this is uid $(id -u))"
fi

work=$(mktemp -d /tmp/shoal-side-by-side.XXXXXX)
chmod 755 "$work"  # munged wants every folder above its socket reachable by all
pids=()
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # Each daemon this script started, by its pid, then anything still up a moment later.
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 1
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "$rc" = 0 ]; then rm -rf "$work"; else echo "side by side: logs kept in $work" >&2; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_bg() {  # LOG CMD...: starts CMD in the background, its pid remembered for cleanup
  local log=$1
  shift
  "$@" >"$log" 2>&1 &
  pids+=($!)
}
stop_pids() {  # PID...: stops daemons of a finished phase (and forgets them)
  local p keep=()
  for p in "$@"; do kill "$p" 2>/dev/null || true; done
  for p in "$@"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do [[ " $* " == *" $p "* ]] || keep+=("$p"); done
  pids=("${keep[@]}")
}
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 30000))
    ss -ltnH "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
  done
}
now_us() { echo $(($(date +%s%N) / 1000)); }
median() { sort -n | awk '{v[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
wait_until() {  # SECONDS CMD...: polls CMD until it succeeds
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "side by side: timed out: $*" >&2; return 1; }
    sleep 0.05
  done
}

# ---- MUNGE, shared by both sides (one key, as a cluster's hosts share munge.key) ----
mkdir -p "$work/munge"
chmod 755 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key"
start_bg "$work/munge/out.log" munged --foreground --socket="$work/munge/munge.socket" \
  --key-file="$work/munge/munge.key" --log-file="$work/munge/munged.log" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" --num-threads=4
sock="$work/munge/munge.socket"
munge_ok() { munge --socket="$sock" --no-input --output=/dev/null 2>/dev/null; }
wait_until 10 munge_ok

# ---- shoal ----
S() { SHOAL_CONF="$shoal_conf" "$bin/shoal" "$@"; }
shoal_up() {  # DIR NODES SIMULATED: a controller and 16 node daemons (or 4 simulating front ends)
  local dir=$1 nodes=$2 sim=$3 i
  mkdir -p "$dir/state" "$dir/spool"
  shoal_conf="$dir/shoal.conf"
  cat >"$shoal_conf" <<EOF
ClusterName=sbs
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$sock
HeartBeatInterval=1
SlurmdTimeout=5
ReturnToService=1
KillWait=2
MinJobAge=3600
MaxArraySize=$((jobs > 10000 ? jobs + 1 : 10001))
SelectType=select/consecutive
SwitchType=switch/none
StateSaveLocation=$dir/state
TmpFS=$dir
SlurmdSpoolDir=$dir/spool
MetricsPort=0
NodeMetricsPort=0
NodeName=node[1-$nodes] NodeAddr=127.0.0.1 CPUs=2
PartitionName=debug Nodes=node[1-$nodes] Default=YES MaxTime=INFINITE State=UP
EOF
  start_bg "$dir/shoalctld.log" "$bin/shoalctld" -f "$shoal_conf"
  shoal_ctld=$!
  shoal_daemons=("$shoal_ctld")
  if [ "$sim" = yes ]; then
    for i in 0 1 2 3; do
      start_bg "$dir/shoald-fe$i.log" "$bin/shoald" -f "$shoal_conf" --simulate --metrics-port 0 \
        --nodes "node[$((1 + i * nodes / 4))-$(((i + 1) * nodes / 4))]"
      shoal_daemons+=($!)
    done
  else
    for i in $(seq "$nodes"); do
      start_bg "$dir/shoald-node$i.log" "$bin/shoald" -f "$shoal_conf" -N "node$i" --metrics-port 0
      shoal_daemons+=($!)
    done
  fi
  wait_until 120 shoal_all_idle "$nodes"
}
shoal_all_idle() { [ "$(S info -N -h -t idle -o %N 2>/dev/null | wc -l)" = "$1" ]; }
shoal_empty() { [ -z "$(S queue -h -o %i 2>/dev/null)" ]; }

# ---- Slurm ----
slurm_up() {  # DIR NODES DAEMONS: slurmctld and, with DAEMONS=yes, one slurmd per node
  local dir=$1 nodes=$2 daemons=$3 i port base
  mkdir -p "$dir/state" "$dir/spool"
  slurm_conf="$dir/slurm.conf"
  base=$(free_port)
  {
    cat <<EOF
ClusterName=sbs
SlurmctldHost=localhost
SlurmctldPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
MaxJobCount=200000
MaxArraySize=$((jobs > 10000 ? jobs + 1 : 10001))
SlurmctldDebug=info
SlurmdDebug=info
EOF
    if [ "$daemons" = yes ]; then
      for i in $(seq "$nodes"); do
        echo "NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((base + i)) CPUs=2"
      done
    else
      # DOWN: slurmctld pings no DOWN node, so the listing is timed, not 10,000 failed pings.
      echo "NodeName=n[1-$nodes] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$base CPUs=2 State=DOWN"
    fi
    echo "PartitionName=debug Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP"
  } >"$slurm_conf"
  start_bg "$dir/slurmctld.out" slurmctld -D -i -f "$slurm_conf"
  slurm_daemons=($!)
  if [ "$daemons" = yes ]; then
    for i in $(seq "$nodes"); do
      mkdir -p "$dir/spool/n$i"
      start_bg "$dir/slurmd-n$i.out" slurmd -D -f "$slurm_conf" -N "n$i"
      slurm_daemons+=($!)
    done
    wait_until 120 slurm_all_idle "$nodes"
  else
    wait_until 60 slurm_answers
  fi
}
X() { SLURM_CONF="$slurm_conf" "$@"; }
slurm_answers() { X sinfo -h -o %D >/dev/null 2>&1; }
slurm_all_idle() { [ "$(X sinfo -N -h -t idle -o %N 2>/dev/null | wc -l)" = "$1" ]; }
slurm_empty() { [ -z "$(X squeue -h -o %i 2>/dev/null)" ]; }

# ---- measuring ----
list_us() {  # CMD...: microseconds from spawn to exit, output discarded
  local t0
  t0=$(now_us)
  "$@" >/dev/null
  echo $(($(now_us) - t0))
}
submit_parallel() {  # SIDE N [OPTIONS...]: N submissions 4 at a time (setting up, not timed)
  local side=$1 n=$2
  shift 2
  if [ "$side" = shoal ]; then
    seq "$n" | SHOAL_CONF="$shoal_conf" xargs -P4 -I{} "$bin/shoal" batch -Q -o /dev/null "$@" --wrap true >/dev/null
  else
    seq "$n" | SLURM_CONF="$slurm_conf" xargs -P4 -I{} sbatch -Q -o /dev/null "$@" --wrap true >/dev/null
  fi
}
serial_rate() {  # SIDE: jobs/s of $jobs serial submissions, from the first to the queue empty
  local side=$1 t0 i
  t0=$(now_us)
  if [ "$side" = shoal ]; then
    for i in $(seq "$jobs"); do S batch -Q -o /dev/null --wrap true >/dev/null; done
    wait_until 600 shoal_empty
  else
    for i in $(seq "$jobs"); do X sbatch -Q -o /dev/null --wrap true >/dev/null; done
    wait_until 600 slurm_empty
  fi
  awk -v n="$jobs" -v us=$(($(now_us) - t0)) 'BEGIN {printf "%.1f\n", n * 1e6 / us}'
}
array_rate() {  # SIDE: tasks/s of one $jobs-task array, from its submission to the queue empty
  local side=$1 t0
  t0=$(now_us)
  if [ "$side" = shoal ]; then
    S batch -Q -o /dev/null --array="1-$jobs" --wrap true >/dev/null
    wait_until 600 shoal_empty
  else
    X sbatch -Q -o /dev/null --array="1-$jobs" --wrap true >/dev/null
    wait_until 600 slurm_empty
  fi
  awk -v n="$jobs" -v us=$(($(now_us) - t0)) 'BEGIN {printf "%.1f\n", n * 1e6 / us}'
}
shoal_queue_all() { list_us S queue -t all -o JobID,State; }
slurm_queue_all() { list_us X squeue -t all -o "%i %t"; }
rss_mib() { awk '/^VmRSS:/ {printf "%.0f\n", $2 / 1024}' "/proc/$1/status"; }

# alternate NAME UNIT DIVISOR RUNS SHOAL_FN SLURM_FN: runs both in turn, prints the row
alternate() {
  local name=$1 unit=$2 div=$3 n=$4 sfn=$5 xfn=$6 i s x
  : >"$work/s.txt"
  : >"$work/x.txt"
  for i in $(seq "$n"); do
    $sfn >>"$work/s.txt"
    [ -z "$slurm" ] || $xfn >>"$work/x.txt"
  done
  s=$(median <"$work/s.txt" | awk -v d="$div" '{printf "%.1f", $1 / d}')
  if [ -n "$slurm" ]; then x=$(median <"$work/x.txt" | awk -v d="$div" '{printf "%.1f", $1 / d}'); else x="-"; fi
  row "$name" "$s $unit" "$x${slurm:+ $unit}" "$n"
}
row() {  # FIGURE SHOAL SLURM RUNS: ratio is shoal / Slurm
  local ratio="-"
  if [ -n "$slurm" ] && [ "${3%% *}" != "-" ]; then
    ratio=$(awk -v a="${2%% *}" -v b="${3%% *}" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')
  fi
  printf '%-52s %14s %14s %8s %5s\n' "$1" "$2" "$3" "$ratio" "$4"
}

echo "cores: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "shoal: $bin; both sides under MUNGE (private munged), 16 node daemons each, alternating"
if [ -n "$slurm" ]; then
  echo "slurm: $(slurmctld -V) (one slurmd per node, 16 on this host: slurmd -N)"
else
  echo "slurm: skipped: $slurm_why"
fi
printf '%-52s %14s %14s %8s %5s\n' figure shoal Slurm ratio runs

want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
# Jobs submitted so far on each side of the 16-node pair (the RSS figure tops it up to 3 x --jobs).
count=0
pair_up() {
  shoal_up "$work/shoal16" 16 no
  [ -z "$slurm" ] || slurm_up "$work/slurm16" 16 yes
  count=0
}
pair_down() {
  stop_pids "${shoal_daemons[@]}"
  [ -z "$slurm" ] || stop_pids "${slurm_daemons[@]}"
}

if want batch || want rss || want array; then
  pair_up
  if want batch; then
    alternate "serial batch/sbatch, $jobs jobs end to end" "jobs/s" 1 "$heavy_runs" \
      "serial_rate shoal" "serial_rate slurm"
    count=$((heavy_runs * jobs))
  fi
  if want rss; then
    if [ "$count" -lt $((3 * jobs)) ]; then
      submit_parallel shoal $((3 * jobs - count))
      [ -z "$slurm" ] || submit_parallel slurm $((3 * jobs - count))
      wait_until 600 shoal_empty
      [ -z "$slurm" ] || wait_until 600 slurm_empty
      count=$((3 * jobs))
    fi
    s=$(rss_mib "$shoal_ctld")
    x="-"
    [ -z "$slurm" ] || x="$(rss_mib "${slurm_daemons[0]}") MiB"
    row "controller RSS after $count finished jobs" "$s MiB" "$x" 1
  fi
  if want array; then
    alternate "$jobs-task array end to end" "tasks/s" 1 "$heavy_runs" \
      "array_rate shoal" "array_rate slurm"
  fi
  pair_down
fi

if want squeue; then
  # A fresh pair: only held (pending) jobs, submitted 4 at a time, so both list the same records.
  pair_up
  have=0
  for size in "$jobs" $((10 * jobs)); do
    submit_parallel shoal $((size - have)) --hold
    [ -z "$slurm" ] || submit_parallel slurm $((size - have)) --hold
    have=$size
    alternate "queue -t all / squeue -t all, $size held jobs" "ms" 1000 "$runs" \
      shoal_queue_all slurm_queue_all
  done
  pair_down
fi

if want sinfo; then
  # shoal simulates 10,000 nodes (shoald --simulate, 4 front ends). Debian's Slurm has no
  # front-end or simulator build: its 10,000 nodes are configured DOWN with no slurmd behind them
  # (the listing is the same records; most of sinfo -N's time is the client's own, not slurmctld's).
  shoal_up "$work/shoal10k" 10000 yes
  [ -z "$slurm" ] || slurm_up "$work/slurm10k" 10000 no
  alternate "info -N / sinfo -N, 10,000 nodes (Slurm's DOWN, no slurmd)" "ms" 1000 "$runs" \
    "list_us S info -N" "list_us X sinfo -N"
  stop_pids "${shoal_daemons[@]}"
  [ -z "$slurm" ] || stop_pids "${slurm_daemons[@]}"
fi
echo "ratio: shoal / Slurm (times: below 1 is faster; rates: above 1 is faster)"

#!/bin/bash
# A private munged for the tests (a ctest fixture): its own key, socket, log and pid file under
# DIR, so the tests need no system munged and leave the host's alone.
#   munged.sh start DIR   creates a key and starts munged; DIR/munge.socket is its socket
#   munged.sh stop DIR    stops it
set -euo pipefail
action=${1:?start or stop}
dir=${2:?the directory of the test munged}

case "$action" in
  start)
    "$0" stop "$dir" 2>/dev/null || true
    rm -rf "$dir"
    mkdir -p "$dir"
    # Users the tests create (setpriv) must reach the socket.
    chmod 755 "$dir"
    mungekey --create --keyfile="$dir/munge.key"
    munged --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
      --log-file="$dir/munged.log" --pid-file="$dir/munged.pid" --seed-file="$dir/munged.seed" \
      --num-threads=4
    for _ in $(seq 100); do
      if munge --socket="$dir/munge.socket" --no-input >/dev/null 2>&1; then
        echo "munged ready on $dir/munge.socket"
        exit 0
      fi
      sleep 0.1
    done
    echo "munged did not start; its log:" >&2
    cat "$dir/munged.log" >&2 || true
    exit 1
    ;;
  stop)
    [ -f "$dir/munged.pid" ] || exit 0
    munged --socket="$dir/munge.socket" --stop >/dev/null 2>&1 || kill "$(cat "$dir/munged.pid")"
    ;;
  *)
    echo "usage: munged.sh start|stop DIR" >&2
    exit 2
    ;;
esac

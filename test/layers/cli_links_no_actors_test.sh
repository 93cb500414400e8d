#!/bin/bash
# The CLI links no actor code: no symbol of namespace shoal::actors in the shoal binary.
set -euo pipefail
bin=$1
count=$(nm -C "$bin" | grep -c 'shoal::actors::' || true)
if [ "$count" -ne 0 ]; then
  echo "FAIL: $bin holds $count shoal::actors symbols:"
  nm -C "$bin" | grep 'shoal::actors::' | head -5
  exit 1
fi
echo "$bin links no shoal::actors code"

# Nor CAF itself: loading libcaf_core cost every command about 3 ms of start-up
# (docs/benchmarks.md, "A CLI without libcaf_core"). The pure libraries return shoal::error.
if readelf -d "$bin" | grep -q 'NEEDED.*libcaf'; then
  echo "FAIL: $bin needs a CAF library:"
  readelf -d "$bin" | grep 'NEEDED.*libcaf'
  exit 1
fi
echo "$bin needs no CAF library"

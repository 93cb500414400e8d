#!/bin/bash
# Fails when a source file includes from a layer above its own. The layers, bottom first, as in
# docs/architecture.md: a file in folder N may include only from folders 0..N (and system headers).
# Usage: check_layers.sh [ROOT]  (default: the repository this script sits in)
set -euo pipefail
root=${1:-"$(cd "$(dirname "$0")/../.." && pwd)"}
layers=(messages topology policy config metrics process state accounting interconnect cluster actors
  runtime tools bench)
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

violations=0
for dir in "${layers[@]}"; do
  [ -d "$root/$dir" ] || continue
  own=${rank[$dir]}
  while IFS= read -r -d '' file; do
    lineno=0
    while IFS= read -r line; do
      lineno=$((lineno + 1))
      [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([a-z_]+)/ ]] || continue
      target=${BASH_REMATCH[1]}
      [ -n "${rank[$target]+x}" ] || continue
      if ((rank[$target] > own)); then
        echo "${file#"$root"/}:$lineno: $dir (layer $own) includes from $target (layer ${rank[$target]}): ${line}"
        violations=$((violations + 1))
      fi
    done <"$file"
  done < <(find "$root/$dir" -type f \( -name '*.hpp' -o -name '*.cpp' \) -print0)
done
# tools/format renders what the CLI fetched; it must not reach into the CLI itself.
while IFS= read -r hit; do
  echo "$hit: tools/format includes from tools/cli"
  violations=$((violations + 1))
done < <(grep -rn '#include "tools/cli/' "$root/tools/format" 2>/dev/null || true)

# The pure libraries know nothing of CAF: errors are shoal::error (messages/errc.hpp), and how
# messages and errors travel as CAF values lives in messages/caf/, which only actors/ and
# runtime/ include. tools/ may name the controller's messages by their atoms (type_ids.hpp).
while IFS= read -r hit; do
  echo "$hit: a pure library includes CAF"
  violations=$((violations + 1))
done < <(cd "$root" && grep -rnE '#include (<caf/|"messages/caf/)' messages topology policy config \
  metrics process state accounting interconnect cluster --include='*.hpp' --include='*.cpp' 2>/dev/null |
  grep -v '^messages/caf/' || true)
while IFS= read -r hit; do
  echo "$hit: the CLI includes CAF beyond the message atoms"
  violations=$((violations + 1))
done < <(cd "$root" && grep -rnE '#include (<caf/|"messages/caf/)' tools 2>/dev/null |
  grep -v '"messages/caf/type_ids.hpp"' || true)

if ((violations > 0)); then
  echo "$violations upward include(s); layers bottom first: ${layers[*]}"
  exit 1
fi
echo "layers ok: ${layers[*]}"

#!/bin/bash
# The layering check must fail on a deliberate upward include and pass once it is gone.
set -euo pipefail
check="$(dirname "$0")/check_layers.sh"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/messages" "$tree/actors"
printf '#pragma once\n#include "messages/types.hpp"\n' >"$tree/actors/node.hpp"
printf '#pragma once\n#include <string>\n#include "actors/node.hpp"\n' >"$tree/messages/types.hpp"
if out=$("$check" "$tree"); then
  echo "FAIL: an include from messages/ up to actors/ was not reported"
  exit 1
fi
grep -q 'messages/types.hpp:3: messages (layer 0) includes from actors (layer 10)' <<<"$out" ||
  { echo "FAIL: the report does not name file:line and both layers:"; echo "$out"; exit 1; }
sed -i '/actors\/node.hpp/d' "$tree/messages/types.hpp"
"$check" "$tree" >/dev/null || { echo "FAIL: a clean tree was reported"; exit 1; }
echo "upward include reported, clean tree passes"

# A pure library that includes CAF is reported too.
mkdir -p "$tree/config"
printf '#pragma once\n#include <caf/expected.hpp>\n' >"$tree/config/config.hpp"
if out=$("$check" "$tree"); then
  echo "FAIL: config/ including CAF was not reported"
  exit 1
fi
grep -q 'config/config.hpp:2:.*a pure library includes CAF' <<<"$out" ||
  { echo "FAIL: the report does not name the file and line:"; echo "$out"; exit 1; }
echo "a pure library including CAF is reported"

# cluster/ (the actors' pure logic) is held to the same rule.
rm "$tree/config/config.hpp"
mkdir -p "$tree/cluster"
printf '#pragma once\n#include "messages/caf/error.hpp"\n' >"$tree/cluster/job_ref.hpp"
if out=$("$check" "$tree"); then
  echo "FAIL: cluster/ including CAF was not reported"
  exit 1
fi
grep -q 'cluster/job_ref.hpp:2:.*a pure library includes CAF' <<<"$out" ||
  { echo "FAIL: the report does not name the file and line:"; echo "$out"; exit 1; }
echo "cluster/ including CAF is reported"

# So is accounting/ (the accounting store), a pure library too.
rm "$tree/cluster/job_ref.hpp"
mkdir -p "$tree/accounting"
printf '#pragma once\n#include <caf/actor.hpp>\n' >"$tree/accounting/job_store.hpp"
if out=$("$check" "$tree"); then
  echo "FAIL: accounting/ including CAF was not reported"
  exit 1
fi
grep -q 'accounting/job_store.hpp:2:.*a pure library includes CAF' <<<"$out" ||
  { echo "FAIL: the report does not name the file and line:"; echo "$out"; exit 1; }
echo "accounting/ including CAF is reported"

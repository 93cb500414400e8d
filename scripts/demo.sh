#!/bin/bash
# The first-run command: installs what is missing, builds the four binaries it runs (the CLI, both
# daemons and the step daemon; scripts/test.sh builds the rest), starts a local 4-node cluster from
# the embedded default config and runs a parallel job on it; every task prints its rank and node.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh shoal shoalctld shoald shoal-stepd
bin=${SHOAL_BUILD_DIR:-build}/bin
exec "$bin/shoal" start --test-size=4 \
  "$bin/shoal" run -N4 -n8 -l sh -c 'echo "task $SHOAL_PROCID of $SHOAL_NTASKS on node $SHOAL_NODENAME (job $SHOAL_JOB_ID)"'

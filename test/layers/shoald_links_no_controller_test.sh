#!/bin/bash
# shoald links none of the controller's actors. A unity batch (cmake/ShoalUnityBuild.cmake) that
# mixed a node-daemon source with a controller one would link the whole batch into shoald: four
# times its size and the controller's code in every node daemon.
set -euo pipefail
bin=$1
controller_code='shoal::actors::ctl::|shoal::actors::spawn_(controller|scheduler|job|node|partition|topology|state_keeper|accounting_writer|collector_manager|power|standby|daemon_gate)\('
count=$(nm -C "$bin" | grep -cE "$controller_code" || true)
if [ "$count" -ne 0 ]; then
  echo "FAIL: $bin holds $count symbols of the controller's actors:"
  nm -C "$bin" | grep -E "$controller_code" | cut -c1-160 | head -5
  echo "A new source in actors/ that shoald uses belongs in the node_daemon group of"
  echo "actors/CMakeLists.txt (shoal_unity_groups)."
  exit 1
fi
echo "$bin links none of the controller's actors"

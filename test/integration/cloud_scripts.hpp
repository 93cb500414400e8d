#pragma once

// The power programs of the cloud-node tests: a ResumeProgram that starts a real shoald for each
// node it is given and a SuspendProgram that kills it, as a cloud's API would create and destroy
// instances, so that the power actor's whole lifecycle runs through real processes.

#include <signal.h>

#include <string>
#include <vector>

#include "test/integration/harness.hpp"

namespace shoal::test {

/// Writes resume.sh, suspend.sh and resume_fail.sh into `dir` (whose shoal.conf the cluster
/// reads) and returns the config lines that name them. Each program appends "resume|suspend|
/// resume_fail HOSTLIST" to power.log. Files in `dir` steer the ResumeProgram: `hang` makes it
/// hang, `delay` holds the seconds it waits before starting the daemons (default 1). The daemons
/// it starts live in sessions of their own (the controller kills a program's process group after
/// its timeout), their pids in NODE.pid: kill_cloud_daemons ends them.
inline std::string write_cloud_scripts(const scratch_dir& dir) {
  auto d = dir.path();
  auto list_nodes =
      "$(SHOAL_CONF=" + d + "/shoal.conf " + bin_path("shoal") + " control show hostnames \"$1\")";
  write_file(dir.file("resume.sh"),
             "#!/bin/bash\n"
             "echo \"resume $1\" >> " +
                 d +
                 "/power.log\n"
                 "[ -n \"$SLURM_RESUME_FILE\" ] && cp \"$SLURM_RESUME_FILE\" " +
                 d +
                 "/resume.json\n"
                 "[ -e " +
                 d +
                 "/hang ] && exec sleep 1000\n"
                 "sleep $(cat " +
                 d +
                 "/delay 2>/dev/null || echo 1)\n"
                 "for n in " +
                 list_nodes +
                 "; do\n"
                 "  setsid " +
                 bin_path("shoald") + " -f " + d +
                 "/shoal.conf -N $n -b --metrics-port 0"
                 " -L " +
                 d +
                 "/shoald-$n.log </dev/null >/dev/null 2>&1 &\n"
                 "  echo $! > " +
                 d +
                 "/$n.pid\n"
                 "done\n",
             true);
  write_file(dir.file("suspend.sh"),
             "#!/bin/bash\n"
             "echo \"suspend $1\" >> " +
                 d +
                 "/power.log\n"
                 "for n in " +
                 list_nodes +
                 "; do\n"
                 "  [ -e " +
                 d + "/$n.pid ] && kill $(cat " + d + "/$n.pid) && rm -f " + d +
                 "/$n.pid\n"
                 "done\n"
                 "exit 0\n",
             true);
  write_file(dir.file("resume_fail.sh"),
             "#!/bin/bash\necho \"resume_fail $1\" >> " + d + "/power.log\n", true);
  return "SuspendProgram=" + d + "/suspend.sh\nResumeProgram=" + d +
         "/resume.sh\nResumeFailProgram=" + d + "/resume_fail.sh\n";
}

/// Ends the shoald that resume.sh started for `nodes` (or any daemon whose pid is in NODE.pid).
inline void kill_cloud_daemons(const scratch_dir& dir, const std::vector<std::string>& nodes) {
  for (auto& n : nodes) {
    auto pid = read_file(dir.file(n + ".pid"));
    if (!pid.empty()) ::kill(std::stoi(pid), SIGKILL);
  }
}

}  // namespace shoal::test

#pragma once

// Running one admin or user script to its end (Prolog, Epilog, PrologSlurmctld, TaskProlog, ...):
// fork/exec with a given environment and user, its standard output kept when asked, killed with
// its process group after a timeout. Blocking: call it from a detached actor or a process of
// its own (shoal-stepd), never from an actor's handler.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace shoal::process {

struct script_spec {
  std::string label;                ///< the key that names it (Prolog, TaskProlog), for texts
  std::vector<std::string> argv;    ///< argv[0]: an absolute path, run without a shell
  std::vector<std::string> env;     ///< KEY=VALUE: its whole environment
  std::chrono::seconds timeout{0};  ///< 0: no limit
  bool capture_output = false;      ///< keep its stdout (else /dev/null); stderr goes to /dev/null
  /// Run as this user (when the caller is root and it differs from the caller's): uid, gid and
  /// supplementary groups. Unset (uid -1): as the caller.
  uid_t uid = static_cast<uid_t>(-1);
  gid_t gid = static_cast<gid_t>(-1);
  std::vector<gid_t> groups;
  std::string cwd;  ///< "" : "/"
};

struct script_result {
  bool ok = false;         ///< started, exited 0 within its time
  bool started = false;    ///< fork/exec worked
  bool timed_out = false;  ///< killed after its timeout
  int status = 0;          ///< waitpid's status
  std::string output;      ///< stdout, when captured (at most 1 MiB kept)
  /// How it ended, for a node's drain reason and the log: "exit 3", "signal 9", "timed out
  /// after 10 s", "could not start: No such file or directory".
  std::string status_text;
};

/// Runs `spec` and waits for it. Never throws.
script_result run_script(const script_spec& spec);

}  // namespace shoal::process

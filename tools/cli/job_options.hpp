#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <caf/expected.hpp>

#include "messages/types.hpp"

namespace shoal::cli {

/// The options `shoal run` and `shoal batch` share, named as srun/sbatch name them.
struct job_options {
  std::string nodes;  ///< -N: "N" or "MIN-MAX"
  uint32_t ntasks = 0;
  uint32_t cpus_per_task = 0;
  std::string partition;
  std::string time;
  std::string name;
  std::string nodelist;
  std::string exclude;
  std::string output;
  std::string error;
  std::string chdir;
  bool label = false;
  bool requeue = false;
  int32_t nice = 0;
  uint64_t jobid = 0;
  std::string array;       ///< batch only: --array
  std::string dependency;  ///< -d
  std::string kill_on_invalid_dep;
  std::string begin;
  bool hold = false;
  std::string mem;
  std::string mem_per_cpu;
  bool exclusive = false;
  bool oversubscribe = false;
  std::string cpu_bind;  ///< --cpu-bind as typed; build_request checks it
  // -- 3-D torus (Blue Gene/L's srun options) --
  std::string geometry;    ///< -g AxBxC
  bool no_rotate = false;  ///< -R
  std::string conn_type;   ///< mesh | torus
  std::string node_use;    ///< coprocessor | virtual
};

/// Declares the options on `app`; `batch` adds -o/-e and leaves out -l.
void add_job_options(CLI::App& app, job_options& o, bool batch);

/// Turns parsed options plus the command (or, for batch, the script's arguments) into a request
/// with the caller's identity, environment and working directory.
/// Error: errc::invalid_request / errc::invalid_time naming the bad option (the torus options
/// included: a geometry that is not AxBxC, a --conn-type or --node-use outside their values).
caf::expected<msg::job_request> build_request(const job_options& o, std::vector<std::string> argv,
                                              bool batch);

}  // namespace shoal::cli

#pragma once

// The integration tests' harness: run processes with a deadline and captured output, poll the CLI
// until a condition holds, and fixtures that start a real shoalctld and N shoald on 127.0.0.1
// (Flux's `test_under_flux N`). Nothing here sleeps for correctness: every wait polls.

#include <sys/types.h>

#include <pwd.h>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "messages/caf/error.hpp"
#include "runtime/bootstrap/local_cluster.hpp"

namespace shoal::test {

using namespace std::chrono_literals;
using millis = std::chrono::milliseconds;

// -- processes ------------------------------------------------------------------------------------

/// How to start a command.
struct command_options {
  /// Added to the environment, overriding inherited values.
  std::vector<std::pair<std::string, std::string>> env;
  /// Standard input; /dev/null when unset.
  std::optional<std::string> input;
  /// Working directory; empty = the test's.
  std::string cwd;
  /// The command is killed (with its process group) when it runs longer, and the result says so.
  millis timeout = 60s;
};

/// What a finished command left behind.
struct command_result {
  int exit_code = -1;  ///< exit status, 128+signal when signalled, -1 when it timed out
  bool timed_out = false;
  std::string out;
  std::string err;
  std::chrono::duration<double> elapsed{};  ///< from start to exit

  /// "exit=N out=... err=..." for check messages.
  std::string describe() const;
};

/// A command running in its own process group with stdout and stderr captured through pipes.
/// The inherited environment loses every SHOAL_* variable, so a test never reaches a cluster by
/// accident. No shell is involved.
class child_process {
 public:
  /// Starts `argv` (argv[0] a path or a name looked up in PATH). Throws std::runtime_error when
  /// the pipes or fork fail; a failed exec shows as exit code 127.
  child_process(const std::vector<std::string>& argv, const command_options& opt);
  /// Kills the process group if it still runs.
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  /// Feeds stdin, reads both streams until they close and reaps the process, or kills its
  /// process group once the timeout (counted from the start) passes. Call once.
  command_result finish();

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string input_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point deadline_;
  bool reaped_ = false;
};

/// Runs `argv` to the end (see child_process).
command_result run_command(const std::vector<std::string>& argv, const command_options& opt = {});

/// Polls `pred` every 50 ms until it holds (true) or `timeout` passes (false).
bool wait_until(const std::function<bool()>& pred, millis timeout);

// -- files and ports ------------------------------------------------------------------------------

/// The build's binary folder holds `name` (shoal, shoalctld, shoald).
std::string bin_path(const std::string& name);
/// A file under test/data.
std::string data_path(const std::string& relative);

/// A private directory under /tmp, removed with everything in it on destruction.
class scratch_dir {
 public:
  scratch_dir();
  ~scratch_dir();
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  const std::string& path() const { return path_; }
  /// `path()/name`.
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  /// Keeps the directory (for a failed test's post-mortem).
  void keep() { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

/// Writes `text` to `path` (mode 0755 when `executable`) and returns `path`.
std::string write_file(const std::string& path, const std::string& text, bool executable = false);
/// The whole file, or "" when it cannot be read.
std::string read_file(const std::string& path);
/// Whether anything (a file, a directory, a socket) is at `path`.
bool path_exists(const std::string& path);
/// This host's name, as the daemons of a local cluster report it.
std::string local_hostname();
/// The lines of `text` without their '\n'.
std::vector<std::string> lines_of(const std::string& text);

/// What the MPI_Allreduce test programs print when all `ranks` ranks reduced their numbers
/// together, sorted: "rank R of N sum S" for each rank, S = 0 + 1 + ... + N-1.
std::vector<std::string> allreduce_lines(int ranks);

/// The config lines that make a test cluster authenticate with the tests' private munged
/// (test/munge/munged.sh, whose socket ctest names in SHOAL_TEST_MUNGE_SOCKET): AuthType=auth/munge
/// and its AuthInfo; "" when no such munged runs (the binary started outside ctest), leaving the
/// config's own AuthType.
std::string test_auth_config();

/// A loopback TCP port that was free a moment ago (bound, then released).
uint16_t free_port();

/// True when the current test case has not failed so far.
bool current_test_passed();

/// A daemon the test starts itself (not through local_cluster), its output in `log`. On
/// destruction it gets SIGTERM, then SIGKILL after 5 s.
class daemon_process {
 public:
  daemon_process(const std::vector<std::string>& argv, const std::string& log);
  ~daemon_process();
  daemon_process(const daemon_process&) = delete;
  daemon_process& operator=(const daemon_process&) = delete;

  /// True while it runs (reaps it once it exited).
  bool running();

  /// Kills it at once (SIGKILL, as a crash) and reaps it.
  void kill_now();

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
};

// -- CLI answers ----------------------------------------------------------------------------------

/// Parses a CLI's JSON output; null when it is not JSON.
nlohmann::json parse_json(const std::string& text);

/// The job id in "Submitted batch job N", or 0.
uint64_t submitted_job_id(const std::string& out);

/// Runs build/bin/shoal with `args` and SHOAL_CONF=`conf`.
command_result run_shoal(const std::string& conf, const std::vector<std::string>& args,
                         command_options opt = {});

/// The record of job `id` in `shoal queue -t all --json` of the cluster `conf` names, or null.
nlohmann::json job_record(const std::string& conf, uint64_t id);

/// The value of the unlabelled series `name` at http://127.0.0.1:PORT/metrics; nullopt when the
/// endpoint does not answer or has no such series.
std::optional<double> metric_value(uint16_t port, const std::string& name);

/// Whether `text` contains `part`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// How many lines of `text` contain `needle`.
size_t count_lines_with(const std::string& text, const std::string& needle);

// -- fixtures -------------------------------------------------------------------------------------

/// `nodes` simulated nodes (`shoald --simulate`) served by `front_ends` shoald processes,
/// launched (with test_auth_config() and `extra_config`) and waited for in the constructor,
/// which throws when they do not come up within 60 s. When the test failed, the cluster's
/// directory is kept and its path printed.
class simulated_cluster_fixture {
 public:
  simulated_cluster_fixture(unsigned nodes, unsigned front_ends,
                            const std::string& extra_config = "");
  ~simulated_cluster_fixture();
  simulated_cluster_fixture(const simulated_cluster_fixture&) = delete;
  simulated_cluster_fixture& operator=(const simulated_cluster_fixture&) = delete;

  shoal::runtime::local_cluster cluster;
};

/// A cluster of `nodes` node daemons, launched and waited for (every node IDLE) in the
/// constructor; the constructor throws when it does not come up within 60 s. A scratch
/// directory serves as the working directory of CLI commands. When the test failed, the
/// cluster's directory (config and daemon logs) is kept and its path printed.
class cluster_fixture {
 public:
  /// `node_keys` go on the nodes' NodeName line (local_cluster::launch).
  explicit cluster_fixture(unsigned nodes = 2, const std::string& extra_config = "",
                           const std::string& node_keys = "");
  ~cluster_fixture();
  cluster_fixture(const cluster_fixture&) = delete;
  cluster_fixture& operator=(const cluster_fixture&) = delete;

  // -- commands --

  /// Runs build/bin/shoal with `args` and SHOAL_CONF naming the cluster's config; the working
  /// directory defaults to the scratch directory.
  command_result run_cli(const std::vector<std::string>& args, command_options opt = {});
  /// Runs build/bin/`program` (a path below bin/: "shoal", "slurm-names/sacctmgr") with `args` as
  /// the user `pw` (setpriv, as root), in `/`, with SHOAL_CONF naming the cluster's config, which
  /// (with its folder) becomes readable to that user.
  command_result run_as(const passwd* pw, const std::vector<std::string>& args,
                        const std::string& program = "shoal");
  /// As run_cli, but returns at once; call finish() on the result.
  std::unique_ptr<child_process> start_cli(const std::vector<std::string>& args,
                                           command_options opt = {});
  /// Writes `script` to the scratch directory as `name` and submits it with `shoal batch
  /// [options] name`; returns the job id, or 0 (after a failed check) when submission failed.
  uint64_t submit_script(const std::string& name, const std::string& script,
                         const std::vector<std::string>& options = {});

  // -- state --

  /// `queue -t all --json`'s jobs (an empty array when the CLI fails).
  nlohmann::json jobs();
  /// `info -N --json`'s nodes (an empty array when the CLI fails).
  nlohmann::json nodes();
  /// One job's record, or null.
  nlohmann::json job(uint64_t id);
  /// One node's record, or null.
  nlohmann::json node(const std::string& name);
  /// The job's state name ("" when unknown).
  std::string job_state(uint64_t id);
  /// The node's state name ("" when unknown).
  std::string node_state(const std::string& name);

  /// Polls until the job is in `state`; true when it got there within `timeout`.
  bool wait_job_state(uint64_t id, const std::string& state, millis timeout = 30s);
  /// Polls until the node is in `state`; true when it got there within `timeout`.
  bool wait_node_state(const std::string& name, const std::string& state, millis timeout = 30s);

  // -- daemons --

  /// kill -9 of node `index`'s shoald (1-based), then the same shoald started again (same
  /// config, node name and log, appended to), as an admin restarting it would. Its running
  /// steps live on in their shoal-stepd processes for the new one to adopt. `extra_args` go to
  /// the new one only ("-b": it reports a later boot time, as after a reboot).
  void kill_and_restart_node(unsigned index, const std::vector<std::string>& extra_args = {});

  runtime::local_cluster cluster;
  scratch_dir scratch;
  std::string conf;  ///< the cluster's config file
};

/// One node with the default config.
struct one_node : cluster_fixture {
  one_node() : cluster_fixture(1) {}
};

/// The common case: two nodes with the default config.
struct two_nodes : cluster_fixture {
  two_nodes() : cluster_fixture(2) {}
};

/// Two "device files" and a gres.conf naming them, in a private directory of their own (the
/// cluster's directory does not exist before the controller starts). Slurm's controller never
/// opens the files; shoal only needs the names, so plain files stand in for /dev/nvidia*.
struct gpu_files {
  gpu_files();
  ~gpu_files();
  gpu_files(const gpu_files&) = delete;
  gpu_files& operator=(const gpu_files&) = delete;
  /// Config lines for nodes with `Gres=gpu:2`: cons_tres, GresTypes=gpu and GresConf.
  std::string config() const;
  std::string dir;
};

/// Two nodes of two GPUs each (Gres=gpu:2), jobs sharing nodes (cons_tres).
struct two_gpu_nodes : gpu_files, cluster_fixture {
  two_gpu_nodes() : gpu_files(), cluster_fixture(2, config(), "Gres=gpu:2") {}
};

/// Runs the build's link `name` (bin/slurm-names/NAME: sbatch, srun, sacctmgr, ...) against the
/// cluster of `c`, in its scratch directory, with `input` as its standard input.
command_result run_slurm(cluster_fixture& c, const std::string& name,
                         const std::vector<std::string>& args,
                         std::optional<std::string> input = std::nullopt);

/// A test user's passwd entry, created (useradd --system) when missing; null when it cannot be.
const passwd* ensure_user(const char* name);

}  // namespace shoal::test

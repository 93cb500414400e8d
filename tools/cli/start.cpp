// `shoal start`: a whole cluster on this host in one command, as `flux start --test-size=N`.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "process/task_launch.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "runtime/bootstrap/shutdown.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

namespace {
/// The folder of the running binary ("" when /proc does not say), put first on the command's
/// PATH so that `shoal` inside it is this shoal, as `flux start` does.
std::string own_folder() {
  char path[4096];
  auto n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "";
  std::string exe(path, static_cast<size_t>(n));
  auto slash = exe.rfind('/');
  return slash == std::string::npos ? "" : exe.substr(0, slash);
}

/// Runs the user's command with the cluster's config in its environment; returns its exit code
/// (128+signal when signalled), or 127 when it cannot be started.
int run_command(const std::vector<std::string>& command, const std::string& conf) {
  // This shoal first, then the Slurm-name links beside it (bin/slurm-names in a build), so that
  // `srun` in the command is this shoal too; the caller's PATH after them, unchanged.
  auto folder = own_folder();
  process::task_env_settings dirs;
  process::find_command_dirs(folder, dirs);
  std::string path = folder;
  if (!dirs.slurm_names_dir.empty())
    path = path.empty() ? dirs.slurm_names_dir : path + ":" + dirs.slurm_names_dir;
  if (const char* old = std::getenv("PATH"); old != nullptr && *old != '\0')
    path = path.empty() ? std::string{old} : path + ":" + old;
  std::vector<char*> args;
  for (auto& a : command) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return fail("start", "fork failed", exit_failure);
  if (pid == 0) {
    auto set = runtime::shutdown_signals();
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::setenv("SHOAL_CONF", conf.c_str(), 1);
    if (!path.empty()) ::setenv("PATH", path.c_str(), 1);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "shoal start: error: cannot run %s: %s\n", args[0], strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

/// Stops every daemon of `cluster`; when `keep`, leaves its directory and says where it is.
void stop(runtime::local_cluster& cluster, bool keep) {
  auto dir = cluster.directory();
  cluster.tear_down(keep);
  if (keep && !dir.empty()) std::fprintf(stderr, "shoal: logs kept in %s\n", dir.c_str());
}

}  // namespace

command_runner add_start_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "start", "Start a local test cluster on 127.0.0.1 and run COMMAND in it (flux start)");
  auto size = std::make_shared<unsigned>(4);
  auto keep = std::make_shared<bool>(false);
  auto timeout = std::make_shared<int>(60);
  auto torus = std::make_shared<std::string>();
  auto front_ends = std::make_shared<unsigned>(1);
  cmd->add_option("-s,--test-size", *size, "Number of node daemons (default 4)")
      ->check(CLI::Range(1u, 256u));
  cmd->add_option("--torus", *torus,
                  "A 3-D torus of XxYxZ base partitions (SelectType=select/torus3d, nodes "
                  "bgl000...), served by front-end node daemons; e.g. 8x4x4")
      ->excludes("--test-size");
  auto simulate = std::make_shared<unsigned>(0);
  cmd->add_option("--simulate", *simulate,
                  "N simulated nodes (node1...nodeN): no task runs, `sleep N` takes N seconds, "
                  "`false` fails, the rest ends at once; for scale tests")
      ->check(CLI::Range(1u, 1000000u))
      ->excludes("--test-size")
      ->excludes("--torus");
  cmd->add_option("--front-ends", *front_ends,
                  "With --torus or --simulate: shoald processes sharing the nodes (default 1)")
      ->check(CLI::Range(1u, 64u));
  auto collectors = std::make_shared<unsigned>(0);
  cmd->add_option("--collectors", *collectors,
                  "C of the nodes, spread evenly, gather the others' heartbeats (CollectorNodes=; "
                  "see `shoal control show collectors`)")
      ->check(CLI::Range(1u, 10000u))
      ->excludes("--torus");
  cmd->add_flag("--keep", *keep,
                "With COMMAND: keep the cluster's directory (config, logs) even when COMMAND "
                "succeeds");
  cmd->add_option("--timeout", *timeout, "Seconds to wait for every node to come up (default 60)");
  cmd->prefix_command();
  cmd->footer(
      "Usage: shoal start [--test-size=N | --torus=XxYxZ | --simulate=N] [--front-ends=F] "
      "[--collectors=C] [COMMAND [ARGS...]]\n"
      "COMMAND runs with SHOAL_CONF naming the cluster's config, and this shoal's folder and "
      "its Slurm command names (sbatch, srun, ...) first on PATH.\n"
      "Every daemon stops when COMMAND ends, or on Ctrl-C without COMMAND. The cluster's "
      "directory (shoal.conf, the daemons' logs, saved state) is kept, and its path printed, "
      "unless COMMAND succeeded (exit 0) without --keep.\n"
      "Examples:\n  shoal start --test-size=4 shoal run -N4 -l hostname\n"
      "  shoal start --test-size=2 srun -N2 hostname\n"
      "  shoal start --test-size=2        # stays up; point a shell at it with SHOAL_CONF\n"
      "  shoal start --torus=8x4x4 shoal map -c\n"
      "  shoal start --simulate=1000 --front-ends=2 shoal run -N1000 sleep 5\n"
      "  shoal start --simulate=10000 --front-ends=4 --collectors=10 shoal control show "
      "collectors");
  return [cmd, size, keep, timeout, torus, front_ends, simulate, collectors]() -> int {
    std::vector<std::string> argv;
    for (auto& extra : cmd->remaining()) argv.push_back(extra);
    // Options end where the command starts; an unknown option is a usage error, not a command.
    if (!argv.empty() && argv.front().size() > 1 && argv.front()[0] == '-')
      return fail("start", "unrecognized option '" + argv.front() + "'", exit_usage);
    // The daemons and the command take terminal signals their own way; we wait with sigwait.
    auto set = runtime::shutdown_signals();
    ::sigprocmask(SIG_BLOCK, &set, nullptr);
    std::array<int, 3> dims{0, 0, 0};
    if (!torus->empty()) {
      char tail = 0;
      if (std::sscanf(torus->c_str(), "%dx%dx%d%c", &dims[0], &dims[1], &dims[2], &tail) != 3 ||
          std::any_of(dims.begin(), dims.end(), [](int d) { return d < 1 || d > 36; }))
        return fail("start", "invalid --torus '" + *torus + "' (use XxYxZ, each 1 to 36)",
                    exit_usage);
      *size = static_cast<unsigned>(dims[0] * dims[1] * dims[2]);
    }
    if (*simulate > 0) *size = *simulate;
    runtime::local_cluster cluster;
    auto extra = runtime::local_cluster::spread_collectors(*size, *collectors);
    auto launched = *simulate > 0    ? cluster.launch_simulated(*simulate, *front_ends, extra)
                    : torus->empty() ? cluster.launch(*size, extra)
                                     : cluster.launch_torus(dims, *front_ends);
    if (auto err = launched) {
      fail("start", describe(err));
      stop(cluster, true);
      return exit_failure;
    }
    if (auto err = cluster.wait_until_ready(*timeout)) {
      fail("start", describe(err));
      stop(cluster, true);
      return exit_failure;
    }
    int code = 0;
    if (!argv.empty()) {
      code = run_command(argv, cluster.config_path());
    } else {
      std::printf(
          "shoal: a local cluster of %u nodes%s is up (controller 127.0.0.1:%u, files in %s)\n"
          "Point a shell at it with:\n  export SHOAL_CONF=%s\n"
          "then try: shoal info; shoal run -N%u -l hostname\nPress Ctrl-C to stop it (its files "
          "stay).\n",
          *size,
          *simulate > 0    ? " (simulated)"
          : torus->empty() ? ""
                           : (" (" + *torus + " torus)").c_str(),
          cluster.port(), cluster.directory().c_str(), cluster.config_path().c_str(), *size);
      std::printf("Metrics (Prometheus text): shoalctld http://127.0.0.1:%u/metrics",
                  cluster.metrics_port());
      auto& node_ports = cluster.node_metrics_ports();
      for (size_t i = 0; i < node_ports.size(); ++i)
        std::printf("%s node%zu :%u", i == 0 ? "; shoald" : ",", i + 1, node_ports[i]);
      std::printf("\nWatch it with: shoal top; shoal diag\n");
      std::fflush(stdout);
      int signo = 0;
      sigwait(&set, &signo);
      std::printf("\nshoal: stopping the local cluster\n");
    }
    // A cluster someone watched, or whose command failed, is kept for its logs; a script's
    // successful runs leave nothing behind.
    stop(cluster, argv.empty() || code != 0 || *keep);
    return code;
  };
}

}  // namespace shoal::cli

#include "bench/mpi_startup.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/support.hpp"
#include "runtime/bootstrap/local_cluster.hpp"
#include "runtime/bootstrap/temp_dir.hpp"

namespace shoal::bench {

namespace {

constexpr const char* probe_source = R"(#include <mpi.h>
#include <stdio.h>
#include <time.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("past_init %d %lld.%09ld\n", rank, (long long)ts.tv_sec, ts.tv_nsec);
  MPI_Finalize();
  return 0;
}
)";

double wall_now_s() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

/// One run: milliseconds from its start until the last rank passed MPI_Init, and until the
/// command ended; both negative when not every rank reported.
struct startup_run {
  double init_ms = -1;
  double total_ms = -1;
};

startup_run time_run(const std::vector<std::string>& argv, unsigned ranks) {
  startup_run r;
  auto start_wall = wall_now_s();
  auto start = std::chrono::steady_clock::now();
  auto out = capture(argv);
  auto total = seconds_since(start) * 1000;
  std::istringstream lines{out};
  std::string word;
  unsigned seen = 0;
  double last = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in{line};
    int rank = 0;
    double at = 0;
    if (!(in >> word >> rank >> at) || word != "past_init") continue;
    ++seen;
    last = std::max(last, at);
  }
  if (seen != ranks) return r;
  r.init_ms = (last - start_wall) * 1000;
  r.total_ms = total;
  return r;
}

std::string which(const char* name) {
  auto path = capture({"/bin/sh", "-c", std::string("command -v ") + name});
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  return path;
}

void print_row(unsigned ranks, const char* who, const std::vector<double>& init,
               const std::vector<double>& total) {
  auto i = summarize(init);
  auto t = summarize(total);
  std::printf("  %4u  %-8s  %8.0f %8.0f %8.0f   %8.0f   (%zu runs)\n", ranks, who, i.min_ms,
              i.median_ms, i.max_ms, t.median_ms, i.count);
}

}  // namespace

bool run_mpi_startup_bench(const mpi_startup_options& opt) {
  std::printf("# mpi startup: shoal run --mpi=%s on %u local nodes vs mpirun, cores: nproc=%u\n",
              opt.mpi.c_str(), opt.nodes, nproc_count());
  auto mpicc = which("mpicc.openmpi");
  auto mpirun = which("mpirun.openmpi");
  if (mpicc.empty() || mpirun.empty()) {
    std::printf("  Open MPI is not installed (mpicc.openmpi, mpirun.openmpi): nothing measured\n");
    return false;
  }
  auto dir = runtime::make_temp_dir("shoal-bench-mpi");
  if (!dir) {
    std::printf("  no scratch directory: %s\n", describe(dir.error()).c_str());
    return false;
  }
  auto source = *dir + "/probe.c";
  auto program = *dir + "/probe";
  std::ofstream(source) << probe_source;
  auto built = run_silent({mpicc, "-O2", "-o", program, source}, *dir, *dir + "/mpicc.err");
  if (!succeeded(built)) {
    std::printf("  mpicc.openmpi failed (%s): %s\n", describe_status(built).c_str(),
                built.error_text.c_str());
    return false;
  }
  // A local cluster's nodes share one host: Open MPI's shared-memory transport would mix up
  // ranks of two nodes (docs/mpi.md), so both launchers use TCP alone.
  ::setenv("OMPI_MCA_btl", "self,tcp", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  runtime::local_cluster cluster;
  if (auto err = cluster.launch(opt.nodes, "SlurmdParameters=config_overrides\n", "CPUs=16")) {
    std::printf("  the cluster did not start: %s\n", describe(err).c_str());
    return false;
  }
  if (auto err = cluster.wait_until_ready(60)) {
    std::printf("  the cluster's nodes did not come up: %s\n", describe(err).c_str());
    cluster.tear_down(opt.keep);
    return false;
  }
  auto shoal = sibling_binary("shoal");
  std::printf("  ranks  launcher  past MPI_Init ms: min  median    max   whole command median\n");
  bool valid = true;
  for (auto ranks : opt.ranks) {
    auto n = std::to_string(ranks);
    std::vector<std::string> ours{shoal,
                                  "-f",
                                  cluster.config_path(),
                                  "run",
                                  "-N" + std::to_string(std::min(opt.nodes, ranks)),
                                  "-n" + n,
                                  "--mpi=" + opt.mpi,
                                  program};
    std::vector<std::string> theirs{mpirun, "--oversubscribe", "-n", n, program};
    std::vector<double> ours_init, ours_total, theirs_init, theirs_total;
    for (unsigned i = 0; i < opt.runs; ++i) {
      // Alternated, each first every other time, so drift in the machine's load hits both.
      for (int k = 0; k < 2; ++k) {
        bool shoal_turn = (k == 0) == (i % 2 == 0);
        auto r = time_run(shoal_turn ? ours : theirs, ranks);
        if (r.init_ms < 0) {
          std::printf("  %u ranks: a %s run did not bring every rank past MPI_Init\n", ranks,
                      shoal_turn ? "shoal" : "mpirun");
          valid = false;
          continue;
        }
        (shoal_turn ? ours_init : theirs_init).push_back(r.init_ms);
        (shoal_turn ? ours_total : theirs_total).push_back(r.total_ms);
      }
    }
    print_row(ranks, "shoal", ours_init, ours_total);
    print_row(ranks, "mpirun", theirs_init, theirs_total);
  }
  cluster.tear_down(opt.keep);
  if (!opt.keep) remove_tree(*dir);
  return valid;
}

}  // namespace shoal::bench

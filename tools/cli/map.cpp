// `shoal map` (Slurm's smap): the allocation map, one character per node and a legend.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "messages/caf/type_ids.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/session.hpp"
#include "tools/format/map.hpp"

namespace shoal::cli {

namespace {

struct map_flags {
  int interval_s = 0;
  bool commandline = false;
  bool once = false;
  bool json = false;
};

/// One picture (or JSON document) of the cluster now; false after printing an error.
bool print_map(session& s, const map_flags& f) {
  auto view = ask<msg::topology_view>(s, msg::client_op::map);
  if (!view) {
    fail("map", describe(view.error()));
    return false;
  }
  auto jobs = ask<std::vector<msg::job_info>>(s, msg::jobs_atom_v, false);
  if (!jobs) {
    fail("map", describe(jobs.error()));
    return false;
  }
  auto text = f.json ? map_json(*view, *jobs).dump(2) + "\n" : render_map(*view, *jobs);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  return true;
}

}  // namespace

command_runner add_map_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand(
      "map", "Draw the nodes and the jobs on them: the 3-D torus or the node line (smap)");
  auto f = std::make_shared<map_flags>();
  cmd->add_option("-i,--iterate", f->interval_s, "Redraw every SECONDS (Ctrl-C to stop)")
      ->check(CLI::Range(1, 86400));
  cmd->add_flag("-c,--commandline", f->commandline,
                "Plain output for scripts: never clear the screen (with -i, print each picture "
                "after the last)");
  cmd->add_flag("--once", f->once, "Draw one picture and exit, even with -i");
  cmd->add_flag("--json", f->json,
                "Print JSON: grid dims, each node's state and job, each job's allocation");
  cmd->footer(
      "One character per node: a letter per job (see the legend), '.' free, '#' down or "
      "drained,\n'?' never heard from. On a torus, one block per X plane: rows are Y, columns "
      "Z.");
  return [conf, f]() -> int {
    int code = 0;
    auto s = open_session("map", conf, code);
    if (!s) return code;
    bool repeat = f->interval_s > 0 && !f->once;
    // Clear the screen only for a person watching a terminal; scripts get plain text.
    bool clear = repeat && !f->commandline && !f->json && ::isatty(STDOUT_FILENO) == 1;
    for (;;) {
      if (clear) std::fputs("\x1b[H\x1b[2J", stdout);
      if (!print_map(*s, *f)) return exit_failure;
      if (!repeat) return 0;
      std::this_thread::sleep_for(std::chrono::seconds{f->interval_s});
    }
  };
}

}  // namespace shoal::cli

// `shoal diag`: Slurm's sdiag. Reads shoalctld's /metrics; --reset asks the controller.

#include <cstdio>
#include <ctime>

#include "messages/caf/type_ids.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/scrape.hpp"
#include "tools/cli/session.hpp"
#include "tools/format/operators.hpp"

namespace shoal::cli {

namespace {

struct diag_options {
  bool json = false;
  bool reset = false;
  bool sort_by_time = false;
  bool sort_by_average = false;
  bool sort_by_id = false;
  std::string url;
};

int run_diag(const std::string& conf_path, const diag_options& opt) {
  if (opt.reset) {
    int code = 0;
    auto s = open_session("diag", conf_path, code);
    if (!s) return code;
    auto done = ask<caf::ok_atom>(*s, msg::diagreset_atom_v, current_user().uid);
    if (!done) return fail("diag", describe(done.error()));
    std::printf("Reset scheduling statistics\n");
    return 0;
  }
  auto url = opt.url;
  if (url.empty()) {
    auto conf = runtime::load_cluster_config(conf_path, /*client_only=*/true);
    if (!conf) return fail("diag", describe(conf.error()));
    if (auto complaint = unknown_cluster(*conf); !complaint.empty()) return fail("diag", complaint);
    auto found = controller_metrics_url(*conf);
    if (!found) return fail("diag", describe(found.error()));
    url = *found;
  }
  auto e = scrape(url);
  if (!e) return fail("diag", describe(e.error()));
  auto order = opt.sort_by_time      ? diag_sort::total_time
               : opt.sort_by_average ? diag_sort::average_time
               : opt.sort_by_id      ? diag_sort::id
                                     : diag_sort::count;
  auto d = make_diag(*e, static_cast<double>(std::time(nullptr)), order);
  if (!d) return fail("diag", describe(d.error()));
  if (opt.json)
    std::printf("%s\n", to_json(*d).dump(2).c_str());
  else
    std::fputs(render_diag(*d).c_str(), stdout);
  return 0;
}

}  // namespace

command_runner add_diag_command(CLI::App& app, const std::string& conf) {
  auto* cmd =
      app.add_subcommand("diag", "Show the controller's scheduling and RPC statistics (sdiag)");
  auto opt = std::make_shared<diag_options>();
  cmd->add_flag("--json", opt->json, "JSON output");
  cmd->add_flag("-r,--reset", opt->reset,
                "Reset the statistics (RPCs, scheduling cycles, job counts); root or the "
                "controller's user only");
  cmd->add_flag("-a,--all", "Report every statistic: what sdiag does without options");
  auto* by_total = cmd->add_flag("-t,--sort-by-time", opt->sort_by_time,
                                 "Sort the RPC tables by total time instead of count");
  auto* by_average = cmd->add_flag("-T,--sort-by-time2", opt->sort_by_average,
                                   "Sort the RPC tables by average time instead of count")
                         ->excludes(by_total);
  cmd->add_flag("-i,--sort-by-id", opt->sort_by_id,
                "Sort the RPC tables by message type and user, by name (shoal's types carry no "
                "numbers)")
      ->excludes(by_total)
      ->excludes(by_average);
  cmd->add_option("--url", opt->url, "Read this endpoint instead of shoalctld's MetricsPort");
  add_clusters_option(*cmd);
  cmd->footer(
      "Reads shoalctld's /metrics (MetricsPort) over HTTP; see docs/metrics.md.\n"
      "RPCs carrying no user (listings, registration, heartbeats) count by type only.");
  return [opt, &conf]() { return run_diag(conf, *opt); };
}

}  // namespace shoal::cli

// `shoal top`: the busiest actor types of a daemon, live (no Slurm equivalent; think `top` for
// the actor system). Reads the daemon's /metrics twice per frame interval.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

#include "runtime/bootstrap/controller_client.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/scrape.hpp"
#include "tools/cli/session.hpp"
#include "tools/format/operators.hpp"

namespace shoal::cli {

namespace {

struct top_options {
  double interval_s = 2;
  unsigned iterations = 0;  ///< 0: until interrupted
  bool once = false;
  bool json = false;
  std::string sort = "rate";
  std::string url;
};

int run_top(const std::string& conf_path, const top_options& opt) {
  auto url = opt.url;
  if (url.empty()) {
    auto conf = runtime::load_cluster_config(conf_path, /*client_only=*/true);
    if (!conf) return fail("top", describe(conf.error()));
    auto found = controller_metrics_url(*conf);
    if (!found) return fail("top", describe(found.error()));
    url = *found;
  }
  {
    std::vector<actor_row> probe;
    if (auto err = sort_actor_rows(probe, opt.sort)) return fail("top", describe(err), exit_usage);
  }
  auto before = scrape(url);
  if (!before) return fail("top", describe(before.error()));
  auto taken = std::chrono::steady_clock::now();
  auto frames = opt.once ? 1u : opt.iterations;
  bool live = !opt.json && frames != 1 && ::isatty(STDOUT_FILENO);
  for (unsigned frame = 0; frames == 0 || frame < frames; ++frame) {
    std::this_thread::sleep_for(std::chrono::duration<double>(opt.interval_s));
    auto now = scrape(url);
    if (!now) return fail("top", describe(now.error()));
    auto at = std::chrono::steady_clock::now();
    double interval = std::chrono::duration<double>(at - taken).count();
    auto rows = actor_rows(*now, &*before, interval);
    (void)sort_actor_rows(rows, opt.sort);
    auto wall = std::time(nullptr);
    if (opt.json) {
      nlohmann::json out;
      out["source"] = url;
      out["time"] = wall;
      out["interval_seconds"] = interval;
      out["sort"] = opt.sort;
      out["actors"] = nlohmann::json::array();
      for (auto& r : rows) out["actors"].push_back(to_json(r));
      std::printf("%s\n", frames == 1 ? out.dump(2).c_str() : out.dump().c_str());
    } else {
      if (live) std::fputs("\033[H\033[2J", stdout);
      char stamp[64];
      std::tm tm{};
      localtime_r(&wall, &tm);
      std::strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
      auto uptime = now->value("shoal_start_time_seconds");
      std::printf("shoal top - %s  %s  up %.0f s  interval %.1f s  sort %s\n", url.c_str(), stamp,
                  uptime ? static_cast<double>(wall) - *uptime : 0.0, interval, opt.sort.c_str());
      std::fputs(render_actor_table(rows).c_str(), stdout);
      if (!live && frames != 1) std::fputs("\n", stdout);
    }
    std::fflush(stdout);
    before = std::move(now);
    taken = at;
  }
  return 0;
}

}  // namespace

command_runner add_top_command(CLI::App& app, const std::string& conf) {
  auto* cmd = app.add_subcommand(
      "top", "Show the busiest actor types of shoalctld (or any daemon's /metrics), live");
  auto opt = std::make_shared<top_options>();
  cmd->add_option("-i,--interval", opt->interval_s,
                  "Seconds between frames; rates and times cover this interval (default 2)")
      ->check(CLI::Range(0.1, 3600.0));
  cmd->add_option("-n,--iterations", opt->iterations,
                  "Frames to show, then exit (default: until interrupted)");
  cmd->add_flag("--once", opt->once, "One frame (after one interval), for scripts: -n 1");
  cmd->add_option("-s,--sort", opt->sort,
                  "Sort by actor, alive, mailbox, mailbox_hw, messages, rate, mean or p99; "
                  "largest first (default rate)");
  cmd->add_flag("--json", opt->json, "One JSON object per frame");
  cmd->add_option("--url", opt->url,
                  "Read this endpoint instead of shoalctld's, e.g. a shoald's "
                  "http://HOST:NodeMetricsPort/metrics");
  cmd->footer(
      "Columns: ACTOR type; ALIVE actors of the type; MAILBOX messages queued now (sum over the\n"
      "type's actors); MAILBOX_HW deepest single mailbox since start; MESSAGES handled since\n"
      "start; MSGS/S over the interval; MEAN_US and P99_US handler time over the interval\n"
      "(p99 estimated from histogram buckets); '-' when nothing was handled.");
  return [opt, &conf]() { return run_top(conf, *opt); };
}

}  // namespace shoal::cli

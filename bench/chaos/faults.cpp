#include "bench/chaos/faults.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "messages/states.hpp"

namespace shoal::chaos {

using namespace std::chrono_literals;

namespace {

double seconds_since(steady::time_point t) {
  return std::chrono::duration<double>(steady::now() - t).count();
}

steady::time_point after(steady::time_point t, double seconds) {
  return t + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(seconds));
}

/// A node the controller counts as serving: not DOWN, not UNKNOWN (never heard), not drained.
bool node_up(msg::node_state s) {
  return s == msg::node_state::idle || s == msg::node_state::allocated ||
         s == msg::node_state::mixed || s == msg::node_state::completing;
}

const msg::node_info* find_node(const chaos_cluster::look& look, const std::string& name) {
  for (auto& n : look.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

const char* fault_driver::back_definition() {
  return "from the kill -9 to the first look (every 200 ms, through the front doors, with the "
         "requests `shoal control ping` and `shoal info` send) at which: for a controller, both "
         "shoalctld answer, the primary is in control and the backup is not, and the one in "
         "control lists every node whose daemon was not killed in the round as up (IDLE, "
         "ALLOCATED, MIXED or COMPLETING); for a front end or the real node, the one in control "
         "lists every node the daemon serves as up and registered by the restarted process (its "
         "pid). It includes the planned down time before the restart";
}

fault_driver::fault_driver(chaos_cluster& cluster, plan& rounds,
                           std::chrono::seconds recovery_bound)
    : cluster_(cluster), plan_(rounds), recovery_bound_(recovery_bound) {}

void fault_driver::check_daemons(const std::string& when) {
  for (size_t i = 0; i < victim_count; ++i) {
    auto v = static_cast<victim>(i);
    auto& d = cluster_.daemon(v);
    if (down_[i] || d.running()) continue;
    auto text = d.name() + " (" + name_of(v) + ") exited by itself (" + d.exit_text() + ") " +
                when + "; its log: " + d.log_path();
    std::printf("  FAILURE: %s\n", text.c_str());
    failures_.push_back({true, text});
    if (auto err = d.start())
      failures_.push_back({true, "cannot start " + d.name() + " again: " + describe(err)});
  }
}

bool fault_driver::wait_for_real_step() {
  auto deadline = steady::now() + 10s;
  while (steady::now() < deadline) {
    auto look = cluster_.look_now();
    auto* n = find_node(look, chaos_cluster::real_node_name);
    if (n != nullptr && !n->job_ids.empty() && n->state == msg::node_state::allocated) return true;
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

bool fault_driver::is_back(const fault_record& f, const chaos_cluster::look& look,
                           const std::vector<victim>& killed_in_round) {
  if (!look.nodes_listed) return false;
  auto kind = kind_of(f.who);
  if (kind == fault_kind::primary || kind == fault_kind::backup) {
    if (!look.answers[0] || !look.answers[1] || !look.in_control[0] || look.in_control[1])
      return false;
    for (auto& n : look.nodes) {
      bool skipped = false;
      for (auto v : killed_in_round) {
        auto& served = cluster_.nodes_of(v);
        skipped = skipped || std::find(served.begin(), served.end(), n.name) != served.end();
      }
      if (!skipped && !node_up(n.state)) return false;
    }
    return look.nodes.size() == cluster_.all_nodes().size();
  }
  auto pid = cluster_.daemon(f.who).pid();
  for (auto& name : cluster_.nodes_of(f.who)) {
    auto* n = find_node(look, name);
    if (n == nullptr || !node_up(n->state) || n->reported.daemon_pid != pid) return false;
  }
  return true;
}

bool fault_driver::play_round(size_t number, const planned_round& round) {
  struct live {
    planned_kill kill;
    size_t record = 0;
    bool killed = false;
    bool started = false;
    bool back = false;
    steady::time_point killed_at{};
    steady::time_point started_at{};
  };
  std::vector<live> kills;
  std::vector<victim> killed_in_round;
  std::string plan_text;
  for (auto& k : round.kills) {
    kills.push_back({k});
    killed_in_round.push_back(k.who);
    char buf[160];
    if (plan_text.empty())
      std::snprintf(buf, sizeof buf, "%s (down %.1f s)", name_of(k.who).c_str(), k.down_s);
    else
      std::snprintf(buf, sizeof buf, ", %.1f s later %s (down %.1f s)", k.after_s,
                    name_of(k.who).c_str(), k.down_s);
    plan_text += buf;
  }
  std::printf("round %zu: kill -9 %s\n", number, plan_text.c_str());
  std::fflush(stdout);

  auto t0 = steady::now();
  steady::time_point last_start{};
  for (;;) {
    auto now = steady::now();
    for (auto& k : kills) {
      if (!k.killed && now >= after(t0, k.kill.after_s)) {
        fault_record rec;
        rec.round = number;
        rec.who = k.kill.who;
        rec.down_s = k.kill.down_s;
        rec.alone = round.kills.size() == 1;
        if (k.kill.who == victim::real_node) rec.step_running = wait_for_real_step();
        cluster_.daemon(k.kill.who).kill_hard();
        down_[static_cast<size_t>(k.kill.who)] = true;
        k.killed = true;
        k.killed_at = steady::now();
        k.record = faults_.size();
        faults_.push_back(rec);
      }
      if (k.killed && !k.started && steady::now() >= after(k.killed_at, k.kill.down_s)) {
        if (auto err = cluster_.daemon(k.kill.who).start()) {
          failures_.push_back(
              {false, "cannot start " + name_of(k.kill.who) + " again: " + describe(err)});
          return false;
        }
        down_[static_cast<size_t>(k.kill.who)] = false;
        k.started = true;
        k.started_at = steady::now();
        last_start = k.started_at;
      }
    }
    check_daemons("in round " + std::to_string(number));
    bool waiting = false;
    bool all_back = true;
    for (auto& k : kills) {
      all_back = all_back && k.back;
      waiting = waiting || (k.started && !k.back);
    }
    if (all_back) break;
    if (waiting) {
      auto look = cluster_.look_now();
      for (auto& k : kills) {
        if (!k.started || k.back || !is_back(faults_[k.record], look, killed_in_round)) continue;
        k.back = true;
        auto& rec = faults_[k.record];
        rec.back_s = seconds_since(k.killed_at);
        rec.back_after_start_s = seconds_since(k.started_at);
        std::printf("  %s back %.1f s after its kill (%.1f s after its start)\n",
                    name_of(k.kill.who).c_str(), rec.back_s, rec.back_after_start_s);
        std::fflush(stdout);
      }
      bool every_started =
          std::all_of(kills.begin(), kills.end(), [](auto& k) { return k.started; });
      if (every_started && steady::now() - last_start > recovery_bound_) {
        for (auto& k : kills) {
          if (k.back) continue;
          auto text = "round " + std::to_string(number) + ": " + name_of(k.kill.who) +
                      " not back " + std::to_string(recovery_bound_.count()) + " s after its start";
          std::printf("  FAILURE: %s\n", text.c_str());
          failures_.push_back({false, text});
        }
        return false;
      }
    }
    std::this_thread::sleep_for(200ms);
  }
  return true;
}

void fault_driver::play(double seconds) {
  auto start = steady::now();
  for (size_t number = 1;; ++number) {
    auto round = plan_.next_round();
    auto first_kill = after(steady::now(), round.pause_s);
    while (steady::now() < first_kill) {
      check_daemons("between rounds");
      std::this_thread::sleep_for(200ms);
    }
    if (seconds_since(start) >= seconds) break;
    if (!play_round(number, round)) break;
  }
}

}  // namespace shoal::chaos

#include "bench/chaos/checks.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

namespace shoal::chaos {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

bool final_state(const std::string& s) {
  static const std::set<std::string> finals{"COMPLETED", "FAILED",    "CANCELLED",
                                            "TIMEOUT",   "NODE_FAIL", "OUT_OF_MEMORY",
                                            "PREEMPTED", "BOOT_FAIL", "DEADLINE"};
  return finals.count(s) > 0;
}

nlohmann::json parse(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  return doc.is_discarded() ? nlohmann::json{} : doc;
}

/// `queue -t all --json`'s jobs: id -> every state it is listed with (once, normally). Empty and
/// `ok` false when the CLI fails.
struct listed_job {
  std::string name;
  std::string reason;
};

std::map<uint64_t, std::vector<std::string>> listed_jobs(chaos_cluster& cluster, bool& ok,
                                                         std::map<uint64_t, listed_job>* details) {
  std::map<uint64_t, std::vector<std::string>> out;
  auto r = cluster.shoal({"queue", "-t", "all", "--json"});
  auto doc = parse(r.out);
  ok = r.exit_code == 0 && doc.is_object() && doc.contains("jobs");
  if (!ok) return out;
  for (auto& j : doc["jobs"]) {
    auto id = j.value("job_id", uint64_t{0});
    out[id].push_back(j.value("state", ""));
    if (details != nullptr) (*details)[id] = {j.value("name", ""), j.value("reason", "")};
  }
  return out;
}

size_t count_lines(const std::string& path, const std::string& line) {
  std::ifstream in{path};
  size_t n = 0;
  for (std::string l; std::getline(in, l);) n += l == line ? 1 : 0;
  return n;
}

std::string read_all(const std::string& path) {
  std::ifstream in{path};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The nodes `info -N --json` does not list as IDLE, with their state and reason.
std::vector<std::string> nodes_not_idle(chaos_cluster& cluster) {
  auto r = cluster.shoal({"info", "-N", "--json"});
  auto doc = parse(r.out);
  if (r.exit_code != 0 || !doc.is_object())
    return {"`shoal info -N --json` failed: " + r.describe()};
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (auto& n : doc["nodes"]) {
    auto name = n.value("name", "");
    seen.insert(name);
    auto state = n.value("state", "");
    if (state != "IDLE")
      out.push_back(name + " is " + state +
                    (n.value("reason", "").empty() ? "" : " (" + n.value("reason", "") + ")"));
  }
  for (auto& name : cluster.all_nodes())
    if (seen.count(name) == 0) out.push_back(name + " is not listed");
  return out;
}

std::vector<std::string> collectors_not_up(chaos_cluster& cluster) {
  auto r = cluster.shoal({"control", "show", "collectors", "--json"});
  auto doc = parse(r.out);
  if (r.exit_code != 0 || !doc.is_object())
    return {"`shoal control show collectors --json` failed: " + r.describe()};
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (auto& c : doc.value("collectors", nlohmann::json::array())) {
    auto name = c.value("name", "");
    seen.insert(name);
    if (c.value("state", "") != "UP") out.push_back(name + " is " + c.value("state", ""));
  }
  for (auto& name : cluster.collectors())
    if (seen.count(name) == 0) out.push_back(name + " is not listed");
  return out;
}

std::vector<std::string> controllers_disagree(chaos_cluster& cluster) {
  std::vector<std::string> out;
  auto r = cluster.shoal({"control", "ping"});
  for (auto* line : {"shoalctld(primary) at ctl1 is UP", "shoalctld(backup) at ctl2 is UP"})
    if (r.out.find(line) == std::string::npos)
      out.push_back("`shoal control ping` does not print \"" + std::string{line} + "\" (" +
                    r.describe() + "; it printed: " + r.out + ")");
  auto look = cluster.look_now();
  auto in_control = (look.in_control[0] ? 1 : 0) + (look.in_control[1] ? 1 : 0);
  if (in_control != 1)
    out.push_back(std::to_string(in_control) + " shoalctld answer a ping as in control (ctl1 " +
                  (look.in_control[0] ? "in control" : "not") + ", ctl2 " +
                  (look.in_control[1] ? "in control" : "not") + ")");
  return out;
}

}  // namespace

void drain(chaos_cluster& cluster, const std::vector<submission>& subs, std::chrono::seconds bound,
           job_tally& tally) {
  auto start = steady::now();
  auto last_print = start;
  for (;;) {
    bool ok = false;
    auto listed = listed_jobs(cluster, ok, nullptr);
    size_t open = 0;
    for (auto& s : subs) {
      if (s.id == 0) continue;
      auto it = listed.find(s.id);
      bool done =
          it != listed.end() && std::all_of(it->second.begin(), it->second.end(), final_state);
      open += done ? 0 : 1;
    }
    auto waited = std::chrono::duration<double>(steady::now() - start).count();
    if (ok && open == 0) {
      tally.drain_s = waited;
      return;
    }
    if (steady::now() - start > bound) return;
    if (steady::now() - last_print > 10s) {
      std::printf("  draining: %zu acknowledged jobs not ended after %.0f s\n", open, waited);
      std::fflush(stdout);
      last_print = steady::now();
    }
    std::this_thread::sleep_for(1s);
  }
}

std::vector<check_outcome> final_checks(chaos_cluster& cluster, fault_driver& driver,
                                        const std::vector<submission>& subs,
                                        std::chrono::seconds settle, job_tally& tally) {
  std::vector<check_outcome> out;

  // -- jobs --
  bool ok = false;
  std::map<uint64_t, listed_job> details;
  auto listed = listed_jobs(cluster, ok, &details);
  check_outcome jobs{"every acknowledged job is listed once, in a final state", {}};
  check_outcome markers{"each real-node job ran at most once, and exactly once if COMPLETED", {}};
  if (!ok) jobs.failed.push_back("`shoal queue -t all --json` failed");
  std::set<uint64_t> acked;
  for (auto& s : subs) {
    if (s.id == 0) continue;
    ++tally.acknowledged;
    acked.insert(s.id);
    auto it = listed.find(s.id);
    auto label = "job " + std::to_string(s.id) + " (chaos-" + std::to_string(s.index) + ")";
    std::string state;
    if (it == listed.end()) {
      jobs.failed.push_back(label + " is not listed");
    } else if (it->second.size() != 1) {
      std::string states;
      for (auto& st : it->second) states += (states.empty() ? "" : ", ") + st;
      jobs.failed.push_back(label + " is listed " + std::to_string(it->second.size()) + " times (" +
                            states + ")");
    } else if (!final_state(it->second.front())) {
      jobs.failed.push_back(label + " is " + it->second.front());
    } else {
      state = it->second.front();
      ++tally.ended;
      ++tally.by_state[state];
      if (state != "COMPLETED") {
        // Simulated node names folded, so the reasons count by kind rather than by node.
        static const std::regex sim_node{"node[0-9]+"};
        auto reason = std::regex_replace(details[s.id].reason, sim_node, "nodeN");
        ++tally.not_completed[(s.job.real ? "real " : "sim ") + state + ": " + reason];
      }
    }
    if (!s.job.real) continue;
    auto starts = count_lines(s.marker, "start");
    auto ends = count_lines(s.marker, "end");
    if (starts > 1)
      markers.failed.push_back(label + " started " + std::to_string(starts) + " times (" +
                               s.marker + ")");
    if (state == "COMPLETED" && (starts != 1 || ends != 1))
      markers.failed.push_back(label + " is COMPLETED but its script started " +
                               std::to_string(starts) + " and finished " + std::to_string(ends) +
                               " times (" + s.marker + ")");
  }
  for (auto& [id, job] : details)
    if (acked.count(id) == 0 && job.name.rfind("chaos-", 0) == 0) ++tally.listed_unacknowledged;
  out.push_back(std::move(jobs));
  out.push_back(std::move(markers));

  // -- the cluster: waited for together, since each may take a beat after the last restart --
  check_outcome nodes{"every node is IDLE", {}};
  check_outcome collectors{"every collector is UP", {}};
  check_outcome controllers{
      "`shoal control ping` shows both controllers UP, and exactly one is in control", {}};
  auto deadline = steady::now() + settle;
  for (;;) {
    nodes.failed = nodes_not_idle(cluster);
    collectors.failed = collectors_not_up(cluster);
    controllers.failed = controllers_disagree(cluster);
    if ((nodes.passed() && collectors.passed() && controllers.passed()) || steady::now() > deadline)
      break;
    std::this_thread::sleep_for(1s);
  }
  out.push_back(std::move(nodes));
  out.push_back(std::move(collectors));
  out.push_back(std::move(controllers));

  // -- the daemons --
  driver.check_daemons("at the end");
  check_outcome back{"every killed daemon was back in time after its restart", {}};
  check_outcome alive{"no daemon exited by itself", {}};
  for (auto& f : driver.failures()) (f.exited ? alive : back).failed.push_back(f.what);
  out.push_back(std::move(back));
  out.push_back(std::move(alive));

  check_outcome unexpected{"no daemon log shows CAF's \"*** unexpected message\"", {}};
  std::error_code ec;
  for (auto& entry : fs::directory_iterator(cluster.directory(), ec)) {
    auto path = entry.path().string();
    if (entry.path().extension() != ".log") continue;
    auto text = read_all(path);
    auto at = text.find("*** unexpected message");
    if (at == std::string::npos) continue;
    auto line_end = text.find('\n', at);
    unexpected.failed.push_back(path + ": " + text.substr(at, line_end - at));
  }
  out.push_back(std::move(unexpected));
  return out;
}

}  // namespace shoal::chaos

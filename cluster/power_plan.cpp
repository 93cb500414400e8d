#include "cluster/power_plan.hpp"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

namespace shoal::cluster {

namespace {

using msg::node_state;
using msg::power_state;

bool named(const std::vector<std::string>& list, const std::string& word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

/// SuspendExcStates: the guide's state names a node of ours can be in.
bool state_excluded(const power_node& n, const std::vector<std::string>& states) {
  if (states.empty()) return false;
  if (n.cloud && named(states, "CLOUD")) return true;
  if (n.state == node_state::down &&
      (named(states, "DOWN") || (n.not_responding && named(states, "NOT_RESPONDING"))))
    return true;
  bool drain = n.state == node_state::drained || n.state == node_state::draining;
  return drain && named(states, "DRAIN");
}

bool partition_excluded(const power_node& n, const std::vector<std::string>& parts) {
  for (auto& p : n.partitions)
    if (named(parts, p)) return true;
  return false;
}

/// Usable for SuspendExcNodes' counts: idle, powered up and not asked down.
bool usable(const power_node& n) {
  return n.power == power_state::on && n.state == node_state::idle && !n.has_jobs && !n.down_asked;
}

/// Due by its own timing: asked down, or idle for SuspendTime.
bool due(const power_node& n, int64_t now) {
  if (n.down_asked) return true;
  if (n.timing.suspend_time_s == config::suspend_never) return false;
  return now - n.idle_since >= n.timing.suspend_time_s;
}

}  // namespace

bool is_free(const power_node& n) {
  if (n.has_jobs) return false;
  return n.state == node_state::idle || n.state == node_state::unknown ||
         n.state == node_state::down || n.state == node_state::drained;
}

std::vector<size_t> nodes_to_suspend(const std::vector<power_node>& nodes,
                                     const config::power_settings& settings, int64_t now,
                                     size_t budget) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i].name, i);
  // Each counted exclusion: how many more of its set may still go (usable beyond the count).
  std::vector<int64_t> spare(settings.exc_nodes.size(), 0);
  std::vector<std::vector<size_t>> items_of(nodes.size());  // node -> exclusion items naming it
  for (size_t e = 0; e < settings.exc_nodes.size(); ++e) {
    auto& item = settings.exc_nodes[e];
    int64_t usable_now = 0;
    for (auto& name : item.nodes) {
      auto it = index.find(name);
      if (it == index.end()) continue;
      items_of[it->second].push_back(e);
      if (usable(nodes[it->second])) ++usable_now;
    }
    spare[e] = item.count == 0 ? 0 : usable_now - static_cast<int64_t>(item.count);
  }
  std::vector<size_t> out;
  for (size_t i = 0; i < nodes.size() && out.size() < budget; ++i) {
    auto& n = nodes[i];
    if (n.power != power_state::on || !is_free(n) || !due(n, now)) continue;
    if (!n.down_asked) {
      if (partition_excluded(n, settings.exc_parts) || state_excluded(n, settings.exc_states))
        continue;
      // An item without a count keeps every node of its set; one with a count keeps that many
      // usable nodes, so a usable node goes only while its sets have more than their counts.
      bool kept = false;
      for (auto e : items_of[i])
        kept = kept || settings.exc_nodes[e].count == 0 || (usable(n) && spare[e] <= 0);
      if (kept) continue;
      if (usable(n))
        for (auto e : items_of[i]) --spare[e];
    }
    out.push_back(i);
  }
  return out;
}

rate_limit::rate_limit(uint32_t per_minute, int64_t now_ms)
    : per_minute_(per_minute), tokens_(per_minute), last_ms_(now_ms) {}

size_t rate_limit::available(int64_t now_ms) {
  if (per_minute_ == 0) return SIZE_MAX;
  if (now_ms > last_ms_) {
    tokens_ = std::min<double>(
        per_minute_, tokens_ + per_minute_ * static_cast<double>(now_ms - last_ms_) / 60000.0);
    last_ms_ = now_ms;
  }
  return static_cast<size_t>(tokens_);
}

void rate_limit::take(size_t count) {
  if (per_minute_ == 0) return;
  tokens_ = std::max(0.0, tokens_ - static_cast<double>(count));
}

std::string resume_file_json(const std::string& all_nodes_resume,
                             const std::vector<resume_job>& jobs) {
  auto text_or_null = [](const std::string& s) {
    return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
  };
  nlohmann::json doc;
  doc["all_nodes_resume"] = all_nodes_resume;
  doc["jobs"] = nlohmann::json::array();
  for (auto& j : jobs)
    doc["jobs"].push_back({{"extra", text_or_null(j.extra)},
                           {"features", text_or_null(j.features)},
                           {"job_id", j.job_id},
                           {"nodes_alloc", j.nodes_alloc},
                           {"nodes_resume", j.nodes_resume},
                           {"oversubscribe", j.oversubscribe},
                           {"partition", j.partition},
                           {"reservation", text_or_null(j.reservation)}});
  return doc.dump(3);
}

}  // namespace shoal::cluster

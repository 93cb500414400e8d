#include "policy/resources.hpp"

#include <algorithm>

namespace shoal::policy {

namespace {

bool listed(const std::vector<size_t>& v, size_t n) {
  return std::find(v.begin(), v.end(), n) != v.end();
}

/// `members` in weight order (stable: config order among equals).
std::vector<size_t> by_weight(const std::vector<size_t>& members,
                              const placement_options& options) {
  std::vector<size_t> order = members;
  if (!options.weights.empty())
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return options.weights[a] < options.weights[b]; });
  return order;
}

/// The nodes each of the choice's counts needs, picked in weight order among those `usable`
/// says may take the job, beyond `taken` (which counts toward them); appended to `taken`.
/// False when a count cannot be met.
template <typename Usable>
bool pick_counted(const feature_choice& choice, const std::vector<size_t>& members,
                  const resource_request& req, const placement_options& options,
                  std::vector<size_t>& taken, Usable usable) {
  if (choice.counts.empty()) return true;
  auto order = by_weight(members, options);
  for (const auto& c : choice.counts) {
    uint32_t have = 0;
    for (auto n : taken)
      if (c.nodes[n]) ++have;
    for (auto n : order) {
      if (have >= c.count) break;
      if (!c.nodes[n] || listed(taken, n) || listed(req.excluded, n) || !usable(n)) continue;
      taken.push_back(n);
      ++have;
    }
    if (have < c.count) return false;
  }
  return true;
}

uint64_t memory_for(const resource_request& req, uint32_t cpus) {
  return req.mem_per_node_mb > 0 ? req.mem_per_node_mb : req.mem_per_cpu_mb * cpus;
}

/// Whole nodes: every node it takes must be idle.
std::optional<allocation> place_whole(const resource_request& req,
                                      const std::vector<size_t>& members,
                                      const std::vector<node_capacity>& nodes, free_view free,
                                      const placement_options& options,
                                      const feature_choice* choice) {
  const uint32_t cpt = std::max<uint32_t>(1, req.cpus_per_task);
  const uint32_t tasks = std::max(req.tasks, req.min_nodes);
  // Tasks a whole node can hold, by CPUs and by --mem-per-cpu.
  auto room_of = [&](size_t n) -> uint32_t {
    uint32_t by_cpu = nodes[n].cpus / cpt;
    if (req.tasks_per_node > 0) by_cpu = std::min(by_cpu, req.tasks_per_node);
    if (req.mem_per_cpu_mb == 0) return by_cpu;
    return uint32_t(std::min<uint64_t>(by_cpu, nodes[n].memory_mb / (req.mem_per_cpu_mb * cpt)));
  };
  // OverSubscribe: a sharing job takes 1/shared_by of each node's CPUs and memory, on nodes
  // that hold only sharing jobs; any other job needs idle nodes.
  const uint32_t sb = share_count(req);
  auto free_enough = [&](size_t n) {
    const auto& cap = nodes[n];
    if (sb == 1) return idle(cap, free, n);
    return kind_allows(free, n, true) &&
           free.cpus[n] >= cpu_units(cap.cpus, sb, free.units_per_cpu) &&
           free.memory_mb[n] >= cap.memory_mb / sb;
  };
  auto fits = [&](size_t n) {
    const auto& cap = nodes[n];
    return cap.usable && (choice == nullptr || choice->eligible[n]) && free_enough(n) &&
           cap.cpus >= req.cpus_per_task && cap.cpus >= req.min_cpus &&
           cap.memory_mb >= std::max(req.mem_per_node_mb, req.mem_per_cpu_mb * req.cpus_per_task) &&
           (req.gres.empty() || take_gres(req.gres, free, n));
  };
  std::vector<size_t> chosen;
  for (auto r : req.required) {
    if (!fits(r)) return std::nullopt;
    chosen.push_back(r);
  }
  if (choice != nullptr && !pick_counted(*choice, members, req, options, chosen, fits))
    return std::nullopt;
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  std::vector<bool> avail(members.size());
  std::vector<uint32_t> member_weights;
  if (!options.weights.empty()) member_weights.resize(members.size());
  uint32_t largest = 1;
  for (size_t i = 0; i < members.size(); ++i) {
    auto n = members[i];
    avail[i] = fits(n) && !listed(req.excluded, n) && !listed(chosen, n);
    if (avail[i]) largest = std::max(largest, room_of(n));
    if (!options.weights.empty()) member_weights[i] = options.weights[n];
  }
  size_t count = std::max<size_t>(req.min_nodes, chosen.size());
  size_t limit =
      req.max_nodes > 0 ? std::max<size_t>(req.max_nodes, chosen.size()) : members.size();
  while (count <= limit) {
    std::optional<std::vector<size_t>> picked;
    size_t extra = count - chosen.size();
    if (options.picker) {
      picked = options.picker(req, members, avail, extra, member_weights);
    } else {
      auto policy = options.select == select_type::consecutive || options.consecutive_nodes
                        ? topology::selection_policy::consecutive
                        : topology::selection_policy::linear;
      picked = topology::select_nodes(policy, avail, extra, member_weights);
    }
    if (!picked) return std::nullopt;
    std::vector<size_t> all = chosen;
    for (auto i : *picked) all.push_back(members[i]);
    std::sort(all.begin(), all.end());
    uint64_t room_total = 0;
    for (auto n : all) room_total += room_of(n);
    if (room_total >= tasks) {
      allocation out;
      // Block distribution: fill each node to its CPU count, at least one task each.
      uint32_t left = std::max<uint32_t>(tasks, uint32_t(all.size()));
      for (size_t k = 0; k < all.size(); ++k) {
        auto n = all[k];
        uint32_t room = std::max<uint32_t>(1, room_of(n));
        uint32_t reserve_for_rest = uint32_t(all.size() - k - 1);
        uint32_t here = std::min(room, left > reserve_for_rest ? left - reserve_for_rest : 1);
        left -= std::min(left, here);
        out.push_back({n,
                       nodes[n].cpus,
                       nodes[n].memory_mb / sb,
                       here,
                       sb,
                       req.gres.empty() ? std::vector<uint32_t>{} : *take_gres(req.gres, free, n),
                       {}});
      }
      return out;
    }
    // Short of CPUs: add as many nodes as the largest node would need to cover the gap.
    count += std::max<uint64_t>(1, (tasks - room_total + largest - 1) / largest);
  }
  return std::nullopt;
}

/// Consumable CPUs and memory: nodes may be shared.
std::optional<allocation> place_shared(const resource_request& req,
                                       const std::vector<size_t>& members,
                                       const std::vector<node_capacity>& nodes, free_view free,
                                       const placement_options& options,
                                       const feature_choice* choice) {
  const uint32_t cpt = std::max<uint32_t>(1, req.cpus_per_task);
  // OverSubscribe: a sharing job takes 1/shared_by of each of its CPUs, on nodes that hold only
  // sharing jobs, and never holds one CPU twice.
  const uint32_t sb = share_count(req);
  const auto task_units = static_cast<uint32_t>(cpu_units(cpt, sb, free.units_per_cpu));
  // How many tasks node n can take now.
  auto room = [&](size_t n) -> uint32_t {
    if (!nodes[n].usable || !kind_allows(free, n, sb > 1) || nodes[n].cpus < req.min_cpus) return 0;
    if (choice != nullptr && !choice->eligible[n]) return 0;
    if (!req.gres.empty() && !take_gres(req.gres, free, n)) return 0;
    uint32_t by_cpu = free.cpus[n] / task_units;
    if (req.tasks_per_node > 0) by_cpu = std::min(by_cpu, req.tasks_per_node);
    if (sb > 1) by_cpu = std::min(by_cpu, nodes[n].cpus / cpt);
    if (req.mem_per_node_mb > 0) return free.memory_mb[n] >= req.mem_per_node_mb ? by_cpu : 0;
    if (req.mem_per_cpu_mb > 0) {
      uint64_t by_mem = free.memory_mb[n] / (req.mem_per_cpu_mb * cpt);
      return uint32_t(std::min<uint64_t>(by_cpu, by_mem));
    }
    return by_cpu;
  };
  const uint32_t tasks = std::max(req.tasks, req.min_nodes);
  std::vector<std::pair<size_t, uint32_t>> chosen;  // node, room
  uint64_t capacity = 0;
  for (auto r : req.required) {
    if (std::any_of(chosen.begin(), chosen.end(), [&](auto& c) { return c.first == r; })) continue;
    auto k = room(r);
    if (k == 0) return std::nullopt;
    chosen.push_back({r, k});
    capacity += k;
  }
  if (choice != nullptr && !choice->counts.empty()) {
    std::vector<size_t> taken;
    for (auto& c : chosen) taken.push_back(c.first);
    if (!pick_counted(*choice, members, req, options, taken, [&](size_t n) { return room(n) > 0; }))
      return std::nullopt;
    for (size_t i = chosen.size(); i < taken.size(); ++i) {
      auto k = room(taken[i]);
      chosen.push_back({taken[i], k});
      capacity += k;
    }
  }
  size_t need_nodes = std::max<size_t>(req.min_nodes, chosen.size());
  size_t limit = req.max_nodes > 0 ? std::max<size_t>(req.max_nodes, chosen.size()) : SIZE_MAX;
  if (chosen.size() < need_nodes || capacity < tasks) {
    // Candidates in weight order (stable: config order among equals). Without weights the
    // order is the members' own, so nodes are looked at only until the job fits.
    std::vector<std::pair<size_t, uint32_t>> cands;
    size_t looked = 0;
    auto look = [&](bool until_it_fits) {
      size_t count = chosen.size() + cands.size();
      uint64_t cap = capacity;
      for (const auto& c : cands) cap += c.second;
      for (; looked < members.size(); ++looked) {
        if (until_it_fits && ((count >= need_nodes && cap >= tasks) || count >= limit)) break;
        auto n = members[looked];
        if (listed(req.excluded, n) || listed(req.required, n)) continue;
        if (std::any_of(chosen.begin(), chosen.end(), [&](auto& c) { return c.first == n; }))
          continue;
        auto k = room(n);
        if (k == 0) continue;
        cands.push_back({n, k});
        ++count;
        cap += k;
      }
    };
    look(options.weights.empty());
    if (!options.weights.empty())
      std::stable_sort(cands.begin(), cands.end(), [&](auto& a, auto& b) {
        return options.weights[a.first] < options.weights[b.first];
      });
    auto take = [&](const std::vector<std::pair<size_t, uint32_t>>& order) {
      auto picked = chosen;
      uint64_t cap = capacity;
      for (auto& c : order) {
        if (picked.size() >= need_nodes && cap >= tasks) break;
        if (picked.size() >= limit) break;
        picked.push_back(c);
        cap += c.second;
      }
      bool ok = picked.size() >= need_nodes && cap >= tasks;
      return ok ? std::optional{picked} : std::nullopt;
    };
    auto picked = take(cands);
    if (!picked && req.max_nodes > 0) {
      // Too many small pieces: retry with the roomiest nodes first.
      look(false);
      std::stable_sort(cands.begin(), cands.end(),
                       [](auto& a, auto& b) { return a.second > b.second; });
      picked = take(cands);
    }
    if (!picked) return std::nullopt;
    chosen = std::move(*picked);
  }
  std::sort(chosen.begin(), chosen.end());
  allocation out;
  uint32_t left = std::max<uint32_t>(tasks, uint32_t(chosen.size()));
  for (size_t k = 0; k < chosen.size(); ++k) {
    uint32_t after = uint32_t(chosen.size() - k - 1);  // nodes still to get one task each
    uint32_t here = std::min(chosen[k].second, left - after);
    left -= here;
    uint32_t cpus = here * cpt;
    auto n = chosen[k].first;
    out.push_back({n,
                   cpus,
                   memory_for(req, cpus),
                   here,
                   sb,
                   req.gres.empty() ? std::vector<uint32_t>{} : *take_gres(req.gres, free, n),
                   {}});
  }
  return out;
}

}  // namespace

std::optional<std::vector<uint32_t>> take_gres(const std::vector<gres_need>& needs, free_view free,
                                               size_t n) {
  std::vector<uint32_t> taken;
  if (needs.empty()) return taken;
  if (free.gres == nullptr || free.gres_kinds == 0) return std::nullopt;
  const size_t base = n * free.gres_kinds;
  taken.assign(free.gres_kinds, 0);
  for (const auto& need : needs) {
    uint32_t left = need.count;
    for (auto k : need.kinds) {
      if (left == 0) break;
      if (k >= free.gres_kinds) continue;
      uint32_t have = (*free.gres)[base + k] - taken[k];
      uint32_t take = std::min(have, left);
      taken[k] += take;
      left -= take;
    }
    if (left > 0) return std::nullopt;
  }
  return taken;
}

std::optional<allocation> place(const resource_request& req, const std::vector<size_t>& members,
                                const std::vector<node_capacity>& nodes, free_view free,
                                const placement_options& options) {
  auto place_with = [&](const feature_choice* choice) {
    if (takes_whole_nodes(req, options.select))
      return place_whole(req, members, nodes, free, options, choice);
    return place_shared(req, members, nodes, free, options, choice);
  };
  if (!req.features) return place_with(nullptr);
  for (const auto& choice : *req.features)
    if (auto alloc = place_with(&choice)) return alloc;
  return std::nullopt;
}

}  // namespace shoal::policy

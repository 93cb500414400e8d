#include "actors/policy/profile.hpp"

#include <algorithm>

namespace shoal::policy {

availability_profile::availability_profile(const std::vector<node_capacity>& nodes,
                                           const std::vector<running_job>& running, int64_t now,
                                           int64_t resolution)
    : now_(now), resolution_(std::max<int64_t>(1, resolution)) {
  const size_t n = nodes.size();
  std::vector<int64_t> cpus(n);
  std::vector<int64_t> mem(n);
  for (size_t i = 0; i < n; ++i) {
    cpus[i] = nodes[i].usable ? nodes[i].cpus : 0;
    mem[i] = nodes[i].usable ? int64_t(nodes[i].memory_mb) : 0;
  }
  for (const auto& job : running) {
    for (const auto& s : job.alloc) {
      if (s.node >= n) continue;
      cpus[s.node] -= s.cpus;
      mem[s.node] -= int64_t(s.memory_mb);
    }
  }
  // Releases in end order; ends at the same rounded time share one slot.
  std::vector<std::pair<int64_t, const running_job*>> ends;
  ends.reserve(running.size());
  for (const auto& job : running) {
    int64_t end = job.end <= now ? now + 1 : job.end;
    ends.push_back({round_up(end), &job});
  }
  std::sort(ends.begin(), ends.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  auto snapshot = [&](int64_t start) {
    slot_data s{start, std::vector<uint32_t>(n), std::vector<uint64_t>(n)};
    for (size_t i = 0; i < n; ++i) {
      s.cpus[i] = uint32_t(std::clamp<int64_t>(cpus[i], 0, nodes[i].usable ? nodes[i].cpus : 0));
      s.memory_mb[i] = uint64_t(
          std::clamp<int64_t>(mem[i], 0, nodes[i].usable ? int64_t(nodes[i].memory_mb) : 0));
    }
    slots_.push_back(std::move(s));
  };
  snapshot(now);
  for (size_t k = 0; k < ends.size();) {
    int64_t t = ends[k].first;
    if (t >= forever) break;
    for (; k < ends.size() && ends[k].first == t; ++k) {
      for (const auto& s : ends[k].second->alloc) {
        if (s.node >= n) continue;
        cpus[s.node] += s.cpus;
        mem[s.node] += int64_t(s.memory_mb);
      }
    }
    snapshot(t);
  }
}

int64_t availability_profile::round_up(int64_t t) const {
  if (t >= forever || resolution_ == 1 || t <= now_) return t;
  int64_t steps = (t - now_ + resolution_ - 1) / resolution_;
  return later(now_, steps * resolution_);
}

size_t availability_profile::slot_of(int64_t t) const {
  auto it = std::upper_bound(slots_.begin(), slots_.end(), t,
                             [](int64_t v, const slot_data& s) { return v < s.start; });
  return size_t(it - slots_.begin()) - 1;
}

size_t availability_profile::split_at(int64_t t) {
  size_t i = slot_of(t);
  if (slots_[i].start == t) return i;
  slot_data copy{t, slots_[i].cpus, slots_[i].memory_mb};
  slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(i + 1), std::move(copy));
  return i + 1;
}

bool availability_profile::dips_within(size_t i, int64_t to) const {
  auto it = std::upper_bound(dips_.begin(), dips_.end(), slots_[i].start);
  return it != dips_.end() && *it < to;
}

void availability_profile::window_min(size_t i, int64_t to, const std::vector<size_t>& nodes,
                                      std::vector<uint32_t>& cpus,
                                      std::vector<uint64_t>& memory_mb) const {
  const auto& base = slots_[i];
  for (auto n : nodes) {
    cpus[n] = base.cpus[n];
    memory_mb[n] = base.memory_mb[n];
  }
  for (auto it = std::upper_bound(dips_.begin(), dips_.end(), base.start);
       it != dips_.end() && *it < to; ++it) {
    const auto& d = slots_[slot_of(*it)];
    for (auto n : nodes) {
      cpus[n] = std::min(cpus[n], d.cpus[n]);
      memory_mb[n] = std::min(memory_mb[n], d.memory_mb[n]);
    }
  }
}

void availability_profile::consume(int64_t from, int64_t to, const allocation& alloc,
                                   bool reservation) {
  from = std::max(from, now_);
  if (to <= from) return;
  size_t first = split_at(from);
  size_t last = to >= forever ? slots_.size() : split_at(to);
  for (size_t i = first; i < last; ++i) {
    auto& s = slots_[i];
    for (const auto& share : alloc) {
      s.cpus[share.node] -= std::min(s.cpus[share.node], share.cpus);
      s.memory_mb[share.node] -= std::min(s.memory_mb[share.node], share.memory_mb);
    }
  }
  if (reservation) {
    auto it = std::lower_bound(dips_.begin(), dips_.end(), from);
    if (it == dips_.end() || *it != from) dips_.insert(it, from);
  }
}

}  // namespace shoal::policy

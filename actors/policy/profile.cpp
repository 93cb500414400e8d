#include "actors/policy/profile.hpp"

#include <algorithm>

namespace shoal::policy {

availability_profile::availability_profile(const std::vector<node_capacity>& nodes,
                                           const std::vector<running_job>& running, int64_t now,
                                           int64_t resolution)
    : now_(now), resolution_(std::max<int64_t>(1, resolution)) {
  const size_t n = nodes.size();
  cap_cpus_.resize(n);
  cap_memory_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    cap_cpus_[i] = nodes[i].usable ? nodes[i].cpus : 0;
    cap_memory_[i] = nodes[i].usable ? nodes[i].memory_mb : 0;
  }
  slot_data first{now, cap_cpus_, cap_memory_};
  releases_.reserve(running.size());
  for (const auto& job : running) {
    for (const auto& s : job.alloc) {
      if (s.node >= n) continue;
      first.cpus[s.node] -= std::min(first.cpus[s.node], s.cpus);
      first.memory_mb[s.node] -= std::min(first.memory_mb[s.node], s.memory_mb);
    }
    int64_t end = job.end <= now ? now + 1 : job.end;
    releases_.push_back({round_up(end), &job.alloc});
  }
  std::sort(releases_.begin(), releases_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  slots_.push_back(std::move(first));
}

int64_t availability_profile::next_change() const {
  int64_t t = forever;
  if (next_release_ < releases_.size()) t = releases_[next_release_].first;
  if (!later_releases_.empty()) t = std::min(t, later_releases_.front().first);
  return t;
}

bool availability_profile::build_next() {
  int64_t t = next_change();
  if (t >= forever) return false;
  slot_data s{t, slots_.back().cpus, slots_.back().memory_mb};
  auto give_back = [&](const allocation& alloc) {
    for (const auto& share : alloc) {
      if (share.node >= s.cpus.size()) continue;
      s.cpus[share.node] = std::min(cap_cpus_[share.node], s.cpus[share.node] + share.cpus);
      s.memory_mb[share.node] =
          std::min(cap_memory_[share.node], s.memory_mb[share.node] + share.memory_mb);
    }
  };
  for (; next_release_ < releases_.size() && releases_[next_release_].first == t; ++next_release_)
    give_back(*releases_[next_release_].second);
  size_t k = 0;
  for (; k < later_releases_.size() && later_releases_[k].first == t; ++k)
    give_back(later_releases_[k].second);
  later_releases_.erase(later_releases_.begin(),
                        later_releases_.begin() + static_cast<std::ptrdiff_t>(k));
  slots_.push_back(std::move(s));
  return true;
}

bool availability_profile::has_slot(size_t i) {
  while (i >= slots_.size())
    if (!build_next()) return false;
  return true;
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
  while (next_change() <= t && build_next()) {
  }
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
  size_t last = slots_.size();
  if (to < next_change()) {
    last = split_at(to);
  } else if (to < forever) {
    // Ends beyond the built slots: give it back when the slot at `to` is built.
    auto at = std::upper_bound(later_releases_.begin(), later_releases_.end(), to,
                               [](int64_t v, const auto& r) { return v < r.first; });
    later_releases_.insert(at, {to, alloc});
  }
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

#include "policy/profile.hpp"

#include <algorithm>

namespace shoal::policy {

availability_profile::availability_profile(const std::vector<node_capacity>& nodes,
                                           const std::vector<running_job>& running, int64_t now,
                                           int64_t resolution, uint32_t units_per_cpu, bool sharing)
    : now_(now),
      resolution_(std::max<int64_t>(1, resolution)),
      units_per_cpu_(std::max<uint32_t>(1, units_per_cpu)),
      sharing_(sharing) {
  const size_t n = nodes.size();
  cap_cpus_.resize(n);
  cap_memory_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    cap_cpus_[i] = nodes[i].usable ? nodes[i].cpus * units_per_cpu_ : 0;
    cap_memory_[i] = nodes[i].usable ? nodes[i].memory_mb : 0;
  }
  for (const auto& node : nodes) kinds_ = std::max(kinds_, uint32_t(node.gres.size()));
  if (kinds_ > 0) {
    cap_gres_.assign(n * kinds_, 0);
    for (size_t i = 0; i < n; ++i)
      if (nodes[i].usable)
        std::copy(nodes[i].gres.begin(), nodes[i].gres.end(), cap_gres_.begin() + i * kinds_);
  }
  slot_data first{now, cap_cpus_, cap_memory_, {}, {}, 0, 0, cap_gres_};
  for (size_t i = 0; i < n; ++i) {
    first.free_units += cap_cpus_[i];
    if (cap_cpus_[i] > 0) ++first.idle_nodes;
  }
  if (sharing_) {
    first.shared.assign(n, 0);
    first.sole.assign(n, 0);
  }
  releases_.reserve(running.size());
  for (const auto& job : running) {
    apply(first, job.alloc, false);
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

void availability_profile::apply(slot_data& s, const allocation& alloc, bool give) const {
  for (const auto& share : alloc) {
    auto n = share.node;
    if (n >= s.cpus.size()) continue;
    uint32_t units = units_of(share, units_per_cpu_);
    bool was_idle =
        cap_cpus_[n] > 0 && s.cpus[n] == cap_cpus_[n] && s.memory_mb[n] == cap_memory_[n];
    s.free_units -= s.cpus[n];
    if (give) {
      s.cpus[n] = std::min(cap_cpus_[n], s.cpus[n] + units);
      s.memory_mb[n] = std::min(cap_memory_[n], s.memory_mb[n] + share.memory_mb);
    } else {
      s.cpus[n] -= std::min(s.cpus[n], units);
      s.memory_mb[n] -= std::min(s.memory_mb[n], share.memory_mb);
    }
    s.free_units += s.cpus[n];
    if (kinds_ > 0) {
      for (size_t k = 0; k < share.gres.size() && k < kinds_; ++k) {
        auto& f = s.gres[n * kinds_ + k];
        f = give ? std::min(cap_gres_[n * kinds_ + k], f + share.gres[k])
                 : f - std::min(f, share.gres[k]);
      }
    }
    bool is_idle =
        cap_cpus_[n] > 0 && s.cpus[n] == cap_cpus_[n] && s.memory_mb[n] == cap_memory_[n];
    if (was_idle != is_idle) is_idle ? ++s.idle_nodes : --s.idle_nodes;
    if (!sharing_) continue;
    auto& held = share.shared_by > 1 ? s.shared[n] : s.sole[n];
    held = give ? held - std::min(held, units) : held + units;
  }
}

bool availability_profile::build_next() {
  int64_t t = next_change();
  if (t >= forever) return false;
  const auto& last = slots_.back();
  slot_data s{t,         last.cpus,       last.memory_mb,  last.shared,
              last.sole, last.free_units, last.idle_nodes, last.gres};
  for (; next_release_ < releases_.size() && releases_[next_release_].first == t; ++next_release_)
    apply(s, *releases_[next_release_].second, true);
  size_t k = 0;
  for (; k < later_releases_.size() && later_releases_[k].first == t; ++k)
    apply(s, later_releases_[k].second, true);
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
  const auto& from = slots_[i];
  slot_data copy{t,         from.cpus,       from.memory_mb,  from.shared,
                 from.sole, from.free_units, from.idle_nodes, from.gres};
  slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(i + 1), std::move(copy));
  for (auto& d : dips_)
    if (d.slot > i) ++d.slot;
  return i + 1;
}

std::vector<availability_profile::dip>::const_iterator availability_profile::first_dip_after(
    int64_t t) const {
  return std::upper_bound(dips_.begin(), dips_.end(), t,
                          [](int64_t v, const dip& d) { return v < d.at; });
}

bool availability_profile::dips_within(size_t i, int64_t to) const {
  auto it = first_dip_after(slots_[i].start);
  return it != dips_.end() && it->at < to;
}

availability_profile::bounds availability_profile::window_bounds(size_t i, int64_t to) const {
  bounds out{slots_[i].free_units, slots_[i].idle_nodes};
  for (auto it = first_dip_after(slots_[i].start); it != dips_.end() && it->at < to; ++it) {
    const auto& d = slots_[it->slot];
    out.free_units = std::min(out.free_units, d.free_units);
    out.idle_nodes = std::min(out.idle_nodes, d.idle_nodes);
  }
  return out;
}

free_view availability_profile::window_min(size_t i, int64_t to, const std::vector<size_t>& nodes,
                                           window& out) const {
  const auto& base = slots_[i];
  for (auto n : nodes) {
    out.cpus[n] = base.cpus[n];
    out.memory_mb[n] = base.memory_mb[n];
  }
  if (sharing_) {
    out.shared.resize(out.cpus.size());
    out.sole.resize(out.cpus.size());
    for (auto n : nodes) {
      out.shared[n] = base.shared[n];
      out.sole[n] = base.sole[n];
    }
  }
  if (kinds_ > 0) {
    out.gres.resize(out.cpus.size() * kinds_);
    for (auto n : nodes)
      std::copy_n(base.gres.begin() + n * kinds_, kinds_, out.gres.begin() + n * kinds_);
  }
  // Between dips resources only come back, so a node has its least free at the start or at a
  // dip whose reservations hold it. (Entries of nodes outside `nodes` may be touched too; no
  // one reads them.)
  for (auto it = first_dip_after(base.start); it != dips_.end() && it->at < to; ++it) {
    const auto& d = slots_[it->slot];
    for (auto n : it->nodes) {
      out.cpus[n] = std::min(out.cpus[n], d.cpus[n]);
      out.memory_mb[n] = std::min(out.memory_mb[n], d.memory_mb[n]);
      for (size_t k = n * kinds_; k < (n + 1) * kinds_; ++k)
        out.gres[k] = std::min(out.gres[k], d.gres[k]);
      if (!sharing_) continue;
      out.shared[n] = std::max(out.shared[n], d.shared[n]);
      out.sole[n] = std::max(out.sole[n], d.sole[n]);
    }
  }
  return {out.cpus,
          out.memory_mb,
          units_per_cpu_,
          sharing_ ? &out.shared : nullptr,
          sharing_ ? &out.sole : nullptr,
          kinds_ > 0 ? &out.gres : nullptr,
          kinds_};
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
  for (size_t i = first; i < last; ++i) apply(slots_[i], alloc, false);
  if (reservation) {
    auto it = std::lower_bound(dips_.begin(), dips_.end(), from,
                               [](const dip& d, int64_t t) { return d.at < t; });
    if (it == dips_.end() || it->at != from) it = dips_.insert(it, dip{from, first, {}});
    for (const auto& share : alloc) it->nodes.push_back(share.node);
  }
}

}  // namespace shoal::policy

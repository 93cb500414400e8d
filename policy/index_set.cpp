#include "policy/index_set.hpp"

#include <algorithm>

namespace shoal::policy {

std::vector<index_range> fold_indices(const std::vector<uint32_t>& v) {
  std::vector<index_range> out;
  size_t i = 0;
  while (i < v.size()) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (j > i) {
      out.push_back({v[i], v[j], 1});
      i = j + 1;
      continue;
    }
    // A stepped run: v[i], v[i]+d, ... stopping before an index that starts a consecutive pair.
    if (i + 2 < v.size()) {
      uint32_t d = v[i + 1] - v[i];
      size_t k = i + 1;
      auto starts_pair = [&](size_t x) { return x + 1 < v.size() && v[x + 1] == v[x] + 1; };
      while (k < v.size() && v[k] - v[k - 1] == d && !starts_pair(k)) ++k;
      if (k - i >= 3) {
        out.push_back({v[i], v[k - 1], d});
        i = k;
        continue;
      }
    }
    out.push_back({v[i], v[i], 1});
    ++i;
  }
  return out;
}

void index_set::compact() {
  if (head_ == 0) return;
  runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(head_));
  head_ = 0;
}

void index_set::insert(index_range r) {
  compact();
  // Runs whose span [first, last] meets [r.first, r.last].
  auto lo = std::lower_bound(runs_.begin(), runs_.end(), r.first,
                             [](const index_range& x, uint32_t v) { return x.last < v; });
  auto hi = lo;
  while (hi != runs_.end() && hi->first <= r.last) ++hi;
  if (lo == hi) {
    runs_.insert(lo, r);
    count_ += r.count();
    merge_neighbours();
    return;
  }
  std::vector<uint32_t> all;
  for (auto it = lo; it != hi; ++it) {
    count_ -= it->count();
    for (uint64_t v = it->first; v <= it->last; v += it->step) all.push_back(uint32_t(v));
  }
  for (uint64_t v = r.first; v <= r.last; v += r.step) all.push_back(uint32_t(v));
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  count_ += all.size();
  auto folded = fold_indices(all);
  auto at = runs_.erase(lo, hi);
  runs_.insert(at, folded.begin(), folded.end());
  merge_neighbours();
}

void index_set::merge_neighbours() {
  // A stepped run of two prints as two indices, so it is kept as two single runs.
  for (size_t i = 0; i < runs_.size(); ++i) {
    auto r = runs_[i];
    if (r.step > 1 && r.count() == 2) {
      runs_[i] = {r.first, r.first, 1};
      runs_.insert(runs_.begin() + static_cast<std::ptrdiff_t>(i + 1), {r.last, r.last, 1});
    }
  }
  auto plain = [](const index_range& x) { return x.step == 1 || x.first == x.last; };
  size_t out = 0;
  for (size_t i = 1; i < runs_.size(); ++i) {
    auto& prev = runs_[out];
    const auto& r = runs_[i];
    if (plain(prev) && plain(r) && uint64_t{prev.last} + 1 == r.first) {
      prev.last = r.last;
      prev.step = 1;
    } else {
      runs_[++out] = r;
    }
  }
  if (!runs_.empty()) runs_.resize(out + 1);
}

std::optional<uint32_t> index_set::take_first() {
  if (count_ == 0) return std::nullopt;
  auto& r = runs_[head_];
  uint32_t v = r.first;
  if (r.first == r.last) {
    ++head_;
    // Reclaim used-up runs now and then so a long-lived array does not keep them.
    if (head_ > 32 && head_ * 2 > runs_.size()) compact();
  } else {
    r.first += r.step;
  }
  --count_;
  return v;
}

uint64_t index_set::erase(uint32_t lo, uint32_t hi) {
  if (lo > hi || count_ == 0) return 0;
  compact();
  uint64_t removed = 0;
  std::vector<index_range> out;
  out.reserve(runs_.size() + 1);
  for (const auto& r : runs_) {
    if (r.last < lo || r.first > hi) {
      out.push_back(r);
      continue;
    }
    // Keep the part before lo and the part after hi, each aligned to the run's step.
    uint64_t kept = 0;
    if (r.first < lo) {
      uint32_t left_last = r.first + ((lo - 1 - r.first) / r.step) * r.step;
      out.push_back({r.first, left_last, r.step});
      kept += out.back().count();
    }
    if (r.last > hi) {
      uint64_t steps = (uint64_t{hi} + 1 - r.first + r.step - 1) / r.step;
      uint64_t right_first = r.first + steps * r.step;
      if (right_first <= r.last) {
        out.push_back({uint32_t(right_first), r.last, r.step});
        kept += out.back().count();
      }
    }
    removed += r.count() - kept;
  }
  runs_ = std::move(out);
  count_ -= removed;
  merge_neighbours();
  return removed;
}

bool index_set::contains(uint32_t i) const {
  auto it = std::lower_bound(runs_.begin() + static_cast<std::ptrdiff_t>(head_), runs_.end(), i,
                             [](const index_range& x, uint32_t v) { return x.last < v; });
  return it != runs_.end() && it->contains(i);
}

std::string index_set::to_string() const {
  std::string out;
  for (size_t k = head_; k < runs_.size(); ++k) {
    const auto& r = runs_[k];
    if (!out.empty()) out += ',';
    out += std::to_string(r.first);
    if (r.first == r.last) continue;
    if (r.step == 1) {
      out += '-' + std::to_string(r.last);
    } else if (r.count() == 2) {
      out += ',' + std::to_string(r.last);
    } else {
      out += '-' + std::to_string(r.last) + ':' + std::to_string(r.step);
    }
  }
  return out;
}

}  // namespace shoal::policy

#include "metrics/instruments.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace shoal::metrics {

void gauge::add(double delta) noexcept {
  auto cur = value_.load(std::memory_order_relaxed);
  while (!value_.compare_exchange_weak(cur, cur + delta, std::memory_order_relaxed)) {
  }
}

void gauge::raise_to(double v) noexcept {
  auto cur = value_.load(std::memory_order_relaxed);
  while (v > cur && !value_.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

histogram::histogram(std::vector<double> bounds) : bounds_(std::move(bounds)) {
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1]))
      throw std::invalid_argument("histogram bounds must be finite and strictly increasing");
  }
  buckets_ = std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1);
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void histogram::observe(double v) noexcept {
  // Few buckets: a linear scan beats a binary search and stays in one cache line or two.
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  auto cur = sum_.load(std::memory_order_relaxed);
  while (!sum_.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

histogram::snapshot histogram::read() const {
  snapshot s;
  s.bounds = bounds_;
  s.cumulative.resize(bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = running;
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

void histogram::reset() noexcept {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
  sum_.store(0, std::memory_order_relaxed);
}

const std::vector<double>& latency_buckets() {
  static const std::vector<double> bounds{1e-6,   2.5e-6, 5e-6, 1e-5,   2.5e-5, 5e-5, 1e-4,
                                          2.5e-4, 5e-4,   1e-3, 2.5e-3, 5e-3,   1e-2, 2.5e-2,
                                          5e-2,   0.1,    0.25, 0.5,    1.0,    2.5,  10.0};
  return bounds;
}

const std::vector<double>& lag_buckets() {
  static const std::vector<double> bounds{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5,
                                          1,     2.5,   5,    10,   30,  60,   300};
  return bounds;
}

}  // namespace shoal::metrics

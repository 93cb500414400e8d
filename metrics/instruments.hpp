#pragma once

// The three Prometheus instrument kinds, lock-free: every update is one or two relaxed atomic
// operations, so actors can meter each message they handle. Readers (the HTTP thread) see each
// value atomically, though not a consistent cut across values.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace shoal::metrics {

/// A monotonically increasing count. Prometheus names it with `_total`.
class counter {
 public:
  void inc(uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }
  /// Back to zero (sdiag -r); Prometheus sees a counter reset, which rate() handles.
  void reset() noexcept { value_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

/// A value that goes up and down.
class gauge {
 public:
  void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
  void add(double delta) noexcept;
  /// Sets the value to `v` when `v` is larger (a high-water mark).
  void raise_to(double v) noexcept;
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

/// Counts observations into fixed buckets (upper bounds, in the metric's unit), plus their sum.
class histogram {
 public:
  /// A consistent-enough copy for rendering: `cumulative[i]` counts observations <= bounds[i];
  /// the last entry (one past `bounds`) is the +Inf bucket and equals `count`.
  struct snapshot {
    std::vector<double> bounds;
    std::vector<uint64_t> cumulative;
    double sum = 0;
    uint64_t count = 0;
  };

  /// `bounds`: finite, strictly increasing upper bounds (the +Inf bucket is implied). Throws
  /// std::invalid_argument otherwise (a programming error).
  explicit histogram(std::vector<double> bounds);

  void observe(double v) noexcept;
  snapshot read() const;
  /// Every bucket and the sum back to zero (sdiag -r).
  void reset() noexcept;
  const std::vector<double>& bounds() const noexcept { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  ///< per bucket, not cumulative
  std::atomic<double> sum_{0};
};

/// Bucket bounds in seconds for handler and cycle times: 1 us to 10 s.
const std::vector<double>& latency_buckets();

/// Bucket bounds in seconds for heartbeat lag: 1 ms to 5 min.
const std::vector<double>& lag_buckets();

}  // namespace shoal::metrics

#pragma once

// Which of a node's CPUs a job on a shared node gets. The topology actor decides how many CPUs
// a job holds on each node; the node actor turns that count into CPU numbers so that the node
// daemon can confine the job's tasks to them (Slurm's task/affinity after cons_tres).

#include <cstdint>
#include <vector>

namespace shoal::policy {

/// How many jobs hold each of a node's CPUs (index = the node's CPU number, 0..CPUs-1).
class cpu_occupancy {
 public:
  explicit cpu_occupancy(uint32_t cpus = 0) : holders_(cpus, 0) {}

  /// Takes `count` CPUs for a job: the least held ones first, lowest numbers among equals, so
  /// jobs land on free CPUs while there are any and spread evenly when they must share
  /// (OverSubscribe). Returns them ascending; empty when `count` is 0 or exceeds the node's CPUs.
  std::vector<uint32_t> take(uint32_t count);

  /// Gives back what `take` returned.
  void give_back(const std::vector<uint32_t>& cpus);

  /// The node's CPU count changed (a registration reported it): jobs keep what they hold; CPUs
  /// beyond the new count are forgotten.
  void resize(uint32_t cpus);

  uint32_t holders(uint32_t cpu) const { return cpu < holders_.size() ? holders_[cpu] : 0; }
  uint32_t size() const { return static_cast<uint32_t>(holders_.size()); }

 private:
  std::vector<uint32_t> holders_;
};

}  // namespace shoal::policy

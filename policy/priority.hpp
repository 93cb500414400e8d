#pragma once

#include <cstdint>

namespace shoal::policy {

/// The multifactor priority settings (slurm.conf names). The association and TRES factors are
/// not modelled; a weight of 0 turns its factor off.
struct priority_config {
  uint32_t weight_age = 1000;        ///< PriorityWeightAge
  uint32_t weight_job_size = 1000;   ///< PriorityWeightJobSize
  uint32_t weight_partition = 1000;  ///< PriorityWeightPartition
  uint32_t weight_fairshare = 0;     ///< PriorityWeightFairshare
  uint32_t weight_qos = 0;           ///< PriorityWeightQOS
  int64_t max_age = 7 * 24 * 3600;   ///< PriorityMaxAge, seconds (Slurm's default 7-0)
  bool favor_small = false;          ///< PriorityFavorSmall: small jobs get the larger factor
};

/// What the priority of one job depends on.
struct priority_input {
  int64_t eligible_time = 0;          ///< seconds: submit time, or --begin / dependency release
  uint32_t nodes = 1;                 ///< requested (minimum) nodes
  uint64_t cpus = 1;                  ///< requested CPUs (tasks x cpus per task)
  uint32_t partition_job_factor = 1;  ///< the partition's PriorityJobFactor
  int32_t nice = 0;                   ///< --nice; negative values are for admins only
  double fairshare = 0;  ///< its association's fair-share factor, 0..1 (policy/fairshare.hpp)
  double qos = 0;        ///< its QOS's priority over the largest QOS priority, 0..1
};

/// The cluster-wide denominators of the normalised factors.
struct priority_scale {
  uint32_t cluster_nodes = 1;             ///< nodes in the cluster
  uint64_t cluster_cpus = 1;              ///< CPUs in the cluster
  uint32_t max_partition_job_factor = 1;  ///< largest PriorityJobFactor of any partition
};

/// Each weighted factor as sprio shows it, and their sum.
struct priority_factors {
  int64_t age = 0;        ///< weight_age * min(age, max_age) / max_age
  int64_t job_size = 0;   ///< weight_job_size * max(nodes/cluster, cpus/cluster) (1 - that when
                          ///< favouring small jobs)
  int64_t partition = 0;  ///< weight_partition * job_factor / max_job_factor
  int64_t fairshare = 0;  ///< weight_fairshare * the fair-share factor
  int64_t qos = 0;        ///< weight_qos * the QOS factor
  int64_t nice = 0;       ///< the nice value, subtracted
  /// age + fairshare + job_size + partition + qos - nice, at least 1 (0 means held)
  int64_t total = 1;
};

/// Slurm's priority/multifactor at `now` (seconds). Priority 0 stays reserved for held jobs:
/// the controller sets 0 on hold (`shoal control hold`) and recomputes on release, so a
/// computed priority is never 0. Each factor is rounded down separately, as sprio shows them.
priority_factors multifactor_priority(const priority_input& job, const priority_scale& scale,
                                      const priority_config& config, int64_t now);

}  // namespace shoal::policy

#include "policy/priority.hpp"

#include <algorithm>

namespace shoal::policy {

priority_factors multifactor_priority(const priority_input& job, const priority_scale& scale,
                                      const priority_config& config, int64_t now) {
  priority_factors f;
  if (config.max_age > 0) {
    double age = double(std::clamp<int64_t>(now - job.eligible_time, 0, config.max_age));
    f.age = int64_t(config.weight_age * (age / double(config.max_age)));
  }
  double node_share = double(job.nodes) / double(std::max<uint32_t>(scale.cluster_nodes, 1));
  double cpu_share = double(job.cpus) / double(std::max<uint64_t>(scale.cluster_cpus, 1));
  double size = std::min(1.0, std::max(node_share, cpu_share));
  if (config.favor_small) size = 1.0 - size;
  f.job_size = int64_t(config.weight_job_size * size);
  double part = double(job.partition_job_factor) /
                double(std::max<uint32_t>(scale.max_partition_job_factor, 1));
  f.partition = int64_t(config.weight_partition * std::min(1.0, part));
  f.fairshare = int64_t(config.weight_fairshare * std::clamp(job.fairshare, 0.0, 1.0));
  f.qos = int64_t(config.weight_qos * std::clamp(job.qos, 0.0, 1.0));
  f.nice = job.nice;
  f.total = std::max<int64_t>(1, f.age + f.fairshare + f.job_size + f.partition + f.qos - f.nice);
  return f;
}

}  // namespace shoal::policy

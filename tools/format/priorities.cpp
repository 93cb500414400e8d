#include <algorithm>
#include <map>

#include "tools/format/listing.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

std::string render_priorities(const std::vector<msg::job_info>& jobs,
                              const std::vector<msg::pending_detail>& details, bool no_header) {
  std::map<uint64_t, const msg::job_info*> by_id;
  for (auto& j : jobs) by_id.emplace(j.job_id, &j);
  auto ordered = details;
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return a.priority != b.priority ? a.priority > b.priority : a.job_id < b.job_id;
  });
  std::vector<std::vector<std::string>> rows;
  for (auto& d : ordered) {
    auto it = by_id.find(d.job_id);
    std::string id = std::to_string(d.job_id), partition, user;
    if (it != by_id.end()) {
      auto& j = *it->second;
      if (j.array_job_id != 0)
        id = std::to_string(j.array_job_id) + "_" +
             (j.array_task_id >= 0 ? std::to_string(j.array_task_id) : "[" + j.array_tasks + "]");
      partition = j.partition;
      user = j.user;
    }
    rows.push_back({id, partition, user, std::to_string(d.priority), std::to_string(d.age_factor),
                    std::to_string(d.size_factor), std::to_string(d.partition_factor),
                    std::to_string(d.nice), d.reason.empty() ? "None" : d.reason});
  }
  return detail::layout(
      {"JOBID", "PARTITION", "USER", "PRIORITY", "AGE", "JOBSIZE", "PARTITION", "NICE", "REASON"},
      {true, false, false, true, true, true, true, true, false}, rows, no_header);
}

}  // namespace shoal::cli

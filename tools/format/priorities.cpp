#include <algorithm>
#include <map>

#include "tools/format/listing.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

namespace {

/// sprio's table: JOBID PARTITION USER PRIORITY AGE [FAIRSHARE] JOBSIZE PARTITION [QOS] NICE
/// REASON, a row each.
std::string priority_table(const std::vector<std::vector<std::string>>& rows, bool no_header,
                           priority_columns shown) {
  std::vector<std::string> headers{"JOBID", "PARTITION", "USER", "PRIORITY", "AGE"};
  std::vector<bool> right{true, false, false, true, true};
  auto column = [&](const char* name, bool right_aligned) {
    headers.push_back(name);
    right.push_back(right_aligned);
  };
  if (shown.fairshare) column("FAIRSHARE", true);
  column("JOBSIZE", true);
  column("PARTITION", true);
  if (shown.qos) column("QOS", true);
  column("NICE", true);
  column("REASON", false);
  return detail::layout(headers, right, rows, no_header);
}

}  // namespace

std::string render_priorities(const std::vector<msg::job_info>& jobs,
                              const std::vector<msg::pending_detail>& details, bool no_header,
                              priority_columns shown) {
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
    std::vector<std::string> row{id, partition, user, std::to_string(d.priority),
                                 std::to_string(d.age_factor)};
    if (shown.fairshare) row.push_back(std::to_string(d.fairshare_factor));
    row.push_back(std::to_string(d.size_factor));
    row.push_back(std::to_string(d.partition_factor));
    if (shown.qos) row.push_back(std::to_string(d.qos_factor));
    row.push_back(std::to_string(d.nice));
    row.push_back(d.reason.empty() ? "None" : d.reason);
    rows.push_back(std::move(row));
  }
  return priority_table(rows, no_header, shown);
}

std::string render_priority_weights(const priority_weights& w, bool no_header,
                                    priority_columns shown) {
  std::vector<std::string> row{"Weights", "", "", "", std::to_string(w.age)};
  if (shown.fairshare) row.push_back(std::to_string(w.fairshare));
  row.push_back(std::to_string(w.job_size));
  row.push_back(std::to_string(w.partition));
  if (shown.qos) row.push_back(std::to_string(w.qos));
  row.push_back("");
  row.push_back("");
  return priority_table({row}, no_header, shown);
}

}  // namespace shoal::cli

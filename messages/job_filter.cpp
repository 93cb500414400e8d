#include "messages/job_filter.hpp"

#include <algorithm>

#include "messages/text.hpp"

namespace shoal::msg {

namespace {

bool among(const std::vector<std::string>& names, std::string_view value) {
  return names.empty() || std::any_of(names.begin(), names.end(), [&](const std::string& n) {
           return text::iequals(n, value);
         });
}

}  // namespace

bool passes(const job_filter& filter, const job_info& job) {
  return among(filter.states, to_string(job.state)) && among(filter.users, job.user) &&
         among(filter.partitions, job.partition);
}

bool keeps_all(const job_filter& filter) {
  return filter.states.empty() && filter.users.empty() && filter.partitions.empty();
}

}  // namespace shoal::msg

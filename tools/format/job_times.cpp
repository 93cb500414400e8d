#include "tools/format/job_times.hpp"

#include <algorithm>

namespace shoal::cli {

bool holds_nodes(msg::job_state s) {
  return s == msg::job_state::running || s == msg::job_state::configuring ||
         s == msg::job_state::completing || s == msg::job_state::suspended;
}

int64_t run_seconds(const msg::job_info& j, int64_t now) {
  if (j.start_time == 0 || j.state == msg::job_state::pending) return 0;
  bool ended = msg::is_finished(j.state) || j.state == msg::job_state::completing;
  auto until = ended && j.end_time != 0 ? j.end_time : now;
  if (j.state == msg::job_state::suspended && j.suspend_time != 0) until = j.suspend_time;
  return std::max<int64_t>(0, until - j.start_time - j.suspended_secs);
}

int64_t expected_end(const msg::job_info& j) {
  if (j.end_time != 0) return j.end_time;
  if (j.start_time == 0 || !holds_nodes(j.state) || j.time_limit_s < 0) return 0;
  return j.start_time + j.time_limit_s + j.suspended_secs;
}

}  // namespace shoal::cli

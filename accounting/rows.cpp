#include "accounting/rows.hpp"

#include <charconv>

namespace shoal::accounting {

namespace {

/// sacct lists the special steps first, in this order.
int special_rank(uint32_t step_id) {
  switch (step_id) {
    case batch_step:
      return 0;
    case extern_step:
      return 1;
    case interactive_step:
      return 2;
    default:
      return 3;
  }
}

template <class T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

}  // namespace

std::string job_id_text(const job_row& job) {
  if (job.array_task_id < 0) return std::to_string(job.job_id);
  return std::to_string(job.array_job_id) + "_" + std::to_string(job.array_task_id);
}

std::string step_id_text(std::string_view job_text, uint32_t step_id) {
  std::string out{job_text};
  switch (step_id) {
    case batch_step:
      return out + ".batch";
    case extern_step:
      return out + ".extern";
    case interactive_step:
      return out + ".interactive";
    default:
      return out + "." + std::to_string(step_id);
  }
}

bool step_order(uint32_t a, uint32_t b) {
  int ra = special_rank(a), rb = special_rank(b);
  if (ra != rb) return ra < rb;
  return a < b;
}

expected<job_selector> parse_job_selector(std::string_view text) {
  auto bad = [&] {
    return error{errc::invalid_request,
                 "invalid job id '" + std::string{text} + "': expected JOBID or ARRAYID_TASK"};
  };
  auto job = text.substr(0, text.find('.'));
  job_selector out;
  auto underscore = job.find('_');
  if (!parse_number(job.substr(0, underscore), out.job_id) || out.job_id == 0) return bad();
  if (underscore != std::string_view::npos &&
      (!parse_number(job.substr(underscore + 1), out.array_task_id) || out.array_task_id < 0))
    return bad();
  return out;
}

}  // namespace shoal::accounting

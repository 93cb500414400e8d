#include "tools/cli/steps.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "messages/caf/type_ids.hpp"
#include "tools/cli/identity.hpp"
#include "tools/format/step_format.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

namespace {

bool in_list(const std::string& list, const std::string& value) {
  for (auto& item : detail::split_list(list, false))
    if (item == value) return true;
  return false;
}

/// The record on one line, as scontrol -o prints a step: its lines joined by blanks.
std::string joined(const std::string& record) {
  std::string out;
  for (size_t i = 0; i < record.size(); ++i) {
    if (record[i] != '\n') {
      out.push_back(record[i]);
      continue;
    }
    auto next = record.find_first_not_of(' ', i + 1);
    if (next == std::string::npos || record[next] == '\n') break;
    out.push_back(' ');
    i = next - 1;
  }
  out.push_back('\n');
  return out;
}

}  // namespace

int run_step_queue(const step_queue_request& q, const std::string& conf) {
  std::vector<step_selector> wanted;
  if (!q.steps.empty()) {
    auto parsed = parse_step_list(q.steps);
    if (!parsed) return fail("queue", describe(parsed.error()));
    wanted = std::move(*parsed);
  }
  std::vector<step_selector> jobs;
  for (auto& item : detail::split_list(q.jobs, false)) {
    step_selector sel;
    char* rest = nullptr;
    sel.job_id = std::strtoull(item.c_str(), &rest, 10);
    if (rest != nullptr && *rest == '_') sel.array_task = std::strtoll(rest + 1, nullptr, 10);
    jobs.push_back(sel);
  }
  int code = 0;
  auto s = open_session("queue", conf, code);
  if (!s) return code;
  // One job asked for: only its steps come (slurm_get_job_steps with its id); else all.
  uint64_t one_job = jobs.size() == 1 && wanted.empty() ? jobs.front().job_id : 0;
  auto steps = ask<std::vector<msg::step_info>>(*s, msg::steps_atom_v, one_job, msg::all_steps);
  if (!steps) return fail_as_perror("queue", "slurm_get_job_steps error", describe(steps.error()));
  std::vector<msg::step_info> shown;
  for (auto& st : *steps) {
    if (q.no_users) break;
    if (!jobs.empty() && std::none_of(jobs.begin(), jobs.end(),
                                      [&](const step_selector& j) { return step_selected(st, j); }))
      continue;
    if (!wanted.empty() && std::none_of(wanted.begin(), wanted.end(), [&](const step_selector& w) {
          return step_selected(st, w);
        }))
      continue;
    if (!q.partitions.empty() && !in_list(q.partitions, st.partition)) continue;
    if (!q.users.empty() && !in_list(q.users, st.user)) continue;
    shown.push_back(std::move(st));
  }
  if (q.long_list && !q.no_header) {
    auto now = std::time(nullptr);
    char buf[64];
    std::fputs(ctime_r(&now, buf), stdout);
  }
  squeue_format_options opt;
  opt.format = q.letters;
  opt.long_format = q.long_format;
  opt.sort = q.sort;
  opt.no_header = q.no_header;
  auto out = render_squeue_steps(std::move(shown), opt, now_seconds());
  for (auto& line : out.errors) fail("queue", line);
  std::fputs(out.text.c_str(), stdout);
  return 0;
}

int show_steps(session& s, const std::string& id, bool one_line) {
  step_selector sel;
  if (!id.empty()) {
    char* rest = nullptr;
    sel.job_id = std::strtoull(id.c_str(), &rest, 10);
    if (rest != nullptr && *rest == '_') sel.array_task = std::strtoll(rest + 1, &rest, 10);
    if (rest != nullptr && *rest == '.') {
      std::string step = rest + 1;
      if (detail::iequals(step, "batch"))
        sel.step_id = msg::batch_step_id;
      else if (detail::iequals(step, "extern"))
        sel.step_id = 0xfffffffc;
      else
        sel.step_id = static_cast<uint32_t>(std::strtoul(step.c_str(), nullptr, 10));
    }
  }
  auto steps = ask<std::vector<msg::step_info>>(s, msg::steps_atom_v, sel.job_id, sel.step_id);
  if (!steps)
    return fail_as_perror("control", "slurm_get_job_steps error", describe(steps.error()));
  size_t printed = 0;
  for (auto& st : *steps) {
    if (!id.empty() && !step_selected(st, sel)) continue;
    auto record = show_step(st);
    std::fputs(one_line ? joined(record).c_str() : record.c_str(), stdout);
    ++printed;
  }
  if (printed > 0) return 0;
  if (id.empty()) {
    std::printf("No job steps in the system\n");
    return 0;
  }
  // As scontrol: the step's part as log_build_step_id_str prints it (N/A for no step).
  std::string step = sel.step_id == msg::all_steps       ? "N/A"
                     : sel.step_id == msg::batch_step_id ? "batch"
                     : sel.step_id == 0xfffffffc         ? "extern"
                                                         : std::to_string(sel.step_id);
  std::string job = std::to_string(sel.job_id);
  if (sel.array_task >= 0) job += "_" + std::to_string(sel.array_task);
  std::printf("Job step %s.%s not found\n", job.c_str(), step.c_str());
  return exit_failure;
}

}  // namespace shoal::cli

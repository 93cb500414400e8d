// `shoal stat` (sstat): what a running job's steps used so far, as Slurm 22.05's sstat prints
// it. The controller asks each node that runs a step now (docs/accounting.md, "sstat").

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "accounting/rows.hpp"
#include "messages/caf/type_ids.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/session.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/sstat_format.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

namespace {

struct stat_flags {
  std::vector<std::string> jobs;     ///< -j, each a comma list
  std::vector<std::string> formats;  ///< -o, each adding to the list
  std::vector<std::string> positional;
  bool all_steps = false;
  bool no_header = false;
  bool parsable = false;
  bool parsable2 = false;
  bool help_format = false;
  int verbose = 0;
};

/// One -j item: a job, and a step of it or none (every step).
struct selected_step {
  uint64_t job = 0;
  uint32_t step = msg::all_steps;  ///< as the job numbers its steps (batch: msg::batch_step_id)
  std::string text;                ///< the step's part as given ("batch", "0"); empty: none
};

/// Reads `12`, `12.0`, `12.batch` as slurm_addto_step_list does. Error: the bad item.
shoal::expected<selected_step> parse_step(const std::string& item) {
  selected_step out;
  auto dot = item.find('.');
  auto job = item.substr(0, dot);
  if (job.empty() || job.find_first_not_of("0123456789") != std::string::npos || job.size() > 10)
    return shoal::error(errc::invalid_request, "Invalid job id: " + item);
  out.job = std::strtoull(job.c_str(), nullptr, 10);
  if (dot == std::string::npos) return out;
  out.text = item.substr(dot + 1);
  if (out.text == "batch") {
    out.step = msg::batch_step_id;
  } else if (!out.text.empty() && out.text.find_first_not_of("0123456789") == std::string::npos &&
             out.text.size() <= 9) {
    out.step = static_cast<uint32_t>(std::strtoul(out.text.c_str(), nullptr, 10));
  } else {
    return shoal::error(errc::invalid_request, "Invalid job id: " + item);
  }
  return out;
}

/// Step ids in the order slurmctld lists a job's steps: the special ones (created with the job)
/// first, then 0, 1, ...
bool listing_order(const msg::accounted_step& a, const msg::accounted_step& b) {
  bool sa = a.step_id > accounting::max_normal_step, sb = b.step_id > accounting::max_normal_step;
  if (sa != sb) return sa;
  return a.step_id < b.step_id;
}

/// sstat's %ps of a step: "StepId=12.0", "StepId=12.batch".
std::string step_text(const selected_step& s) {
  return "StepId=" + std::to_string(s.job) + "." + s.text;
}

}  // namespace

command_runner add_stat_command(CLI::App& app, const std::string& conf) {
  auto* cmd =
      app.add_subcommand("stat", "What the running steps of a job used so far, as sstat prints it");
  cmd->alias("sstat");
  auto f = std::make_shared<stat_flags>();
  cmd->add_option("-j,--jobs", f->jobs,
                  "Jobs or steps to show: 12 (its first step), 12.0, 12.batch (comma list)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("job", f->positional, "A job or step, as -j takes it");
  cmd->add_flag("-a,--allsteps", f->all_steps,
                "Every running step of the jobs given without a step (the batch step too)");
  cmd->add_option("-o,--format,--fields", f->formats,
                  "Fields to show: sstat's names, comma-separated, NAME%WIDTH for a width "
                  "(JobID,MaxRSS,AveCPU); -e lists them")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("-n,--noheader", f->no_header, "Leave out the header lines");
  cmd->add_flag("-p,--parsable", f->parsable, "Fields separated by |, with one at the end");
  cmd->add_flag("-P,--parsable2", f->parsable2, "Fields separated by |, none at the end");
  cmd->add_flag("--noconvert", no_unit_conversion(),
                "Memory and disk figures in bytes, never scaled to K, M, G");
  cmd->add_flag("-e,--helpformat", f->help_format, "List the field names and exit");
  cmd->add_flag("-v,--verbose", f->verbose, "Accepted for sstat's sake");
  cmd->footer(
      "Each node running a step samples it when asked (shoal-stepd, docs/accounting.md): MaxRSS "
      "is the highest resident memory of the step's processes on one node, AveCPU the CPU time "
      "per task. A job given without a step shows its first step (0, 1, ...), or every running "
      "step with -a; a batch job's own script is its .batch step.");
  return [f, &conf]() -> int {
    if (f->help_format) {
      print_field_names(sstat_field_names());
      return 0;
    }
    std::vector<selected_step> wanted;
    auto items = f->jobs;
    if (!f->positional.empty()) items.push_back(f->positional.front());
    for (auto& list : items)
      for (auto& item : detail::split_list(list, false)) {
        auto s = parse_step(item);
        if (!s) return fail("stat", describe(s.error()));
        wanted.push_back(*s);
      }
    if (wanted.empty()) return fail("stat", "You didn't give me any jobs to stat.");
    std::string list;
    for (auto& o : f->formats) list += o + ",";
    auto columns = parse_sstat_fields(list.empty() ? sstat_default_fields : list);
    if (!columns) return fail("stat", describe(columns.error()));
    sstat_print_options opt;
    opt.no_header = f->no_header;
    opt.parsable = f->parsable2 ? 2 : f->parsable ? 1 : 0;
    int code = 0;
    auto s = open_session("stat", conf, code);
    if (!s) return code;
    std::fputs(render_sstat_header(*columns, opt).c_str(), stdout);
    std::fflush(stdout);
    for (auto& w : wanted) {
      auto found = ask<std::vector<msg::accounted_job>>(*s, msg::usage_atom_v, w.job, w.step);
      if (!found) {
        if (found.error().code() == errc::unknown_job) {
          fail("stat", "couldn't get steps for job " + std::to_string(w.job));
          continue;
        }
        return fail("stat", describe(found.error()));
      }
      std::vector<msg::accounted_step> steps;
      if (!found->empty()) steps = std::move(found->front().steps);
      if (steps.empty()) {
        fail("stat", w.step == msg::all_steps ? "No steps running for job " + std::to_string(w.job)
                                              : step_text(w) + " not found running.");
        continue;
      }
      std::sort(steps.begin(), steps.end(), listing_order);
      // As sstat: without a step or -a, the first normal step alone.
      if (w.step == msg::all_steps && !f->all_steps) {
        auto first = std::find_if(steps.begin(), steps.end(), [](const msg::accounted_step& x) {
          return x.step_id <= accounting::max_normal_step;
        });
        if (first == steps.end())
          steps.clear();
        else
          steps = {*first};
      }
      for (auto& step : steps)
        std::fputs(render_sstat_line(std::to_string(w.job), step, *columns, opt).c_str(), stdout);
      std::fflush(stdout);
    }
    return 0;
  };
}

}  // namespace shoal::cli

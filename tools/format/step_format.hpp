#pragma once

// Job steps as Slurm 22.05 lists them: `squeue -s` (src/squeue/print.c, the step fields of
// opts.c's parse_format and parse_long_format, sort.c's sort_step_list) and `scontrol show
// steps` (src/api/job_step_info.c, slurm_sprint_job_step_info). Pure: the CLI fetches the steps.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "tools/format/squeue_format.hpp"

namespace shoal::cli {

/// A step's id as squeue's %i prints it: `12.0`, `12.batch`, an array task's `10_3.0`.
std::string step_id_text(const msg::step_info& s);

/// One item of `squeue -s LIST` (or of `scontrol show step ID`): a job (or an array's task) and
/// a step of it.
struct step_selector {
  uint64_t job_id = 0;
  int64_t array_task = -1;            ///< `10_3.0`: 3; -1: none given
  uint32_t step_id = msg::all_steps;  ///< all_steps: every step of the job (scontrol only)
};

/// Parses squeue's --steps list as its _build_step_list does: comma-separated `JOB[_TASK].STEP`,
/// STEP a number or `batch`. Error (errc::invalid_request, squeue's words, after which it exits
/// 1): `Invalid job_step id: 12.??` for an item without a step, `Invalid job_step id: 0.1` for a
/// job id that is not positive.
shoal::expected<std::vector<step_selector>> parse_step_list(std::string_view list);

/// Whether `s` is one `sel` names: the job id matches the step's job or its array (with the task
/// when given) and the step id (unless all_steps).
bool step_selected(const msg::step_info& s, const step_selector& sel);

/// The steps in squeue -s's format: opt.format (letters: A b i j l M N P S U u, as squeue's
/// parse_format takes for steps) or opt.long_format (squeue's step names: stepid, stepname,
/// jobid, arrayjobid, arraytaskid, numtasks, numcpus, timelimit, timeused, starttime, nodes,
/// partition, userid, username, network, cpufreq, resvports, stepstate, container, gres and
/// the tres-per-* names); empty format: squeue's `%.15i %.8j %.9P %.8u %.9M %N`. Sorted by
/// opt.sort (letters i N P l S M u U; empty: squeue's `P,i`) unless presorted. Unknown letters
/// and names print as squeue prints them, with the error line `Invalid job step format
/// specification: X`.
slurm_output render_squeue_steps(std::vector<msg::step_info> steps,
                                 const squeue_format_options& opt, int64_t now);

/// `scontrol show step` for one step, as slurm_sprint_job_step_info lays it out (StepId,
/// UserId, StartTime, TimeLimit; State, Partition, NodeList; Nodes, CPUs, Tasks, Name, Network;
/// TRES; ResvPorts; CPUFreqReq, Dist; SrunHost:Pid; TresPerNode when the step asked for GRES):
/// lines after the first indented by three blanks, and a blank line after the record.
std::string show_step(const msg::step_info& s);

}  // namespace shoal::cli

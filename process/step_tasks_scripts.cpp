// step_tasks' TaskProlog and TaskEpilog (process/task_scripts.hpp): run as the task's user with
// its environment, the prolog's output applied before the task starts.

#include <fcntl.h>
#include <unistd.h>

#include "config/log.hpp"
#include "process/step_tasks.hpp"

namespace shoal::process {

namespace {

/// The directory a task script runs in: the task's first candidate that exists.
std::string script_cwd(const task_spec& spec) {
  for (const auto& dir : spec.cwd_candidates)
    if (::access(dir.c_str(), X_OK) == 0) return dir;
  return "/";
}

/// Appends `text` to the output file a task writes to (the file is opened as the task would
/// open it, so a truncating task truncates it first and keeps appending after).
void write_to_output_file(task_spec& spec, const std::string& dir, const std::string& text) {
  auto path = spec.stdout_path;
  if (!path.empty() && path.front() != '/') path = dir + "/" + path;
  int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (spec.truncate_output ? O_TRUNC : 0);
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return;
  if (spec.switch_user) {
    auto ignored = ::fchown(fd, spec.uid, spec.gid);
    (void)ignored;
  }
  auto ignored = ::write(fd, text.data(), text.size());
  (void)ignored;
  ::close(fd);
  spec.truncate_output = false;  // the task appends to what its prolog printed
}

}  // namespace

bool step_tasks::run_task_prolog(size_t i, task_spec& spec) {
  auto& t = tasks_[i];
  auto cwd = script_cwd(spec);
  // TaskProlog= first, then srun --task-prolog, as slurmstepd runs them.
  std::vector<std::pair<std::string, std::string>> prologs;
  if (!scripts_.prolog.empty()) prologs.emplace_back("TaskProlog", scripts_.prolog);
  if (!req_.io.task_prolog.empty()) prologs.emplace_back("--task-prolog", req_.io.task_prolog);
  auto uid = spec.switch_user ? spec.uid : static_cast<uid_t>(-1);
  std::string printed;
  for (const auto& [label, program] : prologs) {
    auto env = spec.env;
    env.push_back("SLURM_SCRIPT_CONTEXT=prolog_task");
    auto r = run_task_script(label, program, std::move(env), uid, spec.gid, spec.groups, cwd,
                             scripts_.timeout);
    if (!r.ok) {
      config::log().error("{} failed job={} step={} rank={} prog={} status=\"{}\"", label,
                          req_.job_id, msg::step_label(req_.step_id), t.rank, program,
                          r.status_text);
      fail_unstarted(i, label + " " + program + " failed: " + r.status_text, 1);
      return false;
    }
    printed += apply_task_prolog_output(r.output, spec.env);
  }
  if (!scripts_.epilog.empty() || !req_.io.task_epilog.empty()) {
    t.env = spec.env;
    t.cwd = cwd;
  }
  if (printed.empty()) return true;
  if (spec.capture_output)
    send_output(t, t.out, std::move(printed));
  else
    write_to_output_file(spec, cwd, printed);
  return true;
}

void step_tasks::run_task_epilog(const task_state& t) {
  if (t.env.empty()) return;
  // srun --task-epilog first, then TaskEpilog=, as slurmstepd runs them.
  std::vector<std::pair<std::string, std::string>> epilogs;
  if (!req_.io.task_epilog.empty()) epilogs.emplace_back("--task-epilog", req_.io.task_epilog);
  if (!scripts_.epilog.empty()) epilogs.emplace_back("TaskEpilog", scripts_.epilog);
  auto uid = switch_user() ? static_cast<uid_t>(req_.uid) : static_cast<uid_t>(-1);
  for (const auto& [label, program] : epilogs) {
    auto env = t.env;
    env.push_back("SLURM_SCRIPT_CONTEXT=epilog_task");
    auto r = run_task_script(label, program, std::move(env), uid, static_cast<gid_t>(req_.gid),
                             groups_, t.cwd, scripts_.timeout);
    if (!r.ok)
      config::log().error("{} failed job={} step={} rank={} prog={} status=\"{}\"", label,
                          req_.job_id, msg::step_label(req_.step_id), t.rank, program,
                          r.status_text);
  }
}

}  // namespace shoal::process

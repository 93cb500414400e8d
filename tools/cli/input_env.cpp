#include "tools/cli/input_env.hpp"

#include <cstdlib>

#include "tools/cli/batch_script.hpp"

namespace shoal::cli {

namespace {

/// One variable: its suffix after the command's prefix, and the option it stands for. A flag
/// takes no value.
struct input_variable {
  const char* suffix;
  const char* option;
  bool flag = false;
};

// sbatch(1), INPUT ENVIRONMENT VARIABLES (prefix SBATCH_), for the options shoal has.
const input_variable batch_table[] = {
    {"ACCOUNT", "--account"},
    {"ARRAY_INX", "--array"},
    {"DISTRIBUTION", "--distribution"},
    {"EXCLUSIVE", "--exclusive", true},
    {"EXPORT", "--export"},
    {"GPUS_PER_NODE", "--gpus-per-node"},
    {"GRES", "--gres"},
    {"HINT", "--hint"},
    {"JOB_NAME", "--job-name"},
    {"MEM_PER_CPU", "--mem-per-cpu"},
    {"MEM_PER_NODE", "--mem"},
    {"NO_REQUEUE", "--no-requeue", true},
    {"OPEN_MODE", "--open-mode"},
    {"PARTITION", "--partition"},
    {"QOS", "--qos"},
    {"REQUEUE", "--requeue", true},
    {"SIGNAL", "--signal"},
    {"TIMELIMIT", "--time"},
    {"WAIT", "--wait", true},
};

// srun(1), INPUT ENVIRONMENT VARIABLES (prefix SLURM_): inside a batch job these carry the
// job's own shape to a bare `srun`.
const input_variable run_table[] = {
    {"ACCOUNT", "--account"},
    {"CPUS_PER_TASK", "--cpus-per-task"},
    {"DEPENDENCY", "--dependency"},
    {"DISTRIBUTION", "--distribution"},
    {"EXCLUSIVE", "--exclusive", true},
    {"EXPORT_ENV", "--export"},
    {"GPUS_PER_NODE", "--gpus-per-node"},
    {"GRES", "--gres"},
    {"HINT", "--hint"},
    {"JOB_NAME", "--job-name"},
    {"LABELIO", "--label", true},
    {"MEM_PER_CPU", "--mem-per-cpu"},
    {"MEM_PER_NODE", "--mem"},
    {"MPI_TYPE", "--mpi"},
    {"NNODES", "--nodes"},
    {"NTASKS", "--ntasks"},
    {"NTASKS_PER_NODE", "--ntasks-per-node"},
    {"OPEN_MODE", "--open-mode"},
    {"PARTITION", "--partition"},
    {"QOS", "--qos"},
    {"SIGNAL", "--signal"},
    {"TIMELIMIT", "--time"},
    {"WAIT", "--wait"},
};

// salloc(1), INPUT ENVIRONMENT VARIABLES (prefix SALLOC_).
const input_variable alloc_table[] = {
    {"ACCOUNT", "--account"},
    {"BELL", "--bell", true},
    {"EXCLUSIVE", "--exclusive", true},
    {"GPUS_PER_NODE", "--gpus-per-node"},
    {"GRES", "--gres"},
    {"HINT", "--hint"},
    {"IMMEDIATE", "--immediate"},
    {"JOB_NAME", "--job-name"},
    {"KILL_CMD", "--kill-command"},
    {"MEM_PER_CPU", "--mem-per-cpu"},
    {"MEM_PER_NODE", "--mem"},
    {"NO_BELL", "--no-bell", true},
    {"PARTITION", "--partition"},
    {"QOS", "--qos"},
    {"SIGNAL", "--signal"},
    {"TIMELIMIT", "--time"},
    {"WAIT_ALL_NODES", "--wait-all-nodes"},
};

bool set(const char* value) {
  return value != nullptr;
}

}  // namespace

std::vector<std::string> input_env_options(std::string_view command, const CLI::App& app) {
  const input_variable* begin = nullptr;
  const input_variable* end = nullptr;
  std::string prefix;
  if (command == "batch") {
    begin = std::begin(batch_table), end = std::end(batch_table), prefix = "SBATCH_";
  } else if (command == "run") {
    begin = std::begin(run_table), end = std::end(run_table), prefix = "SLURM_";
  } else if (command == "alloc") {
    begin = std::begin(alloc_table), end = std::end(alloc_table), prefix = "SALLOC_";
  } else {
    return {};
  }
  bool in_job = set(std::getenv("SLURM_JOB_ID")) || set(std::getenv("SHOAL_JOB_ID"));
  std::vector<std::string> words;
  for (auto* v = begin; v != end; ++v) {
    auto name = prefix + v->suffix;
    const char* value = std::getenv(name.c_str());
    if (!set(value)) continue;
    if (command == "run" && in_job && name == "SLURM_JOB_NAME") continue;
    if (app.get_option_no_throw(v->option) == nullptr) continue;
    if (v->flag)
      words.push_back(v->option);
    else
      words.push_back(std::string{v->option} + "=" + value);
  }
  return words;
}

std::string apply_input_env(std::string_view command, CLI::App& lower, bool batch) {
  auto words = input_env_options(command, lower);
  if (words.empty()) return "";
  CLI::App from_env{"input environment variables"};
  job_options env_opts;
  add_job_options(from_env, env_opts, batch, command == "alloc");
  try {
    std::vector<std::string> reversed(words.rbegin(), words.rend());
    from_env.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::string list;
    for (auto& w : words) list += (list.empty() ? "" : " ") + w;
    return std::string{"bad input environment variable ("} + list + "): " + e.what();
  }
  apply_command_line(lower, from_env);
  return "";
}

std::string layer_input_env(std::string_view command, CLI::App& cmd, job_options& opts,
                            bool alloc) {
  if (input_env_options(command, cmd).empty()) return "";
  CLI::App lower{"input environment variables"};
  job_options lower_opts;
  add_job_options(lower, lower_opts, false, alloc);
  lower.parse(std::vector<std::string>{});
  if (auto bad = apply_input_env(command, lower, false); !bad.empty()) return bad;
  auto given = [](const CLI::App& app, const char* name) {
    const auto* option = app.get_option_no_throw(name);
    return option != nullptr && option->count() > 0;
  };
  bool nodes_from_env = given(lower, "--nodes") && !given(cmd, "--nodes");
  bool tasks_from_env = given(lower, "--ntasks") && !given(cmd, "--ntasks");
  apply_command_line(lower, cmd);
  auto min_nodes = std::strtoul(lower_opts.nodes.c_str(), nullptr, 10);
  if (nodes_from_env && given(cmd, "--nodelist")) lower_opts.nodes.clear();
  if (nodes_from_env && given(cmd, "--ntasks") && lower_opts.ntasks < min_nodes)
    lower_opts.nodes = std::to_string(lower_opts.ntasks);
  if (tasks_from_env && given(cmd, "--nodes") && lower_opts.ntasks < min_nodes)
    lower_opts.ntasks = 0;
  opts = lower_opts;
  return "";
}

}  // namespace shoal::cli

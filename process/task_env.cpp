// The task environment half of process/task_launch.hpp: the variables each task gets (shoal's
// and Slurm's names), the PATH it runs with, and the CPU-binding variables. The launch itself
// (clone/exec, user switch, binding) is task_launch.cpp.

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "process/task_launch.hpp"
#include "topology/task_layout.hpp"

namespace shoal::process {

void set_env(std::vector<std::string>& env, const std::string& key, const std::string& value) {
  auto matches = [&](const std::string& entry) {
    return entry.size() > key.size() && entry[key.size()] == '=' &&
           entry.compare(0, key.size(), key) == 0;
  };
  bool done = false;
  for (auto i = env.begin(); i != env.end();) {
    if (!matches(*i)) {
      ++i;
    } else if (!done) {
      *i = key + "=" + value;
      done = true;
      ++i;
    } else {
      i = env.erase(i);
    }
  }
  if (!done) env.push_back(key + "=" + value);
}

const std::string* find_env(const std::vector<std::string>& env, const std::string& key) {
  for (auto& entry : env) {
    if (entry.size() > key.size() && entry[key.size()] == '=' &&
        entry.compare(0, key.size(), key) == 0)
      return &entry;
  }
  return nullptr;
}

void unset_env(std::vector<std::string>& env, const std::string& key) {
  env.erase(std::remove_if(env.begin(), env.end(),
                           [&](const std::string& entry) {
                             return entry.size() > key.size() && entry[key.size()] == '=' &&
                                    entry.compare(0, key.size(), key) == 0;
                           }),
            env.end());
}

void find_command_dirs(const std::string& exe_dir, task_env_settings& settings) {
  settings.shoal_dir.clear();
  settings.slurm_names_dir.clear();
  if (exe_dir.empty()) return;
  auto shoal = exe_dir + "/shoal";
  struct stat st;
  if (::stat(shoal.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(shoal.c_str(), X_OK) == 0)
    settings.shoal_dir = exe_dir;
  // Beside the binary in a build (bin/slurm-names); installed, under lib/shoal/ (the package's
  // /usr/lib/shoal/slurm-names), out of bin/ so that they never shadow a Slurm on PATH.
  for (auto names :
       {exe_dir + "/" + slurm_names_folder, exe_dir + "/../lib/shoal/" + slurm_names_folder}) {
    if (::stat(names.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      settings.slurm_names_dir = std::filesystem::path(names).lexically_normal().string();
      return;
    }
  }
}

namespace {
// Private to shoald and its shoal-stepd processes: tasks never see them (their environment is
// the request's).
constexpr const char* slurm_env_var = "SHOAL_STEPD_SLURM_ENV";
constexpr const char* cluster_name_var = "SHOAL_STEPD_CLUSTER_NAME";
}  // namespace

void export_task_env(const std::string& conf_path, bool slurm_env,
                     const std::string& cluster_name) {
  if (!conf_path.empty()) {
    std::error_code ec;
    auto absolute = std::filesystem::absolute(conf_path, ec);
    ::setenv("SHOAL_CONF", ec ? conf_path.c_str() : absolute.c_str(), 1);
  }
  ::setenv(slurm_env_var, slurm_env ? "yes" : "no", 1);
  ::setenv(cluster_name_var, cluster_name.c_str(), 1);
}

task_env_settings task_env_from_environment() {
  auto get = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string{value != nullptr ? value : ""};
  };
  task_env_settings settings;
  settings.shoal_conf = get("SHOAL_CONF");
  settings.slurm_env = get(slurm_env_var) != "no";
  settings.cluster_name = get(cluster_name_var);
  if (auto path = get("PATH"); !path.empty()) settings.default_path = path;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) find_command_dirs(self.parent_path().string(), settings);
  return settings;
}

std::string task_path(const std::vector<std::string>& env, const task_env_settings& settings) {
  auto* entry = find_env(env, "PATH");
  std::string path = entry != nullptr ? entry->substr(5) : settings.default_path;
  auto holds = [](const std::string& list, const std::string& dir) {
    size_t pos = 0;
    for (;;) {
      auto end = list.find(':', pos);
      if (list.compare(pos, end == std::string::npos ? std::string::npos : end - pos, dir) == 0)
        return true;
      if (end == std::string::npos) return false;
      pos = end + 1;
    }
  };
  std::string front;
  auto put_first = [&](const std::string& dir) {
    if (dir.empty() || holds(path, dir) || (!front.empty() && holds(front, dir))) return;
    front += front.empty() ? dir : ":" + dir;
  };
  put_first(settings.shoal_dir);
  if (settings.slurm_env) put_first(settings.slurm_names_dir);
  if (front.empty()) return path;
  return path.empty() ? front : front + ":" + path;
}

namespace {

/// The GPUs the job holds on this node, as Slurm 22.05's gres/gpu plugin sets them for a task
/// (gres_common_gpu_set_env, with the default env flags and no device cgroup): the devices'
/// indices among the node's GPUs in CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
/// ZE_AFFINITY_MASK and GPU_DEVICE_ORDINAL, and (Slurm's names) SLURM_JOB_GPUS for the batch
/// script, SLURM_STEP_GPUS for a step, SLURM_GPUS_ON_NODE. A node with GPUs where the job holds
/// none removes them all, so an inherited value never names another job's devices.
void set_gpu_env(std::vector<std::string>& env, const msg::launch_request& req, bool batch,
                 bool slurm_names) {
  auto gpu = std::find_if(req.gres.begin(), req.gres.end(),
                          [](const msg::gres_held& h) { return h.name == "gpu"; });
  if (gpu == req.gres.end()) return;
  std::string list;
  for (auto i : gpu->indices) list += (list.empty() ? "" : ",") + std::to_string(i);
  const char* visible[] = {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
                           "GPU_DEVICE_ORDINAL"};
  const char* ours = batch ? "SLURM_JOB_GPUS" : "SLURM_STEP_GPUS";
  if (list.empty()) {
    for (const char* key : visible) unset_env(env, key);
    if (slurm_names) {
      unset_env(env, ours);
      unset_env(env, "SLURM_GPUS_ON_NODE");
    }
    return;
  }
  for (const char* key : visible) set_env(env, key, list);
  if (!slurm_names) return;
  set_env(env, ours, list);
  set_env(env, "SLURM_GPUS_ON_NODE", std::to_string(gpu->indices.size()));
}

}  // namespace

std::vector<std::string> build_task_env(const msg::launch_request& req, uint32_t rank,
                                        uint32_t local_id, const std::string& node_name,
                                        const task_env_settings& settings) {
  auto env = req.env;
  auto num = [](auto x) { return std::to_string(x); };
  bool batch = req.batch || req.step_id == msg::batch_step_id;
  auto job_nodelist = req.job_nodelist.empty() ? req.nodelist : req.job_nodelist;
  auto job_nodes = req.job_node_count != 0 ? req.job_node_count : req.node_count;
  set_env(env, "SHOAL_JOB_ID", num(req.job_id));
  set_env(env, "SHOAL_STEP_ID", batch ? std::string{"batch"} : num(req.step_id));
  set_env(env, "SHOAL_PROCID", num(rank));
  set_env(env, "SHOAL_NTASKS", num(req.ntasks));
  set_env(env, "SHOAL_NODEID", num(req.node_index));
  set_env(env, "SHOAL_LOCALID", num(local_id));
  set_env(env, "SHOAL_NNODES", num(req.node_count));
  set_env(env, "SHOAL_JOB_NODELIST", job_nodelist);
  set_env(env, "SHOAL_STEP_NODELIST", req.nodelist);
  set_env(env, "SHOAL_SUBMIT_DIR", req.cwd);
  set_env(env, "SHOAL_CPUS_PER_TASK", num(req.cpus_per_task));
  set_env(env, "SHOAL_JOB_NAME", req.job_name);
  set_env(env, "SHOAL_JOB_PARTITION", req.partition);
  set_env(env, "SHOAL_JOB_NUM_NODES", num(job_nodes));
  set_env(env, "SHOAL_NODENAME", node_name);
  // Only jobs with cloud nodes get it (the guide), and then it names only those.
  if (!req.node_aliases.empty()) set_env(env, "SHOAL_NODE_ALIASES", req.node_aliases);
  if (!settings.shoal_conf.empty()) set_env(env, "SHOAL_CONF", settings.shoal_conf);
  // A request without PATH keeps running without one unless there is a folder to add.
  auto path = task_path(env, settings);
  if (find_env(env, "PATH") != nullptr || path != settings.default_path) set_env(env, "PATH", path);
  set_gpu_env(env, req, batch, settings.slurm_env);
  if (!settings.slurm_env) return env;

  // Slurm's names, as Slurm 22.05 sets them: the batch script's from env_array_for_batch_job,
  // a step's from env_array_for_step plus what slurmstepd's setup_env adds per task
  // (src/common/env.c). Inherited values (a job submitted from inside another) are overwritten.
  // A batch script sees the job's task count and layout; a step its own (with SLURM_NNODES its
  // own node count while SLURM_NODELIST stays the job's, as srun leaves them). Slurm sets the
  // batch script's SLURM_NTASKS only when --ntasks was given; shoal always knows the count
  // (-n, else one per node) and sets it: differs on purpose, so a script can rely on it.
  uint32_t ntasks = batch ? req.job_ntasks : req.ntasks;
  uint32_t nnodes = batch ? job_nodes : req.node_count;
  // What shoal launches (topology::block_task_counts, as cluster::distribute_tasks); Slurm
  // weighs its layout by each node's CPUs, so on nodes of different sizes the two may differ.
  auto per_node = topology::compress_counts(topology::block_task_counts(ntasks, nnodes));
  set_env(env, "SLURM_JOB_ID", num(req.job_id));
  set_env(env, "SLURM_JOBID", num(req.job_id));
  if (batch) {
    // Slurm's batch step has no SLURM_STEP_ID (its id is negative where setup_env checks): one
    // inherited from the submitting step would name a step of another job.
    for (const char* key :
         {"SLURM_STEP_ID", "SLURM_STEPID", "SLURM_STEP_NODELIST", "SLURM_STEP_NUM_NODES",
          "SLURM_STEP_NUM_TASKS", "SLURM_STEP_TASKS_PER_NODE"})
      unset_env(env, key);
  } else {
    set_env(env, "SLURM_STEP_ID", num(req.step_id));
    set_env(env, "SLURM_STEPID", num(req.step_id));
    set_env(env, "SLURM_STEP_NODELIST", req.nodelist);
    set_env(env, "SLURM_STEP_NUM_NODES", num(req.node_count));
    set_env(env, "SLURM_STEP_NUM_TASKS", num(req.ntasks));
    set_env(env, "SLURM_STEP_TASKS_PER_NODE", per_node);
  }
  set_env(env, "SLURM_JOB_NAME", req.job_name);
  // ntasks is 0 only from a controller that did not send the job's count.
  if (ntasks > 0) {
    set_env(env, "SLURM_NTASKS", num(ntasks));
    set_env(env, "SLURM_NPROCS", num(ntasks));
    set_env(env, "SLURM_TASKS_PER_NODE", per_node);
  }
  set_env(env, "SLURM_NNODES", num(nnodes));
  set_env(env, "SLURM_JOB_NUM_NODES", num(job_nodes));
  set_env(env, "SLURM_JOB_NODELIST", job_nodelist);
  set_env(env, "SLURM_NODELIST", job_nodelist);
  set_env(env, "SLURM_PROCID", num(rank));
  set_env(env, "SLURM_LOCALID", num(local_id));
  set_env(env, "SLURM_NODEID", num(req.node_index));
  // Only when asked for, as sbatch and srun export it; an inherited value is left alone, as
  // Slurm leaves it.
  if (req.cpus_per_task_set) set_env(env, "SLURM_CPUS_PER_TASK", num(req.cpus_per_task));
  // The tasks' working directory: sbatch's own directory in Slurm, which differs when -D moved
  // the job elsewhere (shoal's request keeps only where the tasks run).
  set_env(env, "SLURM_SUBMIT_DIR", req.cwd);
  set_env(env, "SLURM_JOB_PARTITION", req.partition);
  set_env(env, "SLURMD_NODENAME", node_name);
  if (!req.node_aliases.empty()) set_env(env, "SLURM_NODE_ALIASES", req.node_aliases);
  if (!settings.cluster_name.empty()) set_env(env, "SLURM_CLUSTER_NAME", settings.cluster_name);
  // The controller sets SHOAL_ARRAY_* for array tasks (actors/controller.cpp, start_array_task);
  // Slurm's names mirror them, so SlurmEnv=NO turns them off with the rest. Slurm's
  // SLURM_ARRAY_TASK_STEP has no SHOAL_ counterpart and is not set.
  for (const char* part : {"JOB_ID", "TASK_ID", "TASK_COUNT", "TASK_MIN", "TASK_MAX"}) {
    auto key = std::string{"ARRAY_"} + part;
    if (auto* ours = find_env(env, "SHOAL_" + key); ours != nullptr)
      set_env(env, "SLURM_" + key, ours->substr(key.size() + 7));
  }
  // The job's CPUs on each node and on this one, as the job actor counts them
  // (actors/job_effects.cpp); MPI launchers may read SLURM_JOB_CPUS_PER_NODE for their slots.
  for (std::string key : {"JOB_CPUS_PER_NODE", "CPUS_ON_NODE"})
    if (auto* ours = find_env(env, "SHOAL_" + key); ours != nullptr)
      set_env(env, "SLURM_" + key, ours->substr(key.size() + 7));
  return env;
}

void set_cpu_bind_env(std::vector<std::string>& env, const topology::cpu_bind_spec& spec,
                      const std::vector<topology::cpu_list>& plan, uint32_t width_bits,
                      bool slurm_names) {
  auto verbosity = spec.verbose ? std::string{"verbose"} : std::string{"quiet"};
  auto type = topology::env_type_name(spec);
  std::string list;
  for (auto& cpus : plan) {
    if (!list.empty()) list += ',';
    if (spec.type == topology::cpu_bind_type::map_cpu)
      list += cpus.empty() ? std::string{} : std::to_string(cpus.front());
    else if (spec.type != topology::cpu_bind_type::rank)
      list += topology::padded_hex_mask(cpus, width_bits);
  }
  if (spec.type == topology::cpu_bind_type::rank) list.clear();
  auto set_all = [&](const std::string& prefix) {
    set_env(env, prefix + "_CPU_BIND_VERBOSE", verbosity);
    set_env(env, prefix + "_CPU_BIND_TYPE", type);
    set_env(env, prefix + "_CPU_BIND_LIST", list);
    set_env(env, prefix + "_CPU_BIND", verbosity + "," + type + list);
  };
  set_all("SHOAL");
  if (slurm_names) set_all("SLURM");
}

}  // namespace shoal::process

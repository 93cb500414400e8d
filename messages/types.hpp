#pragma once

// The C++ side of messages/shoal.capnp: the values actors exchange across processes. Each type's
// `inspect` (in codec.hpp) writes and reads its Cap'n Proto encoding; field meanings and units are
// documented once, in the schema.

#include <cstdint>
#include <string>
#include <vector>

#include "messages/states.hpp"

namespace shoal::msg {

/// Step id of a batch script, as Slurm's "batch" step.
constexpr uint32_t batch_step_id = 0xfffffffe;

/// A step id as log lines show it: "batch" for the batch script's step, as Slurm names it, and
/// "all" for 0xffffffff (signals meant for every step).
inline std::string step_label(uint32_t step) {
  if (step == batch_step_id) return "batch";
  return step == 0xffffffffu ? "all" : std::to_string(step);
}

struct machine_status {
  std::string node_name;
  std::string hostname;
  std::string os;
  uint32_t cpus = 0;
  uint32_t sockets = 0;
  uint32_t cores_per_socket = 0;
  uint32_t threads_per_core = 0;
  double cpu_mhz = 0;
  uint64_t real_memory_mb = 0;
  uint64_t virtual_memory_mb = 0;
  uint64_t tmp_disk_mb = 0;
  int64_t boot_time = 0;
  int64_t daemon_start_time = 0;
  int64_t daemon_pid = 0;
};

struct node_info {
  std::string name;
  node_state state = node_state::unknown;
  std::string reason;
  int64_t reason_time = 0;
  std::string reason_user;
  int64_t state_since = 0;
  int64_t last_response = 0;
  std::string address;
  uint32_t cpus = 0;
  uint64_t real_memory_mb = 0;
  uint64_t tmp_disk_mb = 0;
  uint32_t weight = 1;
  std::vector<std::string> partitions;
  machine_status reported;
  std::vector<uint64_t> job_ids;
  std::string features;
};

struct partition_info {
  std::string name;
  std::string state = "UP";
  bool is_default = false;
  int64_t max_time_s = -1;
  int64_t default_time_s = -1;
  uint32_t max_nodes = 0;
  std::vector<std::string> nodes;
  uint32_t priority = 1;
  std::string over_subscribe = "NO";  ///< NO, EXCLUSIVE, YES:N or FORCE:N, as scontrol prints
};

/// What a job asks beyond nodes and tasks: arrays, dependencies, begin time, hold, memory and
/// sharing. Empty / zero means "not asked".
struct job_workload {
  std::string array;
  std::string dependency;
  bool kill_on_invalid_dep = false;
  int64_t begin_time = 0;
  bool hold = false;
  uint64_t mem_per_node_mb = 0;
  uint64_t mem_per_cpu_mb = 0;
  bool exclusive = false;
  bool oversubscribe = false;  ///< -s: may share CPUs (nodes) where the partition allows it
};

/// What a job asks of a 3-D torus (Blue Gene/L's srun options); empty on 1-D clusters.
struct job_shape {
  std::vector<uint32_t> geometry;  ///< empty, or A, B, C
  bool rotate = true;
  std::string conn_type;  ///< "", "mesh" or "torus"
  std::string node_use;   ///< "", "coprocessor" or "virtual"
};

struct job_request {
  uint64_t job_id = 0;
  std::string name;
  std::string user;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string partition;
  uint32_t min_nodes = 0;
  uint32_t ntasks = 0;
  uint32_t cpus_per_task = 0;
  int64_t time_limit_s = 0;
  std::string nodelist;
  std::string exclude;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;
  bool batch = false;
  std::string script;
  std::string stdout_path;
  std::string stderr_path;
  bool requeue = false;
  bool label = false;
  int32_t nice = 0;
  uint32_t nodes_max = 0;
  std::string submit_token;
  job_workload workload;
  job_shape shape;
  std::string cpu_bind;
};

struct job_info {
  uint64_t job_id = 0;
  std::string name;
  std::string user;
  uint32_t uid = 0;
  std::string partition;
  job_state state = job_state::pending;
  std::string reason;
  int64_t submit_time = 0;
  int64_t start_time = 0;
  int64_t end_time = 0;
  int64_t time_limit_s = -1;
  uint32_t node_count = 0;
  std::string nodelist;
  uint32_t ntasks = 0;
  uint32_t cpus_per_task = 1;
  int32_t exit_code = 0;
  bool batch = false;
  std::string work_dir;
  std::string command;
  std::string stdout_path;
  std::string stderr_path;
  uint32_t requeue_count = 0;
  uint64_t priority = 0;
  uint32_t step_count = 0;
  bool requeue = false;
  std::string exclude_nodes;
  std::string required_nodes;
  uint64_t array_job_id = 0;
  int64_t array_task_id = -1;
  std::string array_tasks;
  std::string dependency;
  int64_t begin_time = 0;
  uint64_t mem_per_node_mb = 0;
  std::string over_subscribe = "OK";  ///< scontrol's: YES (-s), NO (--exclusive), else OK
};

/// The scheduler's view of a pending job at its last pass.
struct pending_detail {
  uint64_t job_id = 0;
  std::string reason;
  int64_t expected_start = 0;
  uint64_t priority = 0;
  uint64_t age_factor = 0;
  uint64_t size_factor = 0;
  uint64_t partition_factor = 0;
  int64_t nice = 0;
};

/// scontrol's job commands: op is hold, uhold, release, top or requeue.
struct job_control {
  std::string op;
  std::vector<std::string> jobs;
  uint32_t uid = 0;
};

struct launch_request {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  std::string user;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;
  std::string nodelist;
  uint32_t node_index = 0;
  uint32_t node_count = 0;
  uint32_t ntasks = 0;
  std::vector<uint32_t> ranks;
  uint32_t cpus_per_task = 1;
  bool batch = false;
  std::string script;
  std::string stdout_path;
  std::string stderr_path;
  std::vector<uint8_t> switch_data;
  std::string job_nodelist;
  std::string job_name;
  std::string partition;
  uint32_t job_node_count = 0;
  std::string cpu_bind;
  /// The node's CPUs (numbered 0..CPUs-1 as the node counts them) the job holds on a shared
  /// node; the node daemon confines the job's tasks to them. Empty: the whole node.
  std::vector<uint32_t> job_cpus;
  /// The job's memory on this node (--mem, or --mem-per-cpu times its CPUs here); 0: no limit.
  uint64_t mem_limit_mb = 0;
};

enum class stream_kind : uint8_t { out = 1, err = 2 };

struct task_output {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  int32_t rank = 0;
  stream_kind stream = stream_kind::out;
  std::string data;
  std::string node_name;
};

struct task_exit {
  uint32_t rank = 0;
  int32_t exit_code = 0;
  int32_t signal = 0;
};

/// The exit code a shell reports for a task: its status, or 128+signal.
inline int32_t shell_exit_code(const task_exit& t) {
  return t.signal != 0 ? 128 + t.signal : t.exit_code;
}

struct step_exit {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  std::string node_name;
  std::vector<task_exit> tasks;
  std::string launch_error;
  /// The step was killed for using more memory than mem_limit_mb (the job ends OUT_OF_MEMORY).
  bool out_of_memory = false;
};

struct job_event {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  std::string kind;
  job_state state = job_state::pending;
  std::string nodelist;
  std::string text;
  int32_t exit_code = 0;
  uint32_t node_count = 0;
};

struct node_update {
  std::string nodes;
  std::string state;
  std::string reason;
  std::string user;
};

/// One node on `shoal map`.
struct map_node {
  std::string name;
  node_state state = node_state::unknown;
  uint64_t job_id = 0;          ///< 0: free
  std::vector<uint32_t> coord;  ///< X, Y, Z on a torus; empty on a 1-D cluster
};

/// One running job's allocation on `shoal map`.
struct map_allocation {
  uint64_t job_id = 0;
  std::string nodelist;  ///< box form on a torus
  uint32_t node_count = 0;
  std::vector<uint32_t> origin;  ///< torus only: lowest corner (before wrapping)
  std::vector<uint32_t> size;    ///< torus only: extent in X, Y, Z
  std::string conn_type;         ///< torus only: mesh or torus
  std::string node_use;          ///< torus only
};

/// The topology actor's allocation map, as `shoal map` draws it.
struct topology_view {
  std::string select_type;                  ///< select/linear, select/consecutive, select/torus3d
  std::vector<uint32_t> dims;               ///< X, Y, Z on a torus; empty on a 1-D cluster
  std::vector<map_node> nodes;              ///< torus: grid order (x outermost); 1-D: config order
  std::vector<map_allocation> allocations;  ///< by job id
};

}  // namespace shoal::msg

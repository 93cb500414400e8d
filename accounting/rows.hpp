#pragma once

// What the accounting store keeps of a job and of each of its steps, as sacct shows them. Plain
// values: the writer fills them from the controller's records, sacct prints them. A job is
// known by cluster + job_id + submit_time (job ids are reused after a wrap or a reset), a step by
// that and its step_id.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::accounting {

/// A finished (or running) job: one line of `sacct -X`.
struct job_row {
  std::string cluster;
  uint32_t job_id = 0;
  uint32_t array_job_id = 0;   ///< the array's first job id; 0 when not in an array
  int32_t array_task_id = -1;  ///< -1: not an array task
  std::string name;
  std::string user;  ///< the submitter's name as resolved at submission
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string group;
  std::string account;
  std::string partition;
  std::string qos;
  std::string state;   ///< as Slurm prints it: COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
  std::string reason;  ///< why it pends or ended ("None" when nothing to say)
  int32_t exit_code = 0;
  int32_t exit_signal = 0;
  int32_t derived_exit_code = 0;  ///< the highest exit code of any step
  int64_t submit_time = 0;        ///< Unix s; part of the key
  int64_t eligible_time = 0;      ///< Unix s; 0 never eligible
  int64_t start_time = 0;         ///< Unix s; 0 never started
  int64_t end_time = 0;           ///< Unix s; 0 not ended yet
  int64_t time_limit_s = -1;      ///< -1: unlimited
  uint32_t node_count = 0;
  std::string nodelist;  ///< a hostlist expression ("n[1-4]"); -N matches its expansion
  uint32_t req_cpus = 0;
  uint32_t alloc_cpus = 0;
  uint64_t req_mem_mb = 0;
  bool req_mem_per_cpu = false;  ///< req_mem_mb is per CPU (--mem-per-cpu), else per node
  std::string req_tres;          ///< Slurm's text: "cpu=4,mem=2000M,node=1"
  std::string alloc_tres;
  std::string work_dir;
  std::string submit_line;  ///< the command line that submitted it, or the batch command
  uint32_t priority = 0;
  uint32_t requeue_count = 0;
};

/// Slurm's special step ids, printed as words after the job id.
constexpr uint32_t batch_step = 0xfffffffbu;        ///< the batch script: "123.batch"
constexpr uint32_t extern_step = 0xfffffffcu;       ///< the extern step: "123.extern"
constexpr uint32_t interactive_step = 0xfffffffau;  ///< salloc's shell: "123.interactive"
/// The highest id of a step that is not one of the special ones (SLURM_MAX_NORMAL_STEP_ID).
constexpr uint32_t max_normal_step = 0xfffffff0u;

/// One step of a job: a line of sacct under its job.
struct step_row {
  std::string cluster;
  uint32_t job_id = 0;
  int64_t submit_time = 0;  ///< the job's, so the step follows the right job after id reuse
  uint32_t step_id = 0;     ///< 0, 1, ... or batch_step, extern_step, interactive_step
  std::string name;
  std::string nodelist;
  uint32_t node_count = 0;
  uint32_t ntasks = 0;
  std::string state;
  int32_t exit_code = 0;
  int32_t exit_signal = 0;
  int64_t start_time = 0;  ///< Unix s
  int64_t end_time = 0;    ///< Unix s; 0 still running
  uint64_t user_cpu_us = 0;
  uint64_t system_cpu_us = 0;
  uint64_t max_rss_bytes = 0;
  std::string max_rss_node;   ///< where max_rss_bytes was seen
  uint32_t max_rss_task = 0;  ///< the task (global rank) that reached it
  uint64_t ave_rss_bytes = 0;
  uint64_t max_vsize_bytes = 0;
  uint64_t read_bytes = 0;
  uint64_t written_bytes = 0;
};

/// A job with its steps, steps in sacct's order (step_order).
struct job_record {
  job_row job;
  std::vector<step_row> steps;
};

/// sacct's name of a job: "123", or "120_4" for an array task (array_job_id _ task).
std::string job_id_text(const job_row& job);

/// sacct's name of a step: `job_text` (job_id_text) then ".batch", ".extern", ".interactive" or
/// ".N".
std::string step_id_text(std::string_view job_text, uint32_t step_id);

/// True when step `a` comes before `b` in sacct's listing: batch, extern, interactive, then the
/// numbered steps in order.
bool step_order(uint32_t a, uint32_t b);

/// One -j item: a job id, or an array task. `123` selects job 123 and, when 123 is an array's
/// id, all its tasks; `123_4` selects task 4 of array 123.
struct job_selector {
  uint32_t job_id = 0;
  int32_t array_task_id = -1;  ///< -1: the job or the whole array
};

/// Parses "123" or "123_4" (a trailing ".step" is ignored: steps follow their job). Error
/// errc::invalid_request naming the text.
expected<job_selector> parse_job_selector(std::string_view text);

/// What a query selects, with sacct's meaning of each option. Empty lists select everything.
struct job_query {
  /// -S and -E (Unix s): a job is selected when it was eligible or running during [start, end],
  /// that is submit_time <= end and (end_time == 0 or end_time >= start). 0 leaves that side open.
  int64_t start = 0;
  int64_t end = 0;
  /// -s: the job's final state is one of these (as stored, case ignored).
  std::vector<std::string> states;
  std::vector<job_selector> jobs;       ///< -j
  std::vector<uint32_t> uids;           ///< -u (as uids)
  std::vector<std::string> accounts;    ///< -A
  std::vector<std::string> partitions;  ///< -r
  /// -N: hostlist expressions; a job is selected when it ran on any of the names (its nodelist's
  /// expansion, kept in a side table, meets theirs).
  std::vector<std::string> nodes;
  std::vector<std::string> names;     ///< --name: exact job names
  std::vector<std::string> clusters;  ///< -M
  bool with_steps = true;             ///< false: -X, jobs only
  size_t limit = 0;                   ///< at most this many jobs (the first in order); 0: all
};

}  // namespace shoal::accounting

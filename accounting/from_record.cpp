#include "accounting/from_record.hpp"

#include <algorithm>

namespace shoal::accounting {

namespace {

/// Slurm's TRES text: "cpu=4,mem=2000M,node=1" (memory left out when unknown).
std::string tres_text(uint64_t cpus, uint64_t mem_mb, uint64_t nodes) {
  std::string out = "cpu=" + std::to_string(cpus);
  if (mem_mb > 0) out += ",mem=" + std::to_string(mem_mb) + "M";
  return out + ",node=" + std::to_string(nodes);
}

step_row step_row_of(const msg::step_record& step, const msg::job_record& rec,
                     const std::string& cluster) {
  const auto& info = rec.info;
  step_row row;
  row.cluster = cluster;
  row.job_id = static_cast<uint32_t>(info.job_id);
  row.submit_time = info.submit_time;
  row.step_id = store_step_id(step.step_id);
  // Slurm names a step by srun's -J, else by its command; a record from before steps kept their
  // listing has neither, and shows the job's name as it did.
  if (step.step_id == msg::batch_step_id)
    row.name = "batch";
  else
    row.name = step.listing.name.empty() ? info.name : step.listing.name;
  row.nodelist = step.nodelist;
  row.node_count = static_cast<uint32_t>(step.nodes.size());
  row.ntasks = step.ntasks;
  row.state = step_state(step, info);
  row.exit_code = step.exit_signal != 0 ? 0 : step.exit_code;
  row.exit_signal = step.exit_signal;
  row.start_time = step.start_time;
  row.end_time = step.end_time;
  const auto& u = step.usage;
  row.user_cpu_us = u.user_cpu_us;
  row.system_cpu_us = u.system_cpu_us;
  row.max_rss_bytes = u.max_rss_bytes;
  row.max_rss_node = u.max_rss_node;
  row.max_rss_task = u.max_rss_task < 0 ? 0 : static_cast<uint32_t>(u.max_rss_task);
  row.ave_rss_bytes = u.ave_rss_bytes;
  row.max_vsize_bytes = u.max_vsize_bytes;
  row.read_bytes = u.read_bytes;
  row.written_bytes = u.written_bytes;
  return row;
}

}  // namespace

uint32_t store_step_id(uint32_t step_id) {
  return step_id == msg::batch_step_id ? batch_step : step_id;
}

std::string step_state(const msg::step_record& step, const msg::job_info& job) {
  if (step.out_of_memory) return "OUT_OF_MEMORY";
  if (step.exit_signal != 0 && job.state == msg::job_state::cancelled) return "CANCELLED";
  if (step.exit_signal != 0 || step.exit_code != 0 || !step.error.empty()) return "FAILED";
  return "COMPLETED";
}

job_record rows_of(const msg::job_record& rec, const std::string& cluster) {
  const auto& info = rec.info;
  const auto& req = rec.request;
  job_record out;
  auto& row = out.job;
  row.cluster = cluster;
  row.job_id = static_cast<uint32_t>(info.job_id);
  row.array_job_id = static_cast<uint32_t>(info.array_job_id);
  row.array_task_id = info.array_job_id != 0 ? static_cast<int32_t>(info.array_task_id) : -1;
  row.name = info.name;
  row.user = info.user;
  row.uid = info.uid;
  row.gid = req.gid;
  row.account = info.account;
  row.partition = info.partition;
  row.qos = info.qos;
  row.state = msg::to_string(info.state);
  row.reason = info.reason;
  row.exit_code = info.exit_signal != 0 ? 0 : info.exit_code;
  row.exit_signal = info.exit_signal;
  row.submit_time = info.submit_time;
  row.eligible_time = std::max(info.begin_time, info.submit_time);
  row.start_time = info.start_time;
  row.end_time = info.end_time;
  row.time_limit_s = info.time_limit_s;
  row.node_count = info.node_count;
  row.nodelist = info.nodelist;
  auto cpus_per_task = std::max<uint32_t>(info.cpus_per_task, 1);
  row.req_cpus = std::max<uint32_t>(info.ntasks, 1) * cpus_per_task;
  uint64_t held = 0;
  for (auto c : rec.cpus) held += c;
  row.alloc_cpus = held > 0 ? static_cast<uint32_t>(held) : info.start_time > 0 ? row.req_cpus : 0;
  row.req_mem_mb = info.mem_per_node_mb;
  row.req_tres =
      tres_text(row.req_cpus, info.mem_per_node_mb, std::max<uint32_t>(info.node_count, 1));
  if (info.start_time > 0)
    row.alloc_tres =
        tres_text(row.alloc_cpus, info.mem_per_node_mb * rec.nodes.size(), rec.nodes.size());
  row.work_dir = info.work_dir;
  row.submit_line = info.command;
  row.priority = static_cast<uint32_t>(std::min<uint64_t>(info.priority, UINT32_MAX));
  row.requeue_count = info.requeue_count;
  // Slurm's DerivedExitCode: the highest exit code of the job's steps.
  int32_t derived = 0;
  for (auto& step : rec.done_steps) {
    out.steps.push_back(step_row_of(step, rec, cluster));
    derived = std::max(derived, step.exit_signal != 0 ? 128 + step.exit_signal : step.exit_code);
  }
  row.derived_exit_code = derived;
  return out;
}

}  // namespace shoal::accounting

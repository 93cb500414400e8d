#include "accounting/wire.hpp"

#include <algorithm>

namespace shoal::accounting {

expected<job_query> from_wire(const msg::accounting_query& q) {
  job_query out;
  out.start = q.start;
  out.end = q.end;
  out.states = q.states;
  for (auto& text : q.jobs) {
    auto selector = parse_job_selector(text);
    if (!selector) return selector.error();
    out.jobs.push_back(*selector);
  }
  out.uids = q.uids;
  out.accounts = q.accounts;
  out.partitions = q.partitions;
  out.nodes = q.nodes;
  out.names = q.names;
  out.with_steps = q.with_steps;
  out.limit = q.limit;
  return out;
}

namespace {

msg::job_info info_of(const job_row& job) {
  msg::job_info info;
  info.job_id = job.job_id;
  info.name = job.name;
  info.user = job.user;
  info.uid = job.uid;
  info.partition = job.partition;
  info.state = msg::parse_job_state(job.state).value_or(msg::job_state::completed);
  info.reason = job.reason;
  info.submit_time = job.submit_time;
  info.start_time = job.start_time;
  info.end_time = job.end_time;
  info.time_limit_s = job.time_limit_s;
  info.node_count = job.node_count;
  info.nodelist = job.nodelist;
  info.ntasks = job.req_cpus;
  info.cpus_per_task = 1;
  info.exit_code = job.exit_signal != 0 ? 128 + job.exit_signal : job.exit_code;
  info.exit_signal = job.exit_signal;
  info.work_dir = job.work_dir;
  info.command = job.submit_line;
  info.requeue_count = job.requeue_count;
  info.priority = job.priority;
  info.array_job_id = job.array_job_id;
  info.array_task_id = job.array_task_id;
  info.begin_time = job.eligible_time;
  info.mem_per_node_mb = job.req_mem_mb;
  info.account = job.account;
  info.qos = job.qos;
  return info;
}

msg::accounted_step step_of(const step_row& row) {
  msg::accounted_step step;
  step.step_id = row.step_id;
  step.name = row.name;
  step.nodelist = row.nodelist;
  step.node_count = row.node_count;
  step.ntasks = row.ntasks;
  step.state = row.state;
  step.exit_code = row.exit_code;
  step.exit_signal = row.exit_signal;
  step.start_time = row.start_time;
  step.end_time = row.end_time;
  auto& u = step.usage;
  u.user_cpu_us = row.user_cpu_us;
  u.system_cpu_us = row.system_cpu_us;
  u.max_rss_bytes = row.max_rss_bytes;
  u.max_rss_node = row.max_rss_node;
  u.max_rss_task = static_cast<int32_t>(row.max_rss_task);
  u.ave_rss_bytes = row.ave_rss_bytes;
  u.max_vsize_bytes = row.max_vsize_bytes;
  u.read_bytes = row.read_bytes;
  u.written_bytes = row.written_bytes;
  return step;
}

}  // namespace

msg::accounted_job to_wire(const job_record& rec) {
  msg::accounted_job out;
  out.info = info_of(rec.job);
  out.derived_exit_code = rec.job.derived_exit_code;
  out.eligible_time = rec.job.eligible_time;
  out.req_tres = rec.job.req_tres;
  out.alloc_tres = rec.job.alloc_tres;
  out.alloc_cpus = rec.job.alloc_cpus;
  for (auto& step : rec.steps) out.steps.push_back(step_of(step));
  return out;
}

}  // namespace shoal::accounting

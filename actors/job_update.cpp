// A job takes `scontrol update`'s revised request (the controller checked it:
// actors/controller/job_update.cpp).

#include "actors/job.hpp"
#include "actors/job_internals.hpp"

#include <algorithm>
#include <chrono>

#include <caf/all.hpp>

#include "cluster/clock.hpp"
#include "config/duration.hpp"
#include "config/job_update.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/gres.hpp"
#include "policy/licenses.hpp"

namespace shoal::actors::job_detail {

namespace {

/// What listings show of the request, again after it changed (initial_job_info's fields that
/// an update may change).
void refresh_info(msg::job_info& info, const msg::job_request& req,
                  const policy::workload_ptr& workload) {
  info.name = req.name;
  info.partition = req.partition;
  info.time_limit_s = req.time_limit_s;
  info.node_count = req.min_nodes;
  info.ntasks = req.ntasks;
  info.exclude_nodes = req.exclude;
  info.required_nodes = req.nodelist;
  info.dependency = req.workload.dependency;
  info.begin_time = req.workload.begin_time;
  info.account = req.workload.account;
  info.qos = req.workload.qos;
  info.comment = req.workload.comment;
  info.features = req.constraint;
  if (workload) info.tres_per_node = policy::tres_per_node(workload->gres);
  if (workload) info.licenses = policy::licenses_text(workload->licenses);
}

/// A placed job's time limit changed: the timer (and the --signal warning) count from its start
/// with the new limit; a limit already past ends it at once, as slurmctld's next check would.
void retime(job_self self) {
  auto& st = self->state;
  if (st.info.start_time == 0) return;
  ++st.timer_gen;  // the earlier limit's tick is stale now
  if (st.info.time_limit_s > 0) {
    auto left = st.info.start_time + st.info.time_limit_s - cluster::unix_now();
    self->delayed_send(self, std::chrono::seconds{std::max<int64_t>(0, left)}, msg::tlimit_atom_v,
                       st.timer_gen);
  }
  arm_warning(self, st.info.start_time);
}

/// A running job takes what may change while it runs.
void update_running(job_self self, const msg::job_request& req) {
  auto& st = self->state;
  auto& mine = st.setup.req;
  bool retimed = mine.time_limit_s != req.time_limit_s;
  mine.time_limit_s = req.time_limit_s;
  mine.name = req.name;
  mine.nice = req.nice;
  mine.workload.comment = req.workload.comment;
  mine.workload.priority = req.workload.priority;
  st.info.time_limit_s = req.time_limit_s;
  st.info.name = req.name;
  st.info.comment = req.workload.comment;
  if (req.workload.priority != 0) st.info.priority = req.workload.priority;
  if (retimed) retime(self);
  config::log().info("job updated job={} state={} time_limit={} name={}", st.info.job_id,
                     msg::to_string(st.info.state), config::format_duration(st.info.time_limit_s),
                     st.info.name);
}

}  // namespace

caf::result<caf::ok_atom> on_update(job_self self, msg::job_request& req,
                                    policy::workload_ptr& workload) {
  auto& st = self->state;
  if (msg::is_finished(st.info.state) || st.life.state == policy::lifecycle_state::completing)
    return make_error(errc::invalid_request, "Job has already finished");
  if (!queued(st.life.state)) {
    // The controller looked while it was queued, and it started since.
    if (!config::pending_only_changes(st.setup.req, req).empty())
      return make_error(errc::invalid_request, "Job is no longer pending execution");
    update_running(self, req);
    publish(self);
    return once_saved(self);
  }
  st.setup.req = std::move(req);
  st.setup.workload = std::move(workload);
  refresh_info(st.info, st.setup.req, st.setup.workload);
  config::log().info(
      "job updated job={} state={} partition={} nodes={} tasks={} time_limit={} begin={} "
      "dependency=\"{}\"",
      st.info.job_id, msg::to_string(st.info.state), st.info.partition, st.info.node_count,
      st.info.ntasks, config::format_duration(st.info.time_limit_s), st.info.begin_time,
      st.info.dependency);
  publish(self);
  // The scheduler queues it with the new request (its hold and place kept) and runs a pass.
  self->send(st.setup.scheduler, msg::update_atom_v, st.info.job_id, st.setup.req,
             st.setup.workload);
  return once_saved(self);
}

}  // namespace shoal::actors::job_detail

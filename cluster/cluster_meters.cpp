#include "cluster/cluster_meters.hpp"

namespace shoal::cluster {

cluster_meters::cluster_meters(metrics::registry& reg) {
  auto& nodes = reg.gauges("shoal_nodes", "Nodes the controller knows, by state.", {"state"});
  for (size_t i = 0; i < node_states; ++i)
    nodes_[i] = &nodes.with({msg::to_string(static_cast<msg::node_state>(i))});
  auto& jobs = reg.gauges("shoal_jobs",
                          "Jobs the controller knows, by state (finished ones until MinJobAge "
                          "passes).",
                          {"state"});
  auto& finished =
      reg.counters("shoal_jobs_finished_total", "Jobs that ended, by final state.", {"state"});
  for (size_t i = 0; i < job_states; ++i) {
    auto s = static_cast<msg::job_state>(i);
    jobs_[i] = &jobs.with({msg::to_string(s)});
    if (msg::is_finished(s)) finished_[i] = &finished.with({msg::to_string(s)});
  }
  submitted_ = &reg.counter_of("shoal_jobs_submitted_total", "Jobs the controller accepted.");
  started_ = &reg.counter_of("shoal_jobs_started_total",
                             "Jobs that started running (a requeued job counts again).");
}

void cluster_meters::node_changed(std::optional<msg::node_state> from, msg::node_state to) {
  if (from == to) return;
  if (from) nodes_[static_cast<size_t>(*from)]->add(-1);
  nodes_[static_cast<size_t>(to)]->add(1);
}

void cluster_meters::job_changed(std::optional<msg::job_state> from, msg::job_state to) {
  if (from == to) return;
  if (from) jobs_[static_cast<size_t>(*from)]->add(-1);
  jobs_[static_cast<size_t>(to)]->add(1);
  if (to == msg::job_state::running) started_->inc();
  if (msg::is_finished(to) && finished_[static_cast<size_t>(to)])
    finished_[static_cast<size_t>(to)]->inc();
}

void cluster_meters::job_recovered(msg::job_state s) {
  jobs_[static_cast<size_t>(s)]->add(1);
}

void cluster_meters::job_forgotten(msg::job_state s) {
  jobs_[static_cast<size_t>(s)]->add(-1);
}

}  // namespace shoal::cluster

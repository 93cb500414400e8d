// The job's part in the prolog and epilog family (docs/operations.md, "Prolog and epilog"): it
// tells its nodes it starts there (for their Prolog and Epilog), runs PrologSlurmctld and
// EpilogSlurmctld on the controller, and is requeued when a Prolog fails.

#include <caf/blocking_actor.hpp>

#include "actors/admin_program.hpp"
#include "actors/job_internals.hpp"
#include "actors/send_to.hpp"
#include "config/log.hpp"
#include "process/script_run.hpp"

namespace shoal::actors::job_detail {

namespace {

/// How many requeues a job failing its Prolog takes before it is held even under
/// nohold_on_prolog_fail (Slurm's MAX_BATCH_REQUEUE).
constexpr uint32_t max_prolog_requeues = 5;

/// Slurm's PrologSlurmctld/EpilogSlurmctld environment (job_mgr.c's _build_env), each with its
/// SHOAL_ twin.
std::vector<std::string> ctld_script_env(const job_state_t& st, bool epilog) {
  const auto& info = st.info;
  std::vector<std::string> env;
  auto put = [&env](const std::string& name, const std::string& value) {
    env.push_back("SLURM_" + name + "=" + value);
    env.push_back("SHOAL_" + name + "=" + value);
  };
  put("CLUSTER_NAME", st.setup.cluster_name);
  put("JOB_ID", std::to_string(info.job_id));
  put("JOBID", std::to_string(info.job_id));
  put("JOB_NAME", info.name);
  put("JOB_USER", info.user);
  put("JOB_UID", std::to_string(info.uid));
  put("JOB_GID", std::to_string(st.setup.req.gid));
  put("JOB_PARTITION", info.partition);
  put("JOB_NODELIST", info.nodelist);
  put("JOB_NUM_NODES", std::to_string(info.node_count));
  put("JOB_WORK_DIR", info.work_dir);
  put("JOB_RESTART_COUNT", std::to_string(info.requeue_count));
  if (!info.account.empty()) put("JOB_ACCOUNT", info.account);
  if (epilog) {
    put("JOB_EXIT_CODE", std::to_string(info.exit_code));
    put("JOB_DERIVED_EC", std::to_string(info.exit_code));
    put("JOB_STATE", msg::to_string(info.state));
  }
  put("SCRIPT_CONTEXT", epilog ? "epilog_slurmctld" : "prolog_slurmctld");
  env.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  return env;
}

/// Runs PrologSlurmctld in a detached actor: a failure comes back to the job as a Prolog's.
void run_prolog_ctld(job_self self) {
  auto& st = self->state;
  process::script_spec spec;
  spec.label = "PrologSlurmctld";
  spec.argv = {st.setup.prolog_ctld};
  spec.env = ctld_script_env(st, false);
  spec.timeout = std::chrono::seconds{st.setup.script_timeout_s};
  self->system().spawn<caf::detached>(
      [](caf::blocking_actor* runner, caf::actor job, uint64_t id, process::script_spec s) {
        auto r = process::run_script(s);
        if (r.ok) return;
        auto reason = s.label + " " + s.argv.front() + " " +
                      (r.timed_out || !r.started ? r.status_text : "failed: " + r.status_text);
        config::log().error("PrologSlurmctld failed job={} prog={} status=\"{}\"", id,
                            s.argv.front(), r.status_text);
        runner->send(job, msg::prolog_atom_v, std::string{}, reason);
      },
      handle_of(self), st.info.job_id, std::move(spec));
}

/// The job as its nodes' Prolog and Epilog see it, on its `node`-th node.
msg::launch_request job_for_scripts(const job_state_t& st, size_t node) {
  msg::launch_request lr;
  lr.job_id = st.info.job_id;
  lr.step_id = msg::all_steps;
  lr.user = st.setup.req.user;
  lr.uid = st.setup.req.uid;
  lr.gid = st.setup.req.gid;
  lr.cwd = st.setup.req.cwd;
  lr.job_nodelist = st.info.nodelist;
  lr.job_name = st.info.name;
  lr.partition = st.info.partition;
  lr.job_node_count = static_cast<uint32_t>(st.nodes.size());
  lr.node_index = static_cast<uint32_t>(node);
  lr.node_aliases = st.node_aliases;
  return lr;
}

}  // namespace

void tell_nodes_for_scripts(job_self self) {
  auto& st = self->state;
  if (!st.setup.node_scripts) return;
  for (size_t i = 0; i < st.node_actors.size(); ++i)
    send_to(self, st.node_actors[i], msg::prolog_atom_v, job_for_scripts(st, i), handle_of(self));
}

void start_prolog_ctld(job_self self) {
  if (!self->state.setup.prolog_ctld.empty()) run_prolog_ctld(self);
}

void run_epilog_ctld(job_self self) {
  auto& st = self->state;
  // Only for a job that held nodes, as slurmctld runs it at an allocation's end.
  if (st.setup.epilog_ctld.empty() || st.nodes.empty()) return;
  admin_program p;
  p.label = "EpilogSlurmctld";
  p.argv = {st.setup.epilog_ctld};
  p.env = ctld_script_env(st, true);
  // admin_program's 60 s unless PrologEpilogTimeout says otherwise; Slurm waits for ever.
  if (st.setup.script_timeout_s > 0)
    p.timeout = std::chrono::seconds{st.setup.script_timeout_s};
  else
    p.timeout = std::chrono::hours{24 * 365};
  run_admin_program(self->system(), std::move(p));
}

void on_prolog_failed(job_self self, const std::string& node, const std::string& reason) {
  auto& st = self->state;
  policy::event ev{event_kind::prolog_failed};
  ev.text = node.empty() ? reason : reason + " on " + node;
  // Slurm holds the requeued job at once; with nohold_on_prolog_fail after repeated failures.
  ev.requeue = !st.setup.nohold_on_prolog_fail || st.info.requeue_count + 1 >= max_prolog_requeues;
  auto t = decide(self, ev);
  if (t.outcome != verdict::applied) return;
  config::log().warn("job prolog failed job={} node={} reason=\"{}\" held={}", st.info.job_id, node,
                     reason, ev.requeue);
  if (!st.setup.req.workload.allocation) st.hold_when_queued = ev.requeue ? "JobHeldUser" : nullptr;
  event_data data;
  execute(self, t, data);
}

}  // namespace shoal::actors::job_detail
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::process::script_spec)

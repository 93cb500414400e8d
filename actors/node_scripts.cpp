#include "actors/node_scripts.hpp"

#include <caf/actor_system.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/send.hpp>

#include "config/health_settings.hpp"
#include "config/log.hpp"
#include "messages/caf/type_ids.hpp"
#include "process/script_run.hpp"

namespace shoal::actors {

std::vector<std::string> node_script_env(const msg::launch_request& job, const std::string& node,
                                         const std::string& cluster, const std::string& conf,
                                         bool epilog) {
  std::vector<std::string> env;
  auto put = [&env](const std::string& name, const std::string& value) {
    env.push_back("SLURM_" + name + "=" + value);
    env.push_back("SHOAL_" + name + "=" + value);
  };
  env.push_back("SLURMD_NODENAME=" + node);
  env.push_back("SHOALD_NODENAME=" + node);
  put("CLUSTER_NAME", cluster);
  put("JOB_ID", std::to_string(job.job_id));
  put("JOBID", std::to_string(job.job_id));
  put("JOB_UID", std::to_string(job.uid));
  put("JOB_GID", std::to_string(job.gid));
  put("UID", std::to_string(job.uid));
  put("JOB_USER", job.user);
  put("JOB_WORK_DIR", job.cwd);
  put("JOB_NODELIST", job.job_nodelist);
  put("NODELIST", job.job_nodelist);
  put("JOB_PARTITION", job.partition);
  put("JOB_NAME", job.job_name);
  if (!job.node_aliases.empty()) put("NODE_ALIASES", job.node_aliases);
  if (!conf.empty()) put("CONF", conf);
  put("SCRIPT_CONTEXT", epilog ? "epilog_slurmd" : "prolog_slurmd");
  env.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  return env;
}

void run_node_script(caf::actor_system& sys, caf::actor reply_to, node_script script) {
  // As run_admin_program: the script goes as a spawn argument, not a capture.
  sys.spawn<caf::detached>(
      [](caf::blocking_actor* self, caf::actor to, node_script s) {
        process::script_spec spec;
        spec.label = s.prolog ? "Prolog" : "Epilog";
        spec.argv = {s.program};
        spec.env = std::move(s.env);
        spec.timeout = s.timeout;
        auto r = process::run_script(spec);
        std::string reason;
        if (!r.ok) {
          reason = spec.label + " " + s.program + " " +
                   (r.timed_out || !r.started ? r.status_text : "failed: " + r.status_text);
          config::log().error("{} failed job={} prog={} status=\"{}\"", spec.label, s.job_id,
                              s.program, r.status_text);
        } else {
          SHOAL_DEBUG(steps, "{} done job={} prog={}", spec.label, s.job_id, s.program);
        }
        self->send(to, script_done_atom::value, s.job_id, s.prolog, r.ok, reason);
      },
      std::move(reply_to), std::move(script));
}

void run_health_check(caf::actor_system& sys, caf::actor reply_to, std::string program,
                      std::string node) {
  sys.spawn<caf::detached>(
      [](caf::blocking_actor* self, caf::actor to, std::string prog, std::string name) {
        process::script_spec spec;
        spec.label = "HealthCheckProgram";
        spec.argv = {prog};
        spec.env = {"SLURMD_NODENAME=" + name, "SHOALD_NODENAME=" + name,
                    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
        spec.timeout = std::chrono::seconds{config::health_check_timeout_s};
        spec.capture_output = true;
        auto r = process::run_script(spec);
        std::string reason;
        if (!r.ok) {
          reason = config::health_failure_reason(r.output, r.status_text);
          config::log().error("health_check failed node={} prog={} status=\"{}\" reason=\"{}\"",
                              name, prog, r.status_text, reason);
        } else {
          SHOAL_DEBUG(steps, "health_check success node={} prog={}", name, prog);
        }
        self->send(to, msg::check_atom_v, r.ok, reason);
      },
      std::move(reply_to), std::move(program), std::move(node));
}

void run_reboot_program(caf::actor_system& sys, std::string program, std::string node) {
  if (program.empty()) {
    config::log().error("reboot asked but no RebootProgram is set node={}", node);
    return;
  }
  config::log().info("reboot node={} prog={}", node, program);
  sys.spawn<caf::detached>(
      [](caf::blocking_actor*, std::string prog, std::string name) {
        process::script_spec spec;
        spec.label = "RebootProgram";
        spec.argv = {prog};
        spec.env = {"SLURMD_NODENAME=" + name, "SHOALD_NODENAME=" + name,
                    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
        auto r = process::run_script(spec);
        if (!r.ok)
          config::log().error("RebootProgram failed node={} prog={} status=\"{}\"", name, prog,
                              r.status_text);
      },
      std::move(program), std::move(node));
}

}  // namespace shoal::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::node_script)

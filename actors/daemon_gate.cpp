#include "actors/daemon_gate.hpp"

#include <caf/all.hpp>

#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"

namespace shoal::actors {

namespace {

daemon_gate_actor::behavior_type daemon_gate_behavior(daemon_gate_actor::pointer self,
                                                      daemon_credentials credentials) {
  // A peer holding a dynamic handle may send anything: logged and dropped.
  tolerate_strays(self);
  return {
      [self, credentials](msg::launch_atom, msg::launch_request& req, caf::actor& sink,
                          caf::actor& job, caf::actor& daemon) {
        if (auto err = credentials.sign_launch(req))
          config::log().error("launch not signed job={} step={}: {}", req.job_id,
                              msg::step_label(req.step_id), describe(err));
        send_to(self, daemon, msg::launch_atom_v, std::move(req), std::move(sink), std::move(job));
      },
      [self, credentials](msg::signal_atom, uint64_t job, uint32_t step, int32_t signo,
                          caf::actor& daemon) {
        std::string credential;
        if (auto signed_signal = credentials.sign_signal(job, step, signo))
          credential = std::move(*signed_signal);
        else
          config::log().error("signal not signed job={} step={} signal={}: {}", job,
                              msg::step_label(step), signo, describe(signed_signal.error()));
        send_to(self, daemon, msg::signal_atom_v, job, step, signo, std::move(credential));
      },
      [self](msg::attach_atom, uint64_t job, uint32_t step, caf::actor& sink, caf::actor& daemon) {
        send_to(self, daemon, msg::attach_atom_v, job, step, std::move(sink));
      },
      [self](msg::release_atom, uint64_t job, caf::actor& daemon) {
        send_to(self, daemon, msg::release_atom_v, job);
      },
      [self](msg::prolog_atom, msg::launch_request& job, caf::actor& daemon) {
        send_to(self, daemon, msg::prolog_atom_v, std::move(job));
      },
      [self](msg::collector_atom, std::string& name, std::string& host, uint16_t port,
             caf::actor& daemon) {
        send_to(self, daemon, msg::collector_atom_v, std::move(name), std::move(host), port);
      },
      [credentials](msg::register_atom, msg::machine_status& status,
                    const msg::node_report& report) -> caf::result<caf::ok_atom> {
        if (auto err = credentials.check_registration(status, report)) return to_caf(err);
        return caf::ok_atom::value;
      },
  };
}

}  // namespace

daemon_gate_actor spawn_daemon_gate(caf::actor_system& sys, daemon_credentials credentials) {
  // Detached: both credential calls block on munged.
  return sys.spawn<caf::detached>(daemon_gate_behavior, std::move(credentials));
}

}  // namespace shoal::actors

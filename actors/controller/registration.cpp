#include "actors/controller/controller_state.hpp"

#include <csignal>
#include <optional>
#include <set>

#include "cluster/clock.hpp"

namespace shoal::actors::ctl {

namespace {

/// A registering daemon's report, taken before `since_ns` (steady clock): ended steps reach their
/// jobs, recovered jobs learn which of their steps the node still runs, the node's other jobs
/// which of theirs it runs (a daemon restarted, or back after a lost connection, may have lost
/// some), and tasks of jobs this controller does not know are killed.
void reconcile(controller_self self, const std::string& node, const caf::actor& daemon,
               msg::node_report& report, int64_t since_ns) {
  auto& st = self->state;
  for (auto& ex : report.ended) {
    auto job = st.jobs.find(ex.job_id);
    if (job != st.jobs.end()) self->send(job->second, std::move(ex));
  }
  std::map<uint64_t, std::vector<uint32_t>> running;
  for (auto& ref : report.running) {
    if (st.jobs.count(ref.job_id) > 0) {
      running[ref.job_id].push_back(ref.step_id);
      continue;
    }
    config::log().warn("job unknown to the controller node={} job={} step={}: killing its tasks",
                       node, ref.job_id, msg::step_label(ref.step_id));
    if (st.gate)
      self->send(st.gate, msg::signal_atom_v, ref.job_id, ref.step_id, int32_t{SIGKILL}, daemon);
    else
      caf::anon_send(daemon, msg::signal_atom_v, ref.job_id, ref.step_id, int32_t{SIGKILL},
                     std::string{});
  }
  std::set<uint64_t> recovered;
  if (auto waiting = st.unconfirmed.find(node); waiting != st.unconfirmed.end()) {
    recovered = std::move(waiting->second);
    st.unconfirmed.erase(waiting);
  }
  for (auto id : recovered) {
    auto job = st.jobs.find(id);
    if (job != st.jobs.end()) self->send(job->second, msg::adopt_atom_v, node, running[id]);
  }
  auto view = st.node_view.find(node);
  if (view == st.node_view.end()) return;
  for (auto id : view->second.job_ids) {
    auto job = st.jobs.find(id);
    if (recovered.count(id) == 0 && job != st.jobs.end())
      self->send(job->second, msg::adopt_atom_v, node, running[id], since_ns);
  }
}

/// The node actor a daemon's registration goes to; errc::unknown_node for a name the config
/// lacks.
caf::expected<node_actor> node_of(controller_self self, const msg::machine_status& rep) {
  SHOAL_DEBUG(init, "registration node={} host={} pid={} cpus={}", rep.node_name, rep.hostname,
              rep.daemon_pid, rep.cpus);
  auto it = self->state.nodes.find(rep.node_name);
  if (it == self->state.nodes.end()) {
    config::log().warn("registration refused node={} host={}", rep.node_name, rep.hostname);
    return make_error(errc::unknown_node,
                      "node '" + rep.node_name + "' is not in the controller's configuration");
  }
  return it->second;
}

/// The node actor takes the daemon or refuses it (errc::invalid_request: the node has another
/// daemon, alive); only a daemon it took has its report reconciled, so a refused one changes
/// nothing of the node's jobs.
void admit(controller_self self, caf::typed_response_promise<caf::actor> rp,
           msg::machine_status rep, caf::actor daemon, std::optional<msg::node_report> report) {
  auto node = node_of(self, rep);
  if (!node) {
    rp.deliver(std::move(node.error()));
    return;
  }
  auto name = rep.node_name;
  auto since_ns = cluster::steady_ns();  // after the daemon took its report
  self->request(*node, std::chrono::seconds{self->state.cfg.message_timeout_s},
                msg::register_atom_v, std::move(rep), daemon)
      .then(
          [self, rp, name, daemon, report, since_ns](caf::actor& handle) mutable {
            if (report) reconcile(self, name, daemon, *report, since_ns);
            rp.deliver(std::move(handle));
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
}

/// Registration: with a gate, only once it vouched for the daemon (a crafted peer on the CAF port
/// cannot pose as a node); then the node actor answers with its handle.
caf::result<caf::actor> on_register(controller_self self, msg::machine_status& rep,
                                    caf::actor& daemon, msg::node_report* report) {
  auto& st = self->state;
  auto rp = self->make_response_promise<caf::actor>();
  auto kept = report ? std::optional<msg::node_report>{std::move(*report)} : std::nullopt;
  if (!st.gate) {
    rep.credential.clear();
    admit(self, rp, std::move(rep), std::move(daemon), std::move(kept));
    return rp;
  }
  auto checked = kept ? *kept : msg::node_report{};
  self->request(st.gate, std::chrono::seconds{st.cfg.message_timeout_s}, msg::register_atom_v, rep,
                std::move(checked))
      .then(
          [self, rp, rep, daemon, kept](caf::ok_atom) mutable {
            rep.credential.clear();
            admit(self, rp, std::move(rep), std::move(daemon), std::move(kept));
          },
          [rp, rep](caf::error& err) mutable {
            config::log().warn("registration refused node={} host={} pid={}: {}", rep.node_name,
                               rep.hostname, rep.daemon_pid, describe(err));
            rp.deliver(std::move(err));
          });
  return rp;
}

}  // namespace

caf::result<caf::actor> register_daemon(controller_self self, msg::machine_status& rep,
                                        caf::actor& daemon) {
  return on_register(self, rep, daemon, nullptr);
}

caf::result<caf::actor> register_daemon_with_report(controller_self self, msg::machine_status& rep,
                                                    caf::actor& daemon, msg::node_report& report) {
  return on_register(self, rep, daemon, &report);
}

caf::result<caf::ok_atom> announce_collector(controller_self self, std::string& name, uint16_t port,
                                             caf::actor& collector) {
  if (!self->state.collectors)
    return make_error(errc::invalid_request,
                      "node " + name + " announced a collector, but CollectorNodes is empty");
  return self->delegate(self->state.collectors, msg::collector_atom_v, std::move(name), port,
                        std::move(collector));
}

}  // namespace shoal::actors::ctl

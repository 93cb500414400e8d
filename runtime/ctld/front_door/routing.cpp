#include "runtime/ctld/front_door/routing.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/in_process_types.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "runtime/ctld/front_door/access.hpp"
#include "runtime/ctld/front_door/authorize.hpp"
#include "runtime/ctld/front_door/framing.hpp"

namespace shoal::runtime::door {

namespace {

/// Answers `req` for its kind; authorize has let it through and granted what it may see.
using handler = void (*)(door_self self, const reply_to& to, msg::client_request& req,
                         const grant& g);

/// How one kind of request is served.
struct route {
  op kind = op::unknown;
  handler handle = nullptr;
  need who = need::nothing;     ///< what authorize asks of its sender first
  bool in_control_only = true;  ///< refused while no target answers (errc::not_in_control)
};

// -- filling replies --

void nothing_more(msg::client_reply&, caf::ok_atom) {}

void the_job(msg::client_reply& r, msg::job_info& job) {
  r.jobs.push_back(std::move(job));
}

void the_text(msg::client_reply& r, std::string& text) {
  r.text = std::move(text);
}

/// The map as `visible` lets its user see it: other users' jobs leave no id behind.
void hide_others(msg::topology_view& view, const std::set<uint64_t>& visible) {
  for (auto& node : view.nodes)
    if (node.job_id != 0 && visible.count(node.job_id) == 0) node.job_id = 0;
  auto& allocs = view.allocations;
  allocs.erase(
      std::remove_if(allocs.begin(), allocs.end(),
                     [&](const msg::map_allocation& a) { return visible.count(a.job_id) == 0; }),
      allocs.end());
}

// -- listings --

void on_ping(door_self self, const reply_to& to, msg::client_request&, const grant&) {
  forward<msg::controller_status>(
      self, to, caf::make_message(caf::ping_atom::value),
      [](msg::client_reply& r, msg::controller_status& s) { r.status = s; });
}

void on_jobs(door_self self, const reply_to& to, msg::client_request& req, const grant& g) {
  // 0 asks for every field (an older client); a mask also gets what the access check reads.
  auto fields = req.job_fields == 0 ? msg::field_mask{0} : req.job_fields | fields_may_see_reads();
  forward<std::vector<msg::job_info>>(
      self, to,
      caf::make_message(msg::jobs_atom_v, req.include_finished, fields, std::move(req.filter)),
      [g](msg::client_reply& r, std::vector<msg::job_info>& v) {
        for (auto& job : v)
          if (g.sees(job)) r.jobs.push_back(std::move(job));
      });
}

void on_job(door_self self, const reply_to& to, msg::client_request& req, const grant& g) {
  forward<msg::job_info>(self, to, caf::make_message(msg::jobs_atom_v, req.job_id),
                         [g](msg::client_reply& r, msg::job_info& job) {
                           if (g.sees(job)) return the_job(r, job);
                           r.error_code = static_cast<uint8_t>(errc::permission_denied);
                           r.error_text = "Access/permission denied";
                         });
}

/// The running steps (of one job, or of one step of it), as PrivateData lets the sender see them.
void on_steps(door_self self, const reply_to& to, msg::client_request& req, const grant& g) {
  forward<std::vector<msg::step_info>>(
      self, to, caf::make_message(msg::steps_atom_v, req.job_id, req.step_id),
      [g](msg::client_reply& r, std::vector<msg::step_info>& v) {
        for (auto& step : v)
          if (g.sees(step)) r.steps.push_back(std::move(step));
      });
}

/// The accounting store's jobs, as PrivateData lets the sender see them.
void on_accounting(door_self self, const reply_to& to, msg::client_request& req, const grant& g) {
  forward<std::vector<msg::accounted_job>>(
      self, to, caf::make_message(msg::account_atom_v, std::move(req.query)),
      [g](msg::client_reply& r, std::vector<msg::accounted_job>& v) {
        for (auto& job : v)
          if (g.sees(job.info)) r.accounted.push_back(std::move(job));
      });
}

/// sacctmgr list/show: everything the store keeps of associations; anyone may list.
void on_acctmgr_list(door_self self, const reply_to& to, msg::client_request&, const grant&) {
  forward<msg::association_data>(
      self, to, caf::make_message(msg::acctmgr_atom_v),
      [](msg::client_reply& r, msg::association_data& data) { r.associations = std::move(data); });
}

/// sstat: a job's running steps with what they used so far. Under PrivateData=jobs another user's
/// job shows no steps, as slurmctld packs none of them (sstat then says none runs).
void on_step_usage(door_self self, const reply_to& to, msg::client_request& req, const grant& g) {
  forward<msg::accounted_job>(self, to,
                              caf::make_message(msg::usage_atom_v, req.job_id, req.step_id),
                              [g](msg::client_reply& r, msg::accounted_job& job) {
                                if (!g.sees(job.info)) job.steps.clear();
                                r.accounted.push_back(std::move(job));
                              });
}

/// sshare: the fair-share tree with every association's usage; anyone may list (sshare shows
/// other users' lines with -a, as Slurm does without PrivateData=usage).
void on_shares(door_self self, const reply_to& to, msg::client_request&, const grant&) {
  forward<std::vector<msg::share_info>>(
      self, to, caf::make_message(msg::shares_atom_v),
      [](msg::client_reply& r, std::vector<msg::share_info>& v) { r.shares = std::move(v); });
}

void on_nodes(door_self self, const reply_to& to, msg::client_request&, const grant&) {
  forward<std::vector<msg::node_info>>(
      self, to, caf::make_message(msg::nodes_atom_v),
      [](msg::client_reply& r, std::vector<msg::node_info>& v) { r.nodes = std::move(v); });
}

void on_partitions(door_self self, const reply_to& to, msg::client_request&, const grant&) {
  forward<std::vector<msg::partition_info>>(
      self, to, caf::make_message(msg::parts_atom_v),
      [](msg::client_reply& r, std::vector<msg::partition_info>& v) {
        r.partitions = std::move(v);
      });
}

void on_config(door_self self, const reply_to& to, msg::client_request&, const grant&) {
  forward<std::string>(self, to, caf::make_message(msg::config_atom_v), the_text);
}

void on_partition_summary(door_self self, const reply_to& to, msg::client_request&, const grant&) {
  forward<std::vector<msg::partition_summary>>(
      self, to, caf::make_message(msg::summary_atom_v),
      [](msg::client_reply& r, std::vector<msg::partition_summary>& v) {
        r.summary = std::move(v);
      });
}

void on_collectors(door_self self, const reply_to& to, msg::client_request&, const grant&) {
  forward<std::vector<msg::collector_info>>(
      self, to, caf::make_message(msg::collectors_atom_v),
      [](msg::client_reply& r, std::vector<msg::collector_info>& v) {
        r.collectors = std::move(v);
      });
}

void on_pending(door_self self, const reply_to& to, msg::client_request&, const grant& g) {
  forward<std::vector<msg::pending_detail>>(
      self, to, caf::make_message(msg::pending_atom_v),
      [g](msg::client_reply& r, std::vector<msg::pending_detail>& v) {
        for (auto& detail : v)
          if (g.sees(detail.job_id)) r.pending.push_back(std::move(detail));
      });
}

void on_map(door_self self, const reply_to& to, msg::client_request&, const grant& g) {
  forward<msg::topology_view>(self, to, caf::make_message(msg::map_atom_v),
                              [g](msg::client_reply& r, msg::topology_view& v) {
                                if (g.visible) hide_others(v, *g.visible);
                                r.map = std::move(v);
                              });
}

// -- jobs --

void on_submit(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<msg::job_info>(
      self, to, caf::make_message(msg::submit_atom_v, std::move(req.submission), caf::actor{}),
      the_job);
}

void on_run(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  // The connection is there (serve checked it, and nothing waited since), so is the relay.
  forward<msg::job_info>(
      self, to,
      caf::make_message(msg::submit_atom_v, std::move(req.submission), new_relay(self, to)),
      the_job);
}

void on_test_only(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<msg::start_estimate>(
      self, to, caf::make_message(msg::willrun_atom_v, std::move(req.submission)),
      [](msg::client_reply& r, msg::start_estimate& e) { r.estimate = std::move(e); });
}

void on_cancel(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<caf::ok_atom>(
      self, to, caf::make_message(msg::cancel_atom_v, std::move(req.target), req.signo, req.uid),
      nothing_more);
}

void on_job_control(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<caf::ok_atom>(self, to, caf::make_message(msg::jobctl_atom_v, std::move(req.control)),
                        nothing_more);
}

void on_job_update(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  req.job_change.uid = req.uid;
  forward<caf::ok_atom>(self, to, caf::make_message(msg::update_atom_v, std::move(req.job_change)),
                        nothing_more);
}

void on_signal(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  self->send(self->state.target, msg::signal_atom_v, req.job_id, req.signo);
  answer(self, to, msg::client_reply{});
}

void on_complete(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<caf::ok_atom>(
      self, to,
      caf::make_message(msg::complete_atom_v, req.job_id, req.exit_code, req.signo, req.uid),
      nothing_more);
}

void on_attach(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  auto relay = new_relay(self, to);
  if (!relay) return;  // the client left while its ownership was checked
  forward<msg::job_info>(
      self, to, caf::make_message(msg::attach_atom_v, req.job_id, req.step_id, relay), the_job);
}

/// Input never comes this way (on_data hands it to pass_input first); the line keeps the table
/// whole.
void on_input(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  pass_input(self, to, req);
}

// -- administration --

void on_node_update(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<caf::ok_atom>(self, to, caf::make_message(msg::nodeupd_atom_v, std::move(req.update)),
                        nothing_more);
}

void on_partition_edit(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<caf::ok_atom>(self, to,
                        caf::make_message(msg::partedit_atom_v, std::move(req.partition_change)),
                        nothing_more);
}

void on_reservation_edit(door_self self, const reply_to& to, msg::client_request& req,
                         const grant&) {
  forward<std::string>(
      self, to, caf::make_message(msg::resv_atom_v, std::move(req.reservation_change), req.uid),
      the_text);
}

void on_reservations(door_self self, const reply_to& to, msg::client_request&, const grant&) {
  forward<std::vector<msg::reservation_info>>(
      self, to, caf::make_message(msg::resv_atom_v),
      [](msg::client_reply& r, std::vector<msg::reservation_info>& v) {
        r.reservations = std::move(v);
      });
}

void on_acctmgr_edit(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<std::string>(self, to, caf::make_message(msg::acctmgr_atom_v, std::move(req.acctmgr)),
                       the_text);
}

void on_set_debug(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<std::string>(
      self, to, caf::make_message(msg::setdebug_atom_v, std::move(req.text), std::move(req.user)),
      the_text);
}

void on_debug_flags(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<std::string>(
      self, to, caf::make_message(msg::dbgflags_atom_v, std::move(req.text), std::move(req.user)),
      the_text);
}

/// shoalctld's SIGHUP reconfigure, for an admin: it reads a file, so a thread of its own runs it;
/// then the controller applies the file's nodes and partitions, and tells every node daemon.
void on_reconfigure(door_self self, const reply_to& to, msg::client_request& req, const grant& g) {
  auto run = self->state.setup.reconfigure;
  if (!run)
    return answer(self, to,
                  refusal(make_error(errc::invalid_request, "reconfigure is not available here")));
  // Unreachable once it answered, the helper goes then.
  auto helper = self->spawn<caf::detached>([run](caf::event_based_actor*) -> caf::behavior {
    return {[run](caf::ok_atom) -> caf::result<std::string, actors::config_ptr> {
      auto done = run();
      if (!done) return to_caf(done.error());
      return {std::move(done->text), std::move(done->fresh)};
    }};
  });
  auto timeout = self->state.setup.request_timeout;
  // The controller's log names who asked; the CLI sends no name with this request.
  auto user = req.user.empty() ? "uid:" + std::to_string(g.uid) : std::move(req.user);
  self->request(helper, timeout, caf::ok_atom::value)
      .then(
          [self, to, timeout, user = std::move(user)](std::string& text,
                                                      actors::config_ptr& fresh) {
            if (!self->state.target || !fresh)
              return answer(self, to, refusal(make_error(errc::unreachable, "no controller")));
            self->request(self->state.target, timeout, msg::reconfig_atom_v, std::move(fresh), user)
                .then(
                    [self, to, text](std::string& layout) {
                      // slurmctld tells every slurmd to reconfigure too.
                      self->send(self->state.target, msg::reconfig_atom_v);
                      msg::client_reply reply;
                      reply.text = text + " " + layout;
                      answer(self, to, reply);
                    },
                    [self, to](caf::error& err) { answer(self, to, refusal(err)); });
          },
          [self, to](caf::error& err) { answer(self, to, refusal(err)); });
}

void on_diag_reset(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  forward<caf::ok_atom>(self, to, caf::make_message(msg::diagreset_atom_v, req.uid), nothing_more);
}

// -- without the controller --

void on_cluster_identity(door_self self, const reply_to& to, msg::client_request& req,
                         const grant&) {
  if (!self->state.setup.auth.munge)
    return answer(self, to,
                  refusal(make_error(errc::invalid_request,
                                     "the daemons' port speaks no TLS under AuthType=auth/none")));
  msg::client_reply reply;
  reply.text = std::move(req.text);  // sealed by the credential checker
  answer(self, to, reply);
}

void on_token(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  if (self->state.setup.jwt_key.empty())
    return answer(self, to,
                  refusal(make_error(errc::invalid_request,
                                     "auth/jwt is not configured on this cluster: set "
                                     "AuthAltTypes=auth/jwt (and AuthAltParameters=jwt_key=PATH) "
                                     "in the controller's config")));
  msg::client_reply reply;
  reply.text = std::move(req.text);  // minted by the credential checker
  answer(self, to, reply);
}

void on_unknown(door_self self, const reply_to& to, msg::client_request& req, const grant&) {
  answer(self, to,
         refusal(make_error(errc::invalid_request, "unknown request " +
                                                       std::to_string(static_cast<int>(req.op)) +
                                                       " (a client newer than this controller?)")));
}

/// The routing table: a line per kind of messages/shoal.capnp's ClientOp, in any order (the build
/// fails unless each kind has exactly one). Administration (node and partition updates, debug
/// levels and flags, sacctmgr's changes) is root's and the admins'; the diagnostics' reset is the
/// controller's to refuse (root's and SlurmUser's only, as sdiag --reset). A reconfigure is the
/// admins' too; the door runs it (shoalctld's SIGHUP reconfigure), not the controller. A cluster
/// identity was sealed, or refused, by the credential checker, and is answered in or out of
/// control.
// clang-format off
constexpr route routes[] = {
  {op::unknown,           on_unknown},
  {op::ping,              on_ping},
  {op::jobs,              on_jobs},
  {op::job,               on_job},
  {op::steps,             on_steps},
  {op::accounting,        on_accounting},
  {op::acctmgr_list,      on_acctmgr_list},
  {op::step_usage,        on_step_usage},
  {op::shares,            on_shares},
  {op::nodes,             on_nodes},
  {op::partitions,        on_partitions},
  {op::config,            on_config},
  {op::partition_summary, on_partition_summary},
  {op::collectors,        on_collectors},
  {op::pending,           on_pending, need::visible_ids},
  {op::map,               on_map, need::visible_ids},
  {op::submit,            on_submit},
  {op::run,               on_run},
  {op::test_only,         on_test_only},
  {op::cancel,            on_cancel},
  {op::job_control,       on_job_control},
  {op::job_update,        on_job_update},
  {op::signal,            on_signal, need::job_owner},
  {op::complete,          on_complete, need::job_owner},
  {op::attach,            on_attach, need::job_owner},
  {op::node_update,       on_node_update, need::admin},
  {op::partition_edit,    on_partition_edit, need::admin},
  {op::reservation_edit,  on_reservation_edit, need::admin},
  {op::reservations,      on_reservations},
  {op::acctmgr_edit,      on_acctmgr_edit, need::admin},
  {op::set_debug,         on_set_debug, need::admin},
  {op::debug_flags,       on_debug_flags, need::admin},
  {op::diag_reset,        on_diag_reset},
  {op::reconfigure,       on_reconfigure, need::admin},
  {op::cluster_identity,  on_cluster_identity, need::nothing, false},
  {op::token,             on_token, need::nothing, false},
  {op::input,             on_input, need::nothing, false},
};
// clang-format on

/// `routes` indexed by kind; a kind without a route keeps a null handler.
constexpr std::array<route, msg::client_op_count> by_kind() {
  std::array<route, msg::client_op_count> out{};
  for (const auto& r : routes) out[static_cast<size_t>(r.kind)] = r;
  return out;
}

constexpr auto route_table = by_kind();

constexpr bool every_kind_routed() {
  for (const auto& r : route_table)
    if (r.handle == nullptr) return false;
  return true;
}

static_assert(std::size(routes) == msg::client_op_count && every_kind_routed(),
              "each ClientOp of messages/shoal.capnp needs one line in routes");

/// The route of `kind`; unknown's for a number the schema does not name (a newer client's).
const route& route_for(op kind) {
  auto i = static_cast<size_t>(kind);
  return route_table[i < route_table.size() ? i : 0];
}

}  // namespace

bool routed(msg::client_op kind) {
  return route_for(kind).handle != on_unknown;
}

void serve(door_self self, const reply_to& to, msg::client_request& req) {
  if (auto it = self->state.conns.find(to.hdl);
      it == self->state.conns.end() || it->second.serial != to.serial)
    return;  // the client left while its credential was checked
  const auto& r = route_for(static_cast<op>(req.op));
  // Held for a handler that runs once the target said who owns a job, or whose jobs are active.
  auto held = std::make_shared<msg::client_request>(std::move(req));
  authorize(self, to, *held, r.who, [self, to, r, held](const grant& g) {
    if (r.in_control_only && !in_control(self, to)) return;
    r.handle(self, to, *held, g);
  });
}

}  // namespace shoal::runtime::door

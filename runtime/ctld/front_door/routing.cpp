#include "runtime/ctld/front_door/routing.hpp"

#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "runtime/ctld/front_door/access.hpp"
#include "runtime/ctld/front_door/framing.hpp"

namespace shoal::runtime::door {

void serve(door_self self, connection_handle hdl, uint64_t serial, uint64_t number,
           msg::client_request& req) {
  auto& st = self->state;
  auto kind = static_cast<op>(req.op);
  if (auto it = st.conns.find(hdl); it == st.conns.end() || it->second.serial != serial)
    return;  // the client left while its credential was checked
  if (is_administration(kind) && !is_admin(st, req.uid)) {
    auto it = st.conns.find(hdl);
    config::log().warn("front door: permission denied request={} uid={} peer={}",
                       static_cast<int>(req.op), req.uid,
                       it != st.conns.end() ? it->second.peer : std::string{"?"});
    answer(self, hdl, serial, number,
           refusal(make_error(errc::permission_denied, "Access/permission denied")));
    return;
  }
  if (kind == op::cluster_identity) {
    if (!st.setup.auth.munge) {
      answer(self, hdl, serial, number,
             refusal(make_error(errc::invalid_request,
                                "the daemons' port speaks no TLS under AuthType=auth/none")));
      return;
    }
    msg::client_reply reply;
    reply.text = std::move(req.text);  // sealed by the credential checker
    answer(self, hdl, serial, number, std::move(reply));
    return;
  }
  if (!st.target) {
    answer(self, hdl, serial, number,
           refusal(make_error(errc::not_in_control,
                              "not in control: this shoalctld is changing roles")));
    return;
  }
  auto done = [](msg::client_reply&, caf::ok_atom) {};
  auto one_job = [](msg::client_reply& r, msg::job_info& j) { r.jobs.push_back(std::move(j)); };
  auto text = [](msg::client_reply& r, std::string& t) { r.text = std::move(t); };
  switch (kind) {
    case op::ping:
      forward<msg::controller_status>(
          self, hdl, serial, number, caf::make_message(caf::ping_atom::value),
          [](msg::client_reply& r, msg::controller_status& s) { r.status = s; });
      return;
    case op::jobs:
      forward<std::vector<msg::job_info>>(
          self, hdl, serial, number, caf::make_message(msg::jobs_atom_v, req.include_finished),
          [self, uid = req.uid](msg::client_reply& r, std::vector<msg::job_info>& v) {
            for (auto& job : v)
              if (may_see(self->state, uid, job)) r.jobs.push_back(std::move(job));
          });
      return;
    case op::job:
      forward<msg::job_info>(self, hdl, serial, number,
                             caf::make_message(msg::jobs_atom_v, req.job_id),
                             [self, uid = req.uid](msg::client_reply& r, msg::job_info& job) {
                               if (may_see(self->state, uid, job)) {
                                 r.jobs.push_back(std::move(job));
                                 return;
                               }
                               r.error_code = static_cast<uint8_t>(errc::permission_denied);
                               r.error_text = "Access/permission denied";
                             });
      return;
    case op::nodes:
      forward<std::vector<msg::node_info>>(
          self, hdl, serial, number, caf::make_message(msg::nodes_atom_v),
          [](msg::client_reply& r, std::vector<msg::node_info>& v) { r.nodes = std::move(v); });
      return;
    case op::partitions:
      forward<std::vector<msg::partition_info>>(
          self, hdl, serial, number, caf::make_message(msg::parts_atom_v),
          [](msg::client_reply& r, std::vector<msg::partition_info>& v) {
            r.partitions = std::move(v);
          });
      return;
    case op::config:
      forward<std::string>(self, hdl, serial, number, caf::make_message(msg::config_atom_v), text);
      return;
    case op::partition_summary:
      forward<std::vector<msg::partition_summary>>(
          self, hdl, serial, number, caf::make_message(msg::summary_atom_v),
          [](msg::client_reply& r, std::vector<msg::partition_summary>& v) {
            r.summary = std::move(v);
          });
      return;
    case op::collectors:
      forward<std::vector<msg::collector_info>>(
          self, hdl, serial, number, caf::make_message(msg::collectors_atom_v),
          [](msg::client_reply& r, std::vector<msg::collector_info>& v) {
            r.collectors = std::move(v);
          });
      return;
    case op::cancel:
      forward<caf::ok_atom>(
          self, hdl, serial, number,
          caf::make_message(msg::cancel_atom_v, std::move(req.target), req.signo, req.uid), done);
      return;
    case op::job_control:
      forward<caf::ok_atom>(self, hdl, serial, number,
                            caf::make_message(msg::jobctl_atom_v, std::move(req.control)), done);
      return;
    case op::pending:
      visible_jobs(self, hdl, serial, number, req.uid, [=](auto visible) {
        forward<std::vector<msg::pending_detail>>(
            self, hdl, serial, number, caf::make_message(msg::pending_atom_v),
            [visible](msg::client_reply& r, std::vector<msg::pending_detail>& v) {
              for (auto& detail : v)
                if (!visible || visible->count(detail.job_id) != 0)
                  r.pending.push_back(std::move(detail));
            });
      });
      return;
    case op::map:
      visible_jobs(self, hdl, serial, number, req.uid, [=](auto visible) {
        forward<msg::topology_view>(self, hdl, serial, number, caf::make_message(msg::map_atom_v),
                                    [visible](msg::client_reply& r, msg::topology_view& v) {
                                      if (visible) hide_others(v, *visible);
                                      r.map = std::move(v);
                                    });
      });
      return;
    case op::node_update:
      forward<caf::ok_atom>(self, hdl, serial, number,
                            caf::make_message(msg::nodeupd_atom_v, std::move(req.update)), done);
      return;
    case op::partition_edit:
      forward<caf::ok_atom>(
          self, hdl, serial, number,
          caf::make_message(msg::partedit_atom_v, std::move(req.partition_change)), done);
      return;
    case op::set_debug:
      forward<std::string>(
          self, hdl, serial, number,
          caf::make_message(msg::setdebug_atom_v, std::move(req.text), std::move(req.user)), text);
      return;
    case op::debug_flags:
      forward<std::string>(
          self, hdl, serial, number,
          caf::make_message(msg::dbgflags_atom_v, std::move(req.text), std::move(req.user)), text);
      return;
    case op::diag_reset:
      forward<caf::ok_atom>(self, hdl, serial, number,
                            caf::make_message(msg::diagreset_atom_v, req.uid), done);
      return;
    case op::submit:
      forward<msg::job_info>(
          self, hdl, serial, number,
          caf::make_message(msg::submit_atom_v, std::move(req.submission), caf::actor{}), one_job);
      return;
    case op::signal:
      if_owner(self, hdl, serial, number, req.job_id, req.uid,
               [self, hdl, serial, number, id = req.job_id, signo = req.signo] {
                 self->send(self->state.target, msg::signal_atom_v, id, signo);
                 answer(self, hdl, serial, number, msg::client_reply{});
               });
      return;
    case op::run:
      forward<msg::job_info>(self, hdl, serial, number,
                             caf::make_message(msg::submit_atom_v, std::move(req.submission),
                                               new_relay(self, hdl, serial)),
                             one_job);
      return;  // (the connection is there: checked above)
    case op::test_only:
      forward<msg::start_estimate>(
          self, hdl, serial, number,
          caf::make_message(msg::willrun_atom_v, std::move(req.submission)),
          [](msg::client_reply& r, msg::start_estimate& e) { r.estimate = std::move(e); });
      return;
    case op::complete:
      if_owner(self, hdl, serial, number, req.job_id, req.uid,
               [self, hdl, serial, number, id = req.job_id, code = req.exit_code, signo = req.signo,
                uid = req.uid, done] {
                 forward<caf::ok_atom>(
                     self, hdl, serial, number,
                     caf::make_message(msg::complete_atom_v, id, code, signo, uid), done);
               });
      return;
    case op::attach:
      if_owner(self, hdl, serial, number, req.job_id, req.uid,
               [self, hdl, serial, number, id = req.job_id, one_job] {
                 auto relay = new_relay(self, hdl, serial);
                 if (!relay) return;  // the client left meanwhile
                 forward<msg::job_info>(self, hdl, serial, number,
                                        caf::make_message(msg::attach_atom_v, id, relay), one_job);
               });
      return;
    case op::cluster_identity:
      return;  // answered above, in or out of control
  }
  answer(self, hdl, serial, number,
         refusal(make_error(errc::invalid_request, "unknown request " +
                                                       std::to_string(static_cast<int>(req.op)) +
                                                       " (a client newer than this controller?)")));
}

}  // namespace shoal::runtime::door

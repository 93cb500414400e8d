#include "runtime/ctld/front_door.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pwd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "messages/front_door.hpp"
#include "runtime/bootstrap/munge.hpp"
#include "runtime/bootstrap/request_auth.hpp"

namespace shoal::runtime {

namespace {

using clock = std::chrono::steady_clock;
using caf::io::connection_handle;
using op = msg::client_op;

using sweep_atom = caf::atom_constant<caf::atom("sweep")>;
using verify_atom = caf::atom_constant<caf::atom("verify")>;
using push_atom = caf::atom_constant<caf::atom("push")>;
using hangup_atom = caf::atom_constant<caf::atom("hangup")>;

/// Requests one connection may have awaiting their replies (the CLI has one at a time): a
/// client pipelining more is dropped, so their replies cannot pile up.
constexpr uint64_t max_requests_in_flight = 1024;

/// One client connection. Handles are socket numbers, which the kernel hands out again as soon
/// as a connection closes: a reply that arrives after its connection closed must not reach the
/// next connection on the same number, so each connection has a serial of its own.
struct connection {
  uint64_t serial = 0;
  std::string peer;           ///< "address:port", for the log
  bool want_length = true;    ///< reading the 4-byte length, else the frame it announced
  clock::time_point started;  ///< when the frame being read began (its first byte)
  bool mid_frame = false;
  uint64_t next_request = 0;  ///< number of the next request read
  uint64_t next_reply = 0;    ///< number of the next reply to write (replies go out in order)
  std::map<uint64_t, std::string> ready;  ///< replies waiting for the ones before them
  std::vector<caf::actor> relays;         ///< run and attach: who streams the job's news here
};

struct door_state {
  front_door_setup setup;
  caf::actor target;  ///< who answers now (see retarget_atom)
  std::unordered_map<connection_handle, connection> conns;
  uint64_t next_serial = 1;
  std::vector<caf::actor> checkers;  ///< auth/munge: who checks credentials, in turn
  size_t next_checker = 0;
  static inline const char* name = "front_door";
};

using door_self = caf::io::stateful_broker<door_state>*;

/// Forgets a connection that closed. Its relays go too: the jobs they served see their client
/// leave, as srun's jobs do when srun dies.
void forget(door_self self, connection_handle hdl) {
  auto it = self->state.conns.find(hdl);
  if (it == self->state.conns.end()) return;
  for (auto& relay : it->second.relays) self->send_exit(relay, caf::exit_reason::user_shutdown);
  self->state.conns.erase(it);
}

void drop(door_self self, connection_handle hdl, const std::string& why) {
  auto it = self->state.conns.find(hdl);
  if (it == self->state.conns.end()) return;
  config::log().warn("front door: dropped client {}: {}", it->second.peer, why);
  forget(self, hdl);
  self->close(hdl);
}

/// Writes `frame` on `hdl` now. What flush could not hand to the kernel waits in the broker: a
/// client that sends and never reads would grow it without end, so past the bound it is dropped.
void write_frame(door_self self, connection_handle hdl, const std::string& frame) {
  self->write(hdl, frame.size(), frame.data());
  self->flush(hdl);
  if (self->wr_buf(hdl).size() > self->state.setup.max_unread_reply_bytes)
    drop(self, hdl,
         "over " + std::to_string(self->state.setup.max_unread_reply_bytes) +
             " bytes of replies unread");
}

/// Queues reply `number` of the connection `serial` and writes every reply now in order.
void answer(door_self self, connection_handle hdl, uint64_t serial, uint64_t number,
            const msg::client_reply& reply) {
  auto it = self->state.conns.find(hdl);
  if (it == self->state.conns.end() || it->second.serial != serial) return;  // gone meanwhile
  auto& c = it->second;
  c.ready.emplace(number, msg::encode_client_frame(reply));
  std::vector<std::string> now;
  for (auto r = c.ready.find(c.next_reply); r != c.ready.end(); r = c.ready.find(c.next_reply)) {
    now.push_back(std::move(r->second));
    c.ready.erase(r);
    ++c.next_reply;
  }
  for (auto& frame : now) {
    if (self->state.conns.count(hdl) == 0) return;  // dropped by the write before
    write_frame(self, hdl, frame);
  }
}

msg::client_reply refusal(const caf::error& err) {
  msg::client_reply reply;
  if (err.category() == error_category) {
    reply.error_code = err.code();
    reply.error_text = describe(err);
  } else if (err == caf::sec::request_timeout) {
    reply.error_code = static_cast<uint8_t>(errc::unreachable);
    reply.error_text = "the controller did not answer in time";
  } else {
    reply.error_code = static_cast<uint8_t>(errc::system_error);
    reply.error_text = "the controller failed to answer: " + caf::to_string(err);
  }
  return reply;
}

/// Asks the target and writes what it answers; `fill` puts a success into the reply.
template <class... Answer, class Fill>
void forward(door_self self, connection_handle hdl, uint64_t serial, uint64_t number,
             caf::message request, Fill fill) {
  auto& st = self->state;
  self->request(st.target, st.setup.request_timeout, std::move(request))
      .then(
          [self, hdl, serial, number, fill](Answer&... xs) {
            msg::client_reply reply;
            fill(reply, xs...);
            answer(self, hdl, serial, number, reply);
          },
          [self, hdl, serial, number](caf::error& err) {
            answer(self, hdl, serial, number, refusal(err));
          });
}

bool is_admin(const door_state& st, uint32_t uid) {
  return uid == 0 || std::find(st.setup.admin_uids.begin(), st.setup.admin_uids.end(), uid) !=
                         st.setup.admin_uids.end();
}

/// Whether `uid` may see `job` (PrivateData=jobs hides other users' jobs from all but admins).
bool may_see(const door_state& st, uint32_t uid, const msg::job_info& job) {
  return !st.setup.private_jobs || job.uid == uid || is_admin(st, uid);
}

/// What a run's or attach's job tells its client, framed (off the broker's thread) for the
/// connection that asked. When the controller it came through goes away (a shoalctld handing
/// control back), the door hangs up, and the client attaches again to the one in control.
caf::behavior stream_relay(caf::event_based_actor* self, caf::actor door, caf::actor controller,
                           int64_t hdl, uint64_t serial) {
  auto push = [self, door, hdl, serial](msg::client_reply reply) {
    self->send(door, push_atom::value, hdl, serial, msg::encode_client_frame(reply));
  };
  self->monitor(controller);
  self->set_down_handler([self, door, hdl, serial](const caf::down_msg&) {
    self->send(door, hangup_atom::value, hdl, serial);
  });
  return {
      [push](msg::task_output& out) {
        msg::client_reply r;
        r.stream = static_cast<uint8_t>(msg::client_stream::output);
        r.output = std::move(out);
        push(std::move(r));
      },
      [push](msg::step_exit& ex) {
        msg::client_reply r;
        r.stream = static_cast<uint8_t>(msg::client_stream::step_exit);
        r.exited = std::move(ex);
        push(std::move(r));
      },
      [push](msg::job_event& ev) {
        msg::client_reply r;
        r.stream = static_cast<uint8_t>(msg::client_stream::event);
        r.event = std::move(ev);
        push(std::move(r));
      },
  };
}

/// A relay for the connection `hdl`, which dies with it; null when the connection is gone.
caf::actor new_relay(door_self self, connection_handle hdl, uint64_t serial) {
  auto it = self->state.conns.find(hdl);
  if (it == self->state.conns.end() || it->second.serial != serial) return {};
  auto relay = self->spawn(stream_relay, caf::actor_cast<caf::actor>(self), self->state.target,
                           hdl.id(), serial);
  it->second.relays.push_back(relay);
  return relay;
}

/// Runs `then` when `uid` may act on job `id` (its owner or an admin); answers the refusal
/// otherwise.
template <class Then>
void if_owner(door_self self, connection_handle hdl, uint64_t serial, uint64_t number, uint64_t id,
              uint32_t uid, Then then) {
  self->request(self->state.target, self->state.setup.request_timeout, msg::jobs_atom_v, id)
      .then(
          [self, hdl, serial, number, uid, then](msg::job_info& job) {
            if (job.uid == uid || is_admin(self->state, uid)) return then();
            config::log().warn("front door: permission denied job={} uid={}", job.job_id, uid);
            msg::client_reply r;
            r.error_code = static_cast<uint8_t>(errc::permission_denied);
            r.error_text = "Access/permission denied: job " + std::to_string(job.job_id) +
                           " belongs to " + job.user;
            answer(self, hdl, serial, number, r);
          },
          [self, hdl, serial, number](caf::error& err) {
            answer(self, hdl, serial, number, refusal(err));
          });
}

/// The ids of the active jobs `uid` may see under PrivateData=jobs, for `then`; null (every job)
/// for an admin or without PrivateData. Answers the refusal when the controller does not tell.
template <class Then>
void visible_jobs(door_self self, connection_handle hdl, uint64_t serial, uint64_t number,
                  uint32_t uid, Then then) {
  auto& st = self->state;
  if (!st.setup.private_jobs || is_admin(st, uid))
    return then(std::shared_ptr<const std::set<uint64_t>>{});
  self->request(st.target, st.setup.request_timeout, msg::jobs_atom_v, false)
      .then(
          [uid, then](std::vector<msg::job_info>& jobs) {
            auto mine = std::make_shared<std::set<uint64_t>>();
            for (auto& job : jobs)
              if (job.uid == uid) mine->insert(job.job_id);
            then(std::shared_ptr<const std::set<uint64_t>>{std::move(mine)});
          },
          [self, hdl, serial, number](caf::error& err) {
            answer(self, hdl, serial, number, refusal(err));
          });
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

/// Node and partition updates, debug levels and flags: root's and the admins'. (The diagnostics'
/// reset is the controller's to refuse: root's and SlurmUser's only, as sdiag --reset.)
bool is_administration(op o) {
  return o == op::node_update || o == op::partition_edit || o == op::set_debug ||
         o == op::debug_flags;
}

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

/// The name of `uid` on this host, or the number when it has none.
std::string user_name(uint32_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr)
    return found->pw_name;
  return std::to_string(uid);
}

/// Puts the proven sender wherever the request names one, so the controller's checks (own jobs
/// only) and the job's identity rest on the proof and not on what the client wrote.
void stamp_sender(msg::client_request& req, const request_sender& who) {
  req.uid = who.uid;
  req.control.uid = who.uid;
  auto name = user_name(who.uid);
  req.user = name;
  req.update.user = name;  // who a node's reason names
  if (static_cast<op>(req.op) == op::submit || static_cast<op>(req.op) == op::run ||
      static_cast<op>(req.op) == op::test_only) {
    req.submission.uid = who.uid;
    req.submission.gid = who.gid;
    req.submission.user = std::move(name);
  }
}

/// Checks credentials (auth/munge) on a thread of its own: munge_decode waits for munged, and
/// the door must not stop serving meanwhile. A node daemon's cluster_identity request gets its
/// answer here too, since sealing it waits for munged as well.
caf::behavior credential_checker(caf::event_based_actor*, const front_door_setup& setup) {
  return {
      [auth = setup.auth, identity = setup.cluster_identity, daemons = setup.daemon_uids](
          verify_atom, msg::client_request& req) -> caf::result<msg::client_request> {
        auto who = verify_request(auth, req);
        if (!who) return to_caf(who.error());
        stamp_sender(req, *who);
        if (static_cast<op>(req.op) == op::cluster_identity) {
          if (std::find(daemons.begin(), daemons.end(), who->uid) == daemons.end()) {
            config::log().warn(
                "front door: cluster identity refused uid={}: not root, SlurmUser nor the user "
                "shoalctld runs as",
                who->uid);
            return make_error(errc::permission_denied, "Access/permission denied");
          }
          auto sealed = make_munge_credential(auth.munge_socket, identity, who->uid);
          if (!sealed) return to_caf(sealed.error());
          req.text = std::move(*sealed);
        }
        return std::move(req);
      },
  };
}

/// Serves `req` once its sender is proven (auth/munge), or at once (auth/none).
void admit(door_self self, connection_handle hdl, uint64_t serial, uint64_t number,
           msg::client_request& req) {
  auto& st = self->state;
  if (st.checkers.empty()) {
    req.credential.clear();
    return serve(self, hdl, serial, number, req);
  }
  auto& checker = st.checkers[st.next_checker++ % st.checkers.size()];
  self->request(checker, st.setup.request_timeout, verify_atom::value, std::move(req))
      .then([self, hdl, serial,
             number](msg::client_request& verified) { serve(self, hdl, serial, number, verified); },
            [self, hdl, serial, number](caf::error& err) {
              auto it = self->state.conns.find(hdl);
              config::log().warn("front door: {} peer={}", describe(err),
                                 it != self->state.conns.end() && it->second.serial == serial
                                     ? it->second.peer
                                     : std::string{"?"});
              answer(self, hdl, serial, number, refusal(err));
            });
}

void on_data(door_self self, caf::io::new_data_msg& m) {
  auto it = self->state.conns.find(m.handle);
  if (it == self->state.conns.end()) return;
  auto& c = it->second;
  if (c.want_length) {
    auto length = msg::client_frame_length(m.buf.data());
    if (length == 0 || length > msg::max_request_frame) {
      drop(self, m.handle,
           "frame length " + std::to_string(length) + " out of range (1.." +
               std::to_string(msg::max_request_frame) + ")");
      return;
    }
    c.want_length = false;
    c.mid_frame = true;
    c.started = clock::now();
    self->configure_read(m.handle, caf::io::receive_policy::exactly(length));
    return;
  }
  msg::client_request req;
  if (auto err = msg::decode(m.buf, req)) {
    drop(self, m.handle, describe(err));
    return;
  }
  if (c.next_request - c.next_reply >= max_requests_in_flight) {
    drop(self, m.handle,
         "over " + std::to_string(max_requests_in_flight) + " requests awaiting replies");
    return;
  }
  c.want_length = true;
  c.mid_frame = false;
  self->configure_read(m.handle, caf::io::receive_policy::exactly(msg::client_length_size));
  admit(self, m.handle, c.serial, c.next_request++, req);
}

caf::behavior door_behavior(door_self self, int listen_fd, front_door_setup setup) {
  self->state.setup = std::move(setup);
  auto& auth = self->state.setup.auth;
  if (auth.munge)
    for (unsigned i = 0; i < std::max(1u, self->state.setup.checkers); ++i)
      self->state.checkers.push_back(
          self->spawn<caf::detached + caf::linked>(credential_checker, self->state.setup));
  self->add_doorman(listen_fd);
  self->delayed_send(self, self->state.setup.frame_patience / 2, sweep_atom::value);
  return {
      [self](const caf::io::new_connection_msg& m) {
        auto& c = self->state.conns[m.handle];
        c.serial = self->state.next_serial++;
        c.peer = self->remote_addr(m.handle) + ":" + std::to_string(self->remote_port(m.handle));
        c.started = clock::now();
        self->configure_read(m.handle, caf::io::receive_policy::exactly(msg::client_length_size));
      },
      [self](caf::io::new_data_msg& m) { on_data(self, m); },
      [self](const caf::io::connection_closed_msg& m) { forget(self, m.handle); },
      [self](push_atom, int64_t hdl_id, uint64_t serial, std::string& frame) {
        auto hdl = connection_handle::from_int(hdl_id);
        auto it = self->state.conns.find(hdl);
        if (it == self->state.conns.end() || it->second.serial != serial) return;  // gone
        write_frame(self, hdl, frame);
      },
      [self](hangup_atom, int64_t hdl_id, uint64_t serial) {
        auto hdl = connection_handle::from_int(hdl_id);
        auto it = self->state.conns.find(hdl);
        if (it == self->state.conns.end() || it->second.serial != serial) return;
        config::log().info("front door: closing {}: the controller its job was attached to left",
                           it->second.peer);
        forget(self, hdl);
        self->close(hdl);
      },
      [](const caf::io::acceptor_closed_msg&) {
        config::log().error("front door: the listening socket closed");
      },
      [self](retarget_atom, caf::actor& target) {
        self->state.target = std::move(target);
        return caf::ok_atom::value;
      },
      [self](sweep_atom) {
        // A frame begun and not finished in time: a slow or stuck client (or one sending a
        // length it never fills). Idle connections between frames cost nothing and stay.
        auto& st = self->state;
        auto now = clock::now();
        std::vector<connection_handle> slow;
        for (auto& [hdl, c] : st.conns)
          if (c.mid_frame && now - c.started > st.setup.frame_patience) slow.push_back(hdl);
        for (auto hdl : slow) drop(self, hdl, "frame not complete in time");
        self->delayed_send(self, st.setup.frame_patience / 2, sweep_atom::value);
      },
  };
}

/// A listening TCP socket on `address`:`port` (every address when empty).
caf::expected<int> listen_on(const std::string& address, uint16_t port) {
  auto where = (address.empty() ? std::string{"*"} : address) + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  auto service = std::to_string(port);
  if (int rc = ::getaddrinfo(address.empty() ? nullptr : address.c_str(), service.c_str(), &hints,
                             &found);
      rc != 0)
    return make_error(errc::system_error,
                      "front door: cannot resolve " + where + ": " + ::gai_strerror(rc));
  std::string why;
  int fd = -1;
  for (auto* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0)
    return make_error(errc::system_error, "front door: cannot listen on " + where + ": " + why);
  return fd;
}

uint16_t bound_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

}  // namespace

caf::expected<front_door> open_front_door(caf::actor_system& sys, const front_door_setup& setup) {
  auto fd = listen_on(setup.address, setup.port);
  if (!fd) return std::move(fd.error());
  front_door door;
  door.port = bound_port(*fd);
  door.actor = sys.middleman().spawn_broker(door_behavior, *fd, setup);
  return door;
}

}  // namespace shoal::runtime

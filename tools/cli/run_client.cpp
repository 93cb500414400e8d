#include "tools/cli/run_client.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "messages/errc.hpp"
#include "messages/type_ids.hpp"

namespace shoal::cli {

namespace {

struct run_client_state {
  static inline const char* name = "run_client";
  caf::actor controller;
  msg::job_request req;
  std::shared_ptr<std::promise<int>> exit_code;
  uint64_t job_id = 0;
  bool is_step = false;
  bool queued = false;
  bool allocated = false;
  bool ended = false;
  bool done = false;
  uint32_t nodes_expected = 0;
  uint32_t nodes_reported = 0;
  int32_t code = 0;
  std::map<std::pair<int32_t, int>, bool> mid_line;  ///< (rank, stream) -> last chunk lacked '\n'
  /// The SlurmctldHost lines, to find the controller in control again after it went away.
  std::vector<config::controller_host> lines;
  size_t next_line = 0;
  std::chrono::steady_clock::time_point lost_at;  ///< when the controller went away
  bool reconnecting = false;
};

using client_self = caf::stateful_actor<run_client_state>*;

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    auto n = ::write(fd, data, size);
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void note(const std::string& text) {
  auto line = "shoal: " + text + "\n";
  write_all(2, line.data(), line.size());
}

void finish(client_self self, int code) {
  auto& st = self->state;
  if (st.done) return;
  st.done = true;
  st.exit_code->set_value(code);
  self->quit();
}

void maybe_finish(client_self self) {
  auto& st = self->state;
  if (st.ended && st.nodes_reported >= st.nodes_expected) finish(self, st.code);
}

void print_output(client_self self, const msg::task_output& out) {
  int fd = out.stream == msg::stream_kind::err ? 2 : 1;
  if (!self->state.req.label) return write_all(fd, out.data.data(), out.data.size());
  // Under -l every line starts with its rank, as srun -l prints it.
  auto prefix = std::to_string(out.rank) + ": ";
  auto& mid = self->state.mid_line[{out.rank, fd}];
  std::string text;
  for (char c : out.data) {
    if (!mid) text += prefix;
    text += c;
    mid = c != '\n';
  }
  write_all(fd, text.data(), text.size());
}

void on_event(client_self self, const msg::job_event& ev) {
  auto& st = self->state;
  auto id = std::to_string(ev.job_id);
  if (ev.kind == "queued") {
    st.queued = true;
    note("job " + id + " queued and waiting for resources");
  } else if (ev.kind == "allocated") {
    st.allocated = true;
    if (st.queued) note("job " + id + " has been allocated resources");
  } else if (ev.kind == "message") {
    note(ev.text);
  } else if (ev.kind == "ended") {
    if (!st.is_step && ev.job_id != st.job_id && st.job_id != 0) return;
    st.ended = true;
    st.code = ev.exit_code;
    // A job that did not complete never reports success, even when no task ran to say otherwise.
    if (!st.is_step && ev.state != msg::job_state::completed && st.code == 0) st.code = 1;
    st.nodes_expected = ev.node_count;
    auto state = ev.state;
    if (!st.is_step && state != msg::job_state::completed && state != msg::job_state::failed)
      note("error: job " + id + " ended: " + msg::to_string(state));
    if (!ev.text.empty() && st.is_step)
      note("error: step " + id + "." + std::to_string(ev.step_id) + ": " + ev.text);
    else if (state == msg::job_state::failed && ev.text != msg::to_string(state) &&
             !ev.text.empty())
      note("error: " + ev.text);
    // Output from a node that never reports (it failed) must not hold us forever.
    self->delayed_send(self, std::chrono::seconds{1}, caf::timeout_atom::value);
    maybe_finish(self);
  }
}

/// How long a running job's client waits for its controller to come back.
constexpr auto controller_patience = std::chrono::minutes{5};

void reconnect(client_self self);

/// Passes what the job's steps send on to the run client. A new actor on purpose: a node daemon
/// still holds a proxy for the run client whose route went through the controller that died, and
/// CAF 0.17 learns a route only with a new proxy (a handle it has not seen), which this is.
caf::behavior relay(caf::event_based_actor* self, caf::actor client) {
  return {
      [self, client](msg::task_output& out) { self->send(client, std::move(out)); },
      [self, client](msg::step_exit& ex) { self->send(client, std::move(ex)); },
      [self, client](msg::job_event& ev) { self->send(client, std::move(ev)); },
  };
}

/// The controller is back: become the job's client again (through a relay, see above). A job
/// that ended meanwhile ends us.
void attach(client_self self, caf::actor controller) {
  auto sink = self->spawn<caf::linked>(relay, caf::actor{self});
  self->request(controller, std::chrono::seconds{10}, msg::attach_atom_v, self->state.job_id, sink)
      .then(
          [self, controller](const msg::job_info& info) {
            auto& st = self->state;
            st.reconnecting = false;
            st.controller = controller;
            self->monitor(controller);
            note("reattached to job " + std::to_string(info.job_id) +
                 " after the controller restarted");
            if (!msg::is_finished(info.state)) return;
            st.code = info.exit_code;
            if (info.state != msg::job_state::completed && st.code == 0) st.code = 1;
            if (info.state != msg::job_state::completed && info.state != msg::job_state::failed)
              note("error: job " + std::to_string(info.job_id) +
                   " ended: " + msg::to_string(info.state));
            finish(self, st.code);
          },
          [self](caf::error& err) {
            if (err.category() == error_category &&
                static_cast<errc>(err.code()) == errc::unknown_job) {
              note("error: " + describe(err));
              return finish(self, 1);
            }
            self->delayed_send(self, std::chrono::seconds{1}, caf::connect_atom::value);
          });
}

/// One attempt to reach the controller again (asynchronously: the handler never blocks).
void reconnect(client_self self) {
  auto& st = self->state;
  if (std::chrono::steady_clock::now() - st.lost_at > controller_patience) {
    note("error: the controller did not come back within 5 minutes; giving up on job " +
         std::to_string(st.job_id) + " (it may still run: see shoal queue)");
    return finish(self, 1);
  }
  if (st.lines.empty()) return finish(self, 1);
  auto& line = st.lines[st.next_line++ % st.lines.size()];
  auto mm = self->system().middleman().actor_handle();
  self->request(mm, std::chrono::seconds{5}, caf::connect_atom::value, line.address, line.port)
      .then(
          [self](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
            if (!ptr) {
              self->delayed_send(self, std::chrono::seconds{1}, caf::connect_atom::value);
              return;
            }
            attach(self, caf::actor_cast<caf::actor>(std::move(ptr)));
          },
          [self](caf::error&) {
            self->delayed_send(self, std::chrono::seconds{1}, caf::connect_atom::value);
          });
}

void on_controller_lost(client_self self) {
  auto& st = self->state;
  if (st.done || st.reconnecting) return;
  if (st.job_id == 0 || st.is_step) {
    note("error: lost the connection to the controller");
    return finish(self, 1);
  }
  st.reconnecting = true;
  st.lost_at = std::chrono::steady_clock::now();
  note("lost the connection to the controller; job " + std::to_string(st.job_id) +
       " keeps running, waiting for the controller to return");
  self->delayed_send(self, std::chrono::seconds{1}, caf::connect_atom::value);
}

caf::behavior run_client(client_self self, caf::actor controller, msg::job_request req,
                         std::shared_ptr<std::promise<int>> exit_code,
                         std::vector<config::controller_host> lines) {
  auto& st = self->state;
  st.controller = controller;
  st.exit_code = std::move(exit_code);
  st.is_step = req.job_id != 0;
  st.req = req;
  st.lines = std::move(lines);
  self->monitor(controller);
  self->set_down_handler([self](const caf::down_msg& dm) {
    if (dm.source == self->state.controller.address()) on_controller_lost(self);
  });
  self->request(controller, std::chrono::seconds{30}, msg::submit_atom_v, std::move(req),
                caf::actor{self})
      .then([self](const msg::job_info& info) { self->state.job_id = info.job_id; },
            [self](caf::error& err) {
              note("error: " + describe(err));
              finish(self, 1);
            });
  return {
      [self](const msg::task_output& out) { print_output(self, out); },
      [self](const msg::step_exit& ex) {
        auto& st = self->state;
        ++st.nodes_reported;
        if (!ex.launch_error.empty() && st.req.batch == false)
          note("error: " + ex.node_name + ": " + ex.launch_error);
        for (auto& t : ex.tasks)
          if (t.signal != 0)
            note("error: " + ex.node_name + ": task " + std::to_string(t.rank) + ": " +
                 strsignal(t.signal));
        maybe_finish(self);
      },
      [self](const msg::job_event& ev) { on_event(self, ev); },
      [self](caf::timeout_atom) { finish(self, self->state.code); },
      [self](caf::connect_atom) { reconnect(self); },
      [self](msg::signal_atom, int32_t signo) {
        auto& st = self->state;
        if (st.job_id == 0) return;
        // No tasks yet: an interrupt withdraws the request (srun revokes the allocation).
        if (!st.allocated && !st.is_step) return self->send(self, msg::cancel_atom_v);
        self->send(st.controller, msg::signal_atom_v, st.job_id, signo);
      },
      [self](msg::cancel_atom) {
        auto& st = self->state;
        if (st.job_id == 0) return;
        note("cancelling job " + std::to_string(st.job_id));
        self->request(st.controller, std::chrono::seconds{10}, msg::cancel_atom_v, st.job_id,
                      int32_t{0}, st.req.uid)
            .then([](caf::ok_atom) {}, [](caf::error& err) { note("error: " + describe(err)); });
      },
  };
}

}  // namespace

caf::actor spawn_run_client(caf::actor_system& sys, caf::actor controller, msg::job_request req,
                            std::shared_ptr<std::promise<int>> exit_code,
                            std::vector<config::controller_host> lines) {
  return sys.spawn(run_client, std::move(controller), std::move(req), std::move(exit_code),
                   std::move(lines));
}

}  // namespace shoal::cli

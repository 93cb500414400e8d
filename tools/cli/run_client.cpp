#include "tools/cli/run_client.hpp"

#include <unistd.h>

#include <cstdio>
#include <map>

#include <caf/all.hpp>

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

caf::behavior run_client(client_self self, caf::actor controller, msg::job_request req,
                         std::shared_ptr<std::promise<int>> exit_code) {
  auto& st = self->state;
  st.controller = controller;
  st.exit_code = std::move(exit_code);
  st.is_step = req.job_id != 0;
  st.req = req;
  self->monitor(controller);
  self->set_down_handler([self](const caf::down_msg&) {
    note("error: lost the connection to the controller");
    finish(self, 1);
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
                            std::shared_ptr<std::promise<int>> exit_code) {
  return sys.spawn(run_client, std::move(controller), std::move(req), std::move(exit_code));
}

}  // namespace shoal::cli

#include "runtime/ctld/front_door/stream_relay.hpp"

#include <csignal>
#include <memory>
#include <utility>

#include <caf/all.hpp>

#include "actors/unexpected.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "messages/front_door.hpp"
#include "runtime/ctld/front_door/door_state.hpp"

namespace shoal::runtime::door {

namespace {

/// Passes the waiting input on once every input shepherd is known. A shepherd that is gone
/// answers with an error, which counts as taken: nobody reads that input any more.
void pass_input(relay_actor* self) {
  auto& st = self->state;
  if (st.input_nodes == 0 || st.input_shepherds.size() < st.input_nodes) return;
  while (!st.input_waiting.empty()) {
    auto [chunk, rp] = std::move(st.input_waiting.front());
    st.input_waiting.pop_front();
    auto left = std::make_shared<size_t>(st.input_shepherds.size());
    auto done = [left, rp]() mutable {
      if (--*left == 0) rp.deliver(caf::ok_atom::value);
    };
    for (auto& shepherd : st.input_shepherds)
      self->request(shepherd, caf::infinite, msg::input_atom_v, chunk)
          .then([done](caf::ok_atom) mutable { done(); }, [done](caf::error&) mutable { done(); });
  }
}

bool failed(const msg::step_exit& ex) {
  for (auto& t : ex.tasks)
    if (t.exit_code != 0 || t.signal != 0) return true;
  return !ex.launch_error.empty();
}

void kill_step(relay_actor* self) {
  auto& st = self->state;
  st.killed = true;
  for (auto& shepherd : st.shepherds) self->send(shepherd, msg::signal_atom_v, int32_t{SIGKILL});
}

}  // namespace

caf::behavior stream_relay(relay_actor* self, caf::actor door, caf::actor controller, int64_t hdl,
                           uint64_t serial) {
  auto push = [self, door, hdl, serial](msg::client_reply reply) {
    self->send(door, push_atom::value, hdl, serial, msg::encode_client_frame(reply));
  };
  self->monitor(controller);
  self->set_down_handler([self, door, hdl, serial](const caf::down_msg&) {
    self->send(door, hangup_atom::value, hdl, serial);
  });
  actors::tolerate_strays(self);
  return {
      [push](msg::task_output& out) {
        msg::client_reply r;
        r.stream = static_cast<uint8_t>(msg::client_stream::output);
        r.output = std::move(out);
        push(std::move(r));
      },
      [self, push](msg::step_exit& ex) {
        auto& st = self->state;
        if (st.kill_on_bad_exit && !st.killed && failed(ex)) kill_step(self);
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
      [self](msg::stepio_atom, caf::actor& shepherd, uint32_t input_nodes, bool kill) {
        auto& st = self->state;
        st.shepherds.push_back(shepherd);
        if (kill) st.kill_on_bad_exit = true;
        if (st.killed) self->send(shepherd, msg::signal_atom_v, int32_t{SIGKILL});
        if (input_nodes == 0) return;
        st.input_nodes = input_nodes;
        st.input_shepherds.push_back(std::move(shepherd));
        pass_input(self);
      },
      [self](msg::input_atom, msg::task_input& chunk) -> caf::result<caf::ok_atom> {
        auto rp = self->make_response_promise();
        self->state.input_waiting.emplace_back(std::move(chunk), rp);
        pass_input(self);
        return rp;
      },
  };
}

}  // namespace shoal::runtime::door

#include "runtime/ctld/front_door/framing.hpp"

#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "runtime/ctld/front_door/auth.hpp"
#include "runtime/ctld/front_door/stream_relay.hpp"

namespace shoal::runtime::door {

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

void write_frame(door_self self, connection_handle hdl, const std::string& frame) {
  self->write(hdl, frame.size(), frame.data());
  self->flush(hdl);
  if (self->wr_buf(hdl).size() > self->state.setup.max_unread_reply_bytes)
    drop(self, hdl,
         "over " + std::to_string(self->state.setup.max_unread_reply_bytes) +
             " bytes of replies unread");
}

void answer(door_self self, const reply_to& to, const msg::client_reply& reply) {
  auto hdl = to.hdl;
  auto it = self->state.conns.find(hdl);
  if (it == self->state.conns.end() || it->second.serial != to.serial) return;  // gone meanwhile
  auto& c = it->second;
  c.ready.emplace(to.number, msg::encode_client_frame(reply));
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

std::string peer_of(door_self self, const reply_to& to) {
  auto it = self->state.conns.find(to.hdl);
  return it != self->state.conns.end() && it->second.serial == to.serial ? it->second.peer
                                                                         : std::string{"?"};
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

caf::actor new_relay(door_self self, const reply_to& to) {
  auto it = self->state.conns.find(to.hdl);
  if (it == self->state.conns.end() || it->second.serial != to.serial) return {};
  auto relay = self->spawn(stream_relay, caf::actor_cast<caf::actor>(self), self->state.target,
                           to.hdl.id(), to.serial);
  it->second.relays.push_back(relay);
  return relay;
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
  reply_to to{m.handle, c.serial, c.next_request++};
  // Input belongs to the run this connection made, which proved its sender: a credential per
  // chunk would cost a MUNGE round trip for every 64 KiB of a user's stdin.
  if (static_cast<op>(req.op) == op::input) return pass_input(self, to, req);
  admit(self, to, req);
}

void pass_input(door_self self, const reply_to& to, msg::client_request& req) {
  auto it = self->state.conns.find(to.hdl);
  if (it == self->state.conns.end() || it->second.serial != to.serial) return;
  if (it->second.relays.empty())
    return answer(self, to,
                  refusal(make_error(errc::invalid_request,
                                     "input is taken only on the connection of a run or attach")));
  self->request(it->second.relays.back(), caf::infinite, msg::input_atom_v, std::move(req.input))
      .then([self, to](caf::ok_atom) { answer(self, to, msg::client_reply{}); },
            [self, to](caf::error& err) { answer(self, to, refusal(err)); });
}

}  // namespace shoal::runtime::door

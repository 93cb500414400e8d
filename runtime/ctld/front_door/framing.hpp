#pragma once

// The front door's connections: reading length-prefixed frames, writing replies in the order
// their requests came, and forgetting a connection with what streams to it.

#include <cstdint>
#include <string>

#include <caf/actor.hpp>
#include <caf/error.hpp>
#include <caf/io/system_messages.hpp>
#include <caf/message.hpp>

#include "messages/front_door.hpp"
#include "runtime/ctld/front_door/door_state.hpp"

namespace shoal::runtime::door {

/// Forgets a connection that closed. Its relays go too: the jobs they served see their client
/// leave, as srun's jobs do when srun dies. Does nothing for a connection it does not know.
void forget(door_self self, connection_handle hdl);

/// Logs `why` with the peer, forgets the connection and closes it. Does nothing for a connection
/// it does not know.
void drop(door_self self, connection_handle hdl, const std::string& why);

/// Writes `frame` on `hdl` now. What flush could not hand to the kernel waits in the broker: a
/// client that sends and never reads would grow it without end, so past the bound it is dropped.
void write_frame(door_self self, connection_handle hdl, const std::string& frame);

/// Queues `reply` in its place and writes every reply now in order. Does nothing when the
/// connection that asked is gone.
void answer(door_self self, const reply_to& to, const msg::client_reply& reply);

/// The peer ("address:port") of the connection that asked, for the log; "?" once it is gone.
std::string peer_of(door_self self, const reply_to& to);

/// The reply that tells the client why its request failed: a shoal error as it is, a timeout or
/// any other error as the controller not answering.
msg::client_reply refusal(const caf::error& err);

/// Asks the target and writes what it answers; `fill` puts a success into the reply.
template <class... Answer, class Fill>
void forward(door_self self, const reply_to& to, caf::message request, Fill fill) {
  auto& st = self->state;
  self->request(st.target, st.setup.request_timeout, std::move(request))
      .then(
          [self, to, fill](Answer&... xs) {
            msg::client_reply reply;
            fill(reply, xs...);
            answer(self, to, reply);
          },
          [self, to](caf::error& err) { answer(self, to, refusal(err)); });
}

/// A relay for the connection that asked, which dies with it; null when the connection is gone.
/// It frames what a run's or attach's job tells its client, and hangs the connection up when the
/// target it came through goes away.
caf::actor new_relay(door_self self, const reply_to& to);

/// Passes a chunk of standard input (op input) to the relay of the run or attach this
/// connection made, and answers once the step's input tasks have it; refuses it on a connection
/// without one.
void pass_input(door_self self, const reply_to& to, msg::client_request& req);

/// Reads what arrived on a connection: a frame's length, then the frame, whose request goes on
/// to be admitted (auth.hpp), or for input straight to pass_input. A length out of range, a frame
/// that does not decode, or too many requests awaiting replies drops the connection.
void on_data(door_self self, caf::io::new_data_msg& m);

}  // namespace shoal::runtime::door

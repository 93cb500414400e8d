#pragma once

// The front door's private state, shared by the files that make it up (framing, auth, authorize,
// access, routing and the broker in runtime/ctld/front_door.cpp). Not for use outside them.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/io/broker.hpp>
#include <caf/io/connection_handle.hpp>
#include <caf/stateful_actor.hpp>

#include "messages/front_door.hpp"
#include "runtime/ctld/front_door.hpp"

namespace shoal::runtime::door {

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

/// Where a request's reply goes: the connection that asked (its serial tells a later connection
/// on the same handle apart) and the request's place in that connection's order of replies.
struct reply_to {
  connection_handle hdl;
  uint64_t serial = 0;
  uint64_t number = 0;
};

}  // namespace shoal::runtime::door

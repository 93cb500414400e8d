#include "runtime/ctld/front_door.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/front_door.hpp"
#include "runtime/bootstrap/bind_failure.hpp"
#include "runtime/ctld/front_door/auth.hpp"
#include "runtime/ctld/front_door/door_state.hpp"
#include "runtime/ctld/front_door/framing.hpp"

// The broker itself and its listening socket. What it does with a connection's bytes lives in
// runtime/ctld/front_door/: framing (frames and replies), auth (who sent a request), authorize and
// access (who may do what) and routing (what each kind of request becomes).

namespace shoal::runtime {

namespace {

using namespace door;

caf::behavior door_behavior(door_self self, int listen_fd, front_door_setup setup) {
  self->state.setup = std::move(setup);
  auto& auth = self->state.setup.auth;
  if (auth.munge || !self->state.setup.jwt_key.empty())
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
  auto listener = listen_tcp(address, port);
  if (listener.fd >= 0) return listener.fd;
  auto where = (address.empty() ? std::string{"*"} : address) + ":" + std::to_string(port);
  return make_error(errc::system_error,
                    "front door: cannot listen on " + where + ": " + listener.why);
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

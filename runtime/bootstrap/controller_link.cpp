#include "runtime/bootstrap/controller_link.hpp"

#include <algorithm>
#include <chrono>

#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/daemon_transport.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "runtime/bootstrap/controller_client.hpp"

namespace shoal::runtime {

namespace {

/// A CAF connection error in a few words ("cannot connect to node").
std::string short_reason(const caf::error& err) {
  if (err.category() != caf::atom("system")) return "no connection";
  auto text = caf::to_string(static_cast<caf::sec>(err.code()));
  std::replace(text.begin(), text.end(), '_', ' ');
  return text;
}

}  // namespace

caf::expected<caf::actor> connect_controller(caf::actor_system& sys,
                                             const config::cluster_config& cfg) {
  auto lines = controller_lines(cfg);
  if (lines.size() == 1) return connect_controller_at(sys, lines[0].address, lines[0].port);
  std::string why;
  bool all_standby = true;
  for (const auto& line : lines) {
    auto ctl = connect_controller_at(sys, line.address, line.port);
    if (ctl) return ctl;
    const auto& err = ctl.error();
    bool standby = err == errc::not_in_control;
    if (err == errc::incompatible_version) return ctl;
    all_standby = all_standby && standby;
    why += (why.empty() ? "" : "; ") + describe_line(line) + ": " +
           (standby ? std::string{"not in control"} : sys.render(err));
  }
  return make_error(all_standby ? errc::not_in_control : errc::unreachable,
                    "no controller in control (" + why + ")");
}

caf::expected<caf::actor> connect_controller_at(caf::actor_system& sys, const std::string& host,
                                                uint16_t port, bool accept_standby,
                                                std::string* reason) {
  auto endpoint = host + ":" + std::to_string(port);
  caf::expected<caf::actor> out{caf::error{}};
  std::string why;
  caf::scoped_actor self{sys};
  self->request(actors::daemon_transport(sys), caf::infinite, caf::connect_atom::value, host, port)
      .receive(
          [&](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>& ifs) {
            if (!ptr) {
              why = "nothing published there";
              out = make_error(errc::unreachable, "nothing is published at " + endpoint +
                                                      "; is shoalctld running there?");
              return;
            }
            auto who = "the controller at " + endpoint;
            auto version = msg::version_of_interface(ifs, who);
            if (!version) {
              why = "another version";
              out = to_caf(version.error());
              return;
            }
            if (auto err = msg::check_peer_version(*version, who)) {
              why = "another version";
              out = to_caf(err);
              return;
            }
            if (!accept_standby && ifs.count(msg::standby_interface) != 0) {
              why = "not in control";
              out = make_error(errc::not_in_control,
                               "the shoalctld at " + endpoint + " is not in control");
              return;
            }
            out = caf::actor_cast<caf::actor>(std::move(ptr));
          },
          [&](caf::error& err) {
            why = short_reason(err);
            out = make_error(errc::unreachable, "cannot reach the controller at " + endpoint +
                                                    " (" + sys.render(err) +
                                                    "); is shoalctld running there?");
          });
  if (!out && reason != nullptr) *reason = why;
  return out;
}

caf::expected<uint16_t> publish_daemon_actor(caf::actor_system& sys, const caf::actor& whom,
                                             uint16_t port, const std::string& address,
                                             std::set<std::string> interface) {
  caf::expected<uint16_t> out{caf::error{}};
  caf::scoped_actor self{sys};
  self->request(actors::daemon_transport(sys), caf::infinite, caf::publish_atom::value, port,
                caf::actor_cast<caf::strong_actor_ptr>(whom), std::move(interface), address, true)
      .receive([&](uint16_t actual) { out = actual; },
               [&](caf::error& err) { out = std::move(err); });
  return out;
}

caf::expected<uint16_t> publish_controller(caf::actor_system& sys, const caf::actor& controller,
                                           uint16_t port, const std::string& address,
                                           bool standby) {
  std::set<std::string> interface { msg::wire_interface() };
  if (standby) interface.insert(msg::standby_interface);
  return publish_daemon_actor(sys, controller, port, address, std::move(interface));
}

}  // namespace shoal::runtime

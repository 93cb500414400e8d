#include "actors/standby.hpp"

#include <caf/all.hpp>

#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "messages/caf/error.hpp"

namespace shoal::actors {

namespace {

struct standby_state {
  static inline const char* name = "standby";
  standby_setup setup;
};

using standby_self = standby_actor::stateful_pointer<standby_state>;

standby_actor::behavior_type standby_behavior(standby_self self, standby_setup setup) {
  self->state.setup = std::move(setup);
  // Every request a controller would answer gets the refusal instead, as an error reply, so a
  // client's request fails at once (rather than timing out) and names who is in control. What is
  // not a request (a beat, a report) gets no answer: an error sent unasked would stop its sender.
  self->set_error_handler(drop_stray_error);
  self->set_default_handler(
      [self](caf::scheduled_actor*, caf::message_view&) -> caf::result<caf::message> {
        auto* element = self->current_mailbox_element();
        if (element == nullptr || !element->mid.is_request()) return caf::message{};
        return make_error(errc::not_in_control, self->state.setup.refusal);
      });
  return {
      [self](caf::ping_atom) {
        msg::controller_status status;
        status.in_control = false;
        status.reclaiming = self->state.setup.reclaiming;
        return status;
      },
      [self](msg::handback_atom) {
        if (self->state.setup.supervisor)
          send_to(self, self->state.setup.supervisor, msg::handback_atom_v);
      },
  };
}

}  // namespace

standby_actor spawn_standby(caf::actor_system& sys, standby_setup setup) {
  return sys.spawn(standby_behavior, std::move(setup));
}

}  // namespace shoal::actors

#pragma once

#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/types.hpp"

namespace shoal::actors {

/// What a shoalctld that is not in control says about itself.
struct standby_setup {
  /// A primary back in service, waiting for a backup to hand control back (else a backup in
  /// standby).
  bool reclaiming = false;
  /// The text of the errc::not_in_control answer to every request but a ping, naming the
  /// shoalctld that is in control (or taking it), e.g. "not in control: the primary head1 at
  /// 10.0.0.1:6917 is".
  std::string refusal;
  /// Told (handback_atom) when a backup hands control back to this reclaiming primary.
  caf::actor supervisor;
};

/// What shoalctld publishes on its port while it is not in control (a backup in standby, or a
/// primary taking control back), so that shoald and the CLI learn it and move on to the next
/// SlurmctldHost line, and other controllers can ping it. One lives for one stint out of
/// control: shoalctld kills it when it takes control, so no peer keeps a stale handle. Every
/// request it does not list is answered with errc::not_in_control and `refusal`.
using standby_actor = caf::typed_actor<
    /// Answers that this shoalctld is not in control, and whether it is reclaiming control.
    caf::replies_to<caf::ping_atom>::with<msg::controller_status>,
    /// A backup handed control back to this reclaiming primary: passed on to the supervisor.
    caf::reacts_to<msg::handback_atom>>;

standby_actor spawn_standby(caf::actor_system& sys, standby_setup setup);

}  // namespace shoal::actors

#pragma once

// What an actor does with a message it has no handler for, and with an error that arrives
// unasked. Both happen in a running cluster: a late answer to a request made to an earlier
// controller, a message from an older or newer peer, a standby's refusal. CAF 0.17's defaults
// answer an unexpected message with an error even when it was not a request, and an actor that
// receives such an error unasked stops: a stray ('ok') once stopped a shoald and with it every node
// it served. Every actor sets these instead, so a stray message costs a log line, not a daemon.

#include <caf/message.hpp>
#include <caf/message_view.hpp>
#include <caf/result.hpp>
#include <caf/scheduled_actor.hpp>

namespace shoal::actors {

/// The default handler: logs the message and its sender (the first time each kind of message
/// reaches an actor of that name, then at growing intervals) and drops it. Only a request gets an
/// answer, errc::invalid_request, so its sender need not wait out its timeout.
caf::result<caf::message> drop_unexpected(caf::scheduled_actor* self, caf::message_view& x);

/// The error handler: an error that arrives as an ordinary message, not as the answer to a
/// request, is logged the same way and dropped.
void drop_stray_error(caf::scheduled_actor* self, caf::error& err);

/// Sets both on `self`.
template <class Self>
void tolerate_strays(Self* self) {
  self->set_default_handler(drop_unexpected);
  self->set_error_handler(drop_stray_error);
}

}  // namespace shoal::actors

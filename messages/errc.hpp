#pragma once

#include <cstdint>
#include <string>

#include <caf/error.hpp>
#include <caf/expected.hpp>

namespace shoal {

/// Every failure shoal reports across a library or process boundary. Numbers are part of the
/// wire format: never reuse or renumber one, add new values at the end.
enum class errc : uint8_t {
  /// A configuration file or value is invalid; the text names file:line.
  invalid_config = 1,
  /// A hostlist expression is malformed; the text names the position.
  invalid_hostlist = 2,
  /// A Cap'n Proto buffer could not be decoded.
  malformed_message = 3,
  /// A request names a partition that does not exist.
  unknown_partition = 4,
  /// A request names a node that does not exist.
  unknown_node = 5,
  /// A request names a job that does not exist (or is long gone).
  unknown_job = 6,
  /// A request can never be satisfied (more nodes than exist, over a partition limit, ...).
  unsatisfiable = 7,
  /// A request is well formed but not allowed in the current state.
  invalid_request = 8,
  /// A time or duration could not be parsed.
  invalid_time = 9,
  /// The caller may not do this (e.g. cancel another user's job).
  permission_denied = 10,
  /// The controller could not be reached.
  unreachable = 11,
  /// An operating-system call failed; the text names it.
  system_error = 12,
  /// A peer speaks another major version of the wire schema; the text names both versions.
  incompatible_version = 13,
  /// The shoalctld asked is not in control (a backup in standby, or a primary taking control
  /// back); the text names the one that is. Clients move on to the next SlurmctldHost line.
  not_in_control = 14,
  /// A request's credential is missing, forged, expired, replayed or not for this request
  /// (AuthType=auth/munge); the text is Slurm's "Protocol authentication error" and the reason.
  authentication_failed = 15,
};

/// The stable name of a code, e.g. "invalid_config".
const char* to_string(errc code);

/// Wraps a code (and an optional human-readable text) into a caf::error in shoal's category.
caf::error make_error(errc code);
caf::error make_error(errc code, std::string text);

/// The text a user should see for an error: the attached text when there is one, otherwise the
/// code's name. Works without an actor system (CAF's own renderer needs one).
std::string describe(const caf::error& err);

/// The category atom under which shoal's errors travel.
constexpr caf::atom_value error_category = caf::atom("shoal");

}  // namespace shoal

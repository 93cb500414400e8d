#pragma once

#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::config {

/// `scontrol reboot [ASAP] [nextstate=RESUME|DOWN|UNDRAIN] [reason=TEXT] NODES|ALL` (the words
/// after `reboot`) or, `cancel` true, `scontrol cancel_reboot NODES`, as the node update the
/// controller takes: nodes, reboot (REBOOT, REBOOT_ASAP or CANCEL_REBOOT), next_state, reason.
/// Words are read as scontrol reads them (case-insensitive; nextstate's value may be a prefix:
/// `d`, `res`); errc::invalid_request with scontrol's words for a bad one.
shoal::expected<msg::node_update> parse_reboot_words(const std::vector<std::string>& words,
                                                     bool cancel);

/// A reboot's news added to a node's reason as slurmctld's set_node_reboot_reason adds it:
/// "Reboot ASAP : reboot issued"; the message alone when the reason is empty or holds it.
std::string add_reboot_reason(const std::string& reason, const std::string& message);

}  // namespace shoal::config

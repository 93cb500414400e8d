#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace shoal::runtime {

/// Why listening on `address`:`port` fails ("Address already in use"), found by binding it again
/// as the daemons' listeners do (SO_REUSEADDR alone): for libraries that report only that the
/// bind failed (cpp-httplib, CAF's acceptor). An empty `address` is every address. Nothing when
/// the bind succeeds now (the port was freed meanwhile, or the failure was not the bind's).
std::optional<std::string> bind_failure(const std::string& address, uint16_t port);

}  // namespace shoal::runtime

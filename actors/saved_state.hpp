#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "actors/state_keeper.hpp"
#include "messages/codec.hpp"

namespace shoal::actors {

/// The keys the controller's actors save their records under (StateSaveLocation). Job ids are
/// zero-padded so that the saved map lists jobs in id order.
inline std::string job_key(uint64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "job/%020llu", static_cast<unsigned long long>(id));
  return buf;
}
inline std::string array_key(uint64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "array/%020llu", static_cast<unsigned long long>(id));
  return buf;
}
inline std::string node_key(const std::string& name) {
  return "node/" + name;
}
inline const std::string controller_key = "ctl";
/// The scheduler's fair-share usage ledger (msg::usage_record).
inline const std::string fairshare_key = "fairshare";
/// The interconnect plugin's own state (interconnect::switch_manager::restore_state), as the
/// plugin encodes it.
inline const std::string switch_key = "switch";

/// A record as the keeper stores it: the shoal codec's encoding (version header included).
template <class T>
state::value_ptr encoded(const T& record) {
  auto bytes = msg::encode(record);
  return std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.end());
}

/// A saved record back; an error names what could not be read.
template <class T>
caf::expected<T> decoded(const state::value_ptr& value) {
  T out;
  if (!value) return out;
  std::vector<char> bytes(value->begin(), value->end());
  if (auto err = msg::decode(bytes, out)) return to_caf(err);
  return out;
}

}  // namespace shoal::actors

#pragma once

// switch/elan: the Quadrics Elan plugin of the Switch Manager (seed 003). The controller half
// maps node names to Elan network ids (a genders-style file), gives each step a program
// description from a counter that never repeats (saved through the controller's state) and one
// capability per rail: a 128-bit key from getrandom(2), the step's network-id range and a range
// of hardware contexts, one per task on a node, released at the step's end and reused. The data
// that travels to the nodes is `elan_step_data`, encoded by `encode_elan_data`.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "interconnect/switch_manager.hpp"
#include "messages/errc.hpp"

namespace shoal::interconnect {

/// Node name -> Elan network id.
using elan_map = std::map<std::string, uint32_t>;

/// Reads a genders-style map: `NODES ATTR[,ATTR=VALUE]...` per line, `#` to the end of a line a
/// comment. NODES is a name or a hostlist (`n[0-15]`); the attribute `elanid=N` gives the first
/// node id N and each following node of the hostlist the next id. Lines without elanid (other
/// genders attributes) are skipped. Errors (errc::invalid_config, "FILE:LINE: ..."): a hostlist
/// that does not parse, elanid not a number, a node or an id given twice, more than two fields.
shoal::expected<elan_map> parse_elan_map(std::string_view text, const std::string& file);
shoal::expected<elan_map> load_elan_map(const std::string& path);

/// One rail's capability: a key and the range of network ids and contexts it opens.
struct elan_capability {
  std::array<uint8_t, 16> key{};
  uint32_t rail = 0;
  uint32_t low_id = 0;  ///< lowest and highest network id of the step's nodes
  uint32_t high_id = 0;
  uint32_t low_context = 0;  ///< hardware contexts: one per task on each node
  uint32_t high_context = 0;
};

/// What switch/elan's allocate returns, opaque to everything between it and the nodes.
struct elan_step_data {
  uint32_t program = 0;            ///< the program description
  std::vector<uint32_t> node_ids;  ///< the step's nodes' network ids, in node_index order
  std::vector<elan_capability> capabilities;  ///< one per rail
};

/// The data's bytes start with this, so the node side knows whose they are.
inline constexpr std::string_view elan_magic = "ELAN";

std::vector<uint8_t> encode_elan_data(const elan_step_data& data);
/// Error: errc::malformed_message for bytes encode_elan_data did not write.
shoal::expected<elan_step_data> decode_elan_data(const std::vector<uint8_t>& bytes);

/// 32 lower-case hex digits.
std::string key_hex(const std::array<uint8_t, 16>& key);

/// The Elan3 user contexts, [0x400, 0x800).
inline constexpr uint32_t elan_first_context = 0x400;
inline constexpr uint32_t elan_context_count = 0x400;

struct elan_settings {
  elan_map ids;
  uint32_t rails = 1;  ///< capabilities per step (adapters per node)
};

/// SwitchParameters= for switch/elan: `elan_map=PATH` (required) and `elan_rails=N` (1-8,
/// default 1). Error: errc::invalid_config naming the parameter, or the map's FILE:LINE.
shoal::expected<elan_settings> parse_elan_parameters(std::string_view parameters);

class elan_switch final : public switch_manager {
 public:
  explicit elan_switch(elan_settings settings);

  std::string name() const override { return "elan"; }
  shoal::expected<std::vector<uint8_t>> allocate(const step_request& req) override;
  void release(uint64_t job_id, uint32_t step_id) override;
  shoal::error restore_state(const std::vector<uint8_t>& saved,
                             const std::set<step_key>& live) override;

  /// The program description the next step gets.
  uint32_t next_program() const;

 private:
  struct held {
    uint32_t low_context = 0;
    uint32_t width = 0;
  };
  /// The first free run of `width` contexts, or nullopt.
  std::optional<uint32_t> free_contexts(uint32_t width) const;
  std::vector<uint8_t> saved_state() const;

  elan_settings settings_;
  mutable std::mutex mutex_;
  uint32_t next_program_ = 1;
  std::map<step_key, held> steps_;
};

}  // namespace shoal::interconnect

#include "interconnect/switch_manager.hpp"

#include "interconnect/elan.hpp"
#include "messages/errc.hpp"

namespace shoal::interconnect {

namespace {

/// Plain TCP/IP clusters: nothing to reserve, no data to carry.
class none_switch final : public switch_manager {
 public:
  std::string name() const override { return "none"; }
  shoal::expected<std::vector<uint8_t>> allocate(const step_request&) override {
    return std::vector<uint8_t>{};
  }
  void release(uint64_t, uint32_t) override {}
};

std::string_view without_prefix(std::string_view name) {
  constexpr std::string_view prefix = "switch/";
  if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
  return name;
}

}  // namespace

shoal::expected<std::unique_ptr<switch_manager>> make_switch_manager(std::string_view name,
                                                                     std::string_view parameters) {
  auto plain = without_prefix(name);
  if (plain == "none" || plain.empty()) return std::unique_ptr<switch_manager>{new none_switch};
  if (plain == "elan") {
    auto settings = parse_elan_parameters(parameters);
    if (!settings) return std::move(settings).error();
    return std::unique_ptr<switch_manager>{new elan_switch{std::move(*settings)}};
  }
  return shoal::error(errc::invalid_config, "unknown SwitchType '" + std::string{name} +
                                                "' (known: switch/none, switch/elan)");
}

bool prefers_consecutive_nodes(std::string_view name) {
  return without_prefix(name) == "elan";
}

}  // namespace shoal::interconnect

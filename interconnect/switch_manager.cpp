#include "interconnect/switch_manager.hpp"

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

}  // namespace

shoal::expected<std::unique_ptr<switch_manager>> make_switch_manager(std::string_view name) {
  if (name == "none" || name == "switch/none" || name.empty())
    return std::unique_ptr<switch_manager>{new none_switch};
  return shoal::error(errc::invalid_config,
                      "unknown SwitchType '" + std::string{name} + "' (known: switch/none)");
}

}  // namespace shoal::interconnect

#include "config/health_settings.hpp"

#include <string_view>

#include "config/config_parser.hpp"
#include "config/config_syntax.hpp"

namespace shoal::config {

namespace cs = config_syntax;

namespace {

struct health_word {
  std::string_view name;
  uint16_t bits;
};

/// Slurm's words, in the order its health_check_node_state_str prints them.
constexpr health_word health_words[] = {
    {"IDLE", health_state::idle},   {"ALLOC", health_state::alloc},
    {"MIXED", health_state::mixed}, {"NONDRAINED_IDLE", health_state::nondrained_idle},
    {"ANY", health_state::any},     {"CYCLE", health_state::cycle}};

bool apply_health_states(health_settings& s, const std::string& value, std::string& error) {
  uint16_t bits = 0;
  for (auto& word : parsing::split_list(value)) {
    const health_word* known = nullptr;
    for (const auto& w : health_words)
      if (cs::to_lower(std::string{w.name}) == cs::to_lower(word)) known = &w;
    if (known == nullptr) {
      error =
          "unknown state '" + word + "' (use ALLOC, ANY, CYCLE, IDLE, MIXED or NONDRAINED_IDLE)";
      return true;
    }
    bits |= known->bits;
  }
  // As Slurm: no state word (CYCLE alone, or nothing) means ANY.
  if ((bits & health_state::any) == 0) bits |= health_state::any;
  s.node_states = bits;
  return true;
}

}  // namespace

bool apply_health_key(health_settings& s, const std::string& k, const std::string& value,
                      std::string& error) {
  if (k == "healthcheckprogram" || k == "rebootprogram") {
    // Slurm runs them without a shell: an absolute path (empty: none).
    if (!value.empty() && value.front() != '/')
      error = "an absolute path to a program (Slurm runs it without a shell)";
    else
      (k == "rebootprogram" ? s.reboot_program : s.program) = value;
    return true;
  }
  if (k == "healthcheckinterval") {
    auto n = cs::parse_unsigned(value, cs::max_u32);
    if (!n)
      error = "whole seconds (0: never)";
    else
      s.interval_s = static_cast<int64_t>(*n);
    return true;
  }
  if (k == "healthchecknodestate") return apply_health_states(s, value, error);
  return false;
}

std::string health_states_text(uint16_t node_states) {
  std::string text;
  auto add = [&text](std::string_view word) {
    if (!text.empty()) text += ',';
    text += word;
  };
  if ((node_states & health_state::any) == health_state::any) {
    add("ANY");
  } else {
    for (const auto& w : health_words)
      if (w.bits != health_state::any && w.bits != health_state::cycle && (node_states & w.bits))
        add(w.name);
  }
  if (node_states & health_state::cycle) add("CYCLE");
  return text;
}

std::vector<std::pair<std::string, std::string>> render_health_keys(const health_settings& s) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("HealthCheckInterval", std::to_string(s.interval_s));
  out.emplace_back("HealthCheckNodeState", health_states_text(s.node_states));
  if (!s.program.empty()) out.emplace_back("HealthCheckProgram", s.program);
  if (!s.reboot_program.empty()) out.emplace_back("RebootProgram", s.reboot_program);
  return out;
}

bool health_check_applies(uint16_t node_states, msg::node_state state) {
  using msg::node_state;
  switch (state) {
    case node_state::unknown:
    case node_state::down:
      return false;
    case node_state::idle:
      return (node_states & (health_state::idle | health_state::nondrained_idle)) != 0;
    case node_state::drained:
      return (node_states & health_state::idle) != 0;
    case node_state::allocated:
    case node_state::completing:
      return (node_states & health_state::alloc) != 0;
    case node_state::mixed:
      return (node_states & health_state::mixed) != 0;
    case node_state::draining:
      return (node_states & (health_state::alloc | health_state::mixed)) != 0;
  }
  return false;
}

std::string health_failure_reason(const std::string& output, const std::string& status_text) {
  size_t start = 0;
  while (start < output.size()) {
    auto end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    auto line = output.substr(start, end - start);
    auto first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos) {
      auto last = line.find_last_not_of(" \t\r");
      return line.substr(first, last - first + 1);
    }
    start = end + 1;
  }
  return "HealthCheckProgram failed: " + status_text;
}

}  // namespace shoal::config

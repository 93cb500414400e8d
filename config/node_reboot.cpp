#include "config/node_reboot.hpp"

#include "config/config_syntax.hpp"

namespace shoal::config {

namespace {

/// scontrol's xstrncasecmp(given, word, MAX(len, 1)): a non-empty prefix of `word`, any case.
bool reboot_word_prefix(const std::string& given, const std::string& word) {
  if (given.empty() || given.size() > word.size()) return false;
  return config_syntax::to_upper(given) == word.substr(0, given.size());
}

shoal::error reboot_refusal(const std::string& text) {
  return shoal::error(errc::invalid_request, text);
}

}  // namespace

shoal::expected<msg::node_update> parse_reboot_words(const std::vector<std::string>& words,
                                                     bool cancel) {
  msg::node_update up;
  up.reboot = cancel ? "CANCEL_REBOOT" : "REBOOT";
  std::vector<std::string> lists;
  for (const auto& w : words) {
    auto eq = w.find('=');
    auto key = config_syntax::to_lower(w.substr(0, eq));
    auto value = eq == std::string::npos ? std::string{} : w.substr(eq + 1);
    if (!cancel && eq == std::string::npos && key == "asap") {
      up.reboot = "REBOOT_ASAP";
    } else if (!cancel && eq != std::string::npos && key == "reason") {
      if (value.empty()) return reboot_refusal("missing reason");
      up.reason = value;
    } else if (!cancel && eq != std::string::npos && key == "nextstate") {
      if (value.empty()) return reboot_refusal("missing state");
      for (const char* state : {"DOWN", "RESUME", "UNDRAIN"})
        if (up.next_state.empty() && reboot_word_prefix(value, state)) up.next_state = state;
      if (up.next_state.empty())
        return reboot_refusal("Invalid state: " + value + " (valid states: DOWN, RESUME, UNDRAIN)");
    } else {
      lists.push_back(w);
    }
  }
  auto keyword = cancel ? std::string{"cancel_reboot"} : std::string{"reboot"};
  if (lists.size() > 1) return reboot_refusal("too many arguments for keyword:" + keyword);
  if (lists.empty())
    return reboot_refusal(cancel ? "Missing node list"
                                 : "Missing node list. Specify ALL|<NodeList>");
  up.nodes = lists.front();
  return up;
}

std::string add_reboot_reason(const std::string& reason, const std::string& message) {
  if (reason.empty() || reason.find(message) != std::string::npos) return message;
  return reason + " : " + message;
}

}  // namespace shoal::config

#include "policy/preemption.hpp"

#include <cctype>

namespace shoal::policy {

const char* to_string(preempt_mode m) {
  switch (m) {
    case preempt_mode::off:
      return "OFF";
    case preempt_mode::cancel:
      return "CANCEL";
    case preempt_mode::requeue:
      return "REQUEUE";
    case preempt_mode::suspend:
      return "SUSPEND";
  }
  return "OFF";
}

std::optional<preempt_mode> parse_preempt_mode(std::string_view word) {
  std::string upper;
  for (char c : word) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (auto m :
       {preempt_mode::off, preempt_mode::cancel, preempt_mode::requeue, preempt_mode::suspend})
    if (upper == to_string(m)) return m;
  return std::nullopt;
}

}  // namespace shoal::policy

#include "tools/cli/subcommand.hpp"

namespace shoal::cli {

std::string named_subcommand(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "-h" || a == "--help" || a == "--help-all" || a == "--version" || a == "--") return "";
    if (a == "-f" || a == "--config") {
      ++i;
      continue;
    }
    if (!a.empty() && a[0] == '-') continue;
    return a;
  }
  return "";
}

}  // namespace shoal::cli

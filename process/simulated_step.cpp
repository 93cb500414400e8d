#include "process/simulated_step.hpp"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace shoal::process {

namespace {

/// The words of the command the step runs.
std::vector<std::string> command_words(const msg::launch_request& req) {
  if (!req.batch) return req.argv;
  std::istringstream lines{req.script};
  std::string line;
  while (std::getline(lines, line)) {
    auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream words{line};
    std::vector<std::string> out;
    for (std::string w; words >> w;) out.push_back(w);
    return out;
  }
  return {};
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Seconds in a sleep operand ("5", "0.5", "2m"); negative when it is not one.
double sleep_seconds(const std::string& word) {
  if (word.empty()) return -1;
  char* end = nullptr;
  double value = std::strtod(word.c_str(), &end);
  if (end == word.c_str() || !std::isfinite(value) || value < 0) return -1;
  std::string unit{end};
  if (unit.empty() || unit == "s") return value;
  if (unit == "m") return value * 60;
  if (unit == "h") return value * 3600;
  if (unit == "d") return value * 86400;
  return -1;
}

}  // namespace

simulated_outcome simulate_step(const msg::launch_request& req) {
  simulated_outcome out;
  auto words = command_words(req);
  if (words.empty()) return out;
  auto command = base_name(words.front());
  if (command == "false") {
    out.exit_code = 1;
    return out;
  }
  if (command != "sleep" || words.size() < 2) return out;
  double total = 0;
  for (size_t i = 1; i < words.size(); ++i) {
    auto s = sleep_seconds(words[i]);
    if (s < 0) {
      out.exit_code = 1;  // sleep refuses an invalid interval at once
      return out;
    }
    total += s;
  }
  // Bounded so the delay fits a millisecond count (sleep itself accepts more).
  total = std::min(total, 1e12);
  out.runs_for = std::chrono::milliseconds{static_cast<int64_t>(std::llround(total * 1000))};
  return out;
}

bool ends_a_task(int32_t signo) {
  switch (signo) {
    case 0:
    case SIGCONT:
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
    case SIGCHLD:
    case SIGURG:
    case SIGWINCH:
      return false;
    default:
      return signo > 0 && signo < NSIG;
  }
}

}  // namespace shoal::process

#include "runtime/ctld/heartbeat_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace shoal::runtime {

std::string write_heartbeat(const std::vector<std::string>& locations, const heartbeat& beat) {
  std::string failure;
  for (const auto& dir : locations) {
    auto path = dir + "/" + heartbeat_file_name;
    auto temporary = path + ".new";
    bool written = false;
    {
      std::ofstream out{temporary, std::ios::trunc};
      out << beat.unix_ms << ' ' << beat.line << '\n';
      written = static_cast<bool>(out.flush());
    }
    if (written && std::rename(temporary.c_str(), path.c_str()) == 0) continue;
    if (failure.empty()) failure = path + ": " + std::strerror(errno);
  }
  return failure;
}

std::optional<heartbeat> freshest_heartbeat_before(const std::vector<std::string>& locations,
                                                   size_t line) {
  std::optional<heartbeat> best;
  for (const auto& dir : locations) {
    std::ifstream in{dir + "/" + heartbeat_file_name};
    heartbeat beat;
    if (!(in >> beat.unix_ms >> beat.line) || beat.line >= line) continue;
    if (!best || beat.unix_ms > best->unix_ms) best = beat;
  }
  return best;
}

}  // namespace shoal::runtime

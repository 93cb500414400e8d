#include "runtime/bootstrap/temp_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "messages/errc.hpp"

namespace shoal::runtime {

shoal::expected<std::string> make_temp_dir(const std::string& prefix) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  auto pattern = (base / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return shoal::error(errc::system_error, "mkdtemp(" + pattern + "): " + std::strerror(errno));
  auto canonical = fs::canonical(pattern, ec);
  return ec ? pattern : canonical.string();
}

}  // namespace shoal::runtime

#include "runtime/bootstrap/controller_client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "messages/errc.hpp"

namespace shoal::runtime {

shoal::expected<config::cluster_config> load_cluster_config(const std::string& explicit_path,
                                                            bool client_only) {
  std::string path = explicit_path;
  if (path.empty()) {
    const char* env = std::getenv("SHOAL_CONF");
    path = env != nullptr && *env != '\0' ? env : "/etc/shoal/shoal.conf";
  }
  auto cfg = client_only ? config::load_client_config(path) : config::load_config(path);
  const char* endpoint = std::getenv("SHOAL_CONTROLLER");
  if (!cfg && explicit_path.empty() && endpoint != nullptr && *endpoint != '\0')
    return config::cluster_config{};  // a client that only needs the controller's address
  if (!cfg && explicit_path.empty() && std::getenv("SHOAL_CONF") == nullptr)
    return shoal::error(
        errc::invalid_config,
        describe(cfg.error()) +
            " (set SHOAL_CONF or pass -f FILE; `shoal start` runs a local cluster)");
  return cfg;
}

std::vector<config::controller_host> controller_lines(const config::cluster_config& cfg) {
  if (const char* env = std::getenv("SHOAL_CONTROLLER"); env != nullptr && *env != '\0') {
    std::string text{env};
    config::controller_host line{text, text, cfg.controller_port};
    auto colon = text.rfind(':');
    if (colon != std::string::npos) {
      line.name = line.address = text.substr(0, colon);
      line.port = static_cast<uint16_t>(std::strtoul(text.c_str() + colon + 1, nullptr, 10));
    }
    return {line};
  }
  if (cfg.controller_hosts.empty())
    return {config::controller_host{"127.0.0.1", "127.0.0.1", cfg.controller_port}};
  return cfg.controller_hosts;
}

std::pair<std::string, uint16_t> controller_endpoint(const config::cluster_config& cfg) {
  auto primary = controller_lines(cfg).front();
  return {primary.address, primary.port};
}

std::string describe_line(const config::controller_host& line) {
  return line.name + " at " + line.address + ":" + std::to_string(line.port);
}

std::string controller_role(size_t index, size_t count) {
  if (index == 0) return "primary";
  if (index == 1 && count == 2) return "backup";
  return "backup" + std::to_string(index);
}

std::chrono::seconds controller_patience(const config::cluster_config& cfg) {
  auto seconds = cfg.message_timeout_s;
  if (controller_lines(cfg).size() > 1) seconds = config::takeover_patience_s(cfg);
  return std::chrono::seconds{seconds};
}

}  // namespace shoal::runtime

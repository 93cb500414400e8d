#include "runtime/bootstrap/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "messages/errc.hpp"

namespace shoal::runtime {

namespace {

caf::expected<spdlog::level::level_enum> level_of(const std::string& text) {
  using namespace spdlog::level;
  static const std::pair<const char*, level_enum> names[] = {
      {"quiet", off},    {"0", off},   {"fatal", critical}, {"1", critical},
      {"error", err},    {"2", err},   {"info", info},      {"3", info},
      {"verbose", info}, {"4", info},  {"debug", debug},    {"5", debug},
      {"debug2", trace}, {"6", trace}, {"debug3", trace},   {"7", trace},
      {"debug4", trace}, {"8", trace}, {"debug5", trace},   {"9", trace},
  };
  for (auto& [name, lvl] : names)
    if (text == name) return lvl;
  return make_error(errc::invalid_config, "unknown debug level '" + text +
                                              "' (use quiet, fatal, error, info, verbose, "
                                              "debug, debug2..debug5 or 0-9)");
}

}  // namespace

caf::error setup_logging(const std::string& process, const std::string& level,
                         const std::string& file) {
  auto lvl = level_of(level);
  if (!lvl) return std::move(lvl.error());
  std::shared_ptr<spdlog::logger> logger;
  try {
    if (file.empty())
      logger = std::make_shared<spdlog::logger>(process,
                                                std::make_shared<spdlog::sinks::stderr_sink_mt>());
    else
      logger = std::make_shared<spdlog::logger>(
          process, std::make_shared<spdlog::sinks::basic_file_sink_mt>(file));
  } catch (const spdlog::spdlog_ex& e) {
    return make_error(errc::invalid_config, "cannot open log file " + file + ": " + e.what());
  }
  logger->set_pattern("[%Y-%m-%dT%H:%M:%S.%e] %n %l: %v");
  logger->set_level(*lvl);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return caf::none;
}

}  // namespace shoal::runtime

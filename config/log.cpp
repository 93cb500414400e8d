#include "config/log.hpp"

#include <algorithm>

#include <spdlog/sinks/sink.h>

namespace shoal::config {

namespace {

std::atomic<config::debug_level> current_level{config::debug_level::info};

}  // namespace

spdlog::level::level_enum spdlog_level(config::debug_level level) {
  using config::debug_level;
  switch (level) {
    case debug_level::quiet:
      return spdlog::level::off;
    case debug_level::fatal:
      return spdlog::level::critical;
    case debug_level::error:
      return spdlog::level::err;
    case debug_level::info:
    case debug_level::verbose:
      return spdlog::level::info;
    case debug_level::debug:
      return spdlog::level::debug;
    default:
      return spdlog::level::trace;
  }
}

void set_log_level(config::debug_level level) {
  current_level.store(level, std::memory_order_relaxed);
  auto lvl = spdlog_level(level);
  auto& logger = log();
  auto& sinks = logger.sinks();
  if (sinks.empty()) {
    logger.set_level(lvl);
    return;
  }
  sinks.front()->set_level(lvl);
  // The logger passes what its most verbose sink takes; each sink filters for itself.
  auto most = lvl;
  for (auto& s : sinks) most = std::min(most, s->level());
  logger.set_level(most);
}

config::debug_level log_level() {
  return current_level.load(std::memory_order_relaxed);
}

}  // namespace shoal::config

#include "runtime/bootstrap/logging.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/sinks/syslog_sink.h>
#include <spdlog/spdlog.h>

#include "config/log.hpp"
#include "messages/errc.hpp"

namespace shoal::runtime {

namespace {

/// A log file that can be reopened under the same name (after logrotate moved it away) and that
/// optionally rotates itself past a size: file -> file.1 -> ... -> file.N, the oldest dropped.
class log_file_sink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  log_file_sink(std::string path, uint64_t max_size, uint32_t count)
      : path_(std::move(path)), max_size_(max_size), count_(count) {
    file_.open(path_, false);
    size_ = file_.size();
  }

  /// Opens the file by name again (a new, empty one when it was moved away). Throws
  /// spdlog::spdlog_ex when that fails; the old file stays in use then.
  void reopen() {
    std::lock_guard<std::mutex> lock{mutex_};
    spdlog::details::file_helper fresh;
    fresh.open(path_, false);
    file_.close();
    file_.open(path_, false);
    size_ = file_.size();
  }

  const std::string& path() const { return path_; }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    if (max_size_ > 0 && size_ > 0 && size_ + line.size() > max_size_) rotate();
    file_.write(line);
    size_ += line.size();
  }

  void flush_() override { file_.flush(); }

 private:
  void rotate() {
    file_.close();
    for (auto i = count_; i > 0; --i) {
      auto from = i == 1 ? path_ : path_ + "." + std::to_string(i - 1);
      // A missing file.N is normal while fewer than N rotations happened.
      std::rename(from.c_str(), (path_ + "." + std::to_string(i)).c_str());
    }
    file_.open(path_, true);
    size_ = 0;
  }

  std::string path_;
  uint64_t max_size_;
  uint32_t count_;
  uint64_t size_ = 0;
  spdlog::details::file_helper file_;
};

/// Waits for SIGUSR2 for the life of the process and reopens `file` (if any) each time.
void watch_reopen_signal(std::shared_ptr<log_file_sink> file) {
  std::thread{[file] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    for (;;) {
      int signo = 0;
      if (sigwait(&set, &signo) != 0) continue;
      if (!file) {
        config::log().info("log reopen signal=SIGUSR2 ignored: logging to stderr");
        continue;
      }
      try {
        file->reopen();
        config::log().info("log file reopened file={}", file->path());
      } catch (const spdlog::spdlog_ex& e) {
        config::log().error("log file reopen failed file={}: {}", file->path(), e.what());
      }
    }
  }}.detach();
}

}  // namespace

log_options controller_log_options(const config::cluster_config& cfg) {
  log_options opt;
  opt.process = "shoalctld";
  opt.level = cfg.ctld_debug;
  opt.file = cfg.ctld_log_file;
  opt.host = short_host_name();
  opt.syslog_level = cfg.ctld_syslog_debug;
  opt.time_format = cfg.log_time_format;
  opt.max_size = cfg.log_file_max_size;
  opt.file_count = cfg.log_file_count;
  opt.flags = cfg.debug_flags;
  return opt;
}

log_options node_log_options(const config::cluster_config& cfg, const std::string& node) {
  auto opt = controller_log_options(cfg);
  opt.process = "shoald(" + node + ")";
  opt.level = cfg.node_debug;
  opt.file = cfg.node_log_file;
  opt.node = node;
  opt.syslog_level = cfg.node_syslog_debug;
  return opt;
}

std::string short_host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  std::string name{buf};
  return name.substr(0, name.find('.'));
}

shoal::error setup_logging(const log_options& opt) {
  auto level = config::parse_debug_level(opt.level);
  if (!level) return std::move(level.error());
  auto effective = config::more_verbose(*level, opt.more_verbose);
  auto pattern = config::log_line_pattern(opt.time_format);
  if (!pattern) return std::move(pattern.error());
  std::optional<config::debug_level> syslog_level;
  if (!opt.syslog_level.empty()) {
    auto lvl = config::parse_debug_level(opt.syslog_level);
    if (!lvl) return std::move(lvl.error());
    syslog_level = *lvl;
  }
  std::vector<spdlog::sink_ptr> sinks;
  std::shared_ptr<log_file_sink> file;
  auto path = config::expand_log_file_name(opt.file, opt.host, opt.node);
  try {
    if (path.empty()) {
      sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
    } else {
      file = std::make_shared<log_file_sink>(path, opt.max_size, opt.file_count);
      sinks.push_back(file);
    }
  } catch (const spdlog::spdlog_ex& e) {
    return shoal::error(errc::invalid_config, "cannot open log file " + path + ": " + e.what());
  }
  if (syslog_level) {
    auto sys =
        std::make_shared<spdlog::sinks::syslog_sink_mt>(opt.process, LOG_PID, LOG_DAEMON, false);
    sys->set_level(config::spdlog_level(*syslog_level));
    sinks.push_back(sys);
  }
  auto logger = std::make_shared<spdlog::logger>(opt.process, sinks.begin(), sinks.end());
  // The syslog sink writes the bare text (syslog adds its own time stamp and priority).
  logger->set_pattern(*pattern);
  // Every line reaches the file at once (tail -f, a crash): lines are few below debug, and
  // debug output is asked for.
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
  config::set_log_level(effective);
  config::set_debug_flags(opt.flags);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  watch_reopen_signal(std::move(file));
  return {};
}

}  // namespace shoal::runtime

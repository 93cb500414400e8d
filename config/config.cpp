#include "config/config.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "config/config_parser.hpp"
#include "config/log_settings.hpp"

namespace shoal::config {

namespace parsing {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  for (;;) {
    auto comma = text.find(',', start);
    auto item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!item.empty() && cs::is_blank(item.back())) item.pop_back();
    while (!item.empty() && cs::is_blank(item.front())) item.erase(0, 1);
    items.push_back(std::move(item));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

bool iequals(std::string_view a, std::string_view b) {
  return cs::to_lower(a) == cs::to_lower(b);
}

shoal::error fail(const where& at, const std::string& what) {
  return shoal::error(errc::invalid_config, at.str() + ": " + what);
}

shoal::error bad_value(const where& at, const cs::pair& p, std::string_view canonical,
                       std::string_view expected) {
  return fail(at, "invalid value '" + p.value + "' for " + std::string{canonical} + " (expected " +
                      std::string{expected} + ")");
}

/// Reads a whole file; the error text is strerror.
bool read_file(const std::string& path, std::string& out, std::string& error) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    error = std::strerror(errno != 0 ? errno : EIO);
    return false;
  }
  char buf[8192];
  size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, got);
  bool ok = std::ferror(f) == 0;
  if (!ok) error = std::strerror(errno != 0 ? errno : EIO);
  std::fclose(f);
  return ok;
}

bool path_exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

shoal::error parser::on_line(std::string_view line, const where& at, int depth) {
  auto res = cs::split_line(line);
  if (!res.error.empty()) return fail(at, res.error);
  if (res.pairs.empty()) return {};
  ++seq_;
  const auto& first = res.pairs.front().lower;
  if (client_only_ && (first == "nodename" || first == "name" || first == "partitionname"))
    return {};
  if (first == "nodename") return on_node_line(res.pairs, at, false);
  if (first == "name") return on_node_line(res.pairs, at, true);
  if (first == "partitionname") return on_partition_line(res.pairs, at);
  for (const auto& p : res.pairs)
    if (auto err = on_main_key(p, at, depth)) return err;
  return {};
}

shoal::error parser::include(const cs::pair& p, const where& at, int depth, bool required,
                             std::string& resolved) {
  if (depth > 0) {
    warn(at, p.key + " inside an included file is ignored");
    return {};
  }
  if (p.value.empty()) {
    if (required) return fail(at, p.key + " needs a file path");
    resolved.clear();
    return {};
  }
  fs::path given{p.value};
  fs::path path = given.is_absolute() ? given : fs::path{base_dir_} / given;
  if (!path_exists(path)) {
    // The seed's sample names /usr/local/SLURM/...; the same file beside the main file will do.
    auto beside = fs::path{base_dir_} / given.filename();
    if (given.is_absolute() && path_exists(beside)) {
      warn(at, p.key + " " + p.value + " not found; using " + beside.string());
      path = beside;
    } else {
      auto what = p.key + " " + p.value + " not found";
      what += given.is_absolute() ? " (also looked for " + beside.string() + ")"
                                  : " (looked for " + path.string() + ")";
      if (required) return fail(at, what);
      warn(at, what + "; nothing read from it");
      resolved.clear();
      return {};
    }
  }
  std::string text;
  std::string error;
  if (!read_file(path.string(), text, error)) {
    auto what = p.key + " " + path.string() + ": cannot read: " + error;
    if (required) return fail(at, what);
    warn(at, what + "; nothing read from it");
    resolved.clear();
    return {};
  }
  resolved = path.string();
  return parse_text(text, resolved, depth + 1);
}

}  // namespace parsing

using parsing::parser;
using parsing::read_file;
namespace fs = std::filesystem;

shoal::expected<cluster_config> parse_config(const std::string& text, const std::string& source,
                                             const std::string& base_dir) {
  parser p{base_dir};
  if (auto err = p.parse_text(text, source, 0)) return err;
  return p.finish();
}

namespace {

shoal::expected<cluster_config> load(const std::string& path, bool client_only) {
  std::string text;
  std::string error;
  if (!read_file(path, text, error))
    return shoal::error(errc::invalid_config, path + ": cannot read: " + error);
  parser p{fs::path{path}.parent_path().string(), client_only};
  if (auto err = p.parse_text(text, path, 0)) return err;
  auto cfg = p.finish();
  if (cfg) cfg->path = path;
  return cfg;
}

}  // namespace

shoal::expected<cluster_config> load_config(const std::string& path) {
  return load(path, false);
}

shoal::expected<cluster_config> load_client_config(const std::string& path) {
  return load(path, true);
}

std::string node_spool_dir(const cluster_config& cfg, const std::string& node,
                           const std::string& host) {
  auto dir = expand_log_file_name(cfg.node_spool_dir, host, node);
  if (cfg.node_spool_dir.find("%n") != std::string::npos) return dir;
  return dir + "/" + node;
}

int64_t takeover_patience_s(const cluster_config& cfg) {
  return std::max(cfg.message_timeout_s, cfg.slurmctld_timeout_s + cfg.slurmctld_timeout_s / 2);
}

std::string jwt_key_path(const cluster_config& cfg) {
  if (!cfg.auth.jwt_key_path.empty()) return cfg.auth.jwt_key_path;
  return cfg.state_save_location + "/jwt_hs256.key";
}

}  // namespace shoal::config

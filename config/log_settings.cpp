#include "config/log_settings.hpp"

#include <algorithm>
#include <cctype>

#include "config/config_syntax.hpp"
#include "messages/errc.hpp"

namespace shoal::config {

namespace {

namespace cs = config_syntax;

constexpr std::string_view level_names[] = {
    "quiet", "fatal", "error", "info", "verbose", "debug", "debug2", "debug3", "debug4", "debug5",
};

struct flag_name {
  std::string_view name;   ///< canonical, as rendered
  std::string_view alias;  ///< also accepted ("" for none)
  debug_flag flag;
};

constexpr flag_name flag_names[] = {
    {"Init", "", debug_flag::init},
    {"Msg", "Protocol", debug_flag::msg},
    {"Heartbeat", "MachStatus", debug_flag::heartbeat},
    {"Steps", "", debug_flag::steps},
    {"SelectType", "", debug_flag::select_type},
    {"Priority", "", debug_flag::priority},
    {"TraceJobs", "", debug_flag::trace_jobs},
    {"Agent", "", debug_flag::agent},
    {"Power", "", debug_flag::power},
};

static_assert(std::size(flag_names) == debug_flag_count);

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// Calls `each(item)` for every non-empty, trimmed item of a comma list; stops at an error.
template <class F>
shoal::error for_each_item(std::string_view list, F each) {
  size_t pos = 0;
  while (pos <= list.size()) {
    auto comma = std::min(list.find(',', pos), list.size());
    auto item = trim(list.substr(pos, comma - pos));
    if (!item.empty())
      if (auto err = each(item)) return err;
    pos = comma + 1;
  }
  return {};
}

shoal::expected<debug_flag> flag_of(std::string_view name, errc code) {
  for (auto& f : flag_names)
    if (iequals(name, f.name) || (!f.alias.empty() && iequals(name, f.alias))) return f.flag;
  return shoal::error(
      code, "unknown debug flag '" + std::string{name} + "' (use " + debug_flag_choices() + ")");
}

}  // namespace

const char* const debug_level_choices =
    "quiet, fatal, error, info, verbose, debug, debug2..debug5 or 0-9";

shoal::expected<debug_level> parse_debug_level(std::string_view text) {
  auto t = trim(text);
  if (t.size() == 1 && t[0] >= '0' && t[0] <= '9') return static_cast<debug_level>(t[0] - '0');
  for (size_t i = 0; i < std::size(level_names); ++i)
    if (iequals(t, level_names[i])) return static_cast<debug_level>(i);
  return shoal::error(errc::invalid_config, "unknown debug level '" + std::string{text} +
                                                "' (use " + debug_level_choices + ")");
}

std::string_view to_string(debug_level level) {
  return level_names[static_cast<size_t>(level)];
}

debug_level more_verbose(debug_level level, unsigned steps) {
  auto most = static_cast<unsigned>(debug_level::debug5);
  return static_cast<debug_level>(std::min(most, static_cast<unsigned>(level) + steps));
}

std::string_view to_string(debug_flag flag) {
  return flag_names[static_cast<size_t>(flag)].name;
}

std::string debug_flag_choices() {
  std::string out;
  for (auto& f : flag_names) {
    if (!out.empty()) out += ", ";
    out += f.name;
    if (!f.alias.empty()) out += " (" + std::string{f.alias} + ")";
  }
  return out;
}

shoal::expected<debug_flag_set> parse_debug_flags(std::string_view list) {
  debug_flag_set flags = 0;
  auto err = for_each_item(list, [&](std::string_view item) -> shoal::error {
    auto flag = flag_of(item, errc::invalid_config);
    if (!flag) return std::move(flag.error());
    flags |= bit_of(*flag);
    return {};
  });
  if (err) return err;
  return flags;
}

std::string render_debug_flags(debug_flag_set flags) {
  std::string out;
  for (auto& f : flag_names) {
    if ((flags & bit_of(f.flag)) == 0) continue;
    if (!out.empty()) out += ',';
    out += f.name;
  }
  return out;
}

shoal::expected<debug_flag_set> change_debug_flags(debug_flag_set current,
                                                   const std::vector<std::string>& words) {
  if (words.empty())
    return shoal::error(errc::invalid_request, "setdebugflags needs +Flag or -Flag words (flags: " +
                                                   debug_flag_choices() + ")");
  for (auto& word : words) {
    auto w = trim(word);
    if (w.size() < 2 || (w[0] != '+' && w[0] != '-'))
      return shoal::error(errc::invalid_request, "expected +Flag or -Flag, got '" + word +
                                                     "' (flags: " + debug_flag_choices() + ")");
    bool add = w[0] == '+';
    auto err = for_each_item(w.substr(1), [&](std::string_view item) -> shoal::error {
      auto flag = flag_of(item, errc::invalid_request);
      if (!flag) return std::move(flag.error());
      current = add ? (current | bit_of(*flag)) : (current & ~bit_of(*flag));
      return {};
    });
    if (err) return err;
  }
  return current;
}

std::string expand_log_file_name(std::string_view pattern, std::string_view host,
                                 std::string_view node) {
  std::string out;
  out.reserve(pattern.size());
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      char c = pattern[i + 1];
      if (c == 'h' || c == 'n' || c == '%') {
        if (c == 'h')
          out += host;
        else if (c == 'n')
          out += node;
        else
          out += '%';
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out;
}

shoal::expected<uint64_t> parse_byte_size(std::string_view text) {
  auto t = trim(text);
  uint64_t unit = 1;
  if (!t.empty()) {
    switch (std::tolower(static_cast<unsigned char>(t.back()))) {
      case 'k':
        unit = uint64_t{1} << 10;
        break;
      case 'm':
        unit = uint64_t{1} << 20;
        break;
      case 'g':
        unit = uint64_t{1} << 30;
        break;
      default:
        break;
    }
    if (unit != 1) t.remove_suffix(1);
  }
  auto n = cs::parse_unsigned(t, ~uint64_t{0} / unit);
  if (!n)
    return shoal::error(errc::invalid_config, "invalid size '" + std::string{text} +
                                                  "' (expected bytes such as 1048576, 512K, 100M "
                                                  "or 2G)");
  return *n * unit;
}

shoal::expected<std::string> log_line_pattern(std::string_view time_format) {
  std::string stamp;
  bool thread_id = false;
  bool bad = false;
  auto err = for_each_item(time_format, [&](std::string_view item) -> shoal::error {
    std::string pattern;
    if (iequals(item, "iso8601"))
      pattern = "%Y-%m-%dT%H:%M:%S";
    else if (iequals(item, "iso8601_ms"))
      pattern = "%Y-%m-%dT%H:%M:%S.%e";
    else if (iequals(item, "rfc5424"))
      pattern = "%Y-%m-%dT%H:%M:%S%z";
    else if (iequals(item, "rfc5424_ms"))
      pattern = "%Y-%m-%dT%H:%M:%S.%e%z";
    else if (iequals(item, "short"))
      pattern = "%b %d %H:%M:%S";
    else if (iequals(item, "thread_id"))
      thread_id = true;
    else
      bad = true;
    if (!pattern.empty()) {
      if (!stamp.empty()) bad = true;
      stamp = pattern;
    }
    return {};
  });
  if (err) return err;
  if (bad)
    return shoal::error(errc::invalid_config,
                        "invalid LogTimeFormat '" + std::string{time_format} +
                            "' (use one of iso8601, iso8601_ms, rfc5424, rfc5424_ms, short, "
                            "optionally followed by ,thread_id)");
  if (stamp.empty()) stamp = "%Y-%m-%dT%H:%M:%S.%e";
  return "[" + stamp + (thread_id ? "] [%t] " : "] ") + "%n %l: %v";
}

}  // namespace shoal::config

#include "cluster/reservation.hpp"

#include <algorithm>
#include <set>

#include "config/begin_time.hpp"
#include "config/duration.hpp"
#include "messages/text.hpp"
#include "topology/hostlist.hpp"

namespace shoal::cluster {

namespace {

constexpr int64_t day_seconds = 86'400;

shoal::error refused(const std::string& why) {
  return shoal::error(errc::invalid_request, why);
}

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= text.size()) {
    auto comma = text.find(',', from);
    if (comma == std::string::npos) comma = text.size();
    if (comma > from) out.push_back(text.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

shoal::expected<reservation_flags> flags_of(const std::string& text) {
  reservation_flags f;
  for (auto& word : comma_list(text)) {
    auto w = text::lower(word);
    if (w == "maint")
      f.maint = true;
    else if (w == "ignore_jobs")
      f.ignore_jobs = true;
    else if (w == "overlap")
      f.overlap = true;
    else if (w == "flex")
      f.flex = true;
    else if (w == "daily")
      f.daily = true;
    else if (w == "weekly")
      f.weekly = true;
    else if (w == "spec_nodes")
      f.spec_nodes = true;
    else
      return refused("Error parsing flags " + text + ".  No reservation created.");
  }
  return f;
}

/// Whether the key is `name` or a prefix of it at least `least` letters long (scontrol's
/// abbreviations: "ReservationName" from "res", "StartTime" from "start", ...).
bool key_is(const std::string& key, std::string_view name, size_t least) {
  if (key.size() < least || key.size() > name.size()) return false;
  return text::iequals(key, name.substr(0, key.size()));
}

/// One Key=Value into `w`; false (and `why`) when refused.
std::optional<shoal::error> read_one(const std::string& key, const std::string& value, int64_t now,
                                     reservation_words& w) {
  auto once = [&](bool set) -> std::optional<shoal::error> {
    if (set) return refused("Parameter " + key + " specified more than once");
    return std::nullopt;
  };
  if (key_is(key, "ReservationName", 3)) {
    if (auto e = once(w.name.has_value())) return e;
    w.name = value;
  } else if (key_is(key, "StartTime", 1)) {
    if (auto e = once(w.start.has_value())) return e;
    auto t = config::parse_begin_time(value, now);
    if (!t) return refused("Invalid start time " + key + "=" + value + ".");
    w.start = *t;
  } else if (key_is(key, "EndTime", 1)) {
    if (auto e = once(w.end.has_value())) return e;
    auto t = config::parse_begin_time(value, now);
    if (!t) return refused("Invalid end time " + key + "=" + value + ".");
    w.end = *t;
  } else if (key_is(key, "Duration", 1)) {
    if (auto e = once(w.duration.has_value())) return e;
    auto d = config::parse_time_limit(value);
    if (!d) return refused("Invalid duration " + key + "=" + value + ".");
    w.duration = *d == config::unlimited ? policy::forever : *d;
  } else if (key_is(key, "NodeCnt", 5)) {
    if (auto e = once(w.node_count.has_value())) return e;
    bool digits = !value.empty() && std::all_of(value.begin(), value.end(), text::is_digit);
    if (!digits || value.size() > 9 || std::stoul(value) == 0)
      return refused("\"" + value + "\" is not a valid node count");
    w.node_count = static_cast<uint32_t>(std::stoul(value));
  } else if (key_is(key, "Nodes", 5)) {
    if (auto e = once(w.nodes.has_value())) return e;
    w.nodes = value;
  } else if (key_is(key, "PartitionName", 4)) {
    if (auto e = once(w.partition.has_value())) return e;
    w.partition = value;
  } else if (key_is(key, "Flags", 1)) {
    if (auto e = once(w.flags.has_value())) return e;
    auto f = flags_of(value);
    if (!f) return f.error();
    w.flags = *f;
  } else if (key_is(key, "Users", 1)) {
    if (auto e = once(w.users.has_value())) return e;
    w.users = comma_list(value);
  } else if (key_is(key, "Accounts", 1)) {
    if (auto e = once(w.accounts.has_value())) return e;
    w.accounts = comma_list(value);
  } else {
    return refused("Unknown parameter " + key + "=" + value + ".");
  }
  return std::nullopt;
}

/// The nodes a Nodes= value names, in config order; ALL is every node.
shoal::expected<std::vector<std::string>> named_nodes(const std::string& value,
                                                      const std::vector<std::string>& all_nodes) {
  if (text::iequals(value, "ALL")) return all_nodes;
  auto names = topology::expand_hostlist(value);
  if (!names) return refused("Invalid node name specified");
  std::set<std::string> wanted(names->begin(), names->end());
  std::vector<std::string> out;
  for (auto& n : all_nodes)
    if (wanted.erase(n) > 0) out.push_back(n);
  if (!wanted.empty()) return refused("Invalid node name specified");
  return out;
}

/// The times and nodes of `words` over `r` (shared by create and update).
std::optional<shoal::error> apply_words(reservation& r, const reservation_words& words,
                                        const std::vector<std::string>& all_nodes, bool creating) {
  int64_t kept = r.end >= policy::forever ? policy::forever : r.end - r.start;
  if (words.start) r.start = *words.start;
  if (words.end && words.duration && *words.duration < policy::forever &&
      r.start + *words.duration != *words.end)
    return refused("StartTime + Duration does not equal EndTime.");
  if (words.end)
    r.end = *words.end;
  else if (words.duration)
    r.end = policy::later(r.start, *words.duration);
  else if (!creating)
    r.end = kept >= policy::forever ? policy::forever : r.start + kept;
  if (r.start > r.end) return refused("Start time cannot be after end time.");
  if (words.partition) r.partition = *words.partition;
  if (words.flags) {
    bool named = r.flags.spec_nodes;
    r.flags = *words.flags;
    r.flags.spec_nodes = r.flags.spec_nodes || named;
  }
  if (words.users) r.users = *words.users;
  if (words.accounts) r.accounts = *words.accounts;
  if (words.nodes) {
    auto nodes = named_nodes(*words.nodes, all_nodes);
    if (!nodes) return nodes.error();
    r.nodes = std::move(*nodes);
    r.node_count = 0;
    r.flags.spec_nodes = true;
  } else if (words.node_count) {
    r.nodes.clear();
    r.node_count = *words.node_count;
    r.flags.spec_nodes = false;
  }
  return std::nullopt;
}

int64_t period_of(const reservation& r) {
  if (r.flags.daily) return day_seconds;
  if (r.flags.weekly) return 7 * day_seconds;
  return 0;
}

bool shares_a_node(const reservation& a, const reservation& b) {
  for (auto& n : a.nodes)
    if (std::find(b.nodes.begin(), b.nodes.end(), n) != b.nodes.end()) return true;
  return false;
}

}  // namespace

shoal::expected<reservation_words> read_reservation_words(const std::vector<std::string>& settings,
                                                          int64_t now) {
  reservation_words w;
  for (auto& word : settings) {
    auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
      return refused("Misformatted parameter '" + word +
                     "', most options have a parameter after '='.");
    if (auto err = read_one(word.substr(0, eq), word.substr(eq + 1), now, w)) return *err;
  }
  return w;
}

shoal::expected<reservation> new_reservation(const reservation_words& words,
                                             const std::vector<std::string>& all_nodes,
                                             const std::string& fallback_name) {
  if (!words.start) return refused("A start time must be given.  No reservation created.");
  if (!words.end && !words.duration)
    return refused("An end time or duration must be given.  No reservation created.");
  if (!words.nodes && !words.node_count && !words.partition)
    return refused(
        "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified.  No "
        "reservation created.");
  bool users = words.users && !words.users->empty();
  bool accounts = words.accounts && !words.accounts->empty();
  if (!users && !accounts)
    return refused(
        "Either Users/Groups and/or Accounts must be specified.  No reservation created.");
  reservation r;
  r.name = words.name && !words.name->empty() ? *words.name : fallback_name;
  if (auto err = apply_words(r, words, all_nodes, true)) return *err;
  return r;
}

shoal::expected<reservation> updated_reservation(const reservation& r,
                                                 const reservation_words& words,
                                                 const std::vector<std::string>& all_nodes) {
  if (words.name && *words.name != r.name)
    return refused("Parameter ReservationName specified more than once");
  reservation out = r;
  if (auto err = apply_words(out, words, all_nodes, false)) return *err;
  return out;
}

reservation current_window(const reservation& r, int64_t now) {
  int64_t period = period_of(r);
  if (period == 0 || r.end >= policy::forever || r.end > now) return r;
  reservation out = r;
  int64_t steps = (now - r.end) / period + 1;
  out.start += steps * period;
  out.end += steps * period;
  return out;
}

bool is_active(const reservation& r, int64_t now) {
  auto w = current_window(r, now);
  return w.start <= now && now < w.end;
}

bool overlaps(const reservation& a, const reservation& b, int64_t now) {
  auto x = current_window(a, now);
  auto y = current_window(b, now);
  if (!shares_a_node(x, y)) return false;
  // A recurring one comes back: compare it against the other over a few of its periods.
  for (int k = 0; k < 8; ++k) {
    int64_t shift_x = period_of(x) * k;
    for (int m = 0; m < 8; ++m) {
      int64_t shift_y = period_of(y) * m;
      if (x.start + shift_x < y.end + (y.end >= policy::forever ? 0 : shift_y) &&
          y.start + shift_y < x.end + (x.end >= policy::forever ? 0 : shift_x))
        return true;
      if (period_of(y) == 0) break;
    }
    if (period_of(x) == 0) break;
  }
  return false;
}

bool conflicts(const reservation& a, const reservation& b, int64_t now) {
  auto lenient = [](const reservation& r) { return r.flags.maint || r.flags.overlap; };
  return !lenient(a) && !lenient(b) && overlaps(a, b, now);
}

bool nodes_busy(const reservation& r, const std::vector<busy_node>& running, int64_t now) {
  auto w = current_window(r, now);
  for (auto& job : running)
    if (job.end > w.start && std::find(w.nodes.begin(), w.nodes.end(), job.node) != w.nodes.end())
      return true;
  return false;
}

std::vector<std::string> pick_nodes(const reservation& r, uint32_t count,
                                    const std::vector<std::string>& candidates,
                                    const std::vector<busy_node>& running,
                                    const std::vector<reservation>& others, int64_t now) {
  auto w = current_window(r, now);
  std::vector<std::string> out;
  for (auto& n : candidates) {
    if (out.size() >= count) break;
    bool busy = std::any_of(running.begin(), running.end(), [&](const busy_node& job) {
      return job.node == n && job.end > w.start;
    });
    if (busy && !r.flags.ignore_jobs) continue;
    reservation alone = w;
    alone.nodes = {n};
    bool held = std::any_of(others.begin(), others.end(), [&](const reservation& o) {
      return o.name != r.name && conflicts(alone, o, now);
    });
    if (!held) out.push_back(n);
  }
  if (out.size() < count) out.clear();
  return out;
}

bool may_use(const reservation& r, const std::string& user, const std::string& account) {
  if (std::find(r.users.begin(), r.users.end(), user) != r.users.end()) return true;
  return !account.empty() &&
         std::find(r.accounts.begin(), r.accounts.end(), account) != r.accounts.end();
}

std::string flags_text(const reservation_flags& f) {
  std::vector<std::string> out;
  if (f.maint) out.emplace_back("MAINT");
  if (f.flex) out.emplace_back("FLEX");
  if (f.overlap) out.emplace_back("OVERLAP");
  if (f.ignore_jobs) out.emplace_back("IGNORE_JOBS");
  if (f.daily) out.emplace_back("DAILY");
  if (f.weekly) out.emplace_back("WEEKLY");
  if (f.spec_nodes) out.emplace_back("SPEC_NODES");
  return joined(out);
}

msg::reservation_info info_of(const reservation& r, int64_t now) {
  auto w = current_window(r, now);
  msg::reservation_info info;
  info.name = w.name;
  info.start_time = w.start;
  info.end_time = w.end >= policy::forever ? 0 : w.end;
  info.nodes = topology::compress_hostlist(w.nodes);
  info.node_count = static_cast<uint32_t>(w.nodes.size());
  info.partition = w.partition;
  info.flags = flags_text(w.flags);
  info.users = joined(w.users);
  info.accounts = joined(w.accounts);
  info.active = is_active(r, now);
  return info;
}

reservation reservation_of(const msg::reservation_info& info) {
  reservation r;
  r.name = info.name;
  r.start = info.start_time;
  r.end = info.end_time == 0 ? policy::forever : info.end_time;
  if (auto names = topology::expand_hostlist(info.nodes)) r.nodes = std::move(*names);
  r.partition = info.partition;
  if (auto f = flags_of(info.flags)) r.flags = *f;
  r.users = comma_list(info.users);
  r.accounts = comma_list(info.accounts);
  return r;
}

}  // namespace shoal::cluster

#include "tools/format/operators.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>

#include "messages/errc.hpp"
#include "tools/format/table.hpp"

namespace shoal::cli {

namespace {

using metrics::bucket_list;
using metrics::exposition;

/// Per actor type: summed handler buckets (le -> cumulative), sum and count.
struct handler_totals {
  std::map<double, double> buckets;
  double sum = 0;
  double count = 0;
};

std::map<std::string, handler_totals> handler_by_actor(const exposition& e) {
  std::map<std::string, handler_totals> out;
  auto* f = e.find("shoal_actor_handler_seconds");
  if (!f) return out;
  for (auto& s : f->samples) {
    auto& t = out[s.label("actor")];
    if (s.name == f->name + "_bucket") {
      auto le = s.label("le");
      double bound = le == "+Inf" ? HUGE_VAL : std::strtod(le.c_str(), nullptr);
      t.buckets[bound] += s.value;
    } else if (s.name == f->name + "_sum") {
      t.sum += s.value;
    } else if (s.name == f->name + "_count") {
      t.count += s.value;
    }
  }
  return out;
}

std::map<std::string, double> by_label(const exposition& e, const std::string& family,
                                       const std::string& sample, const std::string& label) {
  std::map<std::string, double> out;
  if (auto* f = e.find(family))
    for (auto& s : f->samples)
      if (s.name == sample) out[s.label(label)] += s.value;
  return out;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string micros(const std::optional<double>& s) {
  return s ? fixed(*s * 1e6, 1) : "-";
}

std::string time_text(double t) {
  auto secs = static_cast<time_t>(t);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S %Y", &tm);
  return std::string{buf} + " (" + std::to_string(static_cast<int64_t>(t)) + ")";
}

}  // namespace

std::vector<actor_row> actor_rows(const exposition& now, const exposition* before,
                                  double interval_s) {
  std::map<std::string, actor_row> rows;
  for (auto& [type, v] : by_label(now, "shoal_actors_alive", "shoal_actors_alive", "actor"))
    rows[type].alive = v;
  for (auto& [type, v] :
       by_label(now, "shoal_actor_mailbox_messages", "shoal_actor_mailbox_messages", "actor"))
    rows[type].mailbox = v;
  for (auto& [type, v] : by_label(now, "shoal_actor_mailbox_high_water_messages",
                                  "shoal_actor_mailbox_high_water_messages", "actor"))
    rows[type].mailbox_high = v;
  auto msgs = by_label(now, "shoal_actor_messages_total", "shoal_actor_messages_total", "actor");
  std::map<std::string, double> msgs_before;
  if (before)
    msgs_before =
        by_label(*before, "shoal_actor_messages_total", "shoal_actor_messages_total", "actor");
  for (auto& [type, v] : msgs) {
    rows[type].messages = v;
    if (before && interval_s > 0)
      rows[type].rate = std::max(0.0, v - msgs_before[type]) / interval_s;
  }
  auto hnow = handler_by_actor(now);
  std::map<std::string, handler_totals> hbefore;
  if (before) hbefore = handler_by_actor(*before);
  for (auto& [type, t] : hnow) {
    auto& prev = hbefore[type];
    auto count = t.count - prev.count;
    if (count <= 0) continue;
    rows[type].mean_s = (t.sum - prev.sum) / count;
    bucket_list buckets;
    for (auto& [le, c] : t.buckets) {
      auto p = prev.buckets.count(le) ? prev.buckets.at(le) : 0.0;
      buckets.emplace_back(le, c - p);
    }
    rows[type].p99_s = metrics::bucket_quantile(0.99, buckets);
  }
  std::vector<actor_row> out;
  for (auto& [type, row] : rows) {
    if (type.empty()) continue;
    row.type = type;
    out.push_back(row);
  }
  return out;
}

const std::vector<std::string>& top_sort_fields() {
  static const std::vector<std::string> fields{"actor",    "alive", "mailbox", "mailbox_hw",
                                               "messages", "rate",  "mean",    "p99"};
  return fields;
}

shoal::error sort_actor_rows(std::vector<actor_row>& rows, const std::string& field) {
  auto key = detail::lower(field);
  std::function<double(const actor_row&)> num;
  if (key == "alive")
    num = [](const actor_row& r) { return r.alive; };
  else if (key == "mailbox")
    num = [](const actor_row& r) { return r.mailbox; };
  else if (key == "mailbox_hw")
    num = [](const actor_row& r) { return r.mailbox_high; };
  else if (key == "messages")
    num = [](const actor_row& r) { return r.messages; };
  else if (key == "rate")
    num = [](const actor_row& r) { return r.rate; };
  else if (key == "mean")
    num = [](const actor_row& r) { return r.mean_s.value_or(-1); };
  else if (key == "p99")
    num = [](const actor_row& r) { return r.p99_s.value_or(-1); };
  else if (key != "actor")
    return detail::unknown_field(field, top_sort_fields());
  std::stable_sort(rows.begin(), rows.end(), [&](const actor_row& a, const actor_row& b) {
    if (!num) return a.type < b.type;
    auto x = num(a);
    auto y = num(b);
    return x != y ? x > y : a.type < b.type;
  });
  return {};
}

std::string render_actor_table(const std::vector<actor_row>& rows) {
  std::vector<std::string> headers{"ACTOR",    "ALIVE",  "MAILBOX", "MAILBOX_HW",
                                   "MESSAGES", "MSGS/S", "MEAN_US", "P99_US"};
  std::vector<bool> right{false, true, true, true, true, true, true, true};
  std::vector<std::vector<std::string>> cells;
  for (auto& r : rows)
    cells.push_back({r.type, fixed(r.alive, 0), fixed(r.mailbox, 0), fixed(r.mailbox_high, 0),
                     fixed(r.messages, 0), fixed(r.rate, 1), micros(r.mean_s), micros(r.p99_s)});
  return detail::layout(headers, right, cells, false);
}

nlohmann::json to_json(const actor_row& r) {
  nlohmann::json j;
  j["actor"] = r.type;
  j["alive"] = r.alive;
  j["mailbox"] = r.mailbox;
  j["mailbox_high_water"] = r.mailbox_high;
  j["messages"] = r.messages;
  j["messages_per_second"] = r.rate;
  j["mean_handler_seconds"] = r.mean_s ? nlohmann::json(*r.mean_s) : nlohmann::json();
  j["p99_handler_seconds"] = r.p99_s ? nlohmann::json(*r.p99_s) : nlohmann::json();
  return j;
}

shoal::expected<diag_report> make_diag(const exposition& e, double now, diag_sort order) {
  auto start = e.value("shoal_start_time_seconds");
  if (!start || !e.find("shoal_jobs_submitted_total"))
    return shoal::error(errc::malformed_message,
                        "the scrape holds no controller metrics (is this shoalctld's MetricsPort, "
                        "and CollectMetrics=YES?)");
  diag_report d;
  d.now = now;
  d.start_time = *start;
  d.data_since = e.value("shoal_diag_reset_time_seconds").value_or(*start);
  d.jobs_submitted = e.value("shoal_jobs_submitted_total").value_or(0);
  d.jobs_started = e.value("shoal_jobs_started_total").value_or(0);
  auto finished = [&](const char* state) {
    return e.value("shoal_jobs_finished_total", {{"state", state}}).value_or(0);
  };
  d.jobs_completed = finished("COMPLETED");
  d.jobs_cancelled = finished("CANCELLED");
  d.jobs_failed = finished("FAILED");
  d.jobs_timeout = finished("TIMEOUT");
  d.jobs_node_fail = finished("NODE_FAIL");
  d.jobs_pending = e.value("shoal_jobs", {{"state", "PENDING"}}).value_or(0);
  d.jobs_running = e.value("shoal_jobs", {{"state", "RUNNING"}}).value_or(0);
  d.cycles = e.value("shoal_scheduler_cycle_seconds_count").value_or(0);
  d.last_cycle_s = e.value("shoal_scheduler_last_cycle_seconds").value_or(0);
  d.max_cycle_s = e.value("shoal_scheduler_max_cycle_seconds").value_or(0);
  if (d.cycles > 0)
    d.mean_cycle_s = e.value("shoal_scheduler_cycle_seconds_sum").value_or(0) / d.cycles;
  d.last_queue_length = e.value("shoal_scheduler_queue_jobs").value_or(0);
  d.server_backlog = e.value("shoal_actor_mailbox_messages", {{"actor", "controller"}}).value_or(0);
  auto rpcs = [&](const char* family, const char* label) {
    auto counts = by_label(e, family, std::string{family} + "_count", label);
    auto sums = by_label(e, family, std::string{family} + "_sum", label);
    std::vector<diag_report::rpc> out;
    for (auto& [name, count] : counts)
      if (count > 0) out.push_back({name, count, sums[name]});
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
      switch (order) {
        case diag_sort::total_time:
          return a.total_s > b.total_s;
        case diag_sort::average_time:
          return a.total_s / a.count > b.total_s / b.count;  // counts are above 0
        case diag_sort::id:
          return a.name < b.name;
        case diag_sort::count:
          break;
      }
      return a.count > b.count;
    });
    return out;
  };
  d.by_type = rpcs("shoal_rpc_seconds", "type");
  d.by_user = rpcs("shoal_rpc_user_seconds", "user");
  return d;
}

std::string render_diag(const diag_report& d) {
  std::string out;
  auto line = [&](const char* key, double value) { out += key + fixed(value, 0) + "\n"; };
  out += "*******************************************************\n";
  out += "sdiag output at " + time_text(d.now) + "\n";
  out += "Data since      " + time_text(d.data_since) + "\n";
  out += "*******************************************************\n";
  line("Server thread count:  ", d.server_backlog);
  // shoal has no agent threads (messages to nodes go straight to their actors) and keeps no
  // accounting database queue: nothing waits in either. The Prometheus Slurm exporter reads
  // these as slurm_scheduler_queue_size and slurm_scheduler_dbd_queue_size.
  line("Agent queue size:     ", 0);
  line("Agent count:          ", 0);
  line("Agent thread count:   ", 0);
  line("DBD Agent queue size: ", 0);
  out += "\n";
  line("Jobs submitted: ", d.jobs_submitted);
  line("Jobs started:   ", d.jobs_started);
  line("Jobs completed: ", d.jobs_completed);
  line("Jobs canceled:  ", d.jobs_cancelled);
  line("Jobs failed:    ", d.jobs_failed);
  out += "\n";
  // shoal's job counts are live gauges: their time is the report's.
  out += "Job states ts:  " + time_text(d.now) + "\n";
  line("Jobs pending:   ", d.jobs_pending);
  line("Jobs running:   ", d.jobs_running);
  out += "\nMain schedule statistics (microseconds):\n";
  line("\tLast cycle:   ", d.last_cycle_s * 1e6);
  line("\tMax cycle:    ", d.max_cycle_s * 1e6);
  line("\tTotal cycles: ", d.cycles);
  if (d.cycles > 0) line("\tMean cycle:   ", d.mean_cycle_s * 1e6);
  // sdiag prints the cycles per whole minute once a minute has passed; before, shoal prints
  // every cycle so far rather than leave the exporter's slurm_scheduler_cycle_per_minute at 0.
  auto minutes = std::floor((d.now - d.data_since) / 60);
  line("\tCycles per minute: ", minutes >= 1 ? std::floor(d.cycles / minutes) : d.cycles);
  line("\tLast queue length: ", d.last_queue_length);
  auto count = [](double v) { return fixed(v, 0); };
  auto table = [&](const char* title, const char* first, const std::vector<diag_report::rpc>& rs) {
    out += std::string{"\n"} + title + "\n";
    std::vector<std::vector<std::string>> cells;
    for (auto& r : rs)
      cells.push_back(
          {r.name, count(r.count), fixed(r.total_s * 1e6 / r.count, 0), fixed(r.total_s * 1e6, 0)});
    auto text = detail::layout({first, "COUNT", "AVE_TIME", "TOTAL_TIME"},
                               {false, true, true, true}, cells, false);
    // Indented like sdiag's tables.
    size_t pos = 0;
    while (pos < text.size()) {
      auto end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      out += "  " + text.substr(pos, end - pos) + "\n";
      pos = end + 1;
    }
  };
  table("Remote Procedure Call statistics by message type (microseconds)", "TYPE", d.by_type);
  table("Remote Procedure Call statistics by user (microseconds)", "USER", d.by_user);
  return out;
}

nlohmann::json to_json(const diag_report& d) {
  auto rpcs = [](const std::vector<diag_report::rpc>& rs, const char* key) {
    auto arr = nlohmann::json::array();
    for (auto& r : rs)
      arr.push_back({{key, r.name},
                     {"count", r.count},
                     {"total_seconds", r.total_s},
                     {"average_seconds", r.count > 0 ? r.total_s / r.count : 0.0}});
    return arr;
  };
  return {{"time", d.now},
          {"start_time", d.start_time},
          {"uptime_seconds", d.now - d.start_time},
          {"data_since", d.data_since},
          {"jobs",
           {{"submitted", d.jobs_submitted},
            {"started", d.jobs_started},
            {"completed", d.jobs_completed},
            {"canceled", d.jobs_cancelled},
            {"failed", d.jobs_failed},
            {"timeout", d.jobs_timeout},
            {"node_fail", d.jobs_node_fail},
            {"pending", d.jobs_pending},
            {"running", d.jobs_running}}},
          {"schedule",
           {{"cycles", d.cycles},
            {"last_cycle_seconds", d.last_cycle_s},
            {"max_cycle_seconds", d.max_cycle_s},
            {"mean_cycle_seconds", d.mean_cycle_s},
            {"last_queue_length", d.last_queue_length}}},
          {"rpcs_by_type", rpcs(d.by_type, "type")},
          {"rpcs_by_user", rpcs(d.by_user, "user")}};
}

}  // namespace shoal::cli

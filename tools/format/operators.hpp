#pragma once

// `shoal top` and `shoal diag` from scrapes of a daemon's /metrics (pure: no I/O, no clock).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/errc.hpp"
#include "metrics/text_parser.hpp"

namespace shoal::cli {

/// One actor type in `shoal top`.
struct actor_row {
  std::string type;
  double alive = 0;
  double mailbox = 0;            ///< messages queued now, summed over the type's actors
  double mailbox_high = 0;       ///< deepest single mailbox since start
  double messages = 0;           ///< handled since start
  double rate = 0;               ///< handled per second over the interval
  std::optional<double> mean_s;  ///< mean handler time over the interval (since start on the
                                 ///< first sample); empty without messages
  std::optional<double> p99_s;   ///< 99th percentile, estimated from the histogram buckets
};

/// The rows of every actor type in `now`; rates and times over the interval since `before`
/// (nullptr: times since start, rates 0).
std::vector<actor_row> actor_rows(const metrics::exposition& now, const metrics::exposition* before,
                                  double interval_s);

/// The fields `shoal top -s` accepts.
const std::vector<std::string>& top_sort_fields();

/// Sorts rows by `field` (one of top_sort_fields), the largest first (names A-Z); error
/// (errc::invalid_request) names the known fields.
shoal::error sort_actor_rows(std::vector<actor_row>& rows, const std::string& field);

/// The table `shoal top` prints (columns aligned).
std::string render_actor_table(const std::vector<actor_row>& rows);
nlohmann::json to_json(const actor_row& row);

/// `shoal diag`'s figures (Slurm's sdiag).
struct diag_report {
  double now = 0;         ///< Unix seconds of the report
  double start_time = 0;  ///< shoalctld's start
  double data_since = 0;  ///< the last reset (the start at first)
  double jobs_submitted = 0, jobs_started = 0, jobs_completed = 0, jobs_cancelled = 0,
         jobs_failed = 0, jobs_timeout = 0, jobs_node_fail = 0;
  double jobs_pending = 0, jobs_running = 0;
  double cycles = 0, last_cycle_s = 0, max_cycle_s = 0, mean_cycle_s = 0;
  double last_queue_length = 0;
  /// Requests waiting for the controller actor (its mailbox): what sdiag's "Server thread
  /// count" tracks, the RPCs slurmctld is serving at once.
  double server_backlog = 0;
  struct rpc {
    std::string name;  ///< message type or user
    double count = 0;
    double total_s = 0;
  };
  std::vector<rpc> by_type;  ///< in the diag_sort order asked
  std::vector<rpc> by_user;
};

/// How sdiag orders its RPC tables: by count (the default), total time (-t), average time (-T),
/// or id (-i; shoal's message types carry no numbers, so by type name, and users by name).
enum class diag_sort { count, total_time, average_time, id };

/// Reads the report from a scrape of shoalctld. Error (errc::malformed_message) when it is not
/// one (no shoal_start_time_seconds, or the controller's metrics are missing).
shoal::expected<diag_report> make_diag(const metrics::exposition& e, double now,
                                       diag_sort order = diag_sort::count);

/// sdiag's layout and words down to the main scheduler's figures (what scripts and the Prometheus
/// Slurm exporter parse), then shoal's RPC tables by its own message names (times in
/// microseconds, as sdiag). Counts shoal keeps that sdiag has no line for (timeouts, node
/// failures, uptime) are in to_json only.
std::string render_diag(const diag_report& d);
nlohmann::json to_json(const diag_report& d);

}  // namespace shoal::cli

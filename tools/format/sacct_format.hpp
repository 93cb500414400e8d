#pragma once

// sacct's output (Slurm 22.05, src/sacct/options.c, print.c and src/common/print_fields.c):
// the field table with its widths, `--format=JobID,JobName%30`, the header and dashes lines,
// `-p`/`-P`, and one line per job plus a `.batch` line for a batch job that ran. Pure: the CLI
// fetches the jobs the controller still holds, this selects and lays them out byte for byte as
// sacct prints them from its database.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::cli {

/// One column sacct prints: a field of its table (`name` as the table spells it) and the width
/// (negative: left-justified, as the table's JobID; `%N` makes it N, right-justified).
struct sacct_column {
  std::string name;
  int width = 0;
};

/// How print_fields.c cuts a value wider than its column: print_fields_str puts a `+` in the
/// last place kept, print_fields_date and headers cut plainly, numbers and times never.
enum class field_cut : uint8_t { plus, plain, never };

/// One field as Slurm's print_fields.c prints it (sacct, sstat), appended to `out`: with
/// `parsable` (1: -p, 2: -P) the value and `delimiter` (none after the last field under -P);
/// otherwise the value in `width` columns (negative: left-justified), cut as `cut` says, and a
/// blank. A null `text` is an unset value: an empty cell.
void print_field(std::string& out, int width, const std::string* text, field_cut cut, bool last,
                 int parsable, const std::string& delimiter);

/// sacct's _elapsed_time of a CPU time (TotalCPU, UserCPU, SystemCPU): "MM:SS.mmm" under an
/// hour (with milliseconds), "HH:MM:SS", "D-HH:MM:SS".
std::string sacct_cpu_text(uint64_t us);

/// sacct's default fields, `-b`'s and `-l`'s (sacct.h's DEFAULT_FIELDS, BRIEF_FIELDS,
/// LONG_FIELDS).
extern const char* const sacct_default_fields;
extern const char* const sacct_brief_fields;
extern const char* const sacct_long_fields;

/// Parses a field list as sacct's parse_command_line does: comma-separated, blanks before a
/// name skipped, empty items skipped; `NAME%N` sets the width to N; a name is matched
/// case-insensitively as a prefix of the table's names, the first in table order winning
/// (`state`, `exit`); a prefix of `ALL` adds every field. Error: errc::invalid_request
/// `Invalid field requested: "NAME"` (without the `%N`), which sacct prints before exiting 1.
shoal::expected<std::vector<sacct_column>> parse_sacct_fields(std::string_view list);

/// Every field name of sacct's table, in its order (`sacct -e`).
std::vector<std::string> sacct_field_names();

/// How sacct was asked to print.
struct sacct_print_options {
  bool no_header = false;       ///< -n
  int parsable = 0;             ///< 0: columns; 1: -p (a delimiter after every field); 2: -P
  std::string delimiter = "|";  ///< --delimiter, with -p/-P
  bool allocations = false;     ///< -X: no step lines
  std::string cluster;          ///< the Cluster field (ClusterName=)
  int64_t now = 0;              ///< Elapsed of running jobs
  /// Start/End/Submit/Eligible: strftime format (SLURM_TIME_FORMAT); empty: `%FT%T`.
  std::string time_format;
  /// --units: memory in this unit (1 K, 2 M, 3 G, 4 T, 5 P); -1 for sacct's own choice.
  int units = -1;
};

/// The lines sacct prints for `jobs`, in the order given: the header and the dashes line
/// (unless no_header; only the header with -p/-P), then per job a line, and, for a batch job
/// that started and unless allocations, a `ID.batch` line (JobName `batch`, the job's state
/// without `by UID` and its exit code, one node: the first of the job's). Fields shoal keeps
/// no data for (usage statistics, TRES, group, ...) print empty, as sacct prints an unset
/// value. Times are local time.
std::string render_sacct(const std::vector<msg::job_info>& jobs,
                         const std::vector<sacct_column>& columns, const sacct_print_options& opt);

/// What the accounting store kept, by job id and submit time (a job id used again is another
/// job).
using sacct_stored = std::map<std::pair<uint64_t, int64_t>, msg::accounted_job>;

/// As above, with what the store kept for some of `jobs`: such a job's line shows its CPU
/// totals (TotalCPU, UserCPU, SystemCPU: its steps' sums), DerivedExitCode, ReqTRES and
/// AllocTRES, and its steps follow it as sacct lists them (`ID.batch`, `ID.0`, ... in the
/// store's order; none under -X) with what each used (MaxRSS, MaxRSSNode, AveRSS, MaxVMSize,
/// TotalCPU, disk figures), in place of the made-up `.batch` line.
std::string render_sacct(const std::vector<msg::job_info>& jobs, const sacct_stored& stored,
                         const std::vector<sacct_column>& columns, const sacct_print_options& opt);

/// One `-j` item: a job (`12`), an array task (`12_3`) and optionally a step (`12.batch`).
struct sacct_job_selector {
  uint64_t job_id = 0;
  int64_t array_task = -1;  ///< -1: not an array task id
  std::string step;         ///< empty: the job and its steps; "batch" or a number: that step
};

/// Parses sacct's -j list: `12`, `12_3`, `12.batch`, `12_3.0`, comma-separated. Error:
/// errc::invalid_request naming the bad item (sacct: `Invalid job id: X`).
shoal::expected<std::vector<sacct_job_selector>> parse_sacct_jobs(std::string_view list);

/// Parses -s: job state names or their short codes, any case (`CD,failed,CA`), each as a job
/// state. Error: errc::invalid_request `unrecognized job state value 'X'`.
shoal::expected<std::vector<msg::job_state>> parse_sacct_states(std::string_view list);

/// What a sacct query selects; empty lists select all.
/// sacct's -i, -I and -k/-K: one value matches exactly, MIN-MAX (or -k with -K) inclusively, as
/// slurmdbd's query does; unset (min 0) matches everything.
struct sacct_range {
  uint64_t min = 0;
  uint64_t max = 0;  ///< 0: exactly min

  bool matches(uint64_t value) const {
    if (min == 0) return true;
    return max == 0 ? value == min : value >= min && value <= max;
  }
};

/// Reads sacct's MIN[-MAX] (get_resource_arg_range: a number, k or m times 1024 or 1048576);
/// `what` names it in the error ("requested node range").
shoal::expected<sacct_range> parse_sacct_range(const std::string& text, const char* what);

struct sacct_filter {
  std::vector<sacct_job_selector> jobs;  ///< -j
  std::vector<uint32_t> uids;            ///< -u (or the caller without -a)
  std::vector<msg::job_state> states;    ///< -s
  std::vector<std::string> partitions;   ///< -r
  std::vector<std::string> names;        ///< --name
  std::vector<std::string> accounts;     ///< -A
  std::vector<std::string> nodes;        ///< -N, expanded: jobs that ran on any of them
  int64_t start = 0;                     ///< -S (or sacct's default); 0: none
  int64_t end = 0;                       ///< -E; 0: now
  std::vector<std::string> qos;          ///< -q
  std::vector<std::string> reasons;      ///< -R: the job's reason is one of them
  std::vector<std::string> constraints;  ///< -C: its -C (features) holds each of them
  sacct_range nodes_alloc;               ///< -i: the nodes it was given
  sacct_range cpus_alloc;                ///< -I: the CPUs it was given
  sacct_range timelimit_min;             ///< -k (and -K): its time limit, in minutes
  bool truncate = false;                 ///< -T: start and end times cut to the window
};

/// The jobs sacct would report, in job id order (an array's tasks by task, its pending
/// remainder after them), with sacct's rules: without states a job counts when it was eligible
/// (submitted, or its begin time) at or before `end` (0: now) and had not ended before `start`;
/// with states, when its state is one of them and (for an ended state) it ended between start
/// and end, (running) it started by end, (pending) it was submitted by end. Without start and
/// end, no window applies (sacct -j). Configuring and completing jobs count as RUNNING, as
/// slurmdbd holds them. A step in a selector (`12.batch`) selects its job.
std::vector<msg::job_info> select_sacct_jobs(const std::vector<msg::job_info>& jobs,
                                             const sacct_filter& filter, int64_t now);

/// sacct's default start of the window: 00:00 today (local time) when no states are asked,
/// otherwise `now`, as parse_command_line sets usage_start.
int64_t sacct_default_start(int64_t now, bool states_given);

}  // namespace shoal::cli

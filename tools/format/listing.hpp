#pragma once

// Pure rendering of the CLI's listings: squeue, sinfo, sinfo -N (the seed's machine status tool)
// and scontrol show. No I/O: callers fetch the records and print the returned text.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/errc.hpp"
#include "messages/field_mask.hpp"
#include "messages/job_filter.hpp"
#include "messages/types.hpp"
#include "tools/format/squeue_format.hpp"

namespace shoal::cli {

/// How a listing is shaped. Field names are case-insensitive and may contain underscores
/// (`time_limit` = `TimeLimit`). An unknown field anywhere yields errc::invalid_request with the
/// text "unknown field 'X' (known: A, B, ...)".
struct listing_options {
  /// -o: comma-separated field names; empty = the listing's default columns.
  std::string format;
  /// "Field=Value" items, all of which must hold. Value may be a comma list (any of). Matching is
  /// case-insensitive on the shown text; State also accepts long names and short codes, and node
  /// name fields accept hostlist expressions (`NodeList=n[1-3]`). An item without '=' is an
  /// errc::invalid_request error.
  std::vector<std::string> filters;
  /// -S: comma-separated field names, a "-" prefix sorts that key descending. Numeric fields sort
  /// numerically, text naturally (n2 before n10). Empty = the order given. The sort is stable.
  std::string sort;
  /// --json: a JSON document with every field of each record, whatever `format` says; filters and
  /// sort still apply.
  bool json = false;
  /// -h/--noheader: no header line in tables.
  bool no_header = false;
};

// -- tables -------------------------------------------------------------------

/// squeue. Default columns `JOBID PARTITION NAME USER ST TIME NODES NODELIST(REASON)`. Each column
/// is as wide as its widest cell, columns are separated by one blank, numeric and duration
/// columns are right-aligned, and no line has trailing blanks. `now` (Unix seconds) gives the
/// elapsed time of running jobs. Fields: JobId, Partition, Name, User, State, ST, Time, TimeLimit,
/// Nodes, NodeList, Reason, SubmitTime, StartTime, EndTime, ExitCode, NTasks, CPUsPerTask,
/// WorkDir, Command, Priority, NodeListReason. JSON: `{"jobs":[...]}` (see to_json).
/// squeue's and sacct's JOBID: `12`, an array task `12_4`, or an array's pending tasks
/// `12_[5-1000%50]`.
std::string job_id_text(const msg::job_info& j);

shoal::expected<std::string> render_jobs(std::vector<msg::job_info> jobs,
                                         const listing_options& opt, int64_t now);

/// The job fields render_jobs reads for `opt` (its columns, filters and sort; every field for
/// --json), so a listing asks the controller for only those (messages/field_mask.hpp).
msg::field_mask job_listing_reads(const listing_options& opt);

/// The part of opt.filters the controller can apply before it encodes the jobs (the first
/// State=/ST=, User= and Partition= items; messages/job_filter.hpp): it passes every job
/// select_jobs keeps, and perhaps more.
msg::job_filter job_coarse_filter(const listing_options& opt);

/// The field names of a job listing, as render_jobs takes them.
std::vector<std::string> job_field_names();

/// The job fields select_jobs reads for `opt` (its filters and sort).
msg::field_mask job_selection_reads(const listing_options& opt);

/// The jobs render_jobs would list, in its order: opt.filters and opt.sort applied (the rest of
/// `opt` is not read), for listings laid out elsewhere (squeue's own formats). Errors as
/// render_jobs.
shoal::expected<std::vector<msg::job_info>> select_jobs(std::vector<msg::job_info> jobs,
                                                        const listing_options& opt, int64_t now);

/// sinfo. One line per (partition, node state) group, partitions in the order given, states in
/// order of first appearance among the partition's nodes; a partition without nodes gets one line
/// with state "n/a". Columns `PARTITION AVAIL TIMELIMIT NODES STATE NODELIST`; the default
/// partition's name carries a `*`. `nodes` supplies the states; a partition member missing from it
/// counts as unknown. Fields: Partition, Avail, TimeLimit, Nodes, State, NodeList.
/// JSON: `{"partitions":[...]}`, each partition's fields plus "nodes_by_state" counted over the
/// groups that pass the filters.
/// The same table from the controller's grouping (topology::summarize_partitions: the
/// partition_summary op), without every node's record; the table only (no JSON: JSON lists each
/// partition's nodes, which the summary leaves out).
shoal::expected<std::string> render_partition_summary(
    const std::vector<msg::partition_summary>& sums, const listing_options& opt);

shoal::expected<std::string> render_partitions(const std::vector<msg::partition_info>& parts,
                                               const std::vector<msg::node_info>& nodes,
                                               const listing_options& opt);

/// sinfo -N and the seed's machine status tool. Default columns `NODELIST NODES PARTITION STATE`,
/// one line per node per partition listed in the node's `partitions` ("-" when none; `*` marks the
/// default partition named in `parts`). With `format` set, one line per node and Partition is the
/// comma list. Configured resources that are 0 show the reported ones. Fields: Name, State (long),
/// StateCompact, Reason, OS, CPUs, Speed, RealMemory, VirtualMemory, TmpDisk, Partition,
/// LastResponse, Address, Weight, Sockets, Cores, Threads, Jobs, Features, BootTime, NodeList,
/// Nodes. `now` is reserved for relative times. JSON: `{"nodes":[...]}`, one entry per node.
shoal::expected<std::string> render_nodes(const std::vector<msg::partition_info>& parts,
                                          const std::vector<msg::node_info>& nodes,
                                          const listing_options& opt, int64_t now);

// -- scontrol show ------------------------------------------------------------

/// `scontrol show job`, as Slurm 22.05's slurm_sprint_job_info lays it out: the same keys in the
/// same lines, continuation lines indented by three blanks, empty strings as "(null)", unset
/// times as "Unknown", and a line of the indentation alone then a blank line at the end. Keys
/// shoal has no value for carry Slurm's value for "not set" (TimeMin=N/A, Reboot=0, ...).
/// With `pending` (the scheduler's view of a pending job), Priority and Nice come from it and
/// StartTime is the expected start. `group` is the owner's primary group (the job record carries
/// the uid only); null: "(null)(0)".
std::string show_job(const msg::job_info& j, int64_t now,
                     const msg::pending_detail* pending = nullptr,
                     const group_entry* group = nullptr);

/// Which of sprio's columns that follow their weights are shown: as Slurm 22.05's sprio, FAIRSHARE
/// when PriorityWeightFairshare is set and QOS when PriorityWeightQOS is.
struct priority_columns {
  bool fairshare = false;
  bool qos = false;
};

/// `shoal queue --priority` (sprio): JOBID PARTITION USER PRIORITY AGE [FAIRSHARE] JOBSIZE
/// PARTITION [QOS] NICE REASON, one line per pending job, highest priority first.
std::string render_priorities(const std::vector<msg::job_info>& jobs,
                              const std::vector<msg::pending_detail>& details, bool no_header,
                              priority_columns shown = {});

/// The configured PriorityWeight* values sprio -w shows.
struct priority_weights {
  uint64_t age = 0;
  uint64_t fairshare = 0;
  uint64_t job_size = 0;
  uint64_t partition = 0;
  uint64_t qos = 0;
};

/// sprio -w: render_priorities' header and one "Weights" line, each factor's column its weight.
std::string render_priority_weights(const priority_weights& w, bool no_header,
                                    priority_columns shown = {});

/// What jobs hold on a node, for show_node's CPUAlloc, AllocMem and AllocTRES.
struct node_use {
  uint64_t cpus = 0;
  uint64_t mem_mb = 0;
};

/// `scontrol show node`, as Slurm 22.05's slurm_sprint_node_table lays it out, then one line of
/// what shoal knows beyond it (LastResponse, StateSince, Jobs) and one of what the node reported
/// (ReportedCPUs, ...), then the Reason. `use` null: CPUAlloc is all of an ALLOCATED node's
/// CPUs and none otherwise, AllocMem 0. `now` is reserved for relative times.
std::string show_node(const msg::node_info& n, int64_t now, const node_use* use = nullptr);

/// `shoal control show collectors`: COLLECTOR STATE NODES LAST_REPORT ROUND_MS, one line per
/// CollectorNodes entry (LAST_REPORT "Never" and ROUND_MS "-" before its first report).
std::string render_collectors(const std::vector<msg::collector_info>& collectors);

/// `scontrol show partition`, as Slurm 22.05's slurm_sprint_partition_info lays it out (limits
/// shoal does not have carry Slurm's words for none), then shoal's NodeStates line; `nodes`
/// supplies TotalCPUs, TRES and the per-state counts.
std::string show_partition(const msg::partition_info& p, const std::vector<msg::node_info>& nodes);

/// One license as `scontrol show licenses` (Slurm 22.05) prints it: "LicenseName=NAME" then,
/// indented, "Total=N Used=N Free=N Reserved=0 Remote=no" (shoal has no reservations and no
/// remote licenses).
std::string show_license(const std::string& name, uint64_t total, uint64_t used);

/// The licenses the listed jobs hold, by name: those of jobs holding nodes (CONFIGURING,
/// RUNNING, COMPLETING), as the scheduler counts them.
std::map<std::string, uint64_t> licenses_in_use(const std::vector<msg::job_info>& jobs);

// -- JSON ---------------------------------------------------------------------

/// Every field under its snake_case struct name; states as long names, times as Unix seconds.
nlohmann::json to_json(const msg::job_info& j);
/// Every field, with the machine's own report nested under "reported".
nlohmann::json to_json(const msg::node_info& n);
/// Every field of the partition (no node counts; render_partitions adds those).
nlohmann::json to_json(const msg::partition_info& p);
/// Every field of a collector's line, plus the reports received from it.
nlohmann::json to_json(const msg::collector_info& c);

}  // namespace shoal::cli

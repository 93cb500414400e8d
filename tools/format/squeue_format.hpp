#pragma once

// squeue's own output formats (Slurm 22.05, src/squeue/print.c and sort.c): `squeue -o
// "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"`, `squeue -O JobID,State:10`, and its -S sort
// letters. Pure: the CLI fetches and filters the jobs, this lays them out byte for byte as
// squeue does.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "messages/errc.hpp"
#include "messages/field_mask.hpp"
#include "messages/types.hpp"

namespace shoal::cli {

/// What a Slurm-format listing printed, and what it said about the format.
struct slurm_output {
  std::string text;  ///< stdout: the header (unless -h) and one line per record
  /// Slurm's complaints about the format (`Invalid job format specification: W`), one line
  /// each, without the command's prefix; the listing is printed anyway, as Slurm does.
  std::vector<std::string> errors;
  /// Fields Slurm has and shoal cannot fill (`%y (NICE) is not available in shoal; shown as
  /// N/A`), one line each.
  std::vector<std::string> notes;
};

/// A user's primary group: its id and name.
struct group_entry {
  uint32_t gid = 0;
  std::string name;
};

/// How squeue was asked to print.
struct squeue_format_options {
  std::string format;       ///< -o, a letter format (`%.18i %j`); used when long_format is empty
  std::string long_format;  ///< -O, long names (`JobID,Name:20`)
  /// -S in Slurm's letters (`-t,p`); empty: squeue's default `P,t,-p`. Ignored with presorted.
  std::string sort;
  bool presorted = false;  ///< keep the order given (the caller sorted by shoal's field names)
  bool no_header = false;  ///< -h
  /// %g and %G: the job owner's group. The job records carry the uid only; the CLI looks up
  /// the user's primary group. Unset or nullopt: "N/A".
  std::function<std::optional<group_entry>(uint32_t uid)> group_of;
};

/// True when `spec` is an -S in Slurm's letters: comma-separated single letters, each with an
/// optional `+` or `-` (`-t,p`, `i`). Otherwise -S names shoal's fields (`-Priority`).
bool is_slurm_sort(std::string_view spec);

/// Sorts `jobs` as squeue does before printing: by start time, latest first (jobs that have
/// none last), then by each letter of `spec` from the last to the first, each sort stable, so
/// the first letter is the main key; `-` before a letter reverses it. Empty `spec`: `P,t,-p`
/// (partition, state code, priority highest first). Letters: i j u U P p Q t T M l L D C S V e
/// N a q k g G m d B (and H I J z v w W f, whose values shoal never sets, as no-ops).
/// Error: errc::invalid_request "Invalid sort specification: X" for another letter (squeue
/// exits 1).
shoal::error sort_jobs_slurm(std::vector<msg::job_info>& jobs, std::string_view spec, int64_t now);

/// The jobs in squeue's own format: a header line (unless no_header) of the fields' headers
/// (`JOBID PARTITION NAME USER ST TIME NODES NODELIST(REASON)` for squeue's default), then
/// one line per job, each field laid out by slurm_cell and followed by its suffix. `now` (Unix
/// seconds) gives running jobs' TIME and TIME_LEFT. Letters (-o): a A b B c C d D e E f F g G
/// h H i I j J k K l L m M n N o O p P q Q r R s S t T u U v V w W x X y Y z Z, as squeue(1)
/// describes them; -O takes squeue's long names for the same fields and TASKS (numtasks),
/// CPUS_PER_TASK, EXIT_CODE, NTASKS_PER_NODE, BATCH_FLAG, REQUEUE, RESTART_COUNT and
/// PENDING_TIME. Fields shoal never sets print what Slurm prints for a job without them
/// ((null), N/A, *; the select plugin's %s nothing, as cons_tres); NICE (%y), not in the job
/// listing, prints N/A with a note. Unknown letters and names print as squeue prints them (the
/// spec itself, or the suffix) with an error line. Error: as sort_jobs_slurm.
shoal::expected<slurm_output> render_squeue(std::vector<msg::job_info> jobs,
                                            const squeue_format_options& opt, int64_t now);

/// The job fields render_squeue reads for `opt` (its format's columns, its sort letters and the
/// start-time order before them), so a listing asks the controller for only those
/// (messages/field_mask.hpp). Unknown letters and names read nothing.
msg::field_mask squeue_reads(const squeue_format_options& opt);

/// Every field's first -O name, in squeue_format's order.
std::vector<std::string> squeue_long_names();

/// squeue -t: each comma-separated item must be one of Slurm's job states, long or compact,
/// any case (PENDING, PD, RUNNING, R, ..., and the flag states COMPLETING, CONFIGURING,
/// RESIZING, ...), or the whole value `all`. Returns "" or squeue's two error lines joined by a
/// newline (`Invalid job state specified: X`, `Valid job states include: ...`), after which
/// squeue exits 1.
std::string check_job_states(std::string_view states);

}  // namespace shoal::cli

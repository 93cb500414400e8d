#pragma once

// sstat's output (Slurm 22.05, src/sstat/sstat.c, print.c and src/common/print_fields.c): its
// field table with the widths, `-o JobID,MaxRSS%12`, the header and dashes lines, `-p`/`-P`,
// and a line per running step from what its nodes measured so far. Pure: the CLI asks the
// controller, this lays the answer out.

#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "tools/format/sacct_format.hpp"

namespace shoal::cli {

/// sstat's default fields (sstat.h's STAT_FIELDS).
extern const char* const sstat_default_fields;

/// Parses an -o list against sstat's table, as sstat's parse_command_line does (the rules of
/// parse_sacct_fields, without `ALL`). Error: errc::invalid_request `Invalid field requested:
/// "NAME"`.
shoal::expected<std::vector<sacct_column>> parse_sstat_fields(std::string_view list);

/// Every field name of sstat's table, in its order (`sstat -e`).
std::vector<std::string> sstat_field_names();

/// How sstat was asked to print.
struct sstat_print_options {
  bool no_header = false;  ///< -n
  int parsable = 0;        ///< 0: columns; 1: -p; 2: -P
};

/// The header and dashes lines (only the header with -p/-P; nothing with -n).
std::string render_sstat_header(const std::vector<sacct_column>& columns,
                                const sstat_print_options& opt);

/// One step's line: `job` is the job's id as sstat prints it ("12"), `step` what its nodes used
/// so far (usage summed over them, cluster/step_usage.hpp). AveCPU and MinCPU are whole seconds
/// as sstat prints them; CPU is measured per node, so a node's tasks share its figure (MinCPU is
/// the lowest node's share). shoal keeps a step's disk bytes and virtual memory as totals:
/// MaxDiskRead/Write are the step's totals, AveDiskRead/Write those over its tasks, and the
/// nodes and tasks of those maxima, AveVMSize and the page counts print empty, as do the TRES
/// usage strings. ConsumedEnergy is 0 (no energy plugin); AveCPUFreq 0 and the requested
/// frequencies Unknown, as sstat prints them without --cpu-freq.
std::string render_sstat_line(const std::string& job, const msg::accounted_step& step,
                              const std::vector<sacct_column>& columns,
                              const sstat_print_options& opt);

}  // namespace shoal::cli

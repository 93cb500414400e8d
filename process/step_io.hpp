#pragma once

// What srun's I/O options mean for one task, as pure functions: the file an `-i FILE` pattern
// names, and a task's command line under --multi-prog (Slurm's configuration file format). The
// client checks a configuration with them before it submits; shoal-stepd applies them per task.

#include <cstdint>
#include <string>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::process {

/// What an I/O file pattern's %-letters stand for, for one task.
struct io_pattern_values {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  uint32_t rank = 0;     ///< %t
  uint32_t node_id = 0;  ///< %n: the node's position in the step
  std::string node_name;
  std::string user;
  std::string job_name;
};

/// `pattern` with srun's %-letters replaced, as Slurm 22.05 expands -i/-o/-e: %j job id, %J
/// job.step, %s step id, %t task id, %n node id (relative to the step), %N node name, %u user
/// name, %x job name, %% a '%'. A width between '%' and a numeric letter pads it with zeros
/// (%3t: 007). An unknown letter is kept as typed.
std::string expand_io_pattern(const std::string& pattern, const io_pattern_values& v);

/// The command line of task `rank` under the --multi-prog configuration `text`: lines of "RANKS
/// PROGRAM [ARGS...]" where RANKS is `*` (every task not named on an earlier line), a task id, or
/// a comma list of ids and ranges (1-3); in PROGRAM and ARGS `%t` is the task id and `%o` its
/// offset among the line's ranks; words may be quoted with ' or "; a line starting with '#'
/// (after blanks) is a comment, and a '\' at a line's end continues it. The first line naming
/// `rank` wins. Error: errc::invalid_request naming the line ("line 3: ...") for a malformed
/// one, or "no line of the configuration file names task N".
shoal::expected<std::vector<std::string>> multi_prog_argv(const std::string& text, uint32_t rank);

/// Checks `text` as multi_prog_argv reads it, for tasks 0..ntasks-1 (0: only the lines' form).
/// Errors as multi_prog_argv's, and "task id N is out of range (N tasks)" for a line naming a
/// task the step does not have.
shoal::error check_multi_prog(const std::string& text, uint32_t ntasks);

}  // namespace shoal::process

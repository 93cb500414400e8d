#pragma once

// `--cpu-bind`: Slurm's option syntax and the computation of each task's CPU set from a node's
// core table. Pure: the shepherd applies the result with sched_setaffinity.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"
#include "topology/machine_probe.hpp"

namespace shoal::topology {

/// What `--cpu-bind=TYPE` asks for.
enum class cpu_bind_type : uint8_t {
  none,      ///< leave the tasks' affinity as inherited from shoald
  cores,     ///< whole cores: the task's CPUs rounded up to whole cores
  threads,   ///< single PUs (logical CPUs)
  sockets,   ///< every PU of the sockets holding the task's cores
  ldoms,     ///< every PU of the NUMA nodes holding the task's cores
  rank,      ///< local task i on the i-th CPU of the node (by OS number)
  map_cpu,   ///< local task i on CPU map[i mod n]
  mask_cpu,  ///< local task i on the CPUs of mask[i mod n]
};

/// A parsed `--cpu-bind` value.
struct cpu_bind_spec {
  bool verbose = false;
  cpu_bind_type type = cpu_bind_type::none;
  /// map_cpu: one OS CPU number per entry, `N*R` repetitions expanded.
  std::vector<uint32_t> map;
  /// mask_cpu: the OS CPU numbers of each mask, ascending, repetitions expanded.
  std::vector<std::vector<uint32_t>> masks;
};

/// A set of OS CPU numbers, ascending, without duplicates.
using cpu_list = std::vector<uint32_t>;

/// Parses srun's `--cpu-bind` syntax: comma-separated, case-insensitive tokens; the last TYPE
/// and the last of quiet/verbose win, as in srun. TYPE is none (no), cores (core), threads
/// (thread), sockets (socket), ldoms (ldom), rank, map_cpu:LIST (mapcpu) or mask_cpu:LIST
/// (maskcpu); q/quiet and v/verbose set verbosity, and without a TYPE mean none. A LIST is
/// comma-separated; an entry may end in `*COUNT` to repeat it. map_cpu entries are decimal CPU
/// numbers (hex with 0x); mask_cpu entries are hex masks, `0x` optional. As in srun, a comma
/// followed by a value continues the list: `mask_cpu:0x1,0x2,verbose` is two masks and verbose.
/// Errors (errc::invalid_request, naming the token and the fix): an empty value, an unknown
/// token, a missing or malformed list entry, a mask with no bit set, more than 65,536 list
/// entries, a CPU number above 65,535, and Slurm's rank_ldom, map_ldom and mask_ldom, which
/// shoal does not support.
shoal::expected<cpu_bind_spec> parse_cpu_bind(std::string_view text);

/// True when one of the tokens of `text` is "help" (srun prints the option's help then).
bool is_cpu_bind_help(std::string_view text);

/// The lines `--cpu-bind=help` prints.
const char* cpu_bind_help();

/// The canonical spelling that parses back to the same spec: "quiet,cores", "verbose,none",
/// "quiet,map_cpu:0,2,1", "quiet,mask_cpu:0x3,0xC".
std::string to_string(const cpu_bind_spec& spec);

/// The type's name in SHOAL_CPU_BIND_TYPE terms: "none", "rank", "map_cpu:", "mask_cpu:" (the
/// automatic types are reported as mask_cpu:, since each task gets an explicit mask, as Slurm
/// reports them).
std::string env_type_name(const cpu_bind_spec& spec);

/// The CPU set of each of `local_tasks` tasks of one step on a node with `cores` (machine_facts
/// cores), each task needing `cpus_per_task` CPUs (0 counts as 1). Entry i is local task i's.
/// For none the result is empty: nothing is bound.
///
/// Tasks take their CPUs one after the other in hwloc order, local task 0 first: threads gives
/// each task the next cpus_per_task PUs; cores gives each task the next whole cores until they
/// hold at least cpus_per_task PUs (so on a node without SMT, cpus_per_task cores); sockets and
/// ldoms widen the cores rule's set to all PUs of the sockets or NUMA nodes it touches. When the
/// node runs out, the next task starts again from the first core, so tasks share CPUs (Slurm
/// reuses its masks from the start likewise). A task never gets the same core twice: asking for
/// more CPUs than the node has gives all of them.
///
/// map_cpu and mask_cpu apply entry i mod n to local task i on every node, as srun does. A mask
/// keeps only the node's PUs (Slurm trims masks to the step's CPUs alike).
/// Errors (errc::invalid_request): no cores in the table (binding needs hwloc's view), a map_cpu
/// CPU that is not one of the node's PUs, a mask that holds none of them.
shoal::expected<std::vector<cpu_list>> plan_cpu_binding(const std::vector<core_info>& cores,
                                                        uint32_t local_tasks,
                                                        uint32_t cpus_per_task,
                                                        const cpu_bind_spec& spec);

/// "0-1,4" style list of `cpus` (as /proc's Cpus_allowed_list prints), "" when empty.
std::string cpu_range_list(const cpu_list& cpus);

/// Slurm's mask form for SLURM_CPU_BIND_LIST: "0x" then upper-case hex digits, zero-padded to
/// as many digits as `width_bits` bits need (at least one), e.g. ({4,5}, 8) -> "0x30".
std::string padded_hex_mask(const cpu_list& cpus, uint32_t width_bits);

/// The mask form of srun's verbose line: "0x" and lower-case hex without leading zeros ("0x0"
/// when empty).
std::string short_hex_mask(const cpu_list& cpus);

/// The line srun prints with --cpu-bind=verbose, cut around the task's PID (only the task knows
/// it): `head` + PID + `tail`, or + `failed_tail` when setting the mask failed. E.g. head
/// "cpu-bind=MASK - node1, task  0  0 [" and tail "]: mask 0x1 set\n". `cpus` is the task's
/// planned set; `current` the inherited affinity, which none shows and failed_tail reports.
struct verbose_bind_line {
  std::string head;
  std::string tail;
  std::string failed_tail;
};
verbose_bind_line make_verbose_bind_line(const cpu_bind_spec& spec, const std::string& node_name,
                                         uint32_t rank, uint32_t local_id, const cpu_list& cpus,
                                         const cpu_list& current);

}  // namespace shoal::topology

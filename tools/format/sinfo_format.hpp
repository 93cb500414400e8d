#pragma once

// sinfo's own output formats (Slurm 22.05, src/sinfo/sinfo.c, print.c and sort.c): `sinfo -o
// "%P %a %l %D %t %N"`, `sinfo -O partition,nodes`, grouped as sinfo groups nodes: one line per
// set of nodes that agree on every field the format shows. Pure: the CLI fetches the records.

#include <string>
#include <unordered_map>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "tools/format/squeue_format.hpp"

namespace shoal::cli {

/// How sinfo was asked to print and what to show.
struct sinfo_format_options {
  std::string format;          ///< -o, a letter format; used when long_format is empty
  std::string long_format;     ///< -O, long names
  std::string sort;            ///< -S in sinfo's letters; empty: `#P,-t` (with -N: `N`)
  bool no_header = false;      ///< -h
  bool node_oriented = false;  ///< -N: a line per node and partition
  bool exact = false;          ///< -e: nodes with other CPUs, memory, ... get lines of their own
  std::vector<std::string> partitions;  ///< -p: only these partitions
  std::vector<std::string> states;      ///< -t: only nodes in these states (sinfo's names)
  std::string nodes;                    ///< -n: only these nodes (a hostlist)
};

/// The CPUs jobs hold on each node: all of an ALLOCATED node's, and on a mixed, draining or
/// completing one what the running `jobs`' tasks take (shoal's block layout over their nodes,
/// times CPUs per task), at most the node's CPUs; 0 on the others.
std::unordered_map<std::string, uint64_t> cpus_in_use(const std::vector<msg::node_info>& nodes,
                                                      const std::vector<msg::job_info>& jobs);

/// The nodes as sinfo prints them. Records are built as sinfo builds them: with a partition
/// field (%P, %R) every partition gets a line even without nodes; each node of each partition
/// (config order) joins the first record whose partition and fields agree with it (node-level
/// fields compare the first node's value: state, reason, features, ...; CPUs, memory and the
/// like only with `exact`, and show a range "4+" otherwise), and a node already in a record is
/// counted once. Then the sort, the header (unless no_header) and one line per record. Letters
/// (-o): a A b B c C d D e E f F g G h H I l L m M n N o O p P r R s S t T u U v V w X Y Z z;
/// -O takes sinfo's long names for them plus statecomplete, gresused, comment, extra, port,
/// allocmem. Sockets, cores and threads are the nodes' `reported` layout (the CLI puts the
/// configured one there). `jobs` (running ones) give the allocated CPUs of mixed nodes for %C;
/// nodes fully allocated count every CPU. Shoal keeps no free memory, CPU load, daemon version,
/// port or priority job factor per node: those print N/A, with a note. Unknown letters and names
/// print as sinfo prints them (the spec itself, or nothing) with an error line.
shoal::expected<slurm_output> render_sinfo(const std::vector<msg::partition_info>& parts,
                                           const std::vector<msg::node_info>& nodes,
                                           const std::vector<msg::job_info>& jobs,
                                           const sinfo_format_options& opt);

}  // namespace shoal::cli

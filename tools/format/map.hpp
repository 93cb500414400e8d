#pragma once

// Pure rendering of `shoal map` (Slurm's smap): the allocation map as a terminal picture and as
// JSON. No I/O: the caller fetches the topology view and the jobs and prints the text.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/types.hpp"

namespace shoal::cli {

/// The letter of the i-th allocation (by job id): A-Z, then a-z, then 0-9, then round again.
char map_letter(size_t i);

/// The picture: on a torus one block per X plane (rows Y, columns Z; "x=N" above each block,
/// blocks side by side, as many per band as fit 80 columns), on a 1-D cluster the node line in
/// config order, 50 nodes per row after the first node's name. One character per node: the
/// letter of the job holding it, `.` free, `#` down, drained or draining without a job, `?`
/// never heard from. Then the legend, one line per allocation:
/// `ID JOBID PARTITION USER NAME ST NODES NODELIST`; `jobs` supplies partition, user, name and
/// state (a job missing from it shows "?"). Ends with a newline.
std::string render_map(const msg::topology_view& view, const std::vector<msg::job_info>& jobs);

/// `shoal map --json`: {"select_type", "dims": [X, Y, Z] (empty on 1-D), "nodes": [{"name",
/// "state", "job_id", "letter", "coord"}], "jobs": [{"job_id", "letter", "user", "partition",
/// "name", "state", "node_count", "nodelist", and on a torus "origin", "size", "conn_type",
/// "node_use"}]}. "letter" is "." / "#" / "?" for nodes without a job, as in the picture.
nlohmann::json map_json(const msg::topology_view& view, const std::vector<msg::job_info>& jobs);

}  // namespace shoal::cli

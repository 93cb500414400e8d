#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::restd {

/// A submission as POST /slurm/v0.0.41/job/submit carries it: {"job": {...}, "script": ...}
/// (the script in the job or beside it, as v0.0.41 takes either). Each field becomes the sbatch
/// option it stands for and goes through sbatch's own parsing (tools/cli/job_options.hpp), so
/// a REST submission means what the same sbatch command line means: `name` --job-name,
/// `partition` -p, `tasks` -n, `nodes` -N, `cpus_per_task` -c, `time_limit` -t (minutes),
/// `memory_per_node` --mem, `current_working_directory` -D, `environment` the job's whole
/// environment (as --export=NONE plus those), and the rest in docs/rest.md. `home` is the
/// working directory when none is given (the user's, as slurmctld falls back to).
/// Errors (errc::invalid_request) name the field: a wrong type, a bad value, a bad script; a
/// field shoal does not know is a warning, added to `warnings`.
shoal::expected<msg::job_request> job_from_json(const nlohmann::json& body, const std::string& home,
                                                std::vector<std::string>& warnings);

/// The OpenAPI schema of that body (v0.0.41_job_submit_req), from the same table of fields.
nlohmann::json job_submit_schema();

}  // namespace shoal::restd

#pragma once

#include <future>
#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "config/config.hpp"
#include "messages/types.hpp"

namespace shoal::cli {

/// The actor behind a waiting `shoal run`: submits the job (or step), prints task output as it
/// streams in (with "RANK: " prefixes under -l), reports queueing and the end, and fulfils
/// `exit_code` with the highest task exit code (128+signal) once the job ended and every node's
/// tasks have reported (or a second after the end, if a node never does).
///
/// When the controller goes away while the job runs, it keeps waiting: it tries the controller
/// `lines` in turn, one a second for up to five minutes, attaches itself to the job again
/// through the one in control (a restarted controller or a backup that took over) and carries
/// on (the tasks never stopped); a job that ended meanwhile gives its exit code.
///
/// Messages from the CLI's signal thread: (signal_atom, int32 signo) forwards the signal to the
/// tasks; (cancel_atom) cancels the job.
caf::actor spawn_run_client(caf::actor_system& sys, caf::actor controller, msg::job_request req,
                            std::shared_ptr<std::promise<int>> exit_code,
                            std::vector<config::controller_host> lines);

}  // namespace shoal::cli

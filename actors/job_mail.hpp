#pragma once

// MailProg: what slurmctld mails on a job's BEGIN, END, FAIL and REQUEUE (--mail-type), and the
// detached helper that runs the program.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "messages/types.hpp"

namespace shoal::actors {

/// One run of MailProg: `prog -s SUBJECT USER`, with `env` as its whole environment.
struct mail_notice {
  std::vector<std::string> argv;
  std::vector<std::string> env;  ///< KEY=VALUE
};

/// Which of Slurm's mail events a job's move from `before` to `after` is, given its --mail-type
/// ("BEGIN,END", as job_info.mail_type holds it): "BEGIN" on starting to run, "REQUEUE" on
/// going back to pending from running, and at the end "END" (COMPLETED, CANCELLED) or "FAIL"
/// (any other end; END when only END was asked), as slurmctld's job_completion_logger picks.
/// nullopt when the job asked for none of them. Pure.
std::optional<std::string> mail_event(const std::string& mail_type, msg::job_state before,
                                      msg::job_state after);

/// The notice slurmctld's mail_job_info would send for `event` of job `j`: subject "Slurm
/// Job_id=12 Name=x Began, Queued time 00:00:03" (Ended/Failed: ", Run time 00:01:00, COMPLETED,
/// ExitCode 0"; array tasks: "Slurm Array Task Job_id=12_3 (15) ..."), to --mail-user or else
/// the job's owner, with SLURM_JOB_* variables describing the job. `now` is Unix seconds. Pure.
mail_notice mail_for(const msg::job_info& j, const std::string& event,
                     const std::string& cluster_name, const std::string& prog, int64_t now);

/// Runs `notice` in a detached actor of `sys` (it waits for the program, at most 60 s, then
/// kills it), logging a failure to the controller's log. Returns at once.
void send_mail(caf::actor_system& sys, mail_notice notice);

}  // namespace shoal::actors

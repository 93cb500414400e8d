#pragma once

#include "messages/types.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

/// How `shoal run` talks to its user beyond the job request.
struct run_options {
  int verbose = 0;                 ///< -v: srun's "srun: ..." lines on stderr; more with each -v
  bool disable_status = false;     ///< -X: a single Ctrl-C is passed on without a word
  bool quit_on_interrupt = false;  ///< --quit-on-interrupt: a single Ctrl-C cancels the job
  /// -I: a new job not allocated within this many seconds is given back (1: at once, as slurmctld
  /// refuses it); 0: wait as long as it takes
  int immediate = 0;
};

/// `shoal run`'s wait, through the front door (op run): submits `req` (a job, or a step inside
/// the job req.job_id) and reads what the job says on the same connection: prints task output
/// as it streams in (with "RANK: " prefixes under -l), reports queueing and the end, and returns
/// the highest task exit code (128+signal) once the job ended and every node's tasks have
/// reported (or a second after the end, if a node never does).
///
/// When the connection to the controller is lost while the job (or step) runs, it keeps
/// waiting: for up to five minutes it looks for a controller in control (a restarted one, or a
/// backup that took over), attaches to the job again (op attach; a step inside a job attaches to
/// its step) and carries on (the tasks never stopped); a job or step that ended meanwhile gives
/// its exit code. A connection lost before the submission was answered fails (exit 1): whether
/// a job or step was started is unknown.
///
/// Terminal signals, which the caller has blocked (runtime::block_shutdown_signals), are read
/// here: the first SIGINT goes to the tasks, a second within a second cancels the job (srun's
/// behaviour); SIGINT before the job has its nodes withdraws it; SIGTERM and SIGHUP go to the
/// tasks.
///
/// Standard input goes to the step's input tasks (req.io.input: a task id or all) on the same
/// connection, 64 KiB at a time, at most four chunks unanswered (each is answered once it is in
/// the tasks' pipes), so a fast producer waits for slow readers; its end closes their stdin. It
/// starts once the submission was answered and stops when the connection is lost. Under --pty
/// (req.io.pty) a terminal on stdin is put in raw mode until the end (Ctrl-C and the like reach
/// the task's terminal as bytes) and its size is passed on whenever it changes (SIGWINCH).
int run_and_wait(session& s, msg::job_request req, run_options how = {});

}  // namespace shoal::cli

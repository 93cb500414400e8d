#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "config/config.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/errc.hpp"
#include "messages/field_mask.hpp"
#include "messages/front_door.hpp"
#include "runtime/bootstrap/front_door_client.hpp"
#include "tools/cli/identity.hpp"

namespace CLI {
class App;
}

namespace shoal::cli {

/// Exit codes shared by every command: 0 success, 1 the request failed, 2 bad usage.
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

/// How long a client whose job runs on without it (`shoal run`, `shoal alloc`) waits for a
/// controller that went away to come back (a restart, a takeover) before giving up on the job.
inline constexpr std::chrono::minutes job_client_patience{5};

/// "N minutes": job_client_patience for messages.
inline std::string job_client_patience_text() {
  return std::to_string(job_client_patience.count()) + " minutes";
}

/// A CLI process talking to the controller: the config it read and its connection to the front
/// door of the controller line in control (runtime/ctld/front_door.hpp: no actor system).
struct session {
  std::string cmd;  ///< the command, for messages
  config::cluster_config conf;
  runtime::front_door_client door;  ///< to the front door of `line`, once connected
  size_t line = 0;                  ///< the SlurmctldHost line that answered last
  /// When the current request first found no controller in control (unset while one answers).
  std::optional<std::chrono::steady_clock::time_point> waiting_since;
  bool said_waiting = false;  ///< the "waiting for the controller" line was printed
};

/// Run under a Slurm name (sbatch, squeue, ...), errors and warnings speak as that command does
/// ("squeue: error: TEXT"), so scripts that match Slurm's messages keep matching.
void speak_as(std::string slurm_name);

/// The program name a message line starts with: the Slurm name under speak_as, else "shoal"
/// (for notes of no one command: "shoal: waiting for the controller").
std::string program_name();

/// Prints "shoal CMD: error: TEXT" (or "NAME: error: TEXT" under speak_as) to stderr and
/// returns `code`; each line of a TEXT of several lines is an error line of its own, as Slurm
/// prints its err_msg lines.
int fail(const std::string& cmd, const std::string& text, int code = exit_failure);

/// A failed call as Slurm's commands report it (slurm_perror): "WHAT: TEXT" with no program name,
/// such as squeue's "slurm_load_jobs error: Invalid job id specified"; as `shoal CMD`, fail's
/// "shoal CMD: error: TEXT". Returns `code`.
int fail_as_perror(const std::string& cmd, const std::string& what, const std::string& text,
                   int code = exit_failure);

/// `why`, a refusal's text (cluster/submission.hpp: its explanation lines, then Slurm's error
/// text on the last line), with `prefix` put before that last line: Slurm's clients print the
/// controller's explanation first, then "Batch job submission failed: TEXT" (sbatch), "Unable to
/// allocate resources: TEXT" (srun) or "Job submit/allocate failed: TEXT" (salloc).
std::string before_last_line(const std::string& prefix, const std::string& why);

/// The last line of `why`: Slurm's error text alone, as slurm_perror prints it.
std::string last_line(const std::string& why);

/// Prints "shoal CMD: warning: TEXT" to stderr: something the user asked for is not done, and
/// the command goes on.
void warn(const std::string& cmd, const std::string& text);

/// Adds Slurm's `-M/--clusters NAMES` to `cmd`. shoal has one cluster: the names (a comma list)
/// must each be its ClusterName= or `all`, as portals and workflow tools pass them
/// (`squeue -M NAME`, `sacct --clusters all`); open_session checks them once the config is read.
void add_clusters_option(CLI::App& cmd);

/// Why an immediate allocation (-I) failed, in the words slurmctld gives (slurm_strerror): from
/// the reason the scheduler gave the job.
std::string immediate_refusal(const std::string& reason);

/// Adds Slurm's --local and --federation (and --sibling): a shoal cluster is never in a
/// federation, so each shows this cluster's own records, which is what they mean there.
void add_federation_flags(CLI::App& cmd, bool with_sibling);

/// Runs `list` once, or with `seconds` > 0 forever as squeue and sinfo -i do: a blank line and
/// a sleep after each listing, stdout flushed so that a pipe sees each one. The exit code of the
/// last run (an -i loop ends only when interrupted).
int every_iteration(int seconds, const std::function<int()>& list);

/// Checks -M/--clusters against `conf`: "" when they name this cluster (or none were given),
/// else Slurm's complaint (print_db_notok's words) for the first name that is not it.
std::string unknown_cluster(const config::cluster_config& conf);

/// Reads the config (-f, $SHOAL_CONF, /etc/shoal/shoal.conf). Connecting waits for the first
/// request. On failure prints the error and returns the exit code in `code`.
std::unique_ptr<session> open_session(const std::string& cmd, const std::string& conf_path,
                                      int& code);

/// True for errc::not_in_control: the shoalctld asked handed control to another.
bool is_not_in_control(const shoal::error& err);

/// Sends `req` to the front door of the controller in control and waits for the reply. Lines
/// are tried in order from the one that answered last; a line that is down, or answers that it
/// is not in control (for a ping: a standby's answer), passes the request to the next; when none
/// takes it, it waits, retrying about every second: after 2 s it prints once to stderr "shoal:
/// waiting for the controller (NAME at ADDR:PORT: why)...", and after runtime::controller_patience
/// (MessageTimeout; with a backup line, at least 1.5 x SlurmctldTimeout, time for a takeover) it
/// gives up with errc::unreachable naming every line and why. A connection lost mid-request is
/// tried again: every request the CLI sends is idempotent (listings, updates, cancel,
/// token-carrying submissions). A refusal by the controller is an error with its errc and text.
shoal::expected<msg::client_reply> call(session& s, const msg::client_request& req);

/// Sends `req` (signed) on a connection of its own and returns that connection, for requests
/// whose answers stream (run, attach). Connects to the line that answered last; with
/// `find_controller`, pings first (as call() does, waiting for a controller in control) so the
/// connection is the controller's in control.
shoal::expected<runtime::front_door_client> open_stream(session& s, msg::client_request req,
                                                        bool find_controller);

// -- requests ------------------------------------------------------------------------------------

/// A request of a kind that carries no fields: `ask<std::vector<msg::node_info>>(s,
/// msg::client_op::nodes)`. A new kind of the sort needs nothing here.
msg::client_request to_request(msg::client_op kind);

// Requests that carry fields, named by the controller's actor messages they become (see
// actors/controller/controller.hpp): `ask<msg::job_info>(s, msg::jobs_atom_v, id)`.
msg::client_request to_request(msg::jobs_atom, bool include_finished);
/// Only the jobs `filter` passes (messages/job_filter.hpp), with only the JobInfo fields of
/// `fields` filled (messages/field_mask.hpp).
msg::client_request to_request(msg::jobs_atom, bool include_finished, msg::field_mask fields,
                               msg::job_filter filter);
msg::client_request to_request(msg::jobs_atom);
msg::client_request to_request(msg::account_atom, msg::accounting_query query);
msg::client_request to_request(msg::jobs_atom, uint64_t id);
/// The running steps of every job (0), of one job or array, or of one step of it (all_steps:
/// every step).
msg::client_request to_request(msg::steps_atom, uint64_t job_id, uint32_t step_id);
msg::client_request to_request(msg::usage_atom, uint64_t id, uint32_t step);
msg::client_request to_request(msg::cancel_atom, std::string target, int32_t signo, uint32_t uid);
msg::client_request to_request(msg::jobctl_atom, msg::job_control ctl);
msg::client_request to_request(msg::update_atom, msg::job_update update);
msg::client_request to_request(msg::nodeupd_atom, msg::node_update up);
msg::client_request to_request(msg::partedit_atom, msg::partition_edit edit);
msg::client_request to_request(msg::resv_atom, msg::reservation_edit edit);
msg::client_request to_request(msg::setdebug_atom, std::string level, std::string user);
msg::client_request to_request(msg::dbgflags_atom, std::string changes, std::string user);
msg::client_request to_request(msg::diagreset_atom, uint32_t uid);
msg::client_request to_request(msg::submit_atom, msg::job_request req);
msg::client_request to_request(msg::acctmgr_atom, msg::acctmgr_edit edit);

/// The answer a reply carries, by the type the controller's actor answers with.
void take(msg::client_reply& r, std::vector<msg::job_info>& out);
void take(msg::client_reply& r, msg::job_info& out);
void take(msg::client_reply& r, std::vector<msg::step_info>& out);
void take(msg::client_reply& r, std::vector<msg::accounted_job>& out);
void take(msg::client_reply& r, std::vector<msg::node_info>& out);
void take(msg::client_reply& r, std::vector<msg::partition_info>& out);
void take(msg::client_reply& r, std::vector<msg::pending_detail>& out);
void take(msg::client_reply& r, msg::topology_view& out);
void take(msg::client_reply& r, std::string& out);
void take(msg::client_reply& r, std::vector<msg::collector_info>& out);
void take(msg::client_reply& r, std::vector<msg::partition_summary>& out);
void take(msg::client_reply& r, msg::association_data& out);
void take(msg::client_reply& r, std::vector<msg::share_info>& out);
void take(msg::client_reply& r, std::vector<msg::reservation_info>& out);
inline void take(msg::client_reply&, caf::ok_atom&) {}

/// Sends the request `to_request(xs...)` through the front door and returns its answer, typed as
/// the controller's actor answers it: `ask<std::vector<msg::job_info>>(s, msg::jobs_atom_v,
/// false)`.
template <class T, class... Ts>
shoal::expected<T> ask(session& s, Ts&&... xs) {
  auto reply = call(s, to_request(std::forward<Ts>(xs)...));
  if (!reply) return std::move(reply.error());
  T out{};
  take(*reply, out);
  return out;
}

/// Flushes stdout/stderr and ends the process at once: a CLI has nothing to tear down.
[[noreturn]] void quit_process(int code);

}  // namespace shoal::cli

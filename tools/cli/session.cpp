#include "tools/cli/session.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <thread>

#include <CLI/CLI.hpp>

#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/request_auth.hpp"

namespace shoal::cli {

namespace {

/// The Slurm name the process runs under ("squeue"), empty when it runs as `shoal`.
std::string& slurm_speaker() {
  static std::string name;
  return name;
}

std::string speaker(const std::string& cmd) {
  return slurm_speaker().empty() ? "shoal " + cmd : slurm_speaker();
}

}  // namespace

void speak_as(std::string slurm_name) {
  slurm_speaker() = std::move(slurm_name);
}

std::string program_name() {
  return slurm_speaker().empty() ? "shoal" : slurm_speaker();
}

int fail(const std::string& cmd, const std::string& text, int code) {
  size_t start = 0;
  for (;;) {
    auto end = text.find('\n', start);
    std::fprintf(stderr, "%s: error: %s\n", speaker(cmd).c_str(),
                 text.substr(start, end == std::string::npos ? end : end - start).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return code;
}

int fail_as_perror(const std::string& cmd, const std::string& what, const std::string& text,
                   int code) {
  if (slurm_speaker().empty()) return fail(cmd, text, code);
  std::fprintf(stderr, "%s: %s\n", what.c_str(), text.c_str());
  return code;
}

std::string before_last_line(const std::string& prefix, const std::string& why) {
  auto last = why.rfind('\n');
  if (last == std::string::npos) return prefix + why;
  return why.substr(0, last + 1) + prefix + why.substr(last + 1);
}

std::string last_line(const std::string& why) {
  auto last = why.rfind('\n');
  return last == std::string::npos ? why : why.substr(last + 1);
}

void warn(const std::string& cmd, const std::string& text) {
  std::fprintf(stderr, "%s: warning: %s\n", speaker(cmd).c_str(), text.c_str());
}

namespace {

/// -M/--clusters as given: one process runs one command, so one value.
std::string& requested_clusters() {
  static std::string names;
  return names;
}

bool same_name(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

void add_clusters_option(CLI::App& cmd) {
  cmd.add_option("-M,--clusters,--cluster", requested_clusters(),
                 "Clusters to ask: this cluster's ClusterName= or 'all' (shoal has one cluster)");
}

std::string immediate_refusal(const std::string& reason) {
  if (reason == "Priority") return "Immediate execution impossible, insufficient priority";
  if (reason == "Dependency") return "Immediate execution impossible, job dependency problem";
  return "Requested nodes are busy";
}

void add_federation_flags(CLI::App& cmd, bool with_sibling) {
  cmd.add_flag("--local", "This cluster only: all there is (a shoal cluster is not federated)");
  cmd.add_flag("--federation", "The whole federation: this cluster (a shoal cluster is its own)");
  if (with_sibling)
    cmd.add_flag("--sibling", "Sibling jobs each shown: every job (shoal has no sibling jobs)");
}

int every_iteration(int seconds, const std::function<int()>& list) {
  for (;;) {
    int code = list();
    if (seconds <= 0) return code;
    std::fputs("\n", stdout);
    std::fflush(stdout);
    ::sleep(static_cast<unsigned>(seconds));
  }
}

std::string unknown_cluster(const config::cluster_config& conf) {
  std::string names = requested_clusters();
  size_t start = 0;
  while (start <= names.size() && !names.empty()) {
    auto end = names.find(',', start);
    if (end == std::string::npos) end = names.size();
    auto name = names.substr(start, end - start);
    if (!name.empty() && !same_name(name, "all") && !same_name(name, conf.cluster_name)) {
      // slurmdb_get_info_cluster finds no such cluster: print_db_notok's words, exit 1.
      return "'" + name +
             "' can't be reached now, or it is an invalid entry for --cluster.  Use 'sacctmgr "
             "list clusters' to see available clusters.";
    }
    start = end + 1;
  }
  return "";
}

std::unique_ptr<session> open_session(const std::string& cmd, const std::string& conf_path,
                                      int& code) {
  auto s = std::make_unique<session>();
  s->cmd = cmd;
  auto conf = runtime::load_cluster_config(conf_path, /*client_only=*/true);
  if (!conf) {
    code = fail(cmd, describe(conf.error()));
    return nullptr;
  }
  s->conf = std::move(*conf);
  if (auto complaint = unknown_cluster(s->conf); !complaint.empty()) {
    code = fail(cmd, complaint);
    return nullptr;
  }
  code = 0;
  return s;
}

namespace {

/// Counts the wait for a controller in control: nothing while waiting_since is unset; prints the
/// waiting line once after 2 s; an error once `patience` has passed.
shoal::error keep_waiting(session& s, const std::string& why, const shoal::error& last,
                          size_t lines) {
  auto now = std::chrono::steady_clock::now();
  if (!s.waiting_since) s.waiting_since = now;
  auto waited = now - *s.waiting_since;
  auto patience = runtime::controller_patience(s.conf);
  if (waited >= patience) {
    auto seconds = std::chrono::duration_cast<std::chrono::seconds>(patience).count();
    if (lines == 1 && !is_not_in_control(last))
      return shoal::error(errc::unreachable, describe(last) + " (waited " +
                                                 std::to_string(seconds) + " s: MessageTimeout)");
    return shoal::error(errc::unreachable, "no controller in control after waiting " +
                                               std::to_string(seconds) + " s (" + why + ")");
  }
  if (!s.said_waiting && waited >= std::chrono::seconds{2}) {
    std::fprintf(stderr, "%s: waiting for the controller (%s)...\n", program_name().c_str(),
                 why.c_str());
    std::fflush(stderr);
    s.said_waiting = true;
  }
  std::this_thread::sleep_for(std::chrono::seconds{1});
  return {};
}

}  // namespace

bool is_not_in_control(const shoal::error& err) {
  return err == errc::not_in_control;
}

shoal::expected<msg::client_reply> call(session& s, const msg::client_request& request) {
  auto req = request;
  req.uid = static_cast<uint32_t>(::getuid());  // who asks, for the door's checks
  auto lines = runtime::controller_lines(s.conf);
  auto patience =
      std::chrono::duration_cast<std::chrono::milliseconds>(runtime::controller_patience(s.conf));
  for (;;) {
    std::string why;
    shoal::error last;
    for (size_t k = 0; k < lines.size(); ++k) {
      size_t i = (s.line + k) % lines.size();
      const auto& line = lines[i];
      auto port = runtime::front_door_port(line);
      shoal::error err;
      std::string reason;  // a few words for the waiting line
      if (!s.door.connected() || s.line != i) {
        auto door =
            runtime::front_door_client::connect(line.address, port, runtime::connect_patience);
        if (door) {
          s.door = std::move(*door);
          s.line = i;
        } else {
          reason = describe(door.error());
          err = shoal::error(errc::unreachable, "cannot reach the controller at " + line.address +
                                                    ":" + std::to_string(port) + " (" + reason +
                                                    "); is shoalctld running there?");
        }
      }
      if (!err) {
        // A credential is good for one decode: each attempt gets its own.
        if (auto failed = runtime::sign_request(s.conf.auth, req)) return failed;
        auto reply = s.door.call(req, patience);
        if (!reply) {
          if (reply.error() == errc::incompatible_version) return std::move(reply.error());
          err = std::move(reply.error());
          reason = describe(err);
        } else if (reply->error_code == static_cast<uint8_t>(errc::not_in_control) ||
                   (req.op == static_cast<uint8_t>(msg::client_op::ping) &&
                    reply->error_code == 0 && !reply->status.in_control)) {
          // A standby answers pings too: to the one who asks who is in control, it is not.
          err = shoal::error(errc::not_in_control, reply->error_text);
          reason = "not in control";
          s.door = runtime::front_door_client{};
        } else if (reply->error_code != 0) {
          s.waiting_since.reset();
          return shoal::error(static_cast<errc>(reply->error_code), reply->error_text);
        } else {
          s.waiting_since.reset();
          return std::move(*reply);
        }
      }
      why += (why.empty() ? "" : "; ") + runtime::describe_line(line) + ": " + reason;
      last = std::move(err);
    }
    if (auto err = keep_waiting(s, why, last, lines.size())) return err;
  }
}

shoal::expected<runtime::front_door_client> open_stream(session& s, msg::client_request req,
                                                        bool find_controller) {
  req.uid = static_cast<uint32_t>(::getuid());
  if (find_controller || !s.door.connected()) {
    if (find_controller) {
      auto ping = call(s, msg::make_client_request(msg::client_op::ping));
      if (!ping) return std::move(ping.error());
    } else {
      auto lines = runtime::controller_lines(s.conf);
      if (lines.empty()) return open_stream(s, std::move(req), true);  // call() says why
      const auto& line = lines[s.line % lines.size()];
      auto door = runtime::front_door_client::connect(line.address, runtime::front_door_port(line),
                                                      runtime::connect_patience);
      if (!door) return open_stream(s, std::move(req), true);
      s.door = std::move(*door);
    }
  }
  if (auto err = runtime::sign_request(s.conf.auth, req)) return err;
  auto stream = std::move(s.door);
  if (auto err = stream.send(req, msg::frame_patience)) return err;
  return stream;
}

// -- requests -------------------------------------------------------------------------------

msg::client_request to_request(msg::client_op kind) {
  return msg::make_client_request(kind);
}

msg::client_request to_request(msg::jobs_atom, bool include_finished) {
  auto r = msg::make_client_request(msg::client_op::jobs);
  r.include_finished = include_finished;
  return r;
}

msg::client_request to_request(msg::jobs_atom, bool include_finished, msg::field_mask fields,
                               msg::job_filter filter) {
  auto r = to_request(msg::jobs_atom_v, include_finished);
  r.job_fields = fields == msg::all_fields ? 0 : fields;
  r.filter = std::move(filter);
  return r;
}

msg::client_request to_request(msg::acctmgr_atom, msg::acctmgr_edit edit) {
  auto r = msg::make_client_request(msg::client_op::acctmgr_edit);
  r.acctmgr = std::move(edit);
  return r;
}

msg::client_request to_request(msg::account_atom, msg::accounting_query query) {
  auto r = msg::make_client_request(msg::client_op::accounting);
  r.query = std::move(query);
  return r;
}

msg::client_request to_request(msg::jobs_atom) {
  return to_request(msg::jobs_atom_v, true);
}

msg::client_request to_request(msg::jobs_atom, uint64_t id) {
  auto r = msg::make_client_request(msg::client_op::job);
  r.job_id = id;
  return r;
}

msg::client_request to_request(msg::steps_atom, uint64_t job_id, uint32_t step_id) {
  auto r = msg::make_client_request(msg::client_op::steps);
  r.job_id = job_id;
  r.step_id = step_id;
  return r;
}

msg::client_request to_request(msg::usage_atom, uint64_t id, uint32_t step) {
  auto r = msg::make_client_request(msg::client_op::step_usage);
  r.job_id = id;
  r.step_id = step;
  return r;
}

msg::client_request to_request(msg::cancel_atom, std::string target, int32_t signo, uint32_t uid) {
  auto r = msg::make_client_request(msg::client_op::cancel);
  r.target = std::move(target);
  r.signo = signo;
  r.uid = uid;
  return r;
}

msg::client_request to_request(msg::jobctl_atom, msg::job_control ctl) {
  auto r = msg::make_client_request(msg::client_op::job_control);
  r.control = std::move(ctl);
  return r;
}

msg::client_request to_request(msg::update_atom, msg::job_update update) {
  auto r = msg::make_client_request(msg::client_op::job_update);
  r.uid = update.uid;
  r.job_change = std::move(update);
  return r;
}

msg::client_request to_request(msg::nodeupd_atom, msg::node_update up) {
  auto r = msg::make_client_request(msg::client_op::node_update);
  r.update = std::move(up);
  return r;
}

msg::client_request to_request(msg::partedit_atom, msg::partition_edit edit) {
  auto r = msg::make_client_request(msg::client_op::partition_edit);
  r.partition_change = std::move(edit);
  return r;
}

msg::client_request to_request(msg::resv_atom, msg::reservation_edit edit) {
  auto r = msg::make_client_request(msg::client_op::reservation_edit);
  r.reservation_change = std::move(edit);
  return r;
}

msg::client_request to_request(msg::setdebug_atom, std::string level, std::string user) {
  auto r = msg::make_client_request(msg::client_op::set_debug);
  r.text = std::move(level);
  r.user = std::move(user);
  return r;
}

msg::client_request to_request(msg::dbgflags_atom, std::string changes, std::string user) {
  auto r = msg::make_client_request(msg::client_op::debug_flags);
  r.text = std::move(changes);
  r.user = std::move(user);
  return r;
}

msg::client_request to_request(msg::diagreset_atom, uint32_t uid) {
  auto r = msg::make_client_request(msg::client_op::diag_reset);
  r.uid = uid;
  return r;
}

msg::client_request to_request(msg::submit_atom, msg::job_request req) {
  auto r = msg::make_client_request(msg::client_op::submit);
  r.submission = std::move(req);
  return r;
}

void take(msg::client_reply& r, std::vector<msg::job_info>& out) {
  out = std::move(r.jobs);
}

void take(msg::client_reply& r, std::vector<msg::accounted_job>& out) {
  out = std::move(r.accounted);
}

void take(msg::client_reply& r, msg::association_data& out) {
  out = std::move(r.associations);
}

void take(msg::client_reply& r, std::vector<msg::step_info>& out) {
  out = std::move(r.steps);
}

void take(msg::client_reply& r, std::vector<msg::share_info>& out) {
  out = std::move(r.shares);
}

void take(msg::client_reply& r, std::vector<msg::reservation_info>& out) {
  out = std::move(r.reservations);
}

void take(msg::client_reply& r, msg::job_info& out) {
  if (!r.jobs.empty()) out = std::move(r.jobs.front());
}

void take(msg::client_reply& r, std::vector<msg::node_info>& out) {
  out = std::move(r.nodes);
}

void take(msg::client_reply& r, std::vector<msg::partition_info>& out) {
  out = std::move(r.partitions);
}

void take(msg::client_reply& r, std::vector<msg::pending_detail>& out) {
  out = std::move(r.pending);
}

void take(msg::client_reply& r, msg::topology_view& out) {
  out = std::move(r.map);
}

void take(msg::client_reply& r, std::string& out) {
  out = std::move(r.text);
}

void take(msg::client_reply& r, std::vector<msg::collector_info>& out) {
  out = std::move(r.collectors);
}

void take(msg::client_reply& r, std::vector<msg::partition_summary>& out) {
  out = std::move(r.summary);
}

void quit_process(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

}  // namespace shoal::cli

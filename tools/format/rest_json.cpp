#include "tools/format/rest_json.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "messages/states.hpp"
#include "tools/format/node_state_text.hpp"

namespace shoal::restd {

namespace {

using nlohmann::json;
using J = msg::job_info;
using N = msg::node_info;
using P = msg::partition_info;
using C = render_context;
constexpr auto boolean = value_type::boolean;
constexpr auto exit_code = value_type::exit_code;
constexpr auto integer = value_type::integer;
constexpr auto number_struct = value_type::number_struct;
constexpr auto object = value_type::object;
constexpr auto string = value_type::string;
constexpr auto string_list = value_type::string_list;

/// A Unix time that 0 means "not yet": unset then, as slurmrestd prints an unknown time.
number_value timestamp(int64_t unix_seconds) {
  return unix_seconds > 0 ? number(unix_seconds) : unset_number();
}

/// Seconds as v0.0.41's minutes, unlimited as infinite.
number_value minutes(int64_t seconds) {
  if (seconds < 0) return infinite_number();
  return number(seconds / 60);
}

number_value count_or_unset(int64_t n) {
  return n > 0 ? number(n) : unset_number();
}

/// "a,b" as ["a","b"]; "" as [].
json word_list(const std::string& text) {
  return comma_words(text);
}

/// The signal's name without SIG, as slurmrestd writes it ("KILL"); "" for none.
std::string signal_name(int signo) {
  if (signo <= 0) return "";
  const char* abbrev = sigabbrev_np(signo);
  return abbrev != nullptr ? abbrev : std::to_string(signo);
}

json job_exit_code(const J& j) {
  bool ended = msg::is_finished(j.state);
  json status = json::array();
  if (!ended)
    status.push_back("PENDING");
  else if (j.exit_signal > 0)
    status.push_back("SIGNALED");
  else
    status.push_back(j.exit_code == 0 ? "SUCCESS" : "ERROR");
  return {{"status", status},
          {"return_code", ended ? number(j.exit_signal > 0 ? 0 : j.exit_code) : unset_number()},
          {"signal",
           {{"id", j.exit_signal > 0 ? number(j.exit_signal) : unset_number()},
            {"name", signal_name(j.exit_signal)}}}};
}

/// slurmrestd's node state: the base state, then its flags (["IDLE","DRAIN"]).
json node_state(const N& n) {
  json out = json::array();
  switch (n.state) {
    case msg::node_state::unknown:
      out.push_back("UNKNOWN");
      break;
    case msg::node_state::idle:
      out.push_back("IDLE");
      break;
    case msg::node_state::allocated:
      out.push_back("ALLOCATED");
      break;
    case msg::node_state::mixed:
      out.push_back("MIXED");
      break;
    case msg::node_state::completing:
      out.push_back("ALLOCATED");
      out.push_back("COMPLETING");
      break;
    case msg::node_state::down:
      out.push_back("DOWN");
      break;
    case msg::node_state::draining:
      out.push_back("ALLOCATED");
      out.push_back("DRAIN");
      break;
    case msg::node_state::drained:
      out.push_back("IDLE");
      out.push_back("DRAIN");
      break;
  }
  if (cli::not_responding(n) && n.state != msg::node_state::unknown)
    out.push_back("NOT_RESPONDING");
  if (n.maint) out.push_back("MAINTENANCE");
  if (n.reboot_requested) out.push_back("REBOOT_REQUESTED");
  if (n.reboot_issued) out.push_back("REBOOT_ISSUED");
  if (n.power_down_asked) out.push_back("POWER_DOWN");
  if (n.cloud) out.push_back("CLOUD");
  switch (n.power) {
    case msg::power_state::on:
      break;
    case msg::power_state::powered_down:
      out.push_back("POWERED_DOWN");
      break;
    case msg::power_state::powering_up:
      out.push_back("POWERING_UP");
      break;
    case msg::power_state::powering_down:
      out.push_back("POWERING_DOWN");
      break;
  }
  return out;
}

// clang-format off
const std::vector<field_of<J>> job_table = {
  {"account", string, "Account associated with the job", [](const J& j, const C&) -> field_value { return j.account; }},
  {"array_job_id", number_struct, "Job ID of job array, or 0 if N/A", [](const J& j, const C&) -> field_value { return number(static_cast<int64_t>(j.array_job_id)); }},
  {"array_task_id", number_struct, "Task ID of this task in job array", [](const J& j, const C&) -> field_value { return j.array_job_id != 0 && j.array_task_id >= 0 ? number(j.array_task_id) : unset_number(); }},
  {"array_task_string", string, "String expression of task IDs in this record", [](const J& j, const C&) -> field_value { return j.array_tasks; }},
  {"batch_flag", boolean, "True if batch job", [](const J& j, const C&) -> field_value { return j.batch; }},
  {"cluster", string, "Cluster name", [](const J&, const C& c) -> field_value { return c.cluster; }},
  {"command", string, "Executed command", [](const J& j, const C&) -> field_value { return j.command; }},
  {"comment", string, "Arbitrary comment", [](const J& j, const C&) -> field_value { return j.comment; }},
  {"cpus_per_task", number_struct, "Number of CPUs required by each task", [](const J& j, const C&) -> field_value { return number(j.cpus_per_task); }},
  {"current_working_directory", string, "Working directory to use for the job", [](const J& j, const C&) -> field_value { return j.work_dir; }},
  {"dependency", string, "Other jobs that must meet certain criteria before this job can start", [](const J& j, const C&) -> field_value { return j.dependency; }},
  {"eligible_time", number_struct, "Time when the job became eligible to run (UNIX timestamp)", [](const J& j, const C&) -> field_value { return timestamp(j.begin_time > 0 ? j.begin_time : j.submit_time); }},
  {"end_time", number_struct, "End time, real or expected (UNIX timestamp)", [](const J& j, const C&) -> field_value { return timestamp(j.end_time); }},
  {"excluded_nodes", string, "Comma separated list of nodes that may not be used", [](const J& j, const C&) -> field_value { return j.exclude_nodes; }},
  {"exit_code", exit_code, "Exit code of the job", [](const J& j, const C&) -> field_value { return job_exit_code(j); }},
  {"features", string, "Comma separated list of features that are required", [](const J& j, const C&) -> field_value { return j.features; }},
  {"job_id", integer, "Job ID", [](const J& j, const C&) -> field_value { return j.job_id; }},
  {"job_state", string_list, "Current state", [](const J& j, const C&) -> field_value { return json::array({msg::to_string(j.state)}); }},
  {"licenses", string, "License(s) required by the job", [](const J& j, const C&) -> field_value { return j.licenses; }},
  {"mail_type", string_list, "Mail event type(s)", [](const J& j, const C&) -> field_value { return word_list(j.mail_type); }},
  {"mail_user", string, "User to receive email notifications", [](const J& j, const C&) -> field_value { return j.mail_user; }},
  {"memory_per_node", number_struct, "Minimum memory in megabytes per allocated node", [](const J& j, const C&) -> field_value { return count_or_unset(static_cast<int64_t>(j.mem_per_node_mb)); }},
  {"name", string, "Job name", [](const J& j, const C&) -> field_value { return j.name; }},
  {"node_count", number_struct, "Minimum number of nodes required", [](const J& j, const C&) -> field_value { return number(j.node_count); }},
  {"nodes", string, "Node(s) allocated to the job", [](const J& j, const C&) -> field_value { return j.nodelist; }},
  {"partition", string, "Partition assigned to the job", [](const J& j, const C&) -> field_value { return j.partition; }},
  {"preempt_time", number_struct, "Time job received preemption signal (UNIX timestamp)", [](const J& j, const C&) -> field_value { return timestamp(j.preempt_time); }},
  {"priority", number_struct, "Request specific job priority", [](const J& j, const C&) -> field_value { return number(static_cast<int64_t>(j.priority)); }},
  {"qos", string, "Quality of Service assigned to the job", [](const J& j, const C&) -> field_value { return j.qos; }},
  {"requeue", boolean, "Determines whether the job may be requeued", [](const J& j, const C&) -> field_value { return j.requeue; }},
  {"required_nodes", string, "Comma separated list of required nodes", [](const J& j, const C&) -> field_value { return j.required_nodes; }},
  {"restart_cnt", integer, "Number of job restarts", [](const J& j, const C&) -> field_value { return j.requeue_count; }},
  {"resv_name", string, "Name of reservation to use", [](const J& j, const C&) -> field_value { return j.reservation; }},
  {"standard_error", string, "Path to stderr file", [](const J& j, const C&) -> field_value { return j.stderr_path.empty() ? j.stdout_path : j.stderr_path; }},
  {"standard_input", string, "Path to stdin file", [](const J&, const C&) -> field_value { return "/dev/null"; }},
  {"standard_output", string, "Path to stdout file", [](const J& j, const C&) -> field_value { return j.stdout_path; }},
  {"start_time", number_struct, "Time execution began, or is expected to begin (UNIX timestamp)", [](const J& j, const C&) -> field_value { return timestamp(j.start_time); }},
  {"state_reason", string, "Reason for current Pending or Failed state", [](const J& j, const C&) -> field_value { return j.reason.empty() ? "None" : j.reason; }},
  {"submit_time", number_struct, "Time when the job was submitted (UNIX timestamp)", [](const J& j, const C&) -> field_value { return timestamp(j.submit_time); }},
  {"suspend_time", number_struct, "Time the job was last suspended or resumed (UNIX timestamp)", [](const J& j, const C&) -> field_value { return timestamp(j.suspend_time); }},
  {"tasks", number_struct, "Number of tasks", [](const J& j, const C&) -> field_value { return number(j.ntasks); }},
  {"tasks_per_node", number_struct, "Number of tasks invoked on each node", [](const J& j, const C&) -> field_value { return count_or_unset(j.ntasks_per_node); }},
  {"time_limit", number_struct, "Maximum run time in minutes", [](const J& j, const C&) -> field_value { return minutes(j.time_limit_s); }},
  {"tres_per_node", string, "Comma separated list of TRES=# values to be allocated per node", [](const J& j, const C&) -> field_value { return j.tres_per_node; }},
  {"user_id", integer, "User ID that owns the job", [](const J& j, const C&) -> field_value { return j.uid; }},
  {"user_name", string, "User name that owns the job", [](const J& j, const C&) -> field_value { return j.user; }},
};

const std::vector<field_of<N>> node_table = {
  {"name", string, "NodeName", [](const N& n, const C&) -> field_value { return n.name; }},
  {"hostname", string, "NodeHostname", [](const N& n, const C&) -> field_value { return n.hostname.empty() ? n.name : n.hostname; }},
  {"address", string, "NodeAddr, used to establish a communication path", [](const N& n, const C&) -> field_value { return n.address; }},
  {"state", string_list, "Node state(s) applicable to this node", [](const N& n, const C&) -> field_value { return node_state(n); }},
  {"cpus", integer, "Total CPUs, including cores and threads", [](const N& n, const C&) -> field_value { return n.cpus; }},
  {"sockets", integer, "Number of physical processor sockets/chips on the node", [](const N& n, const C&) -> field_value { return n.reported.sockets; }},
  {"cores", integer, "Number of cores in a single physical processor socket", [](const N& n, const C&) -> field_value { return n.reported.cores_per_socket; }},
  {"threads", integer, "Number of logical threads in a single physical core", [](const N& n, const C&) -> field_value { return n.reported.threads_per_core; }},
  {"real_memory", integer, "Total memory in MB on the node", [](const N& n, const C&) -> field_value { return n.real_memory_mb; }},
  {"tmp_disk", integer, "Total size in MB of temporary disk storage in TmpFS", [](const N& n, const C&) -> field_value { return n.tmp_disk_mb; }},
  {"weight", integer, "Weight of the node for scheduling purposes", [](const N& n, const C&) -> field_value { return n.weight; }},
  {"partitions", string_list, "Partitions containing this node", [](const N& n, const C&) -> field_value { return n.partitions; }},
  {"features", string_list, "Available features", [](const N& n, const C&) -> field_value { return word_list(n.features); }},
  {"active_features", string_list, "Currently active features", [](const N& n, const C&) -> field_value { return word_list(n.features); }},
  {"gres", string, "Generic resources", [](const N& n, const C&) -> field_value { return n.gres; }},
  {"gres_used", string, "Generic resources currently in use", [](const N& n, const C&) -> field_value { return n.gres_used; }},
  {"operating_system", string, "Operating system reported by the node", [](const N& n, const C&) -> field_value { return n.reported.os; }},
  {"reason", string, "Describes why the node is in a \"DOWN\", \"DRAINED\", \"DRAINING\", \"FAILING\" or \"FAIL\" state", [](const N& n, const C&) -> field_value { return n.reason; }},
  {"reason_set_by_user", string, "User who set the reason", [](const N& n, const C&) -> field_value { return n.reason_user; }},
  {"reason_changed_at", number_struct, "When the reason changed (UNIX timestamp)", [](const N& n, const C&) -> field_value { return timestamp(n.reason_time); }},
  {"boot_time", number_struct, "Time when the node booted (UNIX timestamp)", [](const N& n, const C&) -> field_value { return timestamp(n.reported.boot_time); }},
  {"slurmd_start_time", number_struct, "Time when the node daemon started (UNIX timestamp)", [](const N& n, const C&) -> field_value { return timestamp(n.reported.daemon_start_time); }},
  {"last_busy", number_struct, "Time when the node was last busy (UNIX timestamp)", [](const N& n, const C&) -> field_value { return timestamp(n.last_busy); }},
  {"cpu_load", integer, "CPU load as reported by the OS, times 100", [](const N& n, const C&) -> field_value { return static_cast<int64_t>(n.usage.load1 * 100); }},
};

const std::vector<field_of<P>> partition_table = {
  {"name", string, "Partition name", [](const P& p, const C&) -> field_value { return p.name; }},
  {"nodes", object, "Nodes: configured (a list), total", [](const P& p, const C&) -> field_value {
     std::string members;
     for (const auto& name : p.nodes) members += (members.empty() ? "" : ",") + name;
     return json{{"configured", members}, {"total", p.nodes.size()}, {"allowed_allocation", ""}};
   }},
  {"partition", object, "The partition's state: {\"state\":[UP|DOWN|DRAIN|INACTIVE]}", [](const P& p, const C&) -> field_value { return json{{"state", json::array({p.state})}}; }},
  {"flags", string_list, "DEFAULT for the default partition", [](const P& p, const C&) -> field_value { return p.is_default ? json::array({"DEFAULT"}) : json::array(); }},
  {"cpus", object, "CPUs: total of the member nodes", [](const P& p, const C& c) -> field_value {
     uint64_t cpus = 0;
     for (const auto& name : p.nodes)
       for (const auto& n : c.nodes)
         if (n.name == name) cpus += n.cpus;
     return json{{"total", cpus}};
   }},
  {"maximums", object, "Limits: time (minutes), nodes, oversubscribe", [](const P& p, const C&) -> field_value {
     return json{{"time", minutes(p.max_time_s)},
             {"nodes", p.max_nodes > 0 ? number(p.max_nodes) : infinite_number()},
             {"oversubscribe", {{"jobs", 1}, {"flags", json::array({p.over_subscribe})}}}};
   }},
  {"defaults", object, "Defaults: time (minutes)", [](const P& p, const C&) -> field_value { return json{{"time", p.default_time_s < 0 ? unset_number() : minutes(p.default_time_s)}}; }},
  {"priority", object, "Priority: tier (PriorityTier)", [](const P& p, const C&) -> field_value { return json{{"tier", p.priority}}; }},
  {"preempt_mode", string_list, "PreemptMode", [](const P& p, const C&) -> field_value { return json::array({p.preempt_mode}); }},
  {"grace_time", integer, "Preemption grace time in seconds", [](const P& p, const C&) -> field_value { return p.grace_time_s; }},
};
/// "cpu=4,mem=2000M,node=1" as v0.0.41's TRES list ([{"type":"cpu","name":"","id":1,"count":4}]);
/// memory in megabytes, as Slurm counts it.
json tres_list(const std::string& text) {
  json out = json::array();
  for (const auto& item : word_list(text)) {
    auto pair = item.get<std::string>();
    auto eq = pair.find('=');
    if (eq == std::string::npos) continue;
    auto type = pair.substr(0, eq);
    auto value = pair.substr(eq + 1);
    std::string name;
    if (auto slash = type.find('/'); slash != std::string::npos) {
      name = type.substr(slash + 1);
      type = type.substr(0, slash);
    }
    double count = std::strtod(value.c_str(), nullptr);
    if (!value.empty()) {
      switch (value.back()) {
        case 'K': count /= 1024; break;
        case 'G': count *= 1024; break;
        case 'T': count *= 1024 * 1024; break;
        default: break;
      }
    }
    static const char* const ids[] = {"", "cpu", "mem", "energy", "node", "billing"};
    int id = 0;
    for (int i = 1; i < 6; ++i)
      if (type == ids[i]) id = i;
    out.push_back({{"type", type}, {"name", name}, {"id", id},
                   {"count", static_cast<int64_t>(count)}});
  }
  return out;
}

json process_exit(const std::string& state, int32_t code, int32_t signo) {
  const char* status = signo > 0 ? "SIGNALED" : state == "PENDING" || state == "RUNNING"
                                                    ? "PENDING"
                                                    : code == 0 ? "SUCCESS" : "ERROR";
  return {{"status", json::array({status})},
          {"return_code", signo > 0 ? number(0) : number(code)},
          {"signal", {{"id", signo > 0 ? number(signo) : unset_number()},
                      {"name", signal_name(signo)}}}};
}

json elapsed_of(int64_t start, int64_t end) {
  return start > 0 && end >= start ? end - start : 0;
}

json step_record(const msg::accounted_step& s) {
  std::string id = s.step_id == 0xfffffffbu   ? "batch"
                   : s.step_id == 0xfffffffcu ? "extern"
                                              : std::to_string(s.step_id);
  auto cpu_us = s.usage.user_cpu_us + s.usage.system_cpu_us;
  return {{"step", {{"id", id}, {"name", s.name}}},
          {"state", json::array({s.state})},
          {"exit_code", process_exit(s.state, s.exit_code, s.exit_signal)},
          {"nodes", {{"count", s.node_count}, {"range", s.nodelist}}},
          {"tasks", {{"count", s.ntasks}}},
          {"time",
           {{"start", number(s.start_time)},
            {"end", number(s.end_time)},
            {"elapsed", elapsed_of(s.start_time, s.end_time)},
            {"total", {{"seconds", cpu_us / 1000000}, {"microseconds", cpu_us % 1000000}}}}}};
}

/// Limits of -1 are unset.
number_value limit(int64_t n) {
  return n >= 0 ? number(n) : unset_number();
}

using R = msg::reservation_info;
using A = msg::accounted_job;
using Q = msg::qos_info;
using Acct = msg::acct_account;

// clang-format off
const std::vector<field_of<R>> reservation_table = {
  {"name", string, "ReservationName", [](const R& r, const C&) -> field_value { return r.name; }},
  {"start_time", number_struct, "StartTime (UNIX timestamp)", [](const R& r, const C&) -> field_value { return timestamp(r.start_time); }},
  {"end_time", number_struct, "EndTime (UNIX timestamp); infinite for UNLIMITED", [](const R& r, const C&) -> field_value { return r.end_time > 0 ? number(r.end_time) : infinite_number(); }},
  {"node_list", string, "Nodes", [](const R& r, const C&) -> field_value { return r.nodes; }},
  {"node_count", integer, "NodeCnt", [](const R& r, const C&) -> field_value { return r.node_count; }},
  {"core_count", integer, "CoreCnt", [](const R& r, const C&) -> field_value { return r.core_count; }},
  {"partition", string, "PartitionName", [](const R& r, const C&) -> field_value { return r.partition; }},
  {"flags", string_list, "Flags", [](const R& r, const C&) -> field_value { return word_list(r.flags); }},
  {"users", string, "Users, comma separated", [](const R& r, const C&) -> field_value { return r.users; }},
  {"accounts", string, "Accounts, comma separated", [](const R& r, const C&) -> field_value { return r.accounts; }},
};

const std::vector<field_of<A>> accounted_job_table = {
  {"job_id", integer, "Job ID", [](const A& a, const C&) -> field_value { return a.info.job_id; }},
  {"name", string, "Job name", [](const A& a, const C&) -> field_value { return a.info.name; }},
  {"account", string, "Account the job ran under", [](const A& a, const C&) -> field_value { return a.info.account; }},
  {"cluster", string, "Cluster name", [](const A&, const C& c) -> field_value { return c.cluster; }},
  {"partition", string, "Partition assigned to the job", [](const A& a, const C&) -> field_value { return a.info.partition; }},
  {"qos", string, "Quality of Service assigned to the job", [](const A& a, const C&) -> field_value { return a.info.qos; }},
  {"user", string, "User that owns the job", [](const A& a, const C&) -> field_value { return a.info.user; }},
  {"nodes", string, "Node(s) allocated to the job", [](const A& a, const C&) -> field_value { return a.info.nodelist; }},
  {"allocation_nodes", integer, "Nodes allocated to the job", [](const A& a, const C&) -> field_value { return a.info.node_count; }},
  {"state", object, "{\"current\":[STATE],\"reason\":REASON}", [](const A& a, const C&) -> field_value {
     return json{{"current", json::array({msg::to_string(a.info.state)})},
                 {"reason", a.info.reason.empty() ? "None" : a.info.reason}};
   }},
  {"exit_code", exit_code, "Exit code of the job", [](const A& a, const C&) -> field_value { return process_exit(msg::to_string(a.info.state), a.info.exit_code, a.info.exit_signal); }},
  {"derived_exit_code", exit_code, "Highest exit code of the job's steps", [](const A& a, const C&) -> field_value { return process_exit(msg::to_string(a.info.state), a.derived_exit_code, 0); }},
  {"time", object, "{elapsed, eligible, start, end, submission, limit (minutes)}", [](const A& a, const C&) -> field_value {
     return json{{"elapsed", elapsed_of(a.info.start_time, a.info.end_time)},
                 {"eligible", a.eligible_time},
                 {"start", a.info.start_time},
                 {"end", a.info.end_time},
                 {"submission", a.info.submit_time},
                 {"limit", minutes(a.info.time_limit_s)}};
   }},
  {"tres", object, "{requested: TRES list, allocated: TRES list}", [](const A& a, const C&) -> field_value {
     return json{{"requested", tres_list(a.req_tres)}, {"allocated", tres_list(a.alloc_tres)}};
   }},
  {"steps", object, "The job's steps: [{step, state, exit_code, nodes, tasks, time}]", [](const A& a, const C&) -> field_value {
     json steps = json::array();
     for (const auto& s : a.steps) steps.push_back(step_record(s));
     return steps;
   }},
};

const std::vector<field_of<Acct>> account_table = {
  {"name", string, "Account name", [](const Acct& a, const C&) -> field_value { return a.name; }},
  {"description", string, "Description", [](const Acct& a, const C&) -> field_value { return a.description; }},
  {"organization", string, "Organization", [](const Acct& a, const C&) -> field_value { return a.organization; }},
};

const std::vector<field_of<Q>> qos_table = {
  {"name", string, "QOS name", [](const Q& q, const C&) -> field_value { return q.name; }},
  {"description", string, "Description", [](const Q& q, const C&) -> field_value { return q.description; }},
  {"priority", number_struct, "Priority", [](const Q& q, const C&) -> field_value { return number(q.priority); }},
  {"flags", string_list, "Flags", [](const Q& q, const C&) -> field_value { return word_list(q.flags); }},
  {"usage_factor", object, "UsageFactor: {set, infinite, number}", [](const Q& q, const C&) -> field_value { return json{{"set", true}, {"infinite", false}, {"number", q.usage_factor}}; }},
  {"limits", object, "{grace_time, max: {wall_clock: {per: {job}}, jobs: {active_jobs: {per: {user, account}}}, tres: {per: {job, user, account}}}, min: {tres: {per: {job}}}}", [](const Q& q, const C&) -> field_value {
     return json{{"grace_time", q.grace_time_s},
                 {"max",
                  {{"wall_clock", {{"per", {{"job", limit(q.max_wall_min)}}}}},
                   {"jobs",
                    {{"active_jobs", {{"per", {{"user", limit(q.max_jobs_per_user)}, {"account", limit(q.max_jobs_per_account)}}}}},
                     {"per", {{"user", limit(q.max_submit_per_user)}, {"account", limit(q.max_submit_per_account)}}}}},
                   {"tres",
                    {{"per", {{"job", tres_list(q.max_tres)}, {"user", tres_list(q.max_tres_per_user)}, {"account", tres_list(q.max_tres_per_account)}}}}}}},
                 {"min", {{"tres", {{"per", {{"job", tres_list(q.min_tres)}}}}}}}};
   }},
  {"preempt", object, "{list, mode}: the QOS it preempts; its preemption mode (DISABLED: the cluster's)", [](const Q& q, const C&) -> field_value {
     auto mode = q.preempt_mode.empty() || q.preempt_mode == "OFF" ? std::string{"DISABLED"} : q.preempt_mode;
     return json{{"list", q.preempt}, {"mode", json::array({mode})}};
   }},
};
// clang-format on

}  // namespace

void to_json(json& out, const number_value& v) {
  out = {{"set", v.set}, {"infinite", v.infinite}, {"number", v.number}};
}

std::vector<std::string> comma_words(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from < text.size()) {
    auto to = text.find(',', from);
    if (to == std::string::npos) to = text.size();
    if (to > from) out.push_back(text.substr(from, to - from));
    from = to + 1;
  }
  return out;
}

void write_string(std::string& out, const std::string& s) {
  // Printable ASCII without a quote or a backslash (names, paths, states) is its own text.
  bool plain = std::all_of(s.begin(), s.end(),
                           [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  if (!plain) return write_json(out, json(s));
  out += '"';
  out += s;
  out += '"';
}

void write_json(std::string& out, const json& v) {
  out += v.dump(-1, ' ', false, json::error_handler_t::replace);
}

void write_number(std::string& out, const number_value& v) {
  // nlohmann's key order (sorted), so that a number reads the same in every answer.
  out += v.infinite ? "{\"infinite\":true," : "{\"infinite\":false,";
  out += "\"number\":";
  out += std::to_string(v.number);
  out += v.set ? ",\"set\":true}" : ",\"set\":false}";
}

const std::vector<field_of<J>>& job_fields() {
  return job_table;
}
const std::vector<field_of<N>>& node_fields() {
  return node_table;
}
const std::vector<field_of<R>>& reservation_fields() {
  return reservation_table;
}
const std::vector<field_of<A>>& accounted_job_fields() {
  return accounted_job_table;
}
const std::vector<field_of<Acct>>& account_fields() {
  return account_table;
}
const std::vector<field_of<Q>>& qos_fields() {
  return qos_table;
}
const std::vector<field_of<P>>& partition_fields() {
  return partition_table;
}

json envelope(const std::string& cluster, const std::string& user,
              const std::vector<rest_error>& errors, const std::vector<std::string>& warnings) {
  json errs = json::array();
  for (const auto& e : errors)
    errs.push_back({{"description", e.description},
                    {"error_number", e.error_number},
                    {"error", e.error},
                    {"source", e.source}});
  json warns = json::array();
  for (const auto& w : warnings) warns.push_back({{"description", w}, {"source", ""}});
  return json{{"meta",
               {{"plugin",
                 {{"type", "openapi/slurmctld"},
                  {"name", "Slurm OpenAPI slurmctld"},
                  {"data_parser", std::string("data_parser/") + api_version},
                  {"accounting_storage", ""}}},
                {"client", {{"source", "shoalrestd"}, {"user", user}, {"group", ""}}},
                {"command", json::array()},
                {"slurm",
                 {{"version", {{"major", "24"}, {"minor", "05"}, {"micro", "0"}}},
                  {"release", "24.05.0 (shoal " SHOAL_VERSION ")"},
                  {"cluster", cluster}}}}},
              {"errors", errs},
              {"warnings", warns}};
}

std::string answer_text(const nlohmann::json& body, rendered_list list) {
  auto text = body.dump(-1, ' ', false, json::error_handler_t::replace);
  if (list.key() != nullptr) {
    // The envelope is an object, so its text ends in '}': the list goes in as its last member.
    text.pop_back();
    text += ",\"";
    text += list.key();
    text += "\":";
    if (list.empty()) {
      text += "[]";
    } else {
      text.reserve(text.size() + list.size() + 3);
      text += list.take();
      text += ']';
    }
    text += '}';
  }
  text += '\n';
  return text;
}

}  // namespace shoal::restd

#include "tools/restd/endpoints.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iterator>
#include <optional>
#include <vector>

#include <httplib.h>

#include "messages/front_door.hpp"
#include "runtime/bootstrap/base64url.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "tools/cli/scrape.hpp"
#include "tools/format/operators.hpp"
#include "tools/restd/controller_link.hpp"
#include "tools/restd/job_submit.hpp"
#include "tools/restd/unix_listener.hpp"

namespace shoal::restd {

using nlohmann::json;

namespace {

using nlohmann::json;

/// The HTTP status a refusal becomes: 401 for a credential the front door does not accept,
/// 403 for what the caller may not do, 404 for what does not exist, 400 for a request that
/// cannot mean anything, 503 while no controller answers, 500 for the rest.
int http_status(errc code) {
  switch (code) {
    case errc::authentication_failed:
      return 401;
    case errc::permission_denied:
      return 403;
    case errc::unknown_job:
    case errc::unknown_node:
    case errc::unknown_partition:
      return 404;
    case errc::invalid_request:
    case errc::invalid_time:
    case errc::invalid_config:
    case errc::unsatisfiable:
      return 400;
    case errc::unreachable:
    case errc::not_in_control:
      return 503;
    default:
      return 500;
  }
}

render_context context(const exchange& x) {
  return render_context{x.cfg.cluster_name, {}};
}

/// This worker thread's connection to the controller.
controller_link& link_of(const config::cluster_config& cfg) {
  thread_local std::unique_ptr<controller_link> link;
  if (!link) link = std::make_unique<controller_link>(cfg);
  return *link;
}

/// Sends `req` with the caller's token (none on the UNIX socket: the link signs it as this
/// daemon's own user); a refusal is sent to the client and gives nothing.
std::optional<msg::client_reply> ask(exchange& x, msg::client_request req) {
  req.credential = x.who.token;
  if (x.who.token.empty()) req.uid = static_cast<uint32_t>(::getuid());
  auto reply = link_of(x.cfg).call(req);
  if (!reply) {
    refuse(x, reply.error(), x.in.path);
    return std::nullopt;
  }
  return std::move(*reply);
}

/// The user's home directory on this host: where a submission without a directory runs.
std::string home_of(const std::string& user) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr)
    return found->pw_dir;
  return "/tmp";
}

/// The job id in the path, or a 400 already sent.
std::optional<uint64_t> job_id_of(exchange& x) {
  const auto& text = x.in.matches[1].str();
  char* end = nullptr;
  auto id = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || id == 0) {
    refuse(x, shoal::error(errc::invalid_request, "Invalid job id " + text), x.in.path);
    return std::nullopt;
  }
  return id;
}

// -- the endpoints ---------------------------------------------------------------------------

void get_ping(exchange& x) {
  auto started = std::chrono::steady_clock::now();
  auto reply = ask(x, msg::make_client_request(msg::client_op::ping));
  if (!reply) return;
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::steady_clock::now() - started)
                    .count();
  auto lines = runtime::controller_lines(x.cfg);
  json pings = json::array();
  pings.push_back({{"hostname", lines.empty() ? "" : lines.front().name},
                   {"pinged", "UP"},
                   {"responding", true},
                   {"latency", micros},
                   {"mode", "primary"},
                   {"primary", true}});
  send(x, 200, {{"pings", pings}});
}

/// The jobs `req` asks for, as v0.0.41's job_info_resp.
void send_jobs(exchange& x, msg::client_request req) {
  auto reply = ask(x, std::move(req));
  if (!reply) return;
  rendered_list jobs("jobs");
  auto ctx = context(x);
  for (const auto& j : reply->jobs) jobs.add(j, job_fields(), ctx);
  auto now = static_cast<int64_t>(std::time(nullptr));
  send(x, 200, {{"last_backfill", number(now)}, {"last_update", number(now)}}, std::move(jobs));
}

void get_jobs(exchange& x) {
  auto req = msg::make_client_request(msg::client_op::jobs);
  req.include_finished = true;
  send_jobs(x, std::move(req));
}

void get_job(exchange& x) {
  auto id = job_id_of(x);
  if (!id) return;
  auto req = msg::make_client_request(msg::client_op::job);
  req.job_id = *id;
  send_jobs(x, std::move(req));
}

/// `?signal=SIGUSR1` (or `USR1`, or a number): the signal for the job's tasks; none cancels.
std::optional<int> signal_of(exchange& x) {
  if (!x.in.has_param("signal")) return 0;
  auto text = x.in.get_param_value("signal");
  if (text.rfind("SIG", 0) == 0) text = text.substr(3);
  char* end = nullptr;
  auto n = std::strtol(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0' && n > 0 && n < NSIG) return static_cast<int>(n);
  for (int s = 1; s < NSIG; ++s)
    if (const char* abbrev = sigabbrev_np(s); abbrev != nullptr && text == abbrev) return s;
  refuse(x, shoal::error(errc::invalid_request, "Invalid signal " + x.in.get_param_value("signal")),
         "signal");
  return std::nullopt;
}

void delete_job(exchange& x) {
  auto id = job_id_of(x);
  if (!id) return;
  auto signo = signal_of(x);
  if (!signo) return;
  auto req = msg::make_client_request(msg::client_op::cancel);
  req.target = std::to_string(*id);
  req.signo = *signo;
  if (!ask(x, std::move(req))) return;
  send(x, 200, {{"status", json::array()}});
}

std::optional<json> body_of(exchange& x) {
  auto body = json::parse(x.in.body, nullptr, false);
  if (body.is_discarded()) {
    refuse(x, shoal::error(errc::invalid_request, "the body is not JSON"), "body");
    return std::nullopt;
  }
  return body;
}

void post_submit(exchange& x) {
  auto body = body_of(x);
  if (!body) return;
  auto job = job_from_json(*body, home_of(x.who.user), x.warnings);
  if (!job) return refuse(x, job.error(), "job");
  auto req = msg::make_client_request(msg::client_op::submit);
  req.submission = std::move(*job);
  auto reply = ask(x, std::move(req));
  if (!reply) return;
  uint64_t id = reply->jobs.empty() ? 0 : reply->jobs.front().job_id;
  send(x, 200,
       {{"job_id", id},
        {"step_id", "batch"},
        {"job_submit_user_msg", ""},
        {"result", {{"job_id", id}, {"step_id", "batch"}}}});
}

/// What POST /job/{id} changes: v0.0.41's field, the `scontrol update JobId=` key it becomes.
struct update_key {
  const char* field;
  const char* word;
  bool number;  ///< a count (or {"number":N}), else a string
};

// clang-format off
constexpr update_key update_keys[] = {
  {"time_limit", "TimeLimit", true}, {"name", "Name", false}, {"comment", "Comment", false},
  {"partition", "Partition", false}, {"priority", "Priority", true}, {"nice", "Nice", true},
  {"qos", "QOS", false}, {"account", "Account", false}, {"dependency", "Dependency", false},
  {"tasks", "NumTasks", true}, {"nodes", "NumNodes", false},
  {"excluded_nodes", "ExcNodeList", false},
};
// clang-format on

/// POST /job/{id}: v0.0.41's job fields as `scontrol update JobId=` words.
void post_update(exchange& x) {
  auto id = job_id_of(x);
  if (!id) return;
  auto body = body_of(x);
  if (!body) return;
  if (!body->is_object())
    return refuse(x, shoal::error(errc::invalid_request, "the body is not a JSON object"), "body");
  const json& job = body->contains("job") ? (*body)["job"] : *body;
  msg::job_update up;
  up.settings.push_back("JobId=" + std::to_string(*id));
  for (auto it = job.begin(); it != job.end(); ++it) {
    auto key = std::find_if(std::begin(update_keys), std::end(update_keys),
                            [&](const auto& k) { return it.key() == k.field; });
    if (key == std::end(update_keys)) {
      x.warnings.push_back("field job." + it.key() + " cannot be updated by shoal and was ignored");
      continue;
    }
    std::string value;
    const json& v = *it;
    if (v.is_string()) {
      value = v.get<std::string>();
    } else if (v.is_number_integer()) {
      value = std::to_string(v.get<int64_t>());
    } else if (v.is_object() && v.value("infinite", false)) {
      value = "UNLIMITED";
    } else if (v.is_object() && v.contains("number") && v["number"].is_number_integer()) {
      value = std::to_string(v["number"].get<int64_t>());
    } else {
      return refuse(x,
                    shoal::error(errc::invalid_request,
                                 "field job." + it.key() + ": expected a string or a number"),
                    "job." + it.key());
    }
    up.settings.push_back(std::string(key->word) + "=" + value);
  }
  auto req = msg::make_client_request(msg::client_op::job_update);
  req.job_change = std::move(up);
  if (!ask(x, std::move(req))) return;
  send(x, 200, {{"job_id", *id}, {"step_id", "batch"}, {"job_submit_user_msg", ""}});
}

/// Sends `list` rendered by `table` under `key`, or 404 `missing` when a name was asked (the
/// path's one parameter) and no record is called so.
template <class Record>
void send_named(exchange& x, const std::vector<Record>& list,
                const std::vector<field_of<Record>>& table, const char* key, errc missing,
                const char* what, const render_context& ctx) {
  bool one = x.in.matches.size() > 1;
  rendered_list out(key);
  for (const auto& r : list)
    if (!one || r.name == x.in.matches[1].str()) out.add(r, table, ctx);
  if (one && out.empty())
    return refuse(
        x, shoal::error(missing, std::string("Invalid ") + what + " " + x.in.matches[1].str()),
        x.in.path, 404);
  auto now = static_cast<int64_t>(std::time(nullptr));
  send(x, 200, {{"last_update", number(now)}}, std::move(out));
}

void get_nodes(exchange& x) {
  auto reply = ask(x, msg::make_client_request(msg::client_op::nodes));
  if (!reply) return;
  send_named(x, reply->nodes, node_fields(), "nodes", errc::unknown_node, "node name", context(x));
}

/// POST /node/{name} (admins): State, Reason, as `scontrol update NodeName=`.
void post_node(exchange& x) {
  auto body = body_of(x);
  if (!body) return;
  if (!body->is_object())
    return refuse(x, shoal::error(errc::invalid_request, "the body is not a JSON object"), "body");
  msg::node_update up;
  up.nodes = x.in.matches[1].str();
  up.user = x.who.user;
  for (auto it = body->begin(); it != body->end(); ++it) {
    std::string value;
    if (it->is_string()) {
      value = it->get<std::string>();
    } else if (it->is_array() && !it->empty() && (*it)[0].is_string()) {
      value = (*it)[0].get<std::string>();  // v0.0.41's state list: its first word
    } else {
      return refuse(
          x, shoal::error(errc::invalid_request, "field " + it.key() + ": expected a string"),
          it.key());
    }
    if (it.key() == "state")
      up.state = value;
    else if (it.key() == "reason")
      up.reason = value;
    else
      x.warnings.push_back("field " + it.key() + " cannot be updated by shoal and was ignored");
  }
  auto req = msg::make_client_request(msg::client_op::node_update);
  req.update = std::move(up);
  if (!ask(x, std::move(req))) return;
  send(x, 200, json::object());
}

void get_partitions(exchange& x) {
  auto reply = ask(x, msg::make_client_request(msg::client_op::partitions));
  if (!reply) return;
  auto nodes = ask(x, msg::make_client_request(msg::client_op::nodes));
  if (!nodes) return;
  auto ctx = context(x);
  ctx.nodes = std::move(nodes->nodes);
  send_named(x, reply->partitions, partition_fields(), "partitions", errc::unknown_partition,
             "partition name", ctx);
}

/// sdiag's figures (shoalctld's /metrics, read as `shoal diag` reads them) as v0.0.41's
/// statistics. A ping first, so the token is checked by the controller as for every request.
void get_diag(exchange& x) {
  if (!ask(x, msg::make_client_request(msg::client_op::ping))) return;
  auto url = cli::controller_metrics_url(x.cfg);
  if (!url) return refuse(x, url.error(), x.in.path);
  auto scraped = cli::scrape(*url);
  if (!scraped) return refuse(x, scraped.error(), x.in.path);
  auto d = cli::make_diag(*scraped, static_cast<double>(std::time(nullptr)));
  if (!d) return refuse(x, d.error(), x.in.path);
  auto us = [](double seconds) { return static_cast<int64_t>(seconds * 1e6); };
  auto whole = [](double n) { return static_cast<int64_t>(n); };
  auto rpcs = [&](const std::vector<cli::diag_report::rpc>& list, const char* key) {
    json out = json::array();
    for (const auto& r : list)
      out.push_back({{key, r.name},
                     {"count", whole(r.count)},
                     {"total_time", us(r.total_s)},
                     {"average_time", number(r.count > 0 ? us(r.total_s / r.count) : 0)}});
    return out;
  };
  json stats = {{"parts_packed", 1},
                {"req_time", number(whole(d->now))},
                {"req_time_start", number(whole(d->data_since))},
                {"server_thread_count", whole(d->server_backlog)},
                {"schedule_cycle_max", us(d->max_cycle_s)},
                {"schedule_cycle_last", us(d->last_cycle_s)},
                {"schedule_cycle_sum", us(d->mean_cycle_s * d->cycles)},
                {"schedule_cycle_total", whole(d->cycles)},
                {"schedule_cycle_mean", us(d->mean_cycle_s)},
                {"schedule_queue_length", whole(d->last_queue_length)},
                {"jobs_submitted", whole(d->jobs_submitted)},
                {"jobs_started", whole(d->jobs_started)},
                {"jobs_completed", whole(d->jobs_completed)},
                {"jobs_canceled", whole(d->jobs_cancelled)},
                {"jobs_failed", whole(d->jobs_failed)},
                {"jobs_pending", whole(d->jobs_pending)},
                {"jobs_running", whole(d->jobs_running)},
                {"job_states_ts", number(whole(d->now))},
                {"rpcs_by_message_type", rpcs(d->by_type, "message_type")},
                {"rpcs_by_user", rpcs(d->by_user, "user")}};
  send(x, 200, {{"statistics", std::move(stats)}});
}

void get_reservations(exchange& x) {
  auto reply = ask(x, msg::make_client_request(msg::client_op::reservations));
  if (!reply) return;
  send_named(x, reply->reservations, reservation_fields(), "reservations", errc::invalid_request,
             "reservation name", context(x));
}

/// /slurmdb/: sacct's jobs from the accounting store (503 without one).
void get_db_jobs(exchange& x) {
  auto req = msg::make_client_request(msg::client_op::accounting);
  if (x.in.has_param("users")) {
    for (const auto& name : comma_words(x.in.get_param_value("users"))) {
      auto* pw = ::getpwnam(name.c_str());
      if (pw == nullptr)
        return refuse(x, shoal::error(errc::invalid_request, "Invalid user " + name), "users");
      req.query.uids.push_back(pw->pw_uid);
    }
  }
  if (x.in.has_param("account")) req.query.accounts = comma_words(x.in.get_param_value("account"));
  if (x.in.has_param("partition"))
    req.query.partitions = comma_words(x.in.get_param_value("partition"));
  auto reply = ask(x, std::move(req));
  if (!reply) return;
  rendered_list jobs("jobs");
  auto ctx = context(x);
  for (const auto& a : reply->accounted) jobs.add(a, accounted_job_fields(), ctx);
  send(x, 200, json::object(), std::move(jobs));
}

/// One of sacctmgr's lists (`pick` chooses it from the store's data) under `key`.
template <class Record>
void send_store_list(exchange& x, const char* key,
                     const std::vector<Record>& (*pick)(const msg::association_data&),
                     const std::vector<field_of<Record>>& table) {
  auto reply = ask(x, msg::make_client_request(msg::client_op::acctmgr_list));
  if (!reply) return;
  rendered_list out(key);
  auto ctx = context(x);
  for (const auto& r : pick(reply->associations)) out.add(r, table, ctx);
  send(x, 200, json::object(), std::move(out));
}

void get_db_accounts(exchange& x) {
  send_store_list<msg::acct_account>(
      x, "accounts", [](const msg::association_data& d) -> const auto& { return d.accounts; },
      account_fields());
}

void get_db_qos(exchange& x) {
  send_store_list<msg::qos_info>(
      x, "qos", [](const msg::association_data& d) -> const auto& { return d.qos; }, qos_fields());
}

// clang-format off
const std::vector<endpoint> endpoint_table = {
  {"GET",    "/ping",                   "ping the controller",               "v0.0.41_openapi_ping_array_resp", nullptr, get_ping},
  {"GET",    "/jobs",                   "list the jobs the controller holds", "v0.0.41_openapi_job_info_resp", nullptr, get_jobs},
  {"GET",    "/job/{job_id}",           "show one job (an array: its tasks)", "v0.0.41_openapi_job_info_resp", nullptr, get_job},
  {"POST",   "/job/{job_id}",           "update a job (scontrol update)",    "v0.0.41_openapi_job_post_response", "v0.0.41_job_update_req", post_update},
  {"DELETE", "/job/{job_id}",           "cancel a job, or signal it (?signal=NAME)", "v0.0.41_openapi_kill_job_resp", nullptr, delete_job},
  {"POST",   "/job/submit",             "submit a batch job",                "v0.0.41_openapi_job_submit_response", "v0.0.41_job_submit_req", post_submit},
  {"GET",    "/nodes",                  "list the nodes",                    "v0.0.41_openapi_nodes_resp", nullptr, get_nodes},
  {"GET",    "/node/{node_name}",       "show one node",                     "v0.0.41_openapi_nodes_resp", nullptr, get_nodes},
  {"POST",   "/node/{node_name}",       "update a node (admins)",            "v0.0.41_openapi_resp", "v0.0.41_update_node_msg", post_node},
  {"GET",    "/partitions",             "list the partitions",               "v0.0.41_openapi_partition_resp", nullptr, get_partitions},
  {"GET",    "/partition/{partition_name}", "show one partition",            "v0.0.41_openapi_partition_resp", nullptr, get_partitions},
  {"GET",    "/diag",                   "the controller's statistics (sdiag)", "v0.0.41_openapi_diag_resp", nullptr, get_diag},
  {"GET",    "/reservations",           "list the reservations",             "v0.0.41_openapi_reservation_resp", nullptr, get_reservations},
  {"GET",    "/reservation/{reservation_name}", "show one reservation",      "v0.0.41_openapi_reservation_resp", nullptr, get_reservations},
  {"GET",    "/jobs",                   "jobs from the accounting store (sacct; ?users=&account=&partition=)", "v0.0.41_openapi_slurmdbd_jobs_resp", nullptr, get_db_jobs, "slurmdb"},
  {"GET",    "/accounts",               "accounts in the accounting store",  "v0.0.41_openapi_accounts_resp", nullptr, get_db_accounts, "slurmdb"},
  {"GET",    "/qos",                    "QOS in the accounting store",       "v0.0.41_openapi_slurmdbd_qos_resp", nullptr, get_db_qos, "slurmdb"},
};
// clang-format on

}  // namespace

const std::vector<endpoint>& endpoints() {
  return endpoint_table;
}

std::string served_path(const endpoint& e) {
  return std::string("/") + e.api + "/" + api_version + e.path;
}

void send(exchange& x, int status, json payload, rendered_list list) {
  auto body = envelope(x.cfg.cluster_name, x.who.user, x.errors, x.warnings);
  for (auto it = payload.begin(); it != payload.end(); ++it) body[it.key()] = std::move(*it);
  x.out.status = status;
  x.out.set_content(answer_text(body, std::move(list)), "application/json");
}

void refuse(exchange& x, const shoal::error& err, const std::string& source, int status) {
  x.errors.push_back({describe(err), static_cast<int>(err.code()), to_string(err.code()), source});
  send(x, status ? status : http_status(err.code()), json::object());
}

namespace {

/// A caller on the UNIX socket without a token: this daemon's own user or root (as slurmrestd's
/// rest_auth/local), whose requests go out with this daemon's credential.
bool authenticate_local(exchange& x, int64_t peer) {
  auto self = static_cast<int64_t>(::getuid());
  if (peer != 0 && peer != self) {
    refuse(x,
           shoal::error(errc::authentication_failed,
                        "Authentication failure: uid " + std::to_string(peer) +
                            " may not use this socket without X-SLURM-USER-TOKEN: shoalrestd runs "
                            "as uid " +
                            std::to_string(self) + " (start one as that user)"),
           "unix socket");
    return false;
  }
  std::string user = std::to_string(self);
  if (auto* pw = ::getpwuid(::getuid()); pw != nullptr) user = pw->pw_name;
  x.who = caller{"", user};
  return true;
}

}  // namespace

bool authenticate(exchange& x) {
  auto token = x.in.get_header_value("X-SLURM-USER-TOKEN");
  auto name = x.in.get_header_value("X-SLURM-USER-NAME");
  if (token.empty() && unix_peer_uid() >= 0) return authenticate_local(x, unix_peer_uid());
  if (token.empty()) {
    refuse(x,
           shoal::error(errc::authentication_failed,
                        "Authentication failure: no X-SLURM-USER-TOKEN header (make a token "
                        "with `shoal control token`)"),
           "X-SLURM-USER-TOKEN");
    return false;
  }
  auto claimed = runtime::jwt_claimed_user(token);
  if (!claimed) {
    refuse(x,
           shoal::error(errc::authentication_failed,
                        "Authentication failure: X-SLURM-USER-TOKEN is not a JSON Web Token"),
           "X-SLURM-USER-TOKEN");
    return false;
  }
  if (!name.empty() && name != *claimed) {
    refuse(x,
           shoal::error(errc::authentication_failed, "Authentication failure: X-SLURM-USER-NAME " +
                                                         name + " is not the token's user"),
           "X-SLURM-USER-NAME");
    return false;
  }
  x.who = caller{token, *claimed};
  return true;
}

json job_update_schema() {
  json props = json::object();
  for (const auto& k : update_keys) {
    json schema;
    if (k.number) {
      schema["oneOf"] = json::array();
      schema["oneOf"].push_back({{"type", "integer"}});
      schema["oneOf"].push_back({{"$ref", "#/components/schemas/v0.0.41_uint64_no_val_struct"}});
    } else {
      schema["type"] = "string";
    }
    schema["description"] = std::string("as scontrol update ") + k.word + "=";
    props[k.field] = std::move(schema);
  }
  json job = {{"type", "object"}, {"properties", props}};
  return {{"type", "object"}, {"properties", {{"job", job}}}};
}

json node_update_schema() {
  json state_forms = json::array();
  state_forms.push_back({{"type", "string"}});
  state_forms.push_back({{"type", "array"}, {"items", {{"type", "string"}}}});
  json props = json::object();
  props["state"] = {{"oneOf", state_forms},
                    {"description", "as scontrol update State=: DRAIN, RESUME, DOWN, IDLE, ..."}};
  props["reason"] = {{"type", "string"}, {"description", "as scontrol update Reason="}};
  return {{"type", "object"}, {"properties", props}};
}

}  // namespace shoal::restd

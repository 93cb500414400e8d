#include "actors/controller/controller_state.hpp"

#include <algorithm>

#include "accounting/associations.hpp"
#include "cluster/association_check.hpp"
#include "cluster/clock.hpp"
#include "cluster/limit_rules.hpp"
#include "cluster/submission.hpp"
#include "policy/access.hpp"
#include "policy/dependency.hpp"
#include "policy/job_lifecycle.hpp"

namespace shoal::actors::ctl {

using cluster::expand_output_path;
using cluster::resolve_submission;
using cluster::unix_now;

namespace {

/// How long a submission token is remembered: far longer than any client retries, across a
/// takeover too.
int64_t token_memory_s(const config::cluster_config& cfg) {
  return std::max<int64_t>(600, 2 * config::takeover_patience_s(cfg));
}

}  // namespace

void remember_token(controller_self self, const std::string& token, uint64_t id) {
  auto& st = self->state;
  auto now = unix_now();
  while (!st.token_order.empty() && st.token_order.front().first < now - token_memory_s(st.cfg)) {
    st.tokens.erase(st.token_order.front().second);
    st.token_order.pop_front();
  }
  st.tokens.emplace(token, id);
  st.token_order.emplace_back(now, token);
}

/// Parses the job's --array, --dependency, --gres, --constraint and -L, the one place they are
/// parsed in shoalctld, before a job exists, so a bad value is the submitter's error, not a job
/// stuck pending.
caf::expected<policy::workload_ptr> parse_workload(controller_self self,
                                                   const msg::job_request& req) {
  auto& st = self->state;
  const auto& w = req.workload;
  auto parsed = std::make_shared<policy::parsed_workload>();
  if (!w.array.empty()) {
    if (!req.batch) return make_error(errc::invalid_request, "--array is for batch jobs only");
    auto spec = policy::parse_array_spec(w.array, st.cfg.scheduling.max_array_size);
    if (!spec)
      return make_error(errc::invalid_request,
                        "Invalid job array specification: " + describe(spec.error()));
    parsed->array = std::move(*spec);
  }
  if (!w.dependency.empty()) {
    auto dep = policy::parse_dependency(w.dependency);
    if (!dep) return to_caf(dep.error());
    policy::dependency_view known;
    known.outcome = [&st](uint64_t job, std::optional<uint32_t>) {
      policy::job_outcome o;
      o.known = st.job_view.count(job) > 0 || st.arrays.count(job) > 0;
      return o;
    };
    known.singleton_busy = [] { return false; };
    auto unknown = policy::unknown_targets(*dep, known);
    if (!unknown.empty())
      return make_error(errc::invalid_request,
                        "Job dependency problem: job " + std::to_string(unknown.front().job) +
                            " is not known (it never existed or ended more than " +
                            std::to_string(st.cfg.min_job_age_s) + " s ago)");
    parsed->dep = std::move(*dep);
  }
  if (!req.gres.empty()) {
    auto gres = policy::parse_gres_request(req.gres);
    if (!gres) return to_caf(gres.error());
    parsed->gres = std::move(*gres);
  }
  if (!req.constraint.empty()) {
    auto constraint = policy::parse_constraint(req.constraint);
    if (!constraint) return to_caf(constraint.error());
    parsed->constraint = std::move(*constraint);
  }
  if (!req.licenses.empty()) {
    // Slurm's words for a bad list and for a name Licenses= does not give alike.
    auto licenses = policy::parse_licenses(req.licenses);
    if (!licenses || !policy::licenses_known(*licenses, st.cfg.licenses))
      return make_error(errc::invalid_request, "Invalid license specification");
    parsed->licenses = std::move(*licenses);
  }
  return policy::workload_ptr{std::move(parsed)};
}

job_setup make_setup(controller_self self, uint64_t id, msg::job_request req,
                     policy::workload_ptr workload, caf::actor client) {
  auto& st = self->state;
  job_setup setup;
  setup.id = id;
  setup.submit_time = unix_now();
  setup.req = std::move(req);
  setup.workload = std::move(workload);
  setup.kill_wait_s = st.cfg.kill_wait_s;
  setup.pmi_timeout_s = st.cfg.pmi_timeout_s;
  setup.mail_prog = st.cfg.mail_prog;
  setup.cluster_name = st.cfg.cluster_name;
  const auto& scripts = st.cfg.prologs;
  setup.node_scripts = !scripts.prolog.empty() || !scripts.epilog.empty();
  setup.prolog_ctld = scripts.prolog_ctld;
  setup.epilog_ctld = scripts.epilog_ctld;
  setup.script_timeout_s = scripts.timeout_s;
  setup.nohold_on_prolog_fail = st.cfg.scheduling.nohold_on_prolog_fail;
  setup.meters = st.meters;
  setup.access = st.access;
  setup.client = std::move(client);
  setup.controller = caf::actor_cast<caf::actor>(self);
  setup.scheduler = st.scheduler;
  setup.shared_nodes = st.cfg.scheduling.consumable;
  setup.interconnect = st.interconnect;
  setup.power = st.power;
  setup.keeper = st.keeper;
  setup.accounting = st.accounting;
  return setup;
}

void record_new_job(controller_self self, const job_setup& setup) {
  auto& st = self->state;
  msg::job_record rec;
  rec.request = setup.req;
  rec.info = initial_job_info(setup);
  rec.life_state = static_cast<uint32_t>(policy::initial_lifecycle(setup.req.workload.hold).state);
  rec.life_reason = rec.info.reason;
  persist(self, job_key(setup.id), encoded(rec));
  if (st.cluster) st.cluster->job_changed(std::nullopt, rec.info.state);
  put_view(st, setup.id, std::move(rec.info));
}

namespace {

/// AccountingStorageEnforce=limits: `req` (`count` jobs: an array's tasks each) against the
/// submit limits, counting every job not finished yet. Nothing is counted unless some
/// association or QOS sets such a limit.
shoal::error within_submit_limits(controller_state& st, const msg::job_request& req,
                                  uint64_t count) {
  if (!st.cfg.accounting.enforce_limits || !st.associations) return {};
  const auto& data = *st.associations;
  const auto& cluster_name = st.cfg.cluster_name;
  if (!cluster::has_submit_limits(data, cluster_name)) return {};
  // A job without -q runs under its association's DefaultQOS, else normal.
  std::map<std::pair<std::string, std::string>, std::string> default_qos;
  auto qos_of = [&](const std::string& user, const std::string& account,
                    const std::string& qos) -> std::string_view {
    if (!qos.empty()) return qos;
    auto [it, fresh] = default_qos.try_emplace({user, account});
    if (fresh) {
      const auto* a = accounting::find_association(data, cluster_name, user, account, "");
      it->second = a && !a->default_qos.empty() ? a->default_qos : "normal";
    }
    return it->second;
  };
  std::vector<cluster::submitted_jobs> active;
  for (auto id : st.maybe_unfinished) {
    auto view = st.job_view.find(id);
    if (view == st.job_view.end() || msg::is_finished(view->second.state)) continue;
    const auto& info = view->second;
    uint64_t tasks = 1;
    if (auto arr = st.arrays.find(id); arr != st.arrays.end()) {
      // The array's own line stands for its pending tasks; started ones have lines of their own.
      auto pending = policy::parse_array_spec(arr->second.pending_text, UINT32_MAX);
      tasks = pending ? pending->indices.count() : 0;
      if (tasks == 0) continue;
    }
    active.push_back({info.user, info.account, qos_of(info.user, info.account, info.qos), tasks});
  }
  return cluster::check_submit_limits(
      data, cluster_name, req.user, req.workload.account, req.partition,
      std::string{qos_of(req.user, req.workload.account, req.workload.qos)}, count, active);
}

caf::result<msg::job_info> submit_job(controller_self self, msg::job_request& req,
                                      caf::actor& client) {
  auto& st = self->state;
  if (!req.submit_token.empty()) {
    auto known = st.tokens.find(req.submit_token);
    if (known != st.tokens.end()) {
      config::log().info("job submit retried job={} user={}", known->second, req.user);
      msg::job_info info;
      info.job_id = known->second;
      auto view = st.job_view.find(known->second);
      info.state = view != st.job_view.end() ? view->second.state : msg::job_state::pending;
      return info;
    }
  }
  const bool time_limit_named = req.time_limit_s > 0;
  auto workload = parse_workload(self, req);
  caf::expected<msg::job_request> resolved{caf::error{}};
  if (workload)
    resolved = to_caf(
        resolve_submission(st.cfg, st.node_view, req, (*workload)->gres, (*workload)->constraint));
  else
    resolved = std::move(workload.error());
  if (resolved)
    resolved =
        to_caf(cluster::check_association(st.cfg, st.associations.get(), std::move(*resolved)));
  if (resolved && !time_limit_named)
    cluster::give_max_wall(st.cfg, st.associations.get(), *resolved);
  if (resolved)
    if (auto refused = check_reservation_use(st, *resolved)) resolved = std::move(*refused);
  if (resolved) {
    auto count = (*workload)->array ? (*workload)->array->indices.count() : uint64_t{1};
    if (auto over = within_submit_limits(st, *resolved, count)) resolved = to_caf(over);
  }
  if (!resolved) {
    // A refusal's text has lines (cluster/submission.hpp); the log keeps one line an event.
    auto reason = describe(resolved.error());
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    config::log().info("job rejected user={} reason=\"{}\"", req.user, reason);
    return std::move(resolved.error());
  }
  auto token = resolved->submit_token;
  if (!resolved->workload.array.empty()) {
    auto info = submit_array(self, std::move(*resolved), std::move(*workload));
    if (!token.empty()) remember_token(self, token, info.job_id);
    return once_saved(self, std::move(info));
  }
  auto id = st.next_job_id++;
  auto setup = make_setup(self, id, std::move(*resolved), std::move(*workload), client);
  if (setup.req.batch) {
    setup.req.stdout_path = expand_output_path(setup.req.stdout_path, setup.id, setup.req);
    if (!setup.req.stderr_path.empty())
      setup.req.stderr_path = expand_output_path(setup.req.stderr_path, setup.id, setup.req);
  }
  config::log().info("job submit job={} user={} partition={} nodes={} tasks={} batch={}", id,
                     setup.req.user, setup.req.partition, setup.req.min_nodes, setup.req.ntasks,
                     setup.req.batch);
  record_new_job(self, setup);
  save_next_job_id(self);
  // Not linked: unlinking is linear in the links held, paid at every job's end, and shoalctld exits
  // without tearing its actors down anyway.
  auto job = spawn_job(self->system(), std::move(setup));
  st.jobs.emplace(id, job);
  if (!token.empty()) remember_token(self, token, id);
  if (st.cluster) st.cluster->job_submitted();
  msg::job_info info;
  info.job_id = id;
  info.state = msg::job_state::pending;
  return once_saved(self, std::move(info));
}

/// A step in a running job's allocation: the job actor places it and answers with the step's id.
caf::result<msg::job_info> submit_step(controller_self self, msg::job_request& req,
                                       caf::actor& client) {
  auto it = self->state.jobs.find(req.job_id);
  if (it == self->state.jobs.end())
    return make_error(errc::unknown_job, "job " + std::to_string(req.job_id) +
                                             " is not running (steps need a running job)");
  auto rp = self->make_response_promise<msg::job_info>();
  auto job_id = req.job_id;
  self->request(it->second, std::chrono::seconds{30}, msg::step_atom_v, std::move(req), client)
      .then(
          [rp, job_id](msg::job_event& ev) mutable {
            msg::job_info info;
            info.job_id = job_id;
            info.state = ev.state;
            info.step_count = ev.step_id;
            info.nodelist = ev.nodelist;
            info.node_count = ev.node_count;
            rp.deliver(std::move(info));
          },
          [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
  return rp;
}

/// As slurmctld checks before its job_submit plugins: a fixed priority (--priority) and a
/// negative nice are the operators'; anyone else's priority is dropped and a negative nice
/// refused ("Invalid nice value"). A hold (-H) is not a priority here.
shoal::error check_privileged_fields(const controller_state& st, msg::job_request& req) {
  if (req.job_id != 0 || policy::may(*st.access, req.uid, policy::operation::update_job_as_admin))
    return {};
  req.workload.priority = 0;
  if (req.nice < 0) return shoal::error(errc::permission_denied, "Invalid nice value");
  return {};
}

}  // namespace

/// --test-only: the job as a submission would make it, placed by the scheduler
/// against what runs now; nothing is recorded, and the id it would get is not
/// taken.
caf::result<msg::start_estimate> will_run(controller_self self, msg::job_request& req) {
  auto& st = self->state;
  if (auto err = check_privileged_fields(st, req)) return to_caf(err);
  req.job_id = 0;
  req.workload.array.clear();  // estimated as one task, as Slurm's will_run does
  const bool time_limit_named = req.time_limit_s > 0;
  auto workload = parse_workload(self, req);
  if (!workload) return std::move(workload.error());
  auto resolved =
      resolve_submission(st.cfg, st.node_view, req, (*workload)->gres, (*workload)->constraint);
  if (resolved)
    resolved = cluster::check_association(st.cfg, st.associations.get(), std::move(*resolved));
  if (!resolved) return to_caf(resolved.error());
  if (!time_limit_named) cluster::give_max_wall(st.cfg, st.associations.get(), *resolved);
  return self->delegate(st.scheduler, msg::willrun_atom_v, st.next_job_id, std::move(*resolved),
                        std::move(*workload));
}

caf::result<msg::job_info> submit(controller_self self, msg::job_request& req, caf::actor& client) {
  if (auto err = check_privileged_fields(self->state, req)) return to_caf(err);
  self->state.attribute_to(req.user);
  if (!req.user.empty()) self->state.user_names[req.uid] = req.user;
  SHOAL_DEBUG(msg, "rpc submit user={} uid={} job={} batch={}", req.user, req.uid, req.job_id,
              req.batch);
  if (req.job_id == 0) return submit_job(self, req, client);
  return submit_step(self, req, client);
}

}  // namespace shoal::actors::ctl

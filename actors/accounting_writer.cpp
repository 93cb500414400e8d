#include "actors/accounting_writer.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <utility>

#include <caf/all.hpp>

#include "accounting/associations.hpp"
#include "accounting/from_record.hpp"
#include "accounting/wire.hpp"
#include "actors/send_to.hpp"
#include "actors/unexpected.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"

namespace shoal::actors {

namespace {

using namespace std::chrono_literals;

/// How long the writer waits before trying a store that failed again: doubling from the first
/// to the last.
constexpr auto first_retry = 1s;
constexpr auto last_retry = 30s;

/// The writer's own tick: write what waits.
using acct_writer_impl = accounting_writer_actor::extend<caf::reacts_to<msg::stored_atom>>;

struct acct_writer_state {
  static inline const char* name = "accounting_writer";
  accounting_writer_setup setup;
  std::unique_ptr<accounting::job_store> store;
  /// Jobs waiting to be written, by (job id, submit time): a job sent twice is written once,
  /// with the ended steps of both records. `job`: the job actor that sent it (null: the
  /// controller), told which of its steps are stored.
  struct entry {
    msg::job_record record;
    caf::actor job;
  };
  std::map<std::pair<uint64_t, int64_t>, entry> waiting;
  bool tick_sent = false;
  std::chrono::seconds retry = first_retry;
  bool failing = false;  ///< the last attempt failed (logged once per outage)
  metrics::gauge* waiting_jobs = nullptr;
  metrics::counter* stored_jobs = nullptr;
  metrics::counter* failures = nullptr;

  void count_waiting() const {
    if (waiting_jobs) waiting_jobs->set(static_cast<double>(waiting.size()));
  }
};

using acct_writer_self = acct_writer_impl::stateful_pointer<acct_writer_state>;

void tick_now(acct_writer_self self) {
  if (self->state.tick_sent) return;
  self->state.tick_sent = true;
  // Behind the records already in the mailbox: they join this batch.
  self->send(self, msg::stored_atom_v);
}

void failed(acct_writer_self self, const std::string& what, const shoal::error& err) {
  auto& st = self->state;
  if (!st.failing)
    config::log().error("accounting store {}: {}; {} jobs wait, retrying (every {} s at most)",
                        what, describe(err), st.waiting.size(), last_retry.count());
  st.failing = true;
  if (st.failures) st.failures->inc();
  st.tick_sent = true;
  self->delayed_send(self, st.retry, msg::stored_atom_v);
  st.retry = std::min<std::chrono::seconds>(st.retry * 2, last_retry);
}

/// Puts `rec` in line, merged with what waits of the same job: its view replaces the older one,
/// its ended steps join the older ones (a step stored meanwhile left the newer record).
void wait_to_write(acct_writer_self self, msg::job_record rec, caf::actor sender) {
  auto& st = self->state;
  auto key = std::make_pair(rec.info.job_id, rec.info.submit_time);
  auto& slot = st.waiting[key];
  for (auto& older : slot.record.done_steps) {
    auto same = [&](const msg::step_record& s) { return s.step_id == older.step_id; };
    if (std::none_of(rec.done_steps.begin(), rec.done_steps.end(), same))
      rec.done_steps.push_back(std::move(older));
  }
  slot.record = std::move(rec);
  // The controller's resend after a restart has no job actor behind it: keep the one we know.
  if (sender && sender != st.setup.owner) slot.job = std::move(sender);
  st.count_waiting();
  tick_now(self);
}

/// Tells the owner what the store holds of associations.
void publish_associations(acct_writer_self self, msg::association_data data) {
  if (self->state.setup.owner)
    send_to(self, self->state.setup.owner, msg::assocs_atom_v, std::move(data));
}

/// Opens the store when it is not open: the cluster is added to it when missing (with its root
/// account, as sacctmgr add cluster does) and the owner hears its associations.
shoal::error open_store(acct_writer_self self) {
  auto& st = self->state;
  if (st.store) return {};
  auto opened = st.setup.open();
  if (!opened) return opened.error();
  auto data = (*opened)->read_associations();
  if (!data) return data.error();
  if (accounting::ensure_cluster(*data, st.setup.cluster, st.setup.control_host,
                                 st.setup.control_port))
    if (auto err = (*opened)->replace_associations(*data)) return err;
  st.store = std::move(*opened);
  config::log().info("accounting store open at {}", st.store->describe());
  publish_associations(self, std::move(*data));
  return {};
}

void write_batch(acct_writer_self self) {
  auto& st = self->state;
  st.tick_sent = false;
  if (auto err = open_store(self)) return failed(self, "not opened", err);
  if (st.waiting.empty()) return;
  std::vector<accounting::job_row> jobs;
  std::vector<accounting::step_row> steps;
  std::vector<uint64_t> ids;
  auto end = st.waiting.begin();
  for (size_t n = 0; end != st.waiting.end() && n < st.setup.batch_size; ++end, ++n) {
    const auto& rec = end->second.record;
    auto rows = accounting::rows_of(rec, st.setup.cluster);
    jobs.push_back(std::move(rows.job));
    for (auto& step : rows.steps) steps.push_back(std::move(step));
    // Only an ended job may be forgotten; a running one was written for its steps.
    if (msg::is_finished(rec.info.state)) ids.push_back(end->first.first);
  }
  if (auto err = st.store->write(jobs, steps)) return failed(self, "write failed", err);
  if (st.failing) config::log().info("accounting store writing again at {}", st.store->describe());
  st.failing = false;
  st.retry = first_retry;
  for (auto it = st.waiting.begin(); it != end; ++it) {
    if (!it->second.job || it->second.record.done_steps.empty()) continue;
    std::vector<uint32_t> written;
    for (auto& step : it->second.record.done_steps) written.push_back(step.step_id);
    send_to(self, it->second.job, msg::stored_atom_v, std::move(written));
  }
  st.waiting.erase(st.waiting.begin(), end);
  st.count_waiting();
  if (st.stored_jobs) st.stored_jobs->inc(ids.size());
  SHOAL_DEBUG(steps, "accounting stored jobs={} steps={} waiting={}", jobs.size(), steps.size(),
              st.waiting.size());
  if (st.setup.owner && !ids.empty())
    send_to(self, st.setup.owner, msg::stored_atom_v, std::move(ids));
  if (!st.waiting.empty()) tick_now(self);
}

caf::result<std::vector<msg::accounted_job>> answer(acct_writer_self self,
                                                    const msg::accounting_query& asked) {
  auto& st = self->state;
  auto query = accounting::from_wire(asked);
  if (!query) return to_caf(query.error());
  if (auto err = open_store(self))
    return make_error(errc::unreachable, "the accounting store is unavailable: " + describe(err));
  auto found = st.store->query(*query);
  if (!found)
    return make_error(errc::unreachable,
                      "the accounting store is unavailable: " + describe(found.error()));
  std::vector<msg::accounted_job> out;
  out.reserve(found->size());
  for (auto& rec : *found) out.push_back(accounting::to_wire(rec));
  return out;
}

caf::result<msg::association_data> list_associations(acct_writer_self self) {
  auto& st = self->state;
  if (auto err = open_store(self))
    return make_error(errc::unreachable, "the accounting store is unavailable: " + describe(err));
  auto data = st.store->read_associations();
  if (!data)
    return make_error(errc::unreachable,
                      "the accounting store is unavailable: " + describe(data.error()));
  return std::move(*data);
}

caf::result<std::string> edit_associations(acct_writer_self self, const msg::acctmgr_edit& edit) {
  auto& st = self->state;
  auto unavailable = [](const shoal::error& err) {
    return make_error(errc::unreachable, "the accounting store is unavailable: " + describe(err));
  };
  if (auto err = open_store(self)) return unavailable(err);
  // Read again for every edit: another shoalctld (a backup in control before) may have changed
  // the store since.
  auto data = st.store->read_associations();
  if (!data) return unavailable(data.error());
  auto report = accounting::apply_edit(*data, edit);
  if (!report) return to_caf(report.error());
  if (auto err = st.store->replace_associations(*data)) return unavailable(err);
  config::log().info("accounting associations changed action={} entity={}", edit.action,
                     edit.entity);
  publish_associations(self, std::move(*data));
  return std::move(*report);
}

acct_writer_impl::behavior_type writer_behavior(acct_writer_self self,
                                                accounting_writer_setup setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  if (auto* m = st.setup.meters) {
    st.waiting_jobs = &m->gauge_of("shoal_accounting_waiting_jobs",
                                   "Finished jobs waiting to be written to the accounting store.");
    st.stored_jobs = &m->counter_of("shoal_accounting_stored_jobs_total",
                                    "Finished jobs written to the accounting store.");
    st.failures = &m->counter_of("shoal_accounting_store_failures_total",
                                 "Attempts to open or write the accounting store that failed.");
  }
  tolerate_strays(self);
  // Opened at once, so a store that cannot be reached (or created) is reported at start-up.
  tick_now(self);
  return {
      [self](msg::account_atom, msg::job_record& rec) {
        wait_to_write(self, std::move(rec), caf::actor_cast<caf::actor>(self->current_sender()));
      },
      [self](msg::stored_atom) { write_batch(self); },
      [self](msg::account_atom, msg::accounting_query& q) { return answer(self, q); },
      [self](msg::acctmgr_atom) { return list_associations(self); },
      [self](msg::acctmgr_atom, msg::acctmgr_edit& edit) { return edit_associations(self, edit); },
  };
}

}  // namespace

accounting_writer_actor spawn_accounting_writer(caf::actor_system& sys,
                                                accounting_writer_setup setup) {
  return sys.spawn<caf::detached>(writer_behavior, std::move(setup));
}

}  // namespace shoal::actors

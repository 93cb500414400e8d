#include "actors/state_keeper.hpp"

#include <utility>

#include <caf/all.hpp>

#include "actors/metering.hpp"
#include "actors/state_writer.hpp"
#include "actors/unexpected.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"

namespace shoal::actors {
namespace {

/// The keeper's own messages: the flush it sends itself after a change, so that the changes
/// already in its mailbox join the same batch; the snapshot timer, with its generation.
using keeper_impl = state_keeper_actor::extend<caf::reacts_to<caf::flush_atom>,
                                               caf::reacts_to<msg::snapshot_atom, uint64_t>>;

using ok_promise = caf::typed_response_promise<caf::ok_atom>;

struct keeper_state {
  static inline const char* name = "state_keeper";
  state_keeper_settings settings;
  state::record_map records;
  /// Changes not yet handed to the writer, and the syncs and snapshot requests that wait for
  /// them.
  std::vector<state::change> pending;
  std::vector<ok_promise> pending_syncs;
  std::vector<ok_promise> pending_snapshots;
  /// Those waiting for the write in flight.
  std::vector<ok_promise> inflight_syncs;
  std::vector<ok_promise> inflight_snapshots;
  state_writer_actor writer;
  bool writing = false;
  bool flush_sent = false;
  /// The next write is a snapshot: the first one (it opens the store), one asked for, one due by
  /// count or time, or one after a failed write (it rewrites every location whole).
  bool snapshot_due = true;
  /// The last write failed (logged once until a write succeeds again).
  bool failing = false;
  uint64_t changes_since_snapshot = 0;
  uint64_t timer_generation = 0;
  metrics::counter* changes = nullptr;
  metrics::counter* batches = nullptr;
  metrics::counter* write_errors = nullptr;
  metrics::gauge* record_count = nullptr;
};

using keeper_self = keeper_impl::stateful_pointer<keeper_state>;

void start_write(keeper_self self);

void arm_timer(keeper_self self) {
  auto& st = self->state;
  self->delayed_send(self, st.settings.snapshot_interval, msg::snapshot_atom_v,
                     ++st.timer_generation);
}

void deliver(std::vector<ok_promise>& waiting, const caf::error& err) {
  for (auto& rp : waiting) {
    if (err)
      rp.deliver(err);
    else
      rp.deliver(caf::ok_atom::value);
  }
  waiting.clear();
}

void log_events(const std::vector<state::location_event>& events) {
  for (auto& e : events) {
    if (e.error)
      config::log().error("state save location failed location={} error=\"{}\"", e.path,
                          describe(e.error));
    else
      config::log().info("state save location written again location={}", e.path);
  }
}

void on_written(keeper_self self, bool was_snapshot, write_report& r) {
  auto& st = self->state;
  st.writing = false;
  log_events(r.events);
  if (r.appended > 0 && st.batches != nullptr) st.batches->inc();
  if (r.error) {
    if (st.write_errors != nullptr) st.write_errors->inc();
    if (!st.failing)
      config::log().error("state save failed error=\"{}\"; retrying with a snapshot",
                          describe(r.error));
    st.failing = true;
    st.snapshot_due = true;
  } else if (st.failing) {
    config::log().info("state save works again snapshot_written={}", r.snapshot_written);
    st.failing = false;
  }
  deliver(st.inflight_syncs, r.error);
  deliver(st.inflight_snapshots, r.error);
  if (was_snapshot) arm_timer(self);  // the interval counts from the last snapshot
  // After a failure, only a sync, a snapshot request or the timer tries again (with a whole
  // snapshot), not every change, so a broken disk is not hammered in a loop.
  bool waited_for = !st.pending_syncs.empty() || !st.pending_snapshots.empty();
  if (waited_for || (!st.failing && (!st.pending.empty() || st.snapshot_due))) start_write(self);
}

/// Hands the writer what accumulated, unless it is busy (then the next write takes it).
void start_write(keeper_self self) {
  auto& st = self->state;
  if (st.writing) return;
  bool snapshot = st.snapshot_due || !st.pending_snapshots.empty();
  if (!snapshot && st.pending.empty()) {
    deliver(st.pending_syncs, caf::none);  // nothing left unwritten
    return;
  }
  st.writing = true;
  st.inflight_syncs = std::move(st.pending_syncs);
  st.pending_syncs.clear();
  auto batch = std::move(st.pending);
  st.pending.clear();
  auto on_error = [self](caf::error& err) {
    write_report r;
    r.error = std::move(err);
    on_written(self, true, r);
  };
  if (snapshot) {
    st.inflight_snapshots = std::move(st.pending_snapshots);
    st.pending_snapshots.clear();
    st.snapshot_due = false;
    st.changes_since_snapshot = 0;
    // TODO(perf): the keeper copies the map (one node per key, not measured yet), and the batches
    // after it wait for the whole snapshot (about 0.4 s at 100,000 1 KiB records); the writer
    // could append while a second thread writes the snapshot, load() skipping what it holds.
    self->request(st.writer, caf::infinite, msg::snapshot_atom_v, std::move(batch), st.records)
        .then([self](write_report& r) { on_written(self, true, r); }, on_error);
  } else {
    self->request(st.writer, caf::infinite, msg::persist_atom_v, std::move(batch))
        .then([self](write_report& r) { on_written(self, false, r); }, on_error);
  }
}

/// After a change or a request: write soon, once the messages already queued are in.
void schedule_write(keeper_self self) {
  auto& st = self->state;
  if (st.writing || st.flush_sent) return;
  st.flush_sent = true;
  self->send(self, caf::flush_atom::value);
}

void persist(keeper_self self, std::string& key, state::value_ptr& value) {
  auto& st = self->state;
  if (st.changes != nullptr) st.changes->inc();
  if (st.settings.locations.empty()) return;
  state::apply(st.records, {key, value});
  st.pending.push_back({std::move(key), std::move(value)});
  if (st.record_count != nullptr) st.record_count->set(static_cast<double>(st.records.size()));
  if (++st.changes_since_snapshot >= st.settings.snapshot_every_records) st.snapshot_due = true;
  if (!st.failing) schedule_write(self);
}

caf::result<caf::ok_atom> sync(keeper_self self) {
  auto& st = self->state;
  if (st.settings.locations.empty()) return caf::ok_atom::value;
  // Durable already: nothing pending, nothing in flight, and the last write worked.
  if (st.pending.empty() && !st.writing && !st.failing && !st.snapshot_due)
    return caf::ok_atom::value;
  auto rp = self->make_response_promise<caf::ok_atom>();
  // The write in flight holds everything received so far (a batch, or a snapshot of it all).
  if (st.pending.empty() && st.writing)
    st.inflight_syncs.push_back(rp);
  else {
    st.pending_syncs.push_back(rp);
    schedule_write(self);
  }
  return rp;
}

caf::result<caf::ok_atom> snapshot_now(keeper_self self) {
  auto& st = self->state;
  if (st.settings.locations.empty()) return caf::ok_atom::value;
  auto rp = self->make_response_promise<caf::ok_atom>();
  st.pending_snapshots.push_back(rp);
  schedule_write(self);
  return rp;
}

void on_timer(keeper_self self, uint64_t generation) {
  auto& st = self->state;
  if (generation != st.timer_generation) return;  // a snapshot was written since it was set
  if (st.changes_since_snapshot == 0 && !st.failing) {
    arm_timer(self);  // nothing new to save
    return;
  }
  st.snapshot_due = true;
  if (st.writing) return;  // the write in flight ends by starting the snapshot
  start_write(self);
}

keeper_impl::behavior_type keeper(keeper_self self, state_keeper_settings settings,
                                  state::record_map initial) {
  auto& st = self->state;
  st.settings = std::move(settings);
  st.records = std::move(initial);
  tolerate_strays(self);
  actor_probe probe{self, st.settings.meters, "state_keeper"};
  if (auto* m = st.settings.meters) {
    st.changes = &m->counter_of("shoal_state_changes_total",
                                "State changes (upserts and erasures) handed to the state keeper");
    st.batches = &m->counter_of("shoal_state_batches_total",
                                "Batches of state changes written to the journal (group commits)");
    st.write_errors = &m->counter_of(
        "shoal_state_write_errors_total",
        "State writes that reached no state save location (their syncs got the error)");
    st.record_count = &m->gauge_of("shoal_state_records", "Keys in the saved state");
    st.record_count->set(static_cast<double>(st.records.size()));
  }
  if (!st.settings.locations.empty()) {
    if (st.settings.detached_writer)
      st.writer = self->spawn<caf::linked + caf::detached>(state_writer, st.settings.locations,
                                                           st.settings.meters);
    else
      st.writer = self->spawn<caf::linked>(state_writer, st.settings.locations, st.settings.meters);
    start_write(self);  // opens the store with `initial` as its first generation
  }
  return {
      probe.metered("persist", [self](msg::persist_atom, std::string& key,
                                      state::value_ptr& value) { persist(self, key, value); }),
      probe.metered("sync", [self](msg::sync_atom) { return sync(self); }),
      probe.metered("snapshot", [self](msg::snapshot_atom) { return snapshot_now(self); }),
      probe.metered("flush",
                    [self](caf::flush_atom) {
                      self->state.flush_sent = false;
                      start_write(self);
                    }),
      probe.metered("snapshot_timer", [self](msg::snapshot_atom,
                                             uint64_t generation) { on_timer(self, generation); }),
  };
}

}  // namespace

state_keeper_actor spawn_state_keeper(caf::actor_system& sys, state_keeper_settings settings,
                                      state::record_map initial) {
  return caf::actor_cast<state_keeper_actor>(
      sys.spawn(keeper, std::move(settings), std::move(initial)));
}

}  // namespace shoal::actors

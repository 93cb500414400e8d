#include "actors/state_writer.hpp"

#include <chrono>
#include <utility>

#include "messages/caf/error.hpp"

namespace shoal::actors {
namespace {

using writer_self = state_writer_actor::stateful_pointer<state_writer_state>;

/// Runs `f` and records its wall time in `h` (when set).
template <class F>
auto timed(metrics::histogram* h, F f) {
  auto start = std::chrono::steady_clock::now();
  auto result = f();
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (h != nullptr) h->observe(took.count());
  return result;
}

write_report append(writer_self self, const std::vector<state::change>& batch) {
  write_report r;
  auto& st = self->state;
  if (!st.store) {
    r.error = make_error(errc::system_error, "the state store is not open");
    return r;
  }
  if (batch.empty()) return r;
  r.error = to_caf(timed(st.fsync_seconds, [&] { return st.store->append(batch); }));
  if (!r.error) r.appended = batch.size();
  r.events = st.store->take_events();
  return r;
}

write_report snapshot(writer_self self, const std::vector<state::change>& batch,
                      const state::record_map& all) {
  auto& st = self->state;
  if (!st.store) {
    // Opening writes `all` as the first generation, so the batch (part of `all`) is in it.
    write_report r;
    auto opened = timed(st.snapshot_seconds, [&] { return state::store::open(st.locations, all); });
    if (!opened) {
      r.error = to_caf(opened.error());
      return r;
    }
    st.store.emplace(std::move(*opened));
    r.events = st.store->take_events();
    r.snapshot_written = true;
    return r;
  }
  // The batch goes to the old journal first, so snapshot N+1 follows from snapshot N and
  // journal N exactly (what a reader relies on to rebuild a lost snapshot.N+1).
  // If the batch reaches no journal, the snapshot holds it all the same: the write stands or
  // falls with the snapshot.
  auto r = append(self, batch);
  r.error = to_caf(timed(st.snapshot_seconds, [&] { return st.store->snapshot(all); }));
  r.snapshot_written = !r.error;
  for (auto& e : st.store->take_events()) r.events.push_back(std::move(e));
  return r;
}

}  // namespace

state_writer_actor::behavior_type state_writer(writer_self self, std::vector<std::string> locations,
                                               metrics::registry* meters) {
  self->state.locations = std::move(locations);
  if (meters != nullptr) {
    self->state.fsync_seconds = &meters->histogram_of(
        "shoal_state_fsync_seconds",
        "Time to make one batch of state changes durable: write and fdatasync in every state "
        "save location");
    self->state.snapshot_seconds = &meters->histogram_of(
        "shoal_state_snapshot_seconds",
        "Time to write one snapshot of the saved state in every location, fsyncs included",
        metrics::lag_buckets());
  }
  return {
      [self](msg::persist_atom, const std::vector<state::change>& batch) {
        return append(self, batch);
      },
      [self](msg::snapshot_atom, const std::vector<state::change>& batch,
             const state::record_map& all) { return snapshot(self, batch, all); },
  };
}

}  // namespace shoal::actors

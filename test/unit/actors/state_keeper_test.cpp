// The state keeper on CAF's test coordinator, its writer on the same thread, real directories:
// when syncs are answered, group commit, snapshots by request, count and time; and once with
// the writer on a thread of its own, as shoalctld runs it.

#include <boost/test/unit_test.hpp>

#include <fstream>

#include "actors/state_keeper.hpp"
#include "messages/caf/error.hpp"
#include "metrics/registry.hpp"
#include "state/load.hpp"
#include "test/unit/actors/coordinated.hpp"
#include "test/unit/state/state_dirs.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

/// Outlives the actors (a base constructed before the actor system): they meter into it until
/// they are gone.
struct meters_holder {
  metrics::registry meters;
};

struct keeper_fixture : meters_holder, test::state_dirs, test::coordinated_fixture {
  caf::scoped_actor self{sys, true};
  actors::state_keeper_actor keeper;

  actors::state_keeper_settings settings(std::vector<std::string> locations) {
    actors::state_keeper_settings s;
    s.locations = std::move(locations);
    s.meters = &meters;
    s.detached_writer = false;  // the test coordinator runs it, on this thread
    return s;
  }

  void start(actors::state_keeper_settings s, state::record_map initial = {}) {
    keeper = actors::spawn_state_keeper(sys, std::move(s), std::move(initial));
    keep(caf::actor_cast<caf::actor>(keeper));
    sched.run();
  }

  void persist(const std::string& key, const std::string& text) {
    self->send(keeper, msg::persist_atom_v, key, test::value(text));
  }

  /// The answer to a request already delivered (after sched.run()).
  template <class Handle>
  caf::error answer(Handle& h) {
    caf::error out = make_error(errc::unreachable, "no answer");
    h.receive([&](caf::ok_atom) { out = caf::none; },
              [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  caf::error sync() {
    auto h = self->request(keeper, caf::infinite, msg::sync_atom_v);
    sched.run();
    return answer(h);
  }

  uint64_t counted(const std::string& name) { return meters.counter_of(name, "").value(); }

  state::loaded_state on_disk() {
    auto s = state::load(both());
    if (!s) BOOST_FAIL("load: " << describe(s.error()));
    return std::move(*s);
  }

  /// Runs the keeper alone (its writer waits in the queue).
  void run_keeper_only() {
    auto* k = dynamic_cast<caf::resumable*>(caf::actor_cast<caf::abstract_actor*>(keeper));
    sched.run_jobs_filtered([k](caf::resumable* job) { return job == k; });
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(state_keeper, keeper_fixture)

BOOST_AUTO_TEST_CASE(starting_writes_the_initial_state_as_a_generation) {
  start(settings(both()), {{"ctl/next_job_id", test::value("12")}});
  auto disk = on_disk();
  BOOST_TEST(disk.generation == 1u);
  BOOST_TEST(test::text(disk.records.at("ctl/next_job_id")) == "12");
}

BOOST_AUTO_TEST_CASE(sync_is_answered_only_after_the_batch_is_on_disk) {
  start(settings(both()));
  persist("job/1", "one");
  auto h = self->request(keeper, caf::infinite, msg::sync_atom_v);
  bool answered = false;
  size_t steps_before_answer = 0;
  while (sched.try_run_once()) {
    bool replied = self->mailbox().size() > 0;
    bool on_disk_now = on_disk().records.count("job/1") > 0;
    if (replied) BOOST_CHECK(on_disk_now);
    if (!replied) ++steps_before_answer;
    answered = answered || replied;
  }
  BOOST_TEST(answered);
  BOOST_TEST(steps_before_answer >= 2u);  // the keeper's turn, then the writer's
  BOOST_CHECK(!answer(h));
  BOOST_TEST(test::text(on_disk().records.at("job/1")) == "one");
}

BOOST_AUTO_TEST_CASE(group_commit_batches_many_persists_into_few_writes) {
  start(settings(both()));
  for (int i = 0; i < 100; ++i) persist("job/" + std::to_string(i), "queued");
  BOOST_CHECK(!sync());
  BOOST_TEST(counted("shoal_state_changes_total") == 100u);
  BOOST_TEST(counted("shoal_state_batches_total") == 1u);
  // While the writer holds the next batch, what arrives forms the one after it.
  persist("job/100", "alone");
  auto first = self->request(keeper, caf::infinite, msg::sync_atom_v);
  run_keeper_only();
  for (int i = 101; i < 131; ++i) persist("job/" + std::to_string(i), "meanwhile");
  auto second = self->request(keeper, caf::infinite, msg::sync_atom_v);
  sched.run();
  BOOST_CHECK(!answer(first));
  BOOST_CHECK(!answer(second));
  BOOST_TEST(counted("shoal_state_batches_total") == 3u);
  BOOST_TEST(on_disk().records.size() == 131u);
}

BOOST_AUTO_TEST_CASE(an_erasure_is_saved) {
  start(settings(both()), {{"job/1", test::value("one")}, {"job/2", test::value("two")}});
  self->send(keeper, msg::persist_atom_v, std::string{"job/1"}, state::value_ptr{});
  BOOST_CHECK(!sync());
  auto disk = on_disk();
  BOOST_TEST(disk.records.count("job/1") == 0u);
  BOOST_TEST(disk.records.count("job/2") == 1u);
}

BOOST_AUTO_TEST_CASE(snapshot_atom_writes_a_generation_and_answers_when_durable) {
  start(settings(both()));
  persist("job/1", "one");
  persist("job/2", "two");
  auto h = self->request(keeper, caf::infinite, msg::snapshot_atom_v);
  sched.run();
  BOOST_CHECK(!answer(h));
  auto disk = on_disk();
  BOOST_TEST(disk.generation == 2u);
  BOOST_TEST(disk.snapshot_records == 2u);
  BOOST_TEST(disk.journal_records == 0u);
  BOOST_TEST(meters.histogram_of("shoal_state_snapshot_seconds", "", metrics::lag_buckets())
                 .read()
                 .count == 2u);  // the first generation, then this one
}

BOOST_AUTO_TEST_CASE(a_snapshot_follows_every_n_changes) {
  auto s = settings(both());
  s.snapshot_every_records = 10;
  start(s);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 10; ++i) persist("job/" + std::to_string(round * 10 + i), "x");
    BOOST_CHECK(!sync());
  }
  persist("job/30", "x");
  BOOST_CHECK(!sync());
  auto disk = on_disk();
  BOOST_TEST(disk.generation == 4u);
  BOOST_TEST(disk.records.size() == 31u);
  BOOST_TEST(disk.journal_records == 1u);
}

BOOST_AUTO_TEST_CASE(a_snapshot_follows_the_interval_when_something_changed) {
  auto s = settings(both());
  s.snapshot_interval = 60s;
  start(s);
  persist("job/1", "x");
  BOOST_CHECK(!sync());
  advance(61s);
  BOOST_TEST(on_disk().generation == 2u);
  advance(61s);  // nothing changed since: no new generation
  BOOST_TEST(on_disk().generation == 2u);
  persist("job/2", "x");
  BOOST_CHECK(!sync());
  advance(61s);
  BOOST_TEST(on_disk().generation == 3u);
}

BOOST_AUTO_TEST_CASE(with_no_locations_sync_is_answered_at_once_and_nothing_is_kept) {
  start(settings({}));
  persist("job/1", "x");
  BOOST_CHECK(!sync());
  auto h = self->request(keeper, caf::infinite, msg::snapshot_atom_v);
  sched.run();
  BOOST_CHECK(!answer(h));
  BOOST_TEST(on_disk().records.empty());
  BOOST_TEST(!std::filesystem::exists(primary));
}

BOOST_AUTO_TEST_CASE(an_unwritable_location_is_left_out_and_sync_still_succeeds) {
  std::ofstream{(root / "blocker").string()} << "a file";
  auto unwritable = (root / "blocker" / "state").string();
  start(settings({unwritable, secondary}));
  persist("job/1", "x");
  BOOST_CHECK(!sync());
  auto disk = state::load({secondary});
  BOOST_REQUIRE(disk);
  BOOST_TEST(disk->records.size() == 1u);
  BOOST_TEST(counted("shoal_state_write_errors_total") == 0u);
}

BOOST_AUTO_TEST_CASE(sync_fails_when_no_location_can_be_written) {
  std::ofstream{(root / "blocker").string()} << "a file";
  start(settings({(root / "blocker" / "a").string(), (root / "blocker" / "b").string()}));
  persist("job/1", "x");
  auto err = sync();
  BOOST_REQUIRE(err);
  BOOST_TEST(describe(err).find("blocker/a") != std::string::npos);
  BOOST_TEST(counted("shoal_state_write_errors_total") >= 1u);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

struct threaded_config : caf::actor_system_config {
  threaded_config() { add_message_types<caf::id_block::shoal>(); }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(state_keeper_with_a_writer_thread_answers_concurrent_syncs,
                        test::state_dirs) {
  threaded_config cfg;
  caf::actor_system sys{cfg};
  actors::state_keeper_settings s;
  s.locations = both();
  auto keeper = actors::spawn_state_keeper(sys, s, {});
  constexpr int senders = 4;
  constexpr int each = 25;
  std::vector<std::unique_ptr<caf::scoped_actor>> clients;
  for (int c = 0; c < senders; ++c) clients.push_back(std::make_unique<caf::scoped_actor>(sys));
  // Every sender's changes and syncs are in flight at once; then each waits for its answers.
  for (int i = 0; i < each; ++i)
    for (int c = 0; c < senders; ++c)
      (*clients[c])
          ->send(keeper, msg::persist_atom_v, "job/" + std::to_string(c) + "." + std::to_string(i),
                 test::value(std::string(1024, 'x')));
  int ok = 0;
  for (auto& client : clients)
    (*client)
        ->request(keeper, std::chrono::seconds{60}, msg::sync_atom_v)
        .receive([&](caf::ok_atom) { ++ok; },
                 [](caf::error& err) { BOOST_FAIL("sync: " << describe(err)); });
  BOOST_TEST(ok == senders);
  auto disk = state::load(both());
  BOOST_REQUIRE(disk);
  BOOST_TEST(disk->records.size() == static_cast<size_t>(senders * each));
  caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
}

// The state store on real directories: what it writes, what load() rebuilds from it, and how
// both get past damaged copies, torn journals and failing locations.

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "messages/errc.hpp"
#include "state/file_io.hpp"
#include "state/store.hpp"
#include "test/unit/state/state_dirs.hpp"

namespace {

using namespace shoal;
using state::change;
using state::record_map;
namespace fs = std::filesystem;

std::map<std::string, std::string> texts(const record_map& m) {
  std::map<std::string, std::string> out;
  for (auto& [k, v] : m) out[k] = test::text(v);
  return out;
}

record_map some_jobs(size_t n) {
  record_map m;
  for (size_t i = 1; i <= n; ++i)
    m["job/" + std::to_string(i)] = test::value("job " + std::to_string(i) + std::string(100, 'x'));
  m["ctl/next_job_id"] = test::value(std::to_string(n + 1));
  return m;
}

/// Opens a store or fails the test.
state::store open_store(std::vector<std::string> locations, const record_map& current = {}) {
  auto s = state::store::open(std::move(locations), current);
  if (!s) BOOST_FAIL("open: " << describe(s.error()));
  return std::move(*s);
}

/// Loads or fails the test.
state::loaded_state load_ok(const std::vector<std::string>& locations) {
  auto s = state::load(locations);
  if (!s) BOOST_FAIL("load: " << describe(s.error()));
  return std::move(*s);
}

/// Appends one single-change batch per key ("key" -> "v<i>").
void append_each(state::store& s, const std::vector<std::string>& keys) {
  for (size_t i = 0; i < keys.size(); ++i)
    BOOST_REQUIRE(!s.append({{keys[i], test::value("v" + std::to_string(i))}}));
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(store, test::state_dirs)

BOOST_AUTO_TEST_CASE(missing_locations_load_as_an_empty_state) {
  auto s = load_ok(both());
  BOOST_TEST(s.records.empty());
  BOOST_TEST(s.warnings.empty());
  BOOST_TEST(s.generation == 0u);
}

BOOST_AUTO_TEST_CASE(round_trip_of_a_snapshot_and_appended_batches) {
  record_map initial{{"ctl/next_job_id", test::value("7")}, {"job/1", test::value("one")}};
  auto s = open_store({primary}, initial);
  BOOST_REQUIRE(!s.append({{"job/2", test::value("two")}, {"job/1", test::value("uno")}}));
  BOOST_REQUIRE(!s.append({{"ctl/next_job_id", test::value("9")}}));
  BOOST_TEST(s.last_sequence() == 3u);
  auto loaded = load_ok({primary});
  std::map<std::string, std::string> expected{
      {"ctl/next_job_id", "9"}, {"job/1", "uno"}, {"job/2", "two"}};
  BOOST_CHECK(texts(loaded.records) == expected);
  BOOST_TEST(loaded.warnings.empty());
  BOOST_TEST(loaded.generation == 1u);
  BOOST_TEST(loaded.snapshot_records == 2u);
  BOOST_TEST(loaded.journal_records == 3u);
  BOOST_TEST(loaded.last_sequence == 3u);
  BOOST_TEST(loaded.bytes_read > 0u);
}

BOOST_AUTO_TEST_CASE(a_null_value_erases_the_key) {
  auto s = open_store({primary}, some_jobs(3));
  BOOST_REQUIRE(!s.append({{"job/2", nullptr}}));
  BOOST_REQUIRE(!s.append({{"job/9", test::value("nine")}, {"job/9", nullptr}}));
  auto loaded = load_ok({primary});
  BOOST_TEST(loaded.records.count("job/2") == 0u);
  BOOST_TEST(loaded.records.count("job/9") == 0u);
  BOOST_TEST(loaded.records.count("job/1") == 1u);
  BOOST_TEST(loaded.records.size() == 3u);
}

BOOST_AUTO_TEST_CASE(both_locations_get_the_same_bytes) {
  auto s = open_store(both(), some_jobs(10));
  append_each(s, {"job/11", "job/12"});
  BOOST_TEST(s.working_locations() == 2u);
  for (auto name : {"snapshot.1", "journal.1"}) {
    auto a = test::bytes_of(state::join(primary, name));
    auto b = test::bytes_of(state::join(secondary, name));
    BOOST_TEST(!a.empty());
    BOOST_CHECK(a == b);
  }
  auto one = load_ok({primary});
  auto other = load_ok({secondary});
  BOOST_TEST(one.records.size() == 13u);
  BOOST_CHECK(texts(one.records) == texts(other.records));
}

BOOST_AUTO_TEST_CASE(a_corrupt_primary_snapshot_is_read_from_the_secondary) {
  auto s = open_store(both(), some_jobs(50));
  append_each(s, {"job/51"});
  auto bad = state::join(primary, "snapshot.1");
  test::flip_byte(bad, fs::file_size(bad) / 2);
  auto loaded = load_ok(both());
  BOOST_TEST(loaded.records.size() == 52u);
  BOOST_TEST(test::text(loaded.records.at("job/51")) == "v0");
  BOOST_TEST_MESSAGE(loaded.warnings.front());
  BOOST_TEST(test::warned(loaded.warnings, {bad + ": checksum mismatch at byte ",
                                            "using " + state::join(secondary, "snapshot.1")}));
}

BOOST_AUTO_TEST_CASE(batches_fill_the_zeroed_room_a_journal_is_written_ahead_with) {
  auto s = open_store(both(), some_jobs(2));
  auto path = state::join(primary, "journal.1");
  auto size = fs::file_size(path);
  BOOST_TEST(size > (1u << 20));  // the header and the room after it
  append_each(s, {"job/3", "job/4"});
  BOOST_TEST(fs::file_size(path) == size);  // the batches went into the room
  BOOST_TEST(test::frames_of(test::bytes_of(path), true).size() == 3u);
  auto loaded = load_ok(both());
  BOOST_TEST(loaded.records.size() == 5u);
  BOOST_TEST(loaded.journal_records == 2u);
  BOOST_TEST(loaded.warnings.empty());
}

BOOST_AUTO_TEST_CASE(a_batch_past_the_room_writes_a_new_room_behind_it) {
  auto s = open_store({primary});
  auto path = state::join(primary, "journal.1");
  auto size = fs::file_size(path);
  std::string big(size, 'b');  // larger than the whole room
  BOOST_REQUIRE(!s.append({{"job/1", test::value(big)}}));
  append_each(s, {"job/2"});
  auto grown = fs::file_size(path);
  BOOST_TEST(grown > 2 * size);
  BOOST_TEST(test::frames_of(test::bytes_of(path), true).size() == 3u);
  auto loaded = load_ok({primary});
  BOOST_TEST(test::text(loaded.records.at("job/1")) == big);
  BOOST_TEST(test::text(loaded.records.at("job/2")) == "v0");
  BOOST_TEST(loaded.warnings.empty());
}

BOOST_AUTO_TEST_CASE(a_journal_cut_in_its_last_batch_keeps_every_batch_before) {
  auto s = open_store({primary});
  append_each(s, {"job/1", "job/2", "job/3"});
  auto path = state::join(primary, "journal.1");
  auto frames = test::frames_of(test::bytes_of(path), true);
  BOOST_REQUIRE(frames.size() == 4u);  // the header, then one frame per batch
  for (size_t into : {size_t{5}, size_t{30}}) {
    test::truncate_to(path, frames[3].offset + into);
    auto loaded = load_ok({primary});
    BOOST_TEST(loaded.records.size() == 2u);
    BOOST_TEST(loaded.records.count("job/3") == 0u);
    BOOST_TEST(loaded.last_sequence == 2u);
    BOOST_TEST(test::warned(loaded.warnings, {path + ": torn last batch dropped"}));
  }
}

BOOST_AUTO_TEST_CASE(a_checksum_flip_in_a_middle_batch_of_one_copy_uses_the_other) {
  auto s = open_store(both());
  append_each(s, {"job/1", "job/2", "job/3", "job/4", "job/5"});
  auto bad = state::join(primary, "journal.1");
  auto frames = test::frames_of(test::bytes_of(bad), true);
  BOOST_REQUIRE(frames.size() == 6u);
  test::flip_byte(bad, frames[2].offset + 20);  // inside the second batch's payload
  auto loaded = load_ok(both());
  BOOST_TEST(loaded.records.size() == 5u);
  BOOST_TEST(test::warned(loaded.warnings,
                          {bad + ": checksum mismatch at byte " + std::to_string(frames[2].offset),
                           "using " + state::join(secondary, "journal.1")}));
}

BOOST_AUTO_TEST_CASE(a_checksum_flip_in_the_only_copy_of_a_journal_is_an_error_naming_it) {
  auto s = open_store({primary});
  append_each(s, {"job/1", "job/2", "job/3"});
  auto bad = state::join(primary, "journal.1");
  auto frames = test::frames_of(test::bytes_of(bad), true);
  test::flip_byte(bad, frames[1].offset + 20);
  auto loaded = state::load({primary});
  BOOST_REQUIRE(!loaded);
  auto text = describe(loaded.error());
  BOOST_TEST_MESSAGE(text);
  BOOST_TEST(text.find(bad + ": checksum mismatch at byte") != std::string::npos);
  BOOST_TEST(text.find("no other copy holds what follows") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_snapshot_starts_a_generation_and_the_one_before_the_previous_goes) {
  auto s = open_store(both(), some_jobs(2));
  append_each(s, {"job/10"});
  BOOST_REQUIRE(!s.snapshot(load_ok(both()).records));
  append_each(s, {"job/11"});
  BOOST_REQUIRE(!s.snapshot(load_ok(both()).records));
  append_each(s, {"job/12"});
  BOOST_TEST(s.generation() == 3u);
  for (auto& dir : both()) {
    BOOST_TEST(!fs::exists(state::join(dir, "snapshot.1")));
    BOOST_TEST(!fs::exists(state::join(dir, "journal.1")));
    for (auto name : {"snapshot.2", "journal.2", "snapshot.3", "journal.3"})
      BOOST_TEST(fs::exists(state::join(dir, name)), dir << "/" << name);
  }
  auto loaded = load_ok(both());
  BOOST_TEST(loaded.generation == 3u);
  BOOST_TEST(loaded.records.size() == 6u);
  BOOST_TEST(loaded.snapshot_records == 5u);
  BOOST_TEST(loaded.journal_records == 1u);
  BOOST_TEST(loaded.last_sequence == 3u);
  BOOST_TEST(loaded.warnings.empty());
}

BOOST_AUTO_TEST_CASE(a_newest_snapshot_corrupt_everywhere_is_rebuilt_from_the_generation_before) {
  auto s = open_store(both(), some_jobs(5));
  append_each(s, {"job/6", "job/7"});
  BOOST_REQUIRE(!s.snapshot(load_ok(both()).records));
  BOOST_REQUIRE(!s.append({{"job/8", test::value("eight")}, {"job/1", nullptr}}));
  for (auto& dir : both()) {
    auto path = state::join(dir, "snapshot.2");
    test::flip_byte(path, fs::file_size(path) - 30);
  }
  auto loaded = load_ok(both());
  BOOST_TEST(loaded.records.size() == 8u);
  BOOST_TEST(test::text(loaded.records.at("job/8")) == "eight");
  BOOST_TEST(loaded.records.count("job/1") == 0u);
  BOOST_TEST(loaded.generation == 1u);
  BOOST_TEST(loaded.last_sequence == 4u);
  BOOST_TEST(
      test::warned(loaded.warnings, {state::join(primary, "snapshot.2"), "checksum mismatch"}));
  BOOST_TEST(test::warned(loaded.warnings, {"no usable copy of snapshot.2; rebuilt from " +
                                            state::join(primary, "snapshot.1")}));
}

BOOST_AUTO_TEST_CASE(a_corrupt_snapshot_with_no_generation_before_it_is_an_error) {
  auto s = open_store(both(), some_jobs(5));
  for (auto& dir : both()) test::flip_byte(state::join(dir, "snapshot.1"), 40);
  auto loaded = state::load(both());
  BOOST_REQUIRE(!loaded);
  auto text = describe(loaded.error());
  BOOST_TEST_MESSAGE(text);
  BOOST_TEST(text.find(state::join(primary, "snapshot.1")) != std::string::npos);
  BOOST_TEST(text.find(state::join(secondary, "snapshot.1")) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(reopening_with_the_loaded_state_goes_on_from_it) {
  {
    auto s = open_store(both(), some_jobs(3));
    append_each(s, {"job/4"});
  }
  auto before = load_ok(both());
  auto s = open_store(both(), before.records);
  BOOST_TEST(s.generation() == 2u);
  append_each(s, {"job/5"});
  auto after = load_ok(both());
  BOOST_TEST(after.generation == 2u);
  BOOST_TEST(after.records.size() == 6u);
  BOOST_TEST(after.warnings.empty());
}

BOOST_AUTO_TEST_CASE(a_cold_start_hides_the_old_state_even_when_its_snapshot_is_lost) {
  {
    auto s = open_store(both(), some_jobs(3));
    append_each(s, {"job/4"});
  }
  auto s = open_store(both(), {});  // shoalctld -c
  BOOST_TEST(load_ok(both()).records.empty());
  // Its snapshot does not follow from generation 1: losing it must not bring generation 1 back.
  for (auto& dir : both()) test::flip_byte(state::join(dir, "snapshot.2"), 30);
  BOOST_TEST(!state::load(both()));
}

BOOST_AUTO_TEST_CASE(an_unwritable_location_is_reported_and_the_other_still_written) {
  std::ofstream{(root / "blocker").string()} << "a file, not a directory";
  auto unwritable = (root / "blocker" / "state").string();
  auto s = open_store({unwritable, secondary}, some_jobs(2));
  auto events = s.take_events();
  BOOST_REQUIRE(events.size() == 1u);
  BOOST_TEST(events[0].path == unwritable);
  BOOST_TEST(describe(events[0].error).find("mkdir") != std::string::npos);
  BOOST_TEST(s.working_locations() == 1u);
  append_each(s, {"job/3"});
  BOOST_TEST(s.take_events().empty());  // reported once
  auto loaded = load_ok({unwritable, secondary});
  BOOST_TEST(loaded.records.size() == 4u);
  BOOST_TEST(test::warned(loaded.warnings, {unwritable}));
}

BOOST_AUTO_TEST_CASE(a_location_failing_a_snapshot_is_out_until_a_later_snapshot_reaches_it) {
  auto s = open_store(both(), some_jobs(2));
  // The next journal of the primary lands on a full disk.
  fs::create_symlink("/dev/full", state::join(primary, "journal.2"));
  BOOST_REQUIRE(!s.snapshot(load_ok(both()).records));
  auto events = s.take_events();
  BOOST_REQUIRE(events.size() == 1u);
  BOOST_TEST(events[0].path == primary);
  BOOST_TEST(describe(events[0].error).find("journal.2") != std::string::npos);
  BOOST_TEST(s.working_locations() == 1u);
  append_each(s, {"job/3"});
  BOOST_TEST(load_ok(both()).records.size() == 4u);
  BOOST_TEST(load_ok({secondary}).records.size() == 4u);
  // The disk has room again: the next snapshot brings the primary back.
  fs::remove(state::join(primary, "journal.2"));
  BOOST_REQUIRE(!s.snapshot(load_ok(both()).records));
  events = s.take_events();
  BOOST_REQUIRE(events.size() == 1u);
  BOOST_TEST(events[0].path == primary);
  BOOST_TEST(!events[0].error);
  append_each(s, {"job/4"});
  BOOST_TEST(load_ok({primary}).records.size() == 5u);
}

BOOST_AUTO_TEST_CASE(no_writable_location_at_all_is_an_error) {
  std::ofstream{(root / "blocker").string()} << "x";
  auto s = state::store::open(
      {(root / "blocker" / "a").string(), (root / "blocker" / "b").string()}, some_jobs(1));
  BOOST_REQUIRE(!s);
  BOOST_TEST(describe(s.error()).find("blocker/a") != std::string::npos);
  BOOST_TEST(describe(s.error()).find("blocker/b") != std::string::npos);
  BOOST_TEST(!state::store::open({}, {}));
}

BOOST_AUTO_TEST_CASE(a_large_state_spans_many_chunks) {
  record_map big;
  for (int i = 0; i < 5000; ++i)
    big["job/" + std::to_string(i)] = state::make_value(std::string(1024, char('a' + i % 26)));
  auto s = open_store({primary}, big);
  auto frames = test::frames_of(test::bytes_of(state::join(primary, "snapshot.1")), false);
  BOOST_TEST(frames.size() > 3u);
  auto loaded = load_ok({primary});
  BOOST_TEST(loaded.records.size() == 5000u);
  BOOST_TEST(*loaded.records.at("job/27") == *big.at("job/27"));
}

BOOST_AUTO_TEST_SUITE_END()

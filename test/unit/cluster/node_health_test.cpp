#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <string>

#include "cluster/node_health.hpp"
#include "messages/states.hpp"

using namespace shoal;
using cluster::derive_node_state;
using cluster::node_flags;
using cluster::shortfall_reason;
using life = node_flags::liveness;
using st = msg::node_state;

BOOST_AUTO_TEST_SUITE(node_state_derivation)

BOOST_AUTO_TEST_CASE(every_combination_of_flags_gives_slurms_state) {
  // One row per liveness, drain flag and job/completing mix; admin_down is tried both ways on
  // every row since the node actor only sets it together with DOWN (it never changes the state).
  struct row {
    life l;
    bool drain;
    size_t jobs;
    size_t completing;
    st expected;
  };
  const row table[] = {
      // never heard from
      {life::unknown, false, 0, 0, st::unknown},
      {life::unknown, false, 1, 0, st::unknown},
      {life::unknown, false, 1, 1, st::unknown},
      {life::unknown, false, 2, 1, st::unknown},
      {life::unknown, false, 2, 2, st::unknown},
      {life::unknown, true, 0, 0, st::drained},
      {life::unknown, true, 1, 0, st::draining},
      {life::unknown, true, 1, 1, st::draining},
      {life::unknown, true, 2, 1, st::draining},
      {life::unknown, true, 2, 2, st::draining},
      // up
      {life::up, false, 0, 0, st::idle},
      {life::up, false, 1, 0, st::allocated},
      {life::up, false, 1, 1, st::completing},
      {life::up, false, 2, 1, st::allocated},
      {life::up, false, 2, 2, st::completing},
      {life::up, true, 0, 0, st::drained},
      {life::up, true, 1, 0, st::draining},
      {life::up, true, 1, 1, st::draining},
      {life::up, true, 2, 1, st::draining},
      {life::up, true, 2, 2, st::draining},
      // down wins over everything
      {life::down, false, 0, 0, st::down},
      {life::down, false, 1, 0, st::down},
      {life::down, false, 1, 1, st::down},
      {life::down, false, 2, 1, st::down},
      {life::down, false, 2, 2, st::down},
      {life::down, true, 0, 0, st::down},
      {life::down, true, 1, 0, st::down},
      {life::down, true, 1, 1, st::down},
      {life::down, true, 2, 1, st::down},
      {life::down, true, 2, 2, st::down},
  };
  for (auto& r : table) {
    for (bool admin_down : {false, true}) {
      node_flags f;
      f.life = r.l;
      f.drain = r.drain;
      f.admin_down = admin_down;
      f.jobs = r.jobs;
      f.completing = r.completing;
      auto got = derive_node_state(f);
      BOOST_CHECK_MESSAGE(
          got == r.expected,
          "life=" << static_cast<int>(r.l) << " drain=" << r.drain << " admin_down=" << admin_down
                  << " jobs=" << r.jobs << " completing=" << r.completing << ": got "
                  << msg::to_string(got) << ", expected " << msg::to_string(r.expected));
    }
  }
}

BOOST_AUTO_TEST_CASE(default_flags_are_unknown) {
  BOOST_CHECK(derive_node_state(node_flags{}) == st::unknown);
}

BOOST_AUTO_TEST_CASE(a_node_power_saving_keeps_off_is_idle_or_allocated_not_unknown_or_down) {
  node_flags f;
  f.power_off = true;
  BOOST_CHECK(derive_node_state(f) == st::idle);  // the guide: a cloud node starts IDLE~
  f.jobs = 1;
  BOOST_CHECK(derive_node_state(f) == st::allocated);  // ALLOCATED# while it powers up
  f.jobs = 0;
  f.life = life::down;  // silent: expected while off
  BOOST_CHECK(derive_node_state(f) == st::idle);
  f.admin_down = true;  // DOWN by an admin or a failed resume stays DOWN
  BOOST_CHECK(derive_node_state(f) == st::down);
  f.admin_down = false;
  f.drain = true;
  BOOST_CHECK(derive_node_state(f) == st::drained);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(resource_shortfall)

namespace {

config::node_config configured(uint32_t cpus, uint64_t memory, uint64_t tmp) {
  config::node_config c;
  c.name = "node1";
  c.cpus = cpus;
  c.real_memory_mb = memory;
  c.tmp_disk_mb = tmp;
  return c;
}

msg::machine_status reported(uint32_t cpus, uint64_t memory, uint64_t tmp) {
  msg::machine_status m;
  m.node_name = "node1";
  m.cpus = cpus;
  m.real_memory_mb = memory;
  m.tmp_disk_mb = tmp;
  return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_report_meeting_the_configuration_passes) {
  BOOST_TEST(shortfall_reason(configured(4, 2048, 100), reported(4, 2048, 100)) == "");
  BOOST_TEST(shortfall_reason(configured(4, 2048, 100), reported(8, 4096, 200)) == "");
}

BOOST_AUTO_TEST_CASE(unset_configuration_fields_pass_anything) {
  BOOST_TEST(shortfall_reason(configured(0, 0, 0), reported(0, 0, 0)) == "");
  BOOST_TEST(shortfall_reason(configured(0, 0, 0), reported(1, 1, 1)) == "");
  BOOST_TEST(shortfall_reason(config::node_config{}, msg::machine_status{}) == "");
}

BOOST_AUTO_TEST_CASE(too_few_cpus_is_low_cpus) {
  BOOST_TEST(shortfall_reason(configured(4, 0, 0), reported(2, 0, 0)) ==
             "Low CPUs (reported 2 < configured 4)");
}

BOOST_AUTO_TEST_CASE(too_little_memory_is_low_real_memory) {
  BOOST_TEST(shortfall_reason(configured(0, 2048, 0), reported(64, 1024, 0)) ==
             "Low RealMemory (reported 1024 < configured 2048)");
}

BOOST_AUTO_TEST_CASE(too_little_tmp_disk_is_low_tmp_disk) {
  BOOST_TEST(shortfall_reason(configured(0, 0, 500), reported(1, 1, 499)) ==
             "Low TmpDisk (reported 499 < configured 500)");
}

BOOST_AUTO_TEST_CASE(a_report_of_nothing_against_a_configuration_is_low) {
  BOOST_TEST(shortfall_reason(configured(1, 0, 0), msg::machine_status{}) ==
             "Low CPUs (reported 0 < configured 1)");
}

BOOST_AUTO_TEST_CASE(cpus_are_named_before_memory_before_tmp_disk) {
  BOOST_TEST(shortfall_reason(configured(4, 2048, 500), reported(2, 1024, 100)) ==
             "Low CPUs (reported 2 < configured 4)");
  BOOST_TEST(shortfall_reason(configured(4, 2048, 500), reported(4, 1024, 100)) ==
             "Low RealMemory (reported 1024 < configured 2048)");
}

BOOST_AUTO_TEST_CASE(virtual_memory_and_sockets_are_checked_too) {
  auto cfg = configured(0, 0, 0);
  cfg.virtual_memory_mb = 4096;
  auto rep = reported(1, 1, 1);
  rep.virtual_memory_mb = 2048;
  BOOST_TEST(shortfall_reason(cfg, rep) == "Low VirtualMemory (reported 2048 < configured 4096)");
  cfg = configured(0, 0, 0);
  cfg.sockets = 2;
  rep.sockets = 1;
  BOOST_TEST(shortfall_reason(cfg, rep) == "Low Sockets (reported 1 < configured 2)");
}

BOOST_AUTO_TEST_SUITE_END()

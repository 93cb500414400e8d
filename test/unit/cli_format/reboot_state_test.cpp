#include <boost/test/unit_test.hpp>

#include "tools/format/node_state_text.hpp"

using namespace shoal;

namespace {

msg::node_info reboot_sample(msg::node_state state, bool requested, bool issued) {
  msg::node_info n;
  n.name = "node1";
  n.state = state;
  n.reboot_requested = requested;
  n.reboot_issued = issued;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reboot_state_words)

// Slurm 22.05's node_state_string_compact and node_state_string (sinfo %t and %T, lower case).
BOOST_AUTO_TEST_CASE(a_node_without_jobs_shows_boot_and_one_with_jobs_its_state_and_a_mark) {
  using msg::node_state;
  auto idle = reboot_sample(node_state::idle, true, false);
  BOOST_CHECK_EQUAL(cli::compact_state(idle), "boot");
  BOOST_CHECK_EQUAL(cli::long_state(idle), "reboot");
  auto issued = reboot_sample(node_state::down, false, true);
  BOOST_CHECK_EQUAL(cli::compact_state(issued), "boot^");
  BOOST_CHECK_EQUAL(cli::long_state(issued), "reboot^");
  auto drained = reboot_sample(node_state::drained, true, false);
  BOOST_CHECK_EQUAL(cli::compact_state(drained), "boot");
  auto busy = reboot_sample(node_state::allocated, true, false);
  BOOST_CHECK_EQUAL(cli::compact_state(busy), "alloc@");
  BOOST_CHECK_EQUAL(cli::long_state(busy), "allocated@");
  auto draining = reboot_sample(node_state::draining, true, false);
  BOOST_CHECK_EQUAL(cli::compact_state(draining), "drng@");
  BOOST_CHECK_EQUAL(cli::compact_state(reboot_sample(node_state::mixed, true, false)), "mix@");
  BOOST_CHECK_EQUAL(cli::compact_state(reboot_sample(node_state::idle, false, false)), "idle");
}

BOOST_AUTO_TEST_CASE(show_node_names_the_reboot_flags_in_slurms_order) {
  auto n = reboot_sample(msg::node_state::down, false, true);
  BOOST_CHECK_EQUAL(cli::power_flags(n), "+REBOOT_ISSUED");
  n.power_down_asked = true;
  n.reboot_requested = true;
  BOOST_CHECK_EQUAL(cli::power_flags(n), "+POWER_DOWN+REBOOT_REQUESTED+REBOOT_ISSUED");
}

BOOST_AUTO_TEST_SUITE_END()

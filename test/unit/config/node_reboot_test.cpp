#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "config/node_reboot.hpp"

using namespace shoal;
using namespace shoal::config;

BOOST_AUTO_TEST_SUITE(node_reboot_words)

BOOST_AUTO_TEST_CASE(reboot_reads_scontrols_words_in_any_order) {
  auto up = parse_reboot_words({"asap", "nextstate=d", "reason=kernel update", "node[1-4]"}, false);
  BOOST_REQUIRE(up);
  BOOST_CHECK_EQUAL(up->reboot, "REBOOT_ASAP");
  BOOST_CHECK_EQUAL(up->next_state, "DOWN");
  BOOST_CHECK_EQUAL(up->reason, "kernel update");
  BOOST_CHECK_EQUAL(up->nodes, "node[1-4]");
  auto plain = parse_reboot_words({"ALL"}, false);
  BOOST_REQUIRE(plain);
  BOOST_CHECK_EQUAL(plain->reboot, "REBOOT");
  BOOST_CHECK_EQUAL(plain->next_state, "");
  BOOST_CHECK_EQUAL(plain->nodes, "ALL");
  auto resume = parse_reboot_words({"NextState=Res", "n1"}, false);
  BOOST_REQUIRE(resume);
  BOOST_CHECK_EQUAL(resume->next_state, "RESUME");
  auto undrain = parse_reboot_words({"nextstate=undrain", "n1"}, false);
  BOOST_REQUIRE(undrain);
  BOOST_CHECK_EQUAL(undrain->next_state, "UNDRAIN");
  auto cancel = parse_reboot_words({"n[1-2]"}, true);
  BOOST_REQUIRE(cancel);
  BOOST_CHECK_EQUAL(cancel->reboot, "CANCEL_REBOOT");
  BOOST_CHECK_EQUAL(cancel->nodes, "n[1-2]");
}

BOOST_AUTO_TEST_CASE(bad_words_are_refused_as_scontrol_refuses_them) {
  auto text = [](std::vector<std::string> words, bool cancel = false) {
    auto up = parse_reboot_words(words, cancel);
    return up ? std::string{} : up.error().text();
  };
  BOOST_CHECK_EQUAL(text({"asap"}), "Missing node list. Specify ALL|<NodeList>");
  BOOST_CHECK_EQUAL(text({"n1", "n2"}), "too many arguments for keyword:reboot");
  BOOST_CHECK_EQUAL(text({"reason=", "n1"}), "missing reason");
  BOOST_CHECK_EQUAL(text({"nextstate=", "n1"}), "missing state");
  BOOST_CHECK_EQUAL(text({"nextstate=idle", "n1"}),
                    "Invalid state: idle (valid states: DOWN, RESUME, UNDRAIN)");
  // cancel_reboot takes a node list only.
  BOOST_CHECK_EQUAL(text({"asap", "n1"}, true), "too many arguments for keyword:cancel_reboot");
}

BOOST_AUTO_TEST_CASE(reasons_gather_as_slurmctld_gathers_them) {
  BOOST_CHECK_EQUAL(add_reboot_reason("", "reboot issued"), "reboot issued");
  BOOST_CHECK_EQUAL(add_reboot_reason("Reboot ASAP", "reboot issued"),
                    "Reboot ASAP : reboot issued");
  BOOST_CHECK_EQUAL(add_reboot_reason("Reboot ASAP : reboot issued", "reboot issued"),
                    "reboot issued");
}

BOOST_AUTO_TEST_SUITE_END()

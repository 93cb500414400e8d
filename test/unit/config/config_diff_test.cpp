#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/config_diff.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

using strings = std::vector<std::string>;

const std::string base =
    "ClusterName=test\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "SlurmctldDebug=info\n"
    "KillWait=2\n"
    "NodeName=node[1-2] CPUs=2 RealMemory=1000\n"
    "PartitionName=debug Nodes=node[1-2] Default=YES MaxTime=60\n";

cluster_config parse_ok(const std::string& text) {
  auto cfg = parse_config(text, "test.conf", "");
  if (!cfg) BOOST_FAIL("unexpected error: " << describe(cfg.error()));
  return std::move(*cfg);
}

strings changed(const std::string& after) {
  return changed_keys(parse_ok(base), parse_ok(after));
}

std::string replaced(const std::string& from, const std::string& to) {
  auto text = base;
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_diff)

BOOST_AUTO_TEST_CASE(the_same_file_read_again_changes_nothing) {
  BOOST_TEST(changed(base).empty());
}

BOOST_AUTO_TEST_CASE(a_changed_setting_is_named_by_its_key) {
  BOOST_TEST(
      changed(replaced("SlurmctldDebug=info", "SlurmctldDebug=debug")) == strings{"SlurmctldDebug"},
      boost::test_tools::per_element());
  BOOST_TEST(changed(replaced("KillWait=2", "KillWait=9")) == strings{"KillWait"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_setting_given_where_the_default_stood_is_a_change) {
  BOOST_TEST(changed(base + "MinJobAge=42\n") == strings{"MinJobAge"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(node_and_partition_lines_are_named_once_each) {
  auto after = replaced("NodeName=node[1-2]", "NodeName=node[1-3]");
  after.replace(after.find("Nodes=node[1-2]"), 15, "Nodes=node[1-3]");
  BOOST_TEST(changed(after) == (strings{"NodeName", "PartitionName"}),
             boost::test_tools::per_element());
  BOOST_TEST(changed(replaced("MaxTime=60", "MaxTime=30")) == strings{"PartitionName"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(several_changes_come_in_alphabetical_order) {
  auto after = replaced("KillWait=2", "KillWait=5");
  after.replace(after.find("SlurmctldDebug=info"), 19, "SlurmctldDebug=error");
  BOOST_TEST(changed(after) == (strings{"KillWait", "SlurmctldDebug"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

// What a reconfigure does with the nodes: adds the new names, removes the missing ones, and
// leaves a node whose settings changed for a restart; a partition joined is not a change.
BOOST_AUTO_TEST_SUITE(compare_nodes_suite)

namespace {

std::vector<std::string> names_of(const std::vector<node_config>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) out.push_back(n.name);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(new_names_are_added_in_the_files_order_and_missing_ones_removed) {
  auto now = parse_ok(base);
  auto fresh = parse_ok(
      "ClusterName=test\nSlurmctldHost=localhost(127.0.0.1)\n"
      "NodeName=node4 CPUs=2 RealMemory=1000\n"
      "NodeName=node[1,3] CPUs=2 RealMemory=1000\n"
      "PartitionName=debug Nodes=node[1,3-4] Default=YES MaxTime=60\n");
  auto changes = compare_nodes(now.nodes, fresh.nodes);
  BOOST_TEST(names_of(changes.added) == (strings{"node4", "node3"}),
             boost::test_tools::per_element());
  BOOST_TEST(changes.removed == strings{"node2"}, boost::test_tools::per_element());
  BOOST_TEST(changes.redefined.empty());
  BOOST_TEST(changes.added[0].cpus == 2u);
}

BOOST_AUTO_TEST_CASE(other_settings_wait_for_a_restart_and_partitions_are_not_settings) {
  auto now = parse_ok(base);
  auto more_cpus = parse_ok(replaced("NodeName=node[1-2] CPUs=2 RealMemory=1000\n",
                                     "NodeName=node1 CPUs=2 RealMemory=1000\n"
                                     "NodeName=node2 CPUs=4 RealMemory=1000\n"));
  auto changes = compare_nodes(now.nodes, more_cpus.nodes);
  BOOST_TEST(changes.redefined == strings{"node2"}, boost::test_tools::per_element());
  BOOST_TEST(changes.added.empty());
  BOOST_TEST(changes.removed.empty());
  auto joined = parse_ok(base + "PartitionName=extra Nodes=node1\n");
  BOOST_TEST(compare_nodes(now.nodes, joined.nodes).empty());
  BOOST_TEST(compare_nodes(now.nodes, now.nodes).empty());
}

BOOST_AUTO_TEST_SUITE_END()

// Partitions changed at run time (config/partition_edit.hpp): the edit itself, its errors, and the
// short record a restart replays.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/partition_edit.hpp"
#include "messages/errc.hpp"

using namespace shoal;

namespace {

config::cluster_config four_nodes() {
  auto cfg = config::parse_config(
      "ClusterName=t\nSlurmctldHost=localhost\nNodeName=n[1-4] CPUs=2\n"
      "PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=60\n"
      "PartitionName=long Nodes=n[3-4] MaxTime=UNLIMITED\n",
      "test.conf", ".");
  BOOST_REQUIRE_MESSAGE(static_cast<bool>(cfg), "config should parse");
  return *cfg;
}

msg::partition_edit edit(std::string action, std::string name, std::vector<std::string> settings) {
  msg::partition_edit e;
  e.action = std::move(action);
  e.name = std::move(name);
  e.settings = std::move(settings);
  return e;
}

const config::partition_config* find(const std::vector<config::partition_config>& parts,
                                     const std::string& name) {
  for (auto& p : parts)
    if (p.name == name) return &p;
  return nullptr;
}

int code_of(const shoal::error& err) {
  return static_cast<int>(err.code());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(partition_edit)

BOOST_AUTO_TEST_CASE(update_sets_the_keys_of_a_partition_line) {
  auto cfg = four_nodes();
  auto parts = config::apply_partition_edit(
      cfg, edit("update", "long",
                {"State=down", "MaxTime=1:00:00", "nodes=n[1-2]", "MaxNodes=1", "PriorityTier=3",
                 "OverSubscribe=FORCE:2"}));
  BOOST_REQUIRE(static_cast<bool>(parts));
  auto* p = find(*parts, "long");
  BOOST_REQUIRE(p != nullptr);
  BOOST_TEST(p->state == "DOWN");
  BOOST_TEST(p->max_time_s == 3600);
  BOOST_TEST(p->nodes == (std::vector<std::string>{"n1", "n2"}));
  BOOST_TEST(p->max_nodes == 1u);
  BOOST_TEST(p->priority == 3u);
  BOOST_TEST(p->force);
  BOOST_TEST(p->oversubscribe == 2u);
  // Nothing else changed, and the order stays.
  BOOST_TEST((*parts)[0].name == "debug");
  BOOST_TEST((*parts)[0].max_time_s == 60 * 60);
}

BOOST_AUTO_TEST_CASE(nodes_keep_config_order_and_take_all_or_nothing) {
  auto cfg = four_nodes();
  auto parts = config::apply_partition_edit(cfg, edit("update", "long", {"Nodes=n4,n2,n4"}));
  BOOST_REQUIRE(static_cast<bool>(parts));
  BOOST_TEST(find(*parts, "long")->nodes == (std::vector<std::string>{"n2", "n4"}));
  parts = config::apply_partition_edit(cfg, edit("update", "long", {"Nodes=ALL"}));
  BOOST_REQUIRE(static_cast<bool>(parts));
  BOOST_TEST(find(*parts, "long")->nodes.size() == 4u);
  parts = config::apply_partition_edit(cfg, edit("update", "long", {"Nodes="}));
  BOOST_REQUIRE(static_cast<bool>(parts));
  BOOST_TEST(find(*parts, "long")->nodes.empty());
}

BOOST_AUTO_TEST_CASE(default_yes_moves_the_default) {
  auto cfg = four_nodes();
  auto parts = config::apply_partition_edit(cfg, edit("update", "long", {"Default=YES"}));
  BOOST_REQUIRE(static_cast<bool>(parts));
  BOOST_TEST(find(*parts, "long")->is_default);
  BOOST_TEST(!find(*parts, "debug")->is_default);
}

BOOST_AUTO_TEST_CASE(create_adds_last_and_delete_removes) {
  auto cfg = four_nodes();
  auto parts = config::apply_partition_edit(cfg, edit("create", "gpu", {"Nodes=n2", "MaxTime=5"}));
  BOOST_REQUIRE(static_cast<bool>(parts));
  BOOST_REQUIRE(parts->size() == 3u);
  BOOST_TEST(parts->back().name == "gpu");
  BOOST_TEST(parts->back().state == "UP");
  BOOST_TEST(parts->back().max_time_s == 300);
  cfg.partitions = *parts;
  parts = config::apply_partition_edit(cfg, edit("delete", "debug", {}));
  BOOST_REQUIRE(static_cast<bool>(parts));
  BOOST_TEST(parts->size() == 2u);
  BOOST_TEST(find(*parts, "debug") == nullptr);
}

BOOST_AUTO_TEST_CASE(bad_edits_say_why) {
  auto cfg = four_nodes();
  auto check = [&](msg::partition_edit e, errc code, const std::string& words) {
    auto parts = config::apply_partition_edit(cfg, e);
    BOOST_REQUIRE_MESSAGE(!parts, e.action << " " << e.name << " should fail");
    BOOST_TEST(code_of(parts.error()) == static_cast<int>(code));
    auto text = describe(parts.error());
    BOOST_TEST(text.find(words) != std::string::npos, text);
  };
  check(edit("update", "nosuch", {"State=UP"}), errc::unknown_partition, "nosuch");
  check(edit("delete", "nosuch", {}), errc::unknown_partition, "nosuch");
  check(edit("create", "debug", {}), errc::invalid_request, "already exists");
  check(edit("create", "DEFAULT", {}), errc::invalid_request, "invalid partition name");
  check(edit("create", "a,b", {}), errc::invalid_request, "invalid partition name");
  check(edit("update", "debug", {"State=sideways"}), errc::invalid_request,
        "expected UP, DOWN, DRAIN or INACTIVE");
  check(edit("update", "debug", {"MaxTime=soon"}), errc::invalid_request, "MaxTime");
  check(edit("update", "debug", {"Nodes=n9"}), errc::invalid_request, "unknown node 'n9'");
  check(edit("update", "debug", {"Nodes=n[1-"}), errc::invalid_request, "Nodes");
  check(edit("update", "debug", {"Colour=red"}), errc::invalid_request, "unknown partition key");
  check(edit("update", "debug", {"State"}), errc::invalid_request, "Key=Value");
  check(edit("delete", "debug", {"State=UP"}), errc::invalid_request, "only PartitionName");
  check(edit("rename", "debug", {}), errc::invalid_request, "update, create or delete");
}

BOOST_AUTO_TEST_CASE(node_partition_lists_follow) {
  auto cfg = four_nodes();
  auto parts = config::apply_partition_edit(cfg, edit("create", "gpu", {"Nodes=n1"}));
  BOOST_REQUIRE(static_cast<bool>(parts));
  cfg.partitions = *parts;
  config::assign_node_partitions(cfg);
  BOOST_TEST(cfg.nodes[0].partitions == (std::vector<std::string>{"debug", "gpu"}));
  BOOST_TEST(cfg.nodes[3].partitions == (std::vector<std::string>{"debug", "long"}));
}

BOOST_AUTO_TEST_CASE(the_record_stays_short_and_replays_to_the_same_partitions) {
  auto cfg = four_nodes();
  std::vector<msg::partition_edit> record;
  auto live = cfg;
  auto apply = [&](msg::partition_edit e) {
    auto parts = config::apply_partition_edit(live, e);
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(parts),
                          (parts ? std::string{} : describe(parts.error())));
    live.partitions = *parts;
    config::record_partition_edit(record, e);
  };
  apply(edit("update", "debug", {"State=DOWN"}));
  apply(edit("update", "debug", {"State=UP", "MaxTime=5"}));
  apply(edit("create", "gpu", {"Nodes=n1"}));
  apply(edit("update", "gpu", {"Default=YES"}));
  apply(edit("update", "debug", {"Default=YES"}));  // after gpu's: debug must win on replay
  apply(edit("create", "tmp", {}));
  apply(edit("delete", "tmp", {}));   // created and deleted: no trace
  apply(edit("delete", "long", {}));  // from the file: stays deleted
  BOOST_TEST(record.size() == 3u);    // debug's update, gpu's create, long's delete
  auto replayed = cfg;
  std::vector<std::string> skipped;
  config::replay_partition_edits(replayed, record, skipped);
  BOOST_TEST(skipped.empty());
  BOOST_REQUIRE(replayed.partitions.size() == live.partitions.size());
  for (size_t i = 0; i < live.partitions.size(); ++i) {
    auto& a = replayed.partitions[i];
    auto& b = live.partitions[i];
    BOOST_TEST(a.name == b.name);
    BOOST_TEST(a.state == b.state);
    BOOST_TEST(a.max_time_s == b.max_time_s);
    BOOST_TEST(a.is_default == b.is_default);
    BOOST_TEST(a.nodes == b.nodes);
  }
  BOOST_TEST(find(replayed.partitions, "debug")->is_default);
  BOOST_TEST(cfg.nodes[0].partitions == (std::vector<std::string>{"debug"}));  // the file's
  BOOST_TEST(replayed.nodes[0].partitions == (std::vector<std::string>{"debug", "gpu"}));
}

BOOST_AUTO_TEST_CASE(an_edit_the_file_no_longer_allows_is_skipped) {
  auto cfg = four_nodes();
  std::vector<msg::partition_edit> record{edit("update", "gone", {"State=DOWN"}),
                                          edit("update", "debug", {"Nodes=n7"}),
                                          edit("update", "long", {"State=DRAIN"})};
  std::vector<std::string> skipped;
  config::replay_partition_edits(cfg, record, skipped);
  BOOST_TEST(skipped.size() == 2u);
  BOOST_TEST(find(cfg.partitions, "long")->state == "DRAIN");
  BOOST_TEST(find(cfg.partitions, "debug")->nodes.size() == 4u);
}

BOOST_AUTO_TEST_CASE(preempt_mode_suspend_needs_gang_in_the_main_preempt_mode) {
  auto cfg = four_nodes();
  auto refused = config::apply_partition_edit(cfg, edit("update", "long", {"PreemptMode=SUSPEND"}));
  BOOST_REQUIRE(!refused);
  BOOST_TEST(code_of(refused.error()) == static_cast<int>(errc::invalid_request));
  BOOST_TEST(describe(refused.error()).find("needs GANG") != std::string::npos);
  cfg.scheduling.preempt_gang = true;
  auto taken = config::apply_partition_edit(cfg, edit("update", "long", {"PreemptMode=SUSPEND"}));
  BOOST_REQUIRE(static_cast<bool>(taken));
  BOOST_CHECK(find(*taken, "long")->preempt_mode == policy::preempt_mode::suspend);
}

BOOST_AUTO_TEST_SUITE_END()

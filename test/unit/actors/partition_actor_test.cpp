// The partition actor under the test coordinator, and partition edits through the controller:
// the actor owns its row; the controller keeps which partitions exist and which is the default.

#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include "actors/controller/controller.hpp"
#include "actors/partition.hpp"
#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "test/unit/actors/coordinated.hpp"

namespace {

using namespace shoal;

struct partition_fixture : test::coordinated_fixture {
  partition_fixture() {
    config::partition_config row;
    row.name = "debug";
    row.nodes = {"n1", "n2"};
    auto names = std::make_shared<const std::vector<std::string>>(
        std::vector<std::string>{"n1", "n2", "n3", "n4"});
    partition = actors::spawn_partition(sys, row, names, nullptr);
    keep(caf::actor_cast<caf::actor>(partition));
    sched.run();
  }

  caf::expected<config::partition_config> edit(std::vector<std::string> settings) {
    caf::scoped_actor self{sys, true};
    auto handle = self->request(partition, caf::infinite, msg::partedit_atom_v, settings);
    sched.run();
    caf::expected<config::partition_config> out{caf::error{}};
    handle.receive([&](config::partition_config& row) { out = std::move(row); },
                   [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  config::partition_config row() {
    caf::scoped_actor self{sys, true};
    auto handle = self->request(partition, caf::infinite, msg::view_atom_v);
    sched.run();
    config::partition_config out;
    handle.receive([&](config::partition_config& r) { out = std::move(r); },
                   [](caf::error& err) { BOOST_FAIL("view: " << to_string(err)); });
    return out;
  }

  actors::partition_actor partition;
};

/// A controller of four nodes in two partitions (`debug` the default, `batch`), in a threaded
/// system: edits cross the controller, the partition actors, the scheduler and the topology actor.
struct controller_partitions_fixture {
  controller_partitions_fixture() {
    cfg.add_message_types<caf::id_block::shoal>();
    sys = std::make_unique<caf::actor_system>(cfg);
    auto text = config::default_config_text(4, 6917) +
                "PartitionName=batch Nodes=node[3-4] MaxTime=60 State=UP\n";
    auto conf = config::parse_config(text, "<embedded>", "/");
    BOOST_REQUIRE(conf);
    controller = caf::actor_cast<caf::actor>(actors::spawn_controller(*sys, *conf));
  }

  ~controller_partitions_fixture() {
    caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
  }

  caf::error edit(const std::string& action, const std::string& name,
                  std::vector<std::string> settings) {
    msg::partition_edit e;
    e.action = action;
    e.name = name;
    e.settings = std::move(settings);
    e.user = "root";
    caf::scoped_actor self{*sys};
    caf::error out;
    self->request(controller, std::chrono::seconds{5}, msg::partedit_atom_v, e)
        .receive([](caf::ok_atom) {}, [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  std::vector<msg::partition_info> partitions() {
    caf::scoped_actor self{*sys};
    std::vector<msg::partition_info> out;
    self->request(controller, std::chrono::seconds{5}, msg::parts_atom_v)
        .receive([&](std::vector<msg::partition_info>& parts) { out = std::move(parts); },
                 [](caf::error& err) { BOOST_FAIL("parts: " << to_string(err)); });
    return out;
  }

  std::vector<std::string> names_and_defaults() {
    std::vector<std::string> out;
    for (auto& p : partitions()) out.push_back(p.name + (p.is_default ? "*" : ""));
    return out;
  }

  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor controller;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(partition_actor, partition_fixture)

BOOST_AUTO_TEST_CASE(an_edit_changes_the_row_and_answers_with_it) {
  auto edited = edit({"MaxTime=30", "State=DRAIN", "Nodes=n[3-4]"});
  BOOST_REQUIRE(edited);
  BOOST_TEST(edited->max_time_s == 30 * 60);
  BOOST_TEST(edited->state == "DRAIN");
  BOOST_TEST((edited->nodes == std::vector<std::string>{"n3", "n4"}));
  auto now = row();
  BOOST_TEST(now.max_time_s == 30 * 60);
  BOOST_TEST((now.nodes == std::vector<std::string>{"n3", "n4"}));
}

BOOST_AUTO_TEST_CASE(a_bad_setting_is_refused_by_name_and_leaves_the_row_as_it_was) {
  auto edited = edit({"MaxTime=30", "State=SLEEPY"});
  BOOST_REQUIRE(!edited);
  BOOST_TEST(describe(edited.error()).find("State") != std::string::npos);
  auto unknown_node = edit({"Nodes=n9"});
  BOOST_REQUIRE(!unknown_node);
  BOOST_TEST(describe(unknown_node.error()).find("unknown node 'n9'") != std::string::npos);
  auto now = row();
  BOOST_TEST(now.max_time_s == -1);  // MaxTime=30 came with the bad word: not applied
  BOOST_TEST(now.state == "UP");
  BOOST_TEST((now.nodes == std::vector<std::string>{"n1", "n2"}));
}

BOOST_AUTO_TEST_CASE(a_deleted_partition_ends_its_actor) {
  bool ended = false;
  // The watcher takes an argument: CAF 0.17 dereferences a null tuple for argument-less spawns.
  auto watcher = sys.spawn(
      [&](caf::event_based_actor* self, int) -> caf::behavior {
        self->monitor(partition);
        self->set_down_handler(
            [&](caf::down_msg& down) { ended = down.reason == caf::exit_reason::normal; });
        return {[](int) {}};
      },
      0);
  keep(watcher);
  sched.run();
  caf::anon_send(partition, msg::cancel_atom_v);
  sched.run();
  BOOST_TEST(ended);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(controller_partitions, controller_partitions_fixture)

BOOST_AUTO_TEST_CASE(listings_show_each_partition_as_its_actor_last_answered) {
  BOOST_TEST(!edit("update", "batch", {"MaxTime=2:00:00", "State=DOWN"}));
  auto parts = partitions();
  BOOST_REQUIRE(parts.size() == 2u);
  BOOST_TEST(parts[1].name == "batch");
  BOOST_TEST(parts[1].max_time_s == 2 * 3600);
  BOOST_TEST(parts[1].state == "DOWN");
  auto err = edit("update", "batch", {"MaxNodes=lots"});
  BOOST_TEST(describe(err).find("MaxNodes") != std::string::npos);
  BOOST_TEST(partitions()[1].max_nodes == 0u);  // unchanged
}

BOOST_AUTO_TEST_CASE(one_partition_is_the_default_after_any_edit) {
  BOOST_TEST((names_and_defaults() == std::vector<std::string>{"debug*", "batch"}));
  BOOST_TEST(!edit("update", "batch", {"Default=YES"}));
  BOOST_TEST((names_and_defaults() == std::vector<std::string>{"debug", "batch*"}));
  BOOST_TEST(!edit("create", "gpu", {"Nodes=node1", "Default=YES"}));
  BOOST_TEST((names_and_defaults() == std::vector<std::string>{"debug", "batch", "gpu*"}));
  // The rows themselves gave Default up, not only the controller's view: an unrelated edit of
  // batch answers with its row, which must not bring its Default back.
  BOOST_TEST(!edit("update", "batch", {"MaxTime=10"}));
  BOOST_TEST((names_and_defaults() == std::vector<std::string>{"debug", "batch", "gpu*"}));
}

BOOST_AUTO_TEST_CASE(a_deleted_partition_is_gone_and_its_name_free_again) {
  BOOST_TEST(!edit("delete", "batch", {}));
  BOOST_TEST((names_and_defaults() == std::vector<std::string>{"debug*"}));
  auto err = edit("update", "batch", {"MaxTime=10"});
  BOOST_TEST((err == errc::unknown_partition));
  BOOST_TEST(!edit("create", "batch", {"Nodes=node[1-2]"}));
  auto parts = partitions();
  BOOST_REQUIRE(parts.size() == 2u);
  BOOST_TEST(parts[1].max_time_s == -1);  // a new row, not the deleted one's
  BOOST_TEST((parts[1].nodes == std::vector<std::string>{"node1", "node2"}));
}

BOOST_AUTO_TEST_SUITE_END()

// The scheduler actor under CAF's test coordinator: it owns which job holds which nodes, so a
// pass places, starts and frees jobs without asking any other actor.

#include <boost/test/unit_test.hpp>

#include "actors/scheduler.hpp"
#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "test/unit/actors/coordinated.hpp"

namespace {

using namespace shoal;
using namespace std::chrono_literals;

/// What a job actor hears from the scheduler.
struct job_news {
  std::vector<std::string> started_on;  ///< node names of the start, empty while pending
  std::string nodelist;
  std::string reason;
  uint64_t priority = 0;
};

caf::behavior job_double(caf::event_based_actor*, std::shared_ptr<job_news> news) {
  return {
      [news](msg::start_atom, std::vector<std::string>& names, std::vector<caf::actor>&,
             std::vector<uint32_t>&, std::string& nodelist, std::vector<msg::gres_held>&) {
        news->started_on = std::move(names);
        news->nodelist = std::move(nodelist);
      },
      [news](msg::view_atom, const std::string& reason, uint64_t priority) {
        news->reason = reason;
        news->priority = priority;
      },
  };
}

/// The controller as the scheduler sees it (array views and tasks, cancels): ignored here. It
/// takes an argument because CAF 0.17 dereferences a null tuple for argument-less spawns.
caf::behavior scheduler_controller_double(caf::event_based_actor* self, int) {
  self->set_default_handler(caf::drop);
  return {[](caf::ok_atom) {}};
}

struct scheduler_fixture : test::coordinated_fixture {
  config::cluster_config cluster;
  caf::actor controller = keep(sys.spawn(scheduler_controller_double, 0));
  actors::topology_actor topology;
  actors::scheduler_actor scheduler;

  scheduler_fixture() {
    auto parsed = config::parse_config(config::default_config_text(4, 6917), "<embedded>", "/");
    BOOST_REQUIRE(parsed);
    cluster = std::move(*parsed);
    std::vector<caf::actor> nodes(cluster.nodes.size());
    actors::slotted(cluster.partitions, partition_slots);  // as the controller starts
    topology = actors::spawn_topology(sys, cluster, nullptr);
    keep(caf::actor_cast<caf::actor>(topology));
    scheduler = actors::spawn_scheduler(sys, cluster, nodes, controller, topology, nullptr);
    keep(caf::actor_cast<caf::actor>(scheduler));
    sched.run();
  }

  void node_is(const std::string& name, msg::node_state state) {
    msg::node_info info;
    info.name = name;
    info.state = state;
    caf::anon_send(topology, msg::view_atom_v, info);
  }

  void all_nodes_idle() {
    for (auto& n : cluster.nodes) node_is(n.name, msg::node_state::idle);
  }

  msg::job_request request(uint32_t nodes) {
    msg::job_request req;
    req.user = "alice";
    req.uid = 1000;
    req.partition = cluster.partitions.front().name;
    req.min_nodes = nodes;
    req.ntasks = nodes;
    req.time_limit_s = 60;
    req.argv = {"true"};
    return req;
  }

  std::shared_ptr<job_news> enqueue(uint64_t id, uint32_t nodes) {
    return enqueue(id, request(nodes));
  }

  std::shared_ptr<job_news> enqueue(uint64_t id, const msg::job_request& req) {
    auto news = std::make_shared<job_news>();
    auto job = keep(sys.spawn(job_double, news));
    caf::anon_send(scheduler, msg::enqueue_atom_v, id, req, policy::workload_ptr{}, job,
                   int64_t{1'700'000'000});
    sched.run();
    return news;
  }

  /// The controller's word after `shoal control update partitionname=`.
  void partitions_are(const std::vector<config::partition_config>& parts) {
    auto table = actors::slotted(parts, partition_slots);
    caf::anon_send(topology, msg::parts_atom_v, table);
    caf::anon_send(scheduler, msg::parts_atom_v, table);
    sched.run();
  }

  /// The controller's slots, as it keeps them across partition edits.
  std::unordered_map<std::string, size_t> partition_slots;

  msg::topology_view map() {
    caf::scoped_actor self{sys, true};
    auto handle = self->request(topology, caf::infinite, msg::map_atom_v);
    sched.run();
    msg::topology_view out;
    handle.receive([&](msg::topology_view& v) { out = std::move(v); },
                   [](caf::error& err) { BOOST_FAIL("map: " << to_string(err)); });
    return out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(scheduler_actor, scheduler_fixture)

BOOST_AUTO_TEST_CASE(a_job_starts_on_idle_nodes_with_its_nodelist) {
  all_nodes_idle();
  auto news = enqueue(1, 2);
  BOOST_TEST(news->started_on.size() == 2u);
  BOOST_TEST(news->nodelist == "node[1-2]");
}

BOOST_AUTO_TEST_CASE(no_usable_node_leaves_the_job_pending_with_a_reason_and_a_priority) {
  auto news = enqueue(1, 1);
  BOOST_TEST(news->started_on.empty());
  BOOST_TEST(!news->reason.empty());
  BOOST_TEST(news->priority > 0u);
}

BOOST_AUTO_TEST_CASE(a_node_turning_idle_starts_the_waiting_job) {
  auto news = enqueue(1, 1);
  BOOST_REQUIRE(news->started_on.empty());
  node_is("node3", msg::node_state::idle);
  sched.run();
  BOOST_TEST(news->started_on == std::vector<std::string>({"node3"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_map_shows_what_the_scheduler_placed) {
  all_nodes_idle();
  enqueue(5, 3);
  auto view = map();
  BOOST_REQUIRE_EQUAL(view.allocations.size(), 1u);
  BOOST_TEST(view.allocations.front().job_id == 5u);
  BOOST_TEST(view.allocations.front().node_count == 3u);
}

BOOST_AUTO_TEST_CASE(an_ended_job_frees_its_nodes_for_the_next) {
  all_nodes_idle();
  auto first = enqueue(1, 4);
  BOOST_REQUIRE_EQUAL(first->started_on.size(), 4u);
  // The nodes stay allocated until the job ends; the next job waits.
  for (auto& n : cluster.nodes) node_is(n.name, msg::node_state::allocated);
  auto second = enqueue(2, 2);
  BOOST_TEST(second->started_on.empty());
  caf::anon_send(scheduler, msg::ended_atom_v, uint64_t{1}, true, int64_t{0});
  all_nodes_idle();
  sched.run();
  BOOST_TEST(second->started_on.size() == 2u);
  BOOST_TEST(map().allocations.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_partition_set_down_holds_its_jobs_until_it_is_up_again) {
  all_nodes_idle();
  auto parts = cluster.partitions;
  parts.front().state = "DOWN";
  partitions_are(parts);
  auto news = enqueue(1, 1);
  BOOST_TEST(news->reason == "PartitionDown");
  BOOST_TEST(news->started_on.empty());
  parts.front().state = "INACTIVE";
  partitions_are(parts);
  BOOST_TEST(news->reason == "PartitionInactive");
  parts.front().state = "DRAIN";  // takes no new jobs (the controller's check) but runs these
  partitions_are(parts);
  BOOST_TEST(news->started_on.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_created_partition_takes_jobs_and_a_deleted_one_holds_them) {
  all_nodes_idle();
  auto parts = cluster.partitions;
  config::partition_config extra;
  extra.name = "extra";
  extra.nodes = {cluster.nodes[3].name};
  parts.push_back(extra);
  partitions_are(parts);
  auto req = request(1);
  req.partition = "extra";
  auto placed = enqueue(1, req);
  BOOST_TEST(placed->started_on == std::vector<std::string>{cluster.nodes[3].name});
  parts.pop_back();
  partitions_are(parts);
  auto held = enqueue(2, req);
  BOOST_TEST(held->reason == "PartitionDown");
  // A job of a partition the scheduler never knew (recovered after the config file changed)
  // waits the same way instead of taking the actor down.
  req.partition = "gone";
  auto orphan = enqueue(3, req);
  BOOST_TEST(orphan->reason == "PartitionDown");
}

BOOST_AUTO_TEST_CASE(a_cancelled_pending_job_never_starts) {
  auto news = enqueue(1, 1);
  caf::anon_send(scheduler, msg::cancel_atom_v, uint64_t{1});
  all_nodes_idle();
  sched.run();
  BOOST_TEST(news->started_on.empty());
  BOOST_TEST(map().allocations.empty());
}

BOOST_AUTO_TEST_CASE(a_job_held_while_its_pass_is_out_gives_its_start_back_and_keeps_its_nodelist) {
  all_nodes_idle();
  sched.run();
  auto req = request(1);
  req.nodelist = "node3";
  auto news = std::make_shared<job_news>();
  auto job = keep(sys.spawn(job_double, news));
  caf::anon_send(scheduler, msg::enqueue_atom_v, uint64_t{1}, req, policy::workload_ptr{}, job,
                 int64_t{1'700'000'000});
  // Deliver every message but the topology actor's: the scheduler sends the job's -w and then
  // the pass, which wait in the topology actor's mailbox. The pass is out.
  auto* placer = caf::actor_cast<caf::abstract_actor*>(topology);
  sched.run_jobs_filtered(
      [&](caf::resumable* job) { return dynamic_cast<caf::abstract_actor*>(job) != placer; });
  BOOST_REQUIRE_MESSAGE(sched.has_job(), "no pass was sent");
  // The user holds the job now: the hold reaches the scheduler before the pass's answer.
  caf::anon_send(scheduler, msg::jobctl_atom_v, std::string{"hold"}, uint64_t{1}, uint32_t{1000},
                 false);
  sched.run();
  BOOST_TEST(news->started_on.empty());
  BOOST_TEST(map().allocations.empty());  // the start was given back: no node is held
  // Released, it starts where its -w said, not wherever the pass finds room.
  caf::anon_send(scheduler, msg::jobctl_atom_v, std::string{"release"}, uint64_t{1}, uint32_t{1000},
                 false);
  sched.run();
  BOOST_TEST(news->started_on == std::vector<std::string>({"node3"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

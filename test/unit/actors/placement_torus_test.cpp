#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "actors/placement_torus.hpp"
#include "actors/topology_actor.hpp"

using namespace shoal;
using actors::partition_slot;
using actors::schedule_torus_pass;
using actors::torus_candidate;
using topology::coord3;
using topology::torus_map;

namespace {

torus_map free_map(coord3 dims) {
  torus_map map{dims};
  for (size_t i = 0; i < map.size(); ++i) map.set_available(i, true);
  return map;
}

partition_slot whole(const torus_map& map) {
  partition_slot p;
  for (size_t i = 0; i < map.size(); ++i) p.nodes.push_back(i);
  return p;
}

torus_candidate geometry(uint64_t id, coord3 g, bool rotate = true,
                         topology::conn_type conn = topology::conn_type::torus) {
  torus_candidate c;
  c.job.id = id;
  c.job.nodes = static_cast<uint32_t>(g[0] * g[1] * g[2]);
  c.shape.geometry = g;
  c.shape.node_count = c.job.nodes;
  c.shape.rotate = rotate;
  c.shape.conn = conn;
  return c;
}

torus_candidate count(uint64_t id, uint32_t n) {
  torus_candidate c;
  c.job.id = id;
  c.job.nodes = n;
  c.shape.node_count = n;
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(torus_pass)

BOOST_AUTO_TEST_CASE(jobs_get_disjoint_prisms_of_their_geometry_and_the_map_is_updated) {
  auto map = free_map({8, 4, 4});
  auto result = schedule_torus_pass(
      {geometry(1, {2, 2, 2}), geometry(2, {4, 1, 1}, false), count(3, 4)}, map, {whole(map)});
  BOOST_REQUIRE_EQUAL(result.started.size(), 3u);
  BOOST_CHECK(result.waiting.empty());
  std::set<size_t> used;
  for (auto& p : result.started) {
    auto volume = p.where.size[0] * p.where.size[1] * p.where.size[2];
    BOOST_CHECK_EQUAL(p.nodes.size(), static_cast<size_t>(volume));
    for (auto n : p.nodes) {
      BOOST_CHECK(used.insert(n).second);
      BOOST_CHECK(!map.available(n));
    }
  }
  BOOST_CHECK(result.started[1].where.size == (coord3{4, 1, 1}));
  size_t free_left = 0;
  for (size_t i = 0; i < map.size(); ++i) free_left += map.available(i) ? 1 : 0;
  BOOST_CHECK_EQUAL(free_left, 128u - 8u - 4u - 4u);
}

BOOST_AUTO_TEST_CASE(a_job_that_cannot_fit_waits_for_resources_and_holds_back_its_partition) {
  auto map = free_map({4, 2, 2});
  auto result = schedule_torus_pass(
      {geometry(1, {3, 2, 2}), geometry(2, {2, 2, 2}), geometry(3, {1, 1, 1})}, map, {whole(map)});
  BOOST_REQUIRE_EQUAL(result.started.size(), 1u);
  BOOST_CHECK_EQUAL(result.started[0].job, 1u);
  BOOST_REQUIRE_EQUAL(result.waiting.size(), 2u);
  BOOST_CHECK_EQUAL(result.waiting[0].job, 2u);
  BOOST_CHECK_EQUAL(result.waiting[0].reason, "Resources");
  BOOST_CHECK_EQUAL(result.waiting[1].job, 3u);
  BOOST_CHECK_EQUAL(result.waiting[1].reason, "Priority");
}

BOOST_AUTO_TEST_CASE(priority_orders_the_pass_and_a_down_partition_waits) {
  auto map = free_map({2, 1, 1});
  auto low = geometry(1, {2, 1, 1});
  auto high = geometry(2, {2, 1, 1});
  high.job.priority = 10;
  auto elsewhere = geometry(3, {1, 1, 1});
  elsewhere.job.partition = 1;
  partition_slot down = whole(map);
  down.up = false;
  auto result = schedule_torus_pass({low, high, elsewhere}, map, {whole(map), down});
  BOOST_REQUIRE_EQUAL(result.started.size(), 1u);
  BOOST_CHECK_EQUAL(result.started[0].job, 2u);
  BOOST_REQUIRE_EQUAL(result.waiting.size(), 2u);
  BOOST_CHECK_EQUAL(result.waiting[0].reason, "Resources");
  BOOST_CHECK_EQUAL(result.waiting[1].reason, "PartitionDown");
}

BOOST_AUTO_TEST_CASE(only_a_torus_connection_uses_the_wrap_around_links) {
  // Free: x = 0 and x = 3 of a 4x1x1 line; they touch only through the wrap.
  auto make = [] {
    auto map = free_map({4, 1, 1});
    map.set_available(1, false);
    map.set_available(2, false);
    return map;
  };
  auto mesh_map = make();
  auto mesh = schedule_torus_pass({geometry(1, {2, 1, 1}, false, topology::conn_type::mesh)},
                                  mesh_map, {whole(mesh_map)});
  BOOST_CHECK(mesh.started.empty());
  auto torus_map_ = make();
  auto torus = schedule_torus_pass({geometry(1, {2, 1, 1}, false, topology::conn_type::torus)},
                                   torus_map_, {whole(torus_map_)});
  BOOST_REQUIRE_EQUAL(torus.started.size(), 1u);
  BOOST_CHECK(torus.started[0].nodes == (std::vector<size_t>{0, 3}));
}

BOOST_AUTO_TEST_CASE(partition_members_and_exclusions_bound_the_placement) {
  auto map = free_map({4, 1, 1});
  partition_slot part;
  part.nodes = {2, 3};
  auto c = geometry(1, {1, 1, 1});
  c.job.excluded = {2};
  auto result = schedule_torus_pass({c}, map, {part});
  BOOST_REQUIRE_EQUAL(result.started.size(), 1u);
  BOOST_CHECK(result.started[0].nodes == (std::vector<size_t>{3}));
  BOOST_CHECK(map.available(0) && map.available(1) && map.available(2));
}

BOOST_AUTO_TEST_CASE(random_passes_never_overlap_or_use_a_busy_node) {
  auto seed = std::random_device{}();
  BOOST_TEST_MESSAGE("seed " << seed);
  std::mt19937 rng{seed};
  for (int round = 0; round < 50; ++round) {
    auto map = free_map({4, 4, 4});
    std::vector<bool> busy(map.size());
    for (size_t i = 0; i < map.size(); ++i) {
      busy[i] = rng() % 3 == 0;
      map.set_available(i, !busy[i]);
    }
    std::vector<torus_candidate> jobs;
    for (uint64_t id = 1; id <= 6; ++id) {
      if (rng() % 2 == 0)
        jobs.push_back(count(id, 1 + rng() % 6));
      else
        jobs.push_back(geometry(id,
                                {1 + static_cast<int>(rng() % 3), 1 + static_cast<int>(rng() % 3),
                                 1 + static_cast<int>(rng() % 2)},
                                rng() % 2 == 0));
    }
    auto result = schedule_torus_pass(jobs, map, {whole(map)});
    std::set<size_t> used;
    for (auto& p : result.started)
      for (auto n : p.nodes) {
        BOOST_CHECK_MESSAGE(!busy[n], "seed " << seed << ": node " << n << " was busy");
        BOOST_CHECK_MESSAGE(used.insert(n).second, "seed " << seed << ": node " << n << " twice");
      }
    BOOST_CHECK_EQUAL(result.started.size() + result.waiting.size(), jobs.size());
  }
}

BOOST_AUTO_TEST_CASE(a_job_shape_becomes_the_allocator_request) {
  msg::job_shape shape;
  auto plain = actors::torus_request_of(shape, 5);
  BOOST_CHECK(!plain.geometry);
  BOOST_CHECK_EQUAL(plain.node_count, 5u);
  BOOST_CHECK(plain.rotate);
  BOOST_CHECK(plain.conn == topology::conn_type::torus);
  shape.geometry = {4, 1, 2};
  shape.rotate = false;
  shape.conn_type = "mesh";
  auto shaped = actors::torus_request_of(shape, 8);
  BOOST_REQUIRE(shaped.geometry);
  BOOST_CHECK(*shaped.geometry == (coord3{4, 1, 2}));
  BOOST_CHECK(!shaped.rotate);
  BOOST_CHECK(shaped.conn == topology::conn_type::mesh);
}

BOOST_AUTO_TEST_SUITE_END()

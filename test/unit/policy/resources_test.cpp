// policy::place with the per-node bounds Slurm scripts ask for: --ntasks-per-node caps the tasks
// a node takes, --mincpus keeps smaller nodes out.

#include <boost/test/unit_test.hpp>

#include <vector>

#include "policy/resources.hpp"

using namespace shoal::policy;

namespace {

/// Nodes of the given CPU counts, 8 GB each, all free.
struct cluster {
  std::vector<node_capacity> nodes;
  std::vector<uint32_t> free_cpus;
  std::vector<uint64_t> free_mem;
  std::vector<size_t> members;

  explicit cluster(std::vector<uint32_t> cpus) {
    for (size_t i = 0; i < cpus.size(); ++i) {
      nodes.push_back({cpus[i], 8000, true});
      free_cpus.push_back(cpus[i]);
      free_mem.push_back(8000);
      members.push_back(i);
    }
  }

  std::optional<allocation> place_job(const resource_request& req, select_type select) const {
    placement_options options;
    options.select = select;
    return place(req, members, nodes, free_view{free_cpus, free_mem}, options);
  }
};

std::vector<size_t> nodes_of(const allocation& a) {
  std::vector<size_t> out;
  for (auto& s : a) out.push_back(s.node);
  return out;
}

std::vector<uint32_t> tasks_of(const allocation& a) {
  std::vector<uint32_t> out;
  for (auto& s : a) out.push_back(s.tasks);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(per_node_bounds)

BOOST_AUTO_TEST_CASE(ntasks_per_node_spreads_shared_tasks_over_more_nodes) {
  cluster c{{8, 8, 8}};
  resource_request req;
  req.min_nodes = 1;
  req.tasks = 4;
  auto packed = c.place_job(req, select_type::cons_tres);
  BOOST_REQUIRE(packed);
  BOOST_CHECK_EQUAL(packed->size(), 1u);
  req.tasks_per_node = 2;
  auto spread = c.place_job(req, select_type::cons_tres);
  BOOST_REQUIRE(spread);
  BOOST_CHECK((tasks_of(*spread) == std::vector<uint32_t>{2, 2}));
}

BOOST_AUTO_TEST_CASE(ntasks_per_node_caps_each_whole_node) {
  cluster c{{8, 8, 8}};
  resource_request req;
  req.min_nodes = 1;
  req.tasks = 6;
  req.tasks_per_node = 2;
  auto a = c.place_job(req, select_type::linear);
  BOOST_REQUIRE(a);
  BOOST_CHECK((tasks_of(*a) == std::vector<uint32_t>{2, 2, 2}));
  req.tasks = 7;  // three nodes hold at most 6
  BOOST_CHECK(!c.place_job(req, select_type::linear));
}

BOOST_AUTO_TEST_CASE(mincpus_keeps_smaller_nodes_out) {
  cluster c{{2, 4, 2, 4}};
  resource_request req;
  req.min_nodes = 2;
  req.tasks = 2;
  req.min_cpus = 4;
  for (auto select : {select_type::linear, select_type::cons_tres}) {
    auto a = c.place_job(req, select);
    BOOST_REQUIRE(a);
    BOOST_CHECK((nodes_of(*a) == std::vector<size_t>{1, 3}));
  }
  req.min_nodes = 3;
  req.tasks = 3;
  BOOST_CHECK(!c.place_job(req, select_type::linear));
  BOOST_CHECK(!c.place_job(req, select_type::cons_tres));
}

BOOST_AUTO_TEST_SUITE_END()

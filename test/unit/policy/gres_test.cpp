#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "policy/gres.hpp"
#include "policy/scheduling_pass.hpp"

using namespace shoal;
using namespace shoal::policy;

namespace {

std::string error_of(const shoal::expected<gres_list>& list) {
  return list ? std::string{"(no error)"} : describe(list.error());
}

/// Nodes of 8 CPUs; `gpus` devices of kind 0 each.
std::vector<node_capacity> gpu_nodes(size_t n, uint32_t gpus) {
  node_capacity cap{8, 8000, true, {gpus}};
  return std::vector<node_capacity>(n, cap);
}

partition_info all_of(size_t n) {
  partition_info p;
  for (size_t i = 0; i < n; ++i) p.nodes.push_back(i);
  return p;
}

pending_job gpu_job(uint64_t id, uint32_t gpus, int64_t prio = 10) {
  pending_job j;
  j.id = id;
  j.priority = prio;
  j.time_limit = 100;
  if (gpus > 0) j.request.gres = {{{0}, gpus}};
  return j;
}

const start_decision* start_of(const pass_result& r, uint64_t id) {
  auto it = std::find_if(r.started.begin(), r.started.end(),
                         [&](const start_decision& d) { return d.job == id; });
  return it == r.started.end() ? nullptr : &*it;
}

std::string reason_of(const pass_result& r, uint64_t id) {
  for (const auto& w : r.waiting)
    if (w.job == id) return w.reason;
  return "";
}

pass_config with(select_type select) {
  pass_config c;
  c.resolution = 1;
  c.placement.select = select;
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gres)

BOOST_AUTO_TEST_CASE(gres_lists_parse_as_slurm_writes_them) {
  auto list = parse_gres("gpu,gpu:2,gpu:tesla:3,gres:nic:1k,mps:tesla");
  BOOST_REQUIRE_MESSAGE(list, error_of(list));
  BOOST_REQUIRE_EQUAL(list->size(), 5u);
  BOOST_CHECK(((*list)[0] == gres_item{"gpu", "", 1}));
  BOOST_CHECK(((*list)[1] == gres_item{"gpu", "", 2}));
  BOOST_CHECK(((*list)[2] == gres_item{"gpu", "tesla", 3}));
  BOOST_CHECK(((*list)[3] == gres_item{"nic", "", 1024}));
  BOOST_CHECK(((*list)[4] == gres_item{"mps", "tesla", 1}));
  BOOST_CHECK(parse_gres("none")->empty());
  for (const char* bad : {"gpu:", ":2", "gpu:2x", "gpu:a:b:2", "gpu,,nic", "g pu:1", "gpu:a:b"})
    BOOST_CHECK_MESSAGE(
        error_of(parse_gres(bad)) == "Invalid generic resource (gres) specification", bad);
}

BOOST_AUTO_TEST_CASE(a_request_drops_zero_counts_and_refuses_a_name_twice) {
  auto zero = parse_gres_request("gpu:0,nic:tesla:0");
  BOOST_REQUIRE(zero);
  BOOST_CHECK(zero->empty());
  auto one = parse_gres_request("gpu:0,gpu:tesla:1");
  BOOST_REQUIRE(one);
  BOOST_CHECK_EQUAL(gres_text(*one), "gpu:tesla:1");
  BOOST_CHECK_EQUAL(tres_per_node(*one), "gres:gpu:tesla:1");
  BOOST_CHECK_EQUAL(error_of(parse_gres_request("gpu:1,gpu:tesla:1")),
                    "Invalid generic resource (gres) specification");
}

BOOST_AUTO_TEST_CASE(index_ranges_fold_runs) {
  BOOST_CHECK_EQUAL(index_ranges({}), "");
  BOOST_CHECK_EQUAL(index_ranges({0, 1}), "0-1");
  BOOST_CHECK_EQUAL(index_ranges({0, 1, 3, 5, 6, 7}), "0-1,3,5-7");
}

BOOST_AUTO_TEST_CASE(two_gpu_jobs_share_a_four_gpu_node_and_a_third_waits_for_resources) {
  auto nodes = gpu_nodes(1, 4);
  std::vector<partition_info> parts{all_of(1)};
  auto r = schedule({gpu_job(1, 2), gpu_job(2, 2), gpu_job(3, 2)}, {}, parts, nodes, 0,
                    with(select_type::cons_tres));
  BOOST_REQUIRE(start_of(r, 1) != nullptr);
  BOOST_REQUIRE(start_of(r, 2) != nullptr);
  BOOST_CHECK(start_of(r, 3) == nullptr);
  BOOST_CHECK_EQUAL(reason_of(r, 3), "Resources");
  BOOST_CHECK((start_of(r, 1)->alloc[0].gres == std::vector<uint32_t>{2}));
  // The third starts when one of the first two ends, not before: the reservation says so.
  BOOST_REQUIRE_EQUAL(r.planned.size(), 1u);
  BOOST_CHECK_EQUAL(r.planned[0].start, 100);
}

BOOST_AUTO_TEST_CASE(running_jobs_hold_their_devices) {
  auto nodes = gpu_nodes(2, 2);
  std::vector<partition_info> parts{all_of(2)};
  running_job on_first{9, {{0, 1, 0, 1, 1, {2}, {0, 1}}}, 50, {}};
  auto r = schedule({gpu_job(1, 2)}, {on_first}, parts, nodes, 0, with(select_type::cons_tres));
  BOOST_REQUIRE(start_of(r, 1) != nullptr);
  BOOST_CHECK_EQUAL(start_of(r, 1)->alloc[0].node, 1u);
}

BOOST_AUTO_TEST_CASE(jobs_without_gres_run_anywhere_and_get_no_device) {
  auto nodes = gpu_nodes(1, 2);
  std::vector<partition_info> parts{all_of(1)};
  auto r = schedule({gpu_job(1, 2), gpu_job(2, 0), gpu_job(3, 0)}, {}, parts, nodes, 0,
                    with(select_type::cons_tres));
  for (uint64_t id : {1, 2, 3}) BOOST_REQUIRE(start_of(r, id) != nullptr);
  BOOST_CHECK(start_of(r, 2)->alloc[0].gres.empty());
  // gpu:0 on a node with no GPU at all.
  auto plain = std::vector<node_capacity>(1, node_capacity{8, 8000, true, {}});
  auto none = schedule({gpu_job(4, 0)}, {}, parts, plain, 0, with(select_type::cons_tres));
  BOOST_CHECK(start_of(none, 4) != nullptr);
}

BOOST_AUTO_TEST_CASE(a_node_with_too_few_devices_is_never_used) {
  auto nodes = gpu_nodes(2, 2);
  nodes[1].gres = {4};
  std::vector<partition_info> parts{all_of(2)};
  auto r = schedule({gpu_job(1, 3)}, {}, parts, nodes, 0, with(select_type::cons_tres));
  BOOST_REQUIRE(start_of(r, 1) != nullptr);
  BOOST_CHECK_EQUAL(start_of(r, 1)->alloc[0].node, 1u);
  auto none = std::vector<node_capacity>(2, node_capacity{8, 8000, true, {}});
  auto never = schedule({gpu_job(2, 1)}, {}, parts, none, 0, with(select_type::cons_tres));
  BOOST_CHECK(start_of(never, 2) == nullptr);
}

BOOST_AUTO_TEST_CASE(typed_requests_take_only_their_kind) {
  // Kind 0: gpu:tesla, kind 1: gpu:a100. One node with one of each.
  std::vector<node_capacity> nodes{node_capacity{8, 8000, true, {1, 1}}};
  std::vector<partition_info> parts{all_of(1)};
  auto a100 = gpu_job(1, 1);
  a100.request.gres = {{{1}, 1}};
  auto any = gpu_job(2, 1);
  any.request.gres = {{{0, 1}, 1}};
  auto another = gpu_job(3, 1);
  another.request.gres = {{{1}, 1}};
  auto r = schedule({a100, any, another}, {}, parts, nodes, 0, with(select_type::cons_tres));
  BOOST_REQUIRE(start_of(r, 1) != nullptr);
  BOOST_CHECK((start_of(r, 1)->alloc[0].gres == std::vector<uint32_t>{0, 1}));
  BOOST_REQUIRE(start_of(r, 2) != nullptr);
  BOOST_CHECK((start_of(r, 2)->alloc[0].gres == std::vector<uint32_t>{1, 0}));
  BOOST_CHECK(start_of(r, 3) == nullptr);
}

BOOST_AUTO_TEST_CASE(whole_node_selects_check_devices_too) {
  auto nodes = gpu_nodes(2, 1);
  nodes[0].gres = {0};
  std::vector<partition_info> parts{all_of(2)};
  auto r = schedule({gpu_job(1, 1), gpu_job(2, 1)}, {}, parts, nodes, 0, with(select_type::linear));
  BOOST_REQUIRE(start_of(r, 1) != nullptr);
  BOOST_CHECK_EQUAL(start_of(r, 1)->alloc[0].node, 1u);
  BOOST_CHECK_EQUAL(start_of(r, 1)->alloc[0].cpus, 8u);  // the whole node
  BOOST_CHECK((start_of(r, 1)->alloc[0].gres == std::vector<uint32_t>{1}));
  BOOST_CHECK(start_of(r, 2) == nullptr);
  BOOST_CHECK_EQUAL(reason_of(r, 2), "Resources");
}

BOOST_AUTO_TEST_CASE(take_gres_counts_what_is_free) {
  std::vector<uint32_t> cpus{8}, shared, sole;
  std::vector<uint64_t> mem{8000};
  std::vector<uint32_t> free_gres{1, 2};
  free_view free{cpus, mem, 1, nullptr, nullptr, &free_gres, 2};
  auto both = take_gres({{{0, 1}, 3}}, free, 0);
  BOOST_REQUIRE(both);
  BOOST_CHECK((*both == std::vector<uint32_t>{1, 2}));
  BOOST_CHECK(!take_gres({{{0, 1}, 4}}, free, 0));
  BOOST_CHECK(take_gres({}, free, 0)->empty());
}

BOOST_AUTO_TEST_SUITE_END()

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "topology/cpu_binding.hpp"

using namespace shoal::topology;

namespace {

template <class T>
std::string why(const shoal::expected<T>& r) {
  return r ? std::string{"ok"} : shoal::describe(r.error());
}

/// `sockets` x `cores_per_socket` cores of `threads` PUs each, numbered as Linux numbers SMT
/// siblings: the first thread of every core first (0..N-1), the second ones after (N..2N-1).
/// One NUMA node per socket.
std::vector<core_info> machine(uint32_t sockets, uint32_t cores_per_socket, uint32_t threads) {
  std::vector<core_info> cores;
  uint32_t total = sockets * cores_per_socket;
  for (uint32_t s = 0; s < sockets; ++s) {
    for (uint32_t c = 0; c < cores_per_socket; ++c) {
      core_info core;
      core.socket = s;
      core.numa_node = s;
      auto index = s * cores_per_socket + c;
      for (uint32_t t = 0; t < threads; ++t) core.pus.push_back(index + t * total);
      cores.push_back(core);
    }
  }
  return cores;
}

cpu_bind_spec spec_of(const std::string& text) {
  auto spec = parse_cpu_bind(text);
  BOOST_REQUIRE_MESSAGE(spec, why(spec));
  return *spec;
}

/// Each task's CPUs as "[0-1]", blank-separated; "" when nothing is bound.
std::string plan(const std::vector<core_info>& cores, uint32_t tasks, uint32_t cpus_per_task,
                 const std::string& text) {
  auto r = plan_cpu_binding(cores, tasks, cpus_per_task, spec_of(text));
  BOOST_REQUIRE_MESSAGE(r, why(r));
  std::string out;
  for (auto& cpus : *r) out += (out.empty() ? "[" : " [") + cpu_range_list(cpus) + "]";
  return out;
}

std::string parse_error(const std::string& text) {
  auto r = parse_cpu_bind(text);
  BOOST_REQUIRE_MESSAGE(!r, "'" + text + "' parsed");
  BOOST_CHECK(static_cast<bool>(r.error()));
  return shoal::describe(r.error());
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cpu_binding)

// -- parsing ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(types_and_verbosity_parse_as_srun_spells_them) {
  BOOST_TEST(to_string(spec_of("cores")) == "quiet,cores");
  BOOST_TEST(to_string(spec_of("verbose,cores")) == "verbose,cores");
  BOOST_TEST(to_string(spec_of("cores,v")) == "verbose,cores");
  BOOST_TEST(to_string(spec_of("v,q,Threads")) == "quiet,threads");
  BOOST_TEST(to_string(spec_of("socket")) == "quiet,sockets");
  BOOST_TEST(to_string(spec_of("ldom")) == "quiet,ldoms");
  BOOST_TEST(to_string(spec_of("no")) == "quiet,none");
  BOOST_TEST(to_string(spec_of("verbose")) == "verbose,none");
  BOOST_TEST(to_string(spec_of("rank")) == "quiet,rank");
  // The last type wins, as in srun.
  BOOST_TEST(to_string(spec_of("cores,none")) == "quiet,none");
}

BOOST_AUTO_TEST_CASE(lists_keep_values_together_and_expand_repetitions) {
  auto map = spec_of("map_cpu:0,2,1");
  BOOST_CHECK(map.type == cpu_bind_type::map_cpu);
  BOOST_TEST(map.map == (std::vector<uint32_t>{0, 2, 1}), boost::test_tools::per_element());
  BOOST_TEST(to_string(spec_of("verbose,mapcpu=0*2,0x3*2")) == "verbose,map_cpu:0,0,3,3");
  auto mask = spec_of("mask_cpu:0x3,C,verbose");
  BOOST_TEST(mask.verbose);
  BOOST_REQUIRE_EQUAL(mask.masks.size(), 2u);
  BOOST_TEST(mask.masks[0] == (cpu_list{0, 1}), boost::test_tools::per_element());
  BOOST_TEST(mask.masks[1] == (cpu_list{2, 3}), boost::test_tools::per_element());
  BOOST_TEST(to_string(spec_of("MASK_CPU:0x0f*2,f0")) == "quiet,mask_cpu:0xf,0xf,0xf0");
  // A canonical spelling parses back to itself.
  for (auto text : {"verbose,map_cpu:0,0,3,3", "quiet,mask_cpu:0xf,0xf,0xf0", "quiet,ldoms"})
    BOOST_TEST(to_string(spec_of(text)) == text);
}

BOOST_AUTO_TEST_CASE(bad_values_are_errors_that_say_what_to_use) {
  BOOST_TEST(contains(parse_error(""), "empty value"));
  BOOST_TEST(contains(parse_error("bogus"), "unknown type 'bogus'"));
  BOOST_TEST(contains(parse_error("cores,1"), "unknown type 'cores,1'"));
  BOOST_TEST(contains(parse_error("map_cpu"), "map_cpu needs a list"));
  BOOST_TEST(contains(parse_error("map_cpu:"), "map_cpu needs a list"));
  BOOST_TEST(contains(parse_error("map_cpu:x"), "'x' is not a CPU number"));
  BOOST_TEST(contains(parse_error("map_cpu:70000"), "not a CPU number"));
  BOOST_TEST(contains(parse_error("map_cpu:1*0"), "bad repeat count"));
  BOOST_TEST(contains(parse_error("map_cpu:1*70000"), "bad repeat count"));
  BOOST_TEST(contains(parse_error("mask_cpu:0x"), "not a hex CPU mask"));
  BOOST_TEST(contains(parse_error("mask_cpu:0x0"), "selects no CPU"));
  BOOST_TEST(contains(parse_error("mask_cpu:0xg"), "not a hex CPU mask"));
  BOOST_TEST(contains(parse_error("map_ldom:0,1"), "'map_ldom' is not supported"));
  BOOST_TEST(contains(parse_error("mask_ldom:0x1"), "'mask_ldom' is not supported"));
  BOOST_TEST(contains(parse_error("rank_ldom"), "'rank_ldom' is not supported"));
  BOOST_TEST(contains(parse_error("help"), "unknown type 'help'"));
  BOOST_TEST(is_cpu_bind_help("help"));
  BOOST_TEST(is_cpu_bind_help("verbose,HELP"));
  BOOST_TEST(!is_cpu_bind_help("cores"));
}

// -- the plan ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(none_binds_nothing) {
  BOOST_TEST(plan(machine(1, 2, 1), 2, 1, "none") == "");
  // Even on a node whose daemon knows no cores.
  BOOST_TEST(plan({}, 2, 1, "verbose") == "");
}

BOOST_AUTO_TEST_CASE(cores_give_each_task_the_next_cpus_per_task_cores) {
  auto node = machine(2, 4, 1);  // CPUs 0-7, one thread per core
  BOOST_TEST(plan(node, 2, 1, "cores") == "[0] [1]");
  BOOST_TEST(plan(node, 3, 2, "cores") == "[0-1] [2-3] [4-5]");
  // 0 CPUs per task counts as 1.
  BOOST_TEST(plan(node, 1, 0, "cores") == "[0]");
}

BOOST_AUTO_TEST_CASE(cores_wrap_when_the_node_runs_out) {
  auto node = machine(1, 2, 1);  // CPUs 0-1
  BOOST_TEST(plan(node, 3, 1, "cores") == "[0] [1] [0]");
  auto four = machine(1, 4, 1);
  // Task 1 takes core 3 and wraps to cores 0 and 1 for its other CPUs.
  BOOST_TEST(plan(four, 2, 3, "cores") == "[0-2] [0-1,3]");
  // More CPUs than the node has: all of them, each once.
  BOOST_TEST(plan(node, 1, 5, "cores") == "[0-1]");
}

BOOST_AUTO_TEST_CASE(cores_count_cpus_as_threads_and_round_up_to_whole_cores) {
  auto node = machine(1, 4, 2);  // cores {0,4} {1,5} {2,6} {3,7}
  BOOST_TEST(plan(node, 2, 1, "cores") == "[0,4] [1,5]");
  BOOST_TEST(plan(node, 2, 2, "cores") == "[0,4] [1,5]");
  BOOST_TEST(plan(node, 2, 3, "cores") == "[0-1,4-5] [2-3,6-7]");
}

BOOST_AUTO_TEST_CASE(threads_give_single_pus_in_hwloc_order) {
  auto node = machine(1, 2, 2);  // hwloc order: 0 2 1 3
  BOOST_TEST(plan(node, 4, 1, "threads") == "[0] [2] [1] [3]");
  BOOST_TEST(plan(node, 2, 2, "threads") == "[0,2] [1,3]");
  // Wrapping straddles the end: no CPU is left idle while tasks share.
  BOOST_TEST(plan(machine(1, 3, 1), 2, 2, "threads") == "[0-1] [0,2]");
}

BOOST_AUTO_TEST_CASE(sockets_and_ldoms_widen_to_the_whole_domain) {
  auto node = machine(2, 2, 1);  // socket 0: CPUs 0,1; socket 1: CPUs 2,3
  BOOST_TEST(plan(node, 2, 2, "sockets") == "[0-1] [2-3]");
  BOOST_TEST(plan(node, 3, 1, "sockets") == "[0-1] [0-1] [2-3]");
  // A task whose cores straddle two sockets gets both.
  BOOST_TEST(plan(node, 2, 3, "sockets") == "[0-3] [0-3]");
  BOOST_TEST(plan(node, 2, 2, "ldoms") == "[0-1] [2-3]");
}

BOOST_AUTO_TEST_CASE(rank_map_and_mask_apply_per_local_task) {
  auto node = machine(1, 4, 1);
  BOOST_TEST(plan(node, 5, 1, "rank") == "[0] [1] [2] [3] [0]");
  BOOST_TEST(plan(node, 3, 1, "map_cpu:3,1") == "[3] [1] [3]");
  BOOST_TEST(plan(node, 3, 4, "mask_cpu:0x3,0xC") == "[0-1] [2-3] [0-1]");
  // Bits beyond the node are dropped.
  BOOST_TEST(plan(node, 1, 1, "mask_cpu:0x31") == "[0]");
}

BOOST_AUTO_TEST_CASE(cpus_the_node_lacks_are_errors) {
  auto node = machine(1, 2, 1);
  auto map = plan_cpu_binding(node, 1, 1, spec_of("map_cpu:5"));
  BOOST_REQUIRE(!map);
  BOOST_TEST(contains(shoal::describe(map.error()), "CPU 5 is not one of this node's CPUs (0-1)"));
  auto mask = plan_cpu_binding(node, 1, 1, spec_of("mask_cpu:0x30"));
  BOOST_REQUIRE(!mask);
  BOOST_TEST(contains(shoal::describe(mask.error()), "mask 0x30 holds none of this node's CPUs"));
  auto no_cores = plan_cpu_binding({}, 1, 1, spec_of("cores"));
  BOOST_REQUIRE(!no_cores);
  BOOST_TEST(contains(shoal::describe(no_cores.error()), "use --cpu-bind=none"));
}

// -- reporting --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(masks_print_as_slurm_prints_them) {
  BOOST_TEST(padded_hex_mask({0}, 2) == "0x1");
  BOOST_TEST(padded_hex_mask({16, 17, 18, 19}, 64) == "0x00000000000F0000");
  BOOST_TEST(padded_hex_mask({}, 0) == "0x0");
  BOOST_TEST(short_hex_mask({16, 17, 18, 19}) == "0xf0000");
  BOOST_TEST(short_hex_mask({0, 1}) == "0x3");
  BOOST_TEST(short_hex_mask({}) == "0x0");
  BOOST_TEST(cpu_range_list({0, 1, 2, 4, 6, 7}) == "0-2,4,6-7");
  BOOST_TEST(cpu_range_list({}) == "");
}

BOOST_AUTO_TEST_CASE(the_verbose_line_matches_srun) {
  auto mask = make_verbose_bind_line(spec_of("verbose,cores"), "node1", 3, 1, {1}, {0, 1});
  BOOST_TEST(mask.head + "4242" + mask.tail ==
             "cpu-bind=MASK - node1, task  3  1 [4242]: mask 0x2 set\n");
  BOOST_TEST(mask.head + "4242" + mask.failed_tail ==
             "cpu-bind=MASK - node1, task  3  1 [4242]: mask 0x3 set FAILED\n");
  auto none = make_verbose_bind_line(spec_of("verbose,none"), "n2", 12, 0, {}, {0, 1});
  BOOST_TEST(none.head + "7" + none.tail == "cpu-bind=NONE - n2, task 12  0 [7]: mask 0x3\n");
  auto map = make_verbose_bind_line(spec_of("v,map_cpu:1"), "n", 0, 0, {1}, {0, 1});
  BOOST_TEST(map.head == "cpu-bind=MAP  - n, task  0  0 [");
  BOOST_TEST(env_type_name(spec_of("cores")) == "mask_cpu:");
  BOOST_TEST(env_type_name(spec_of("map_cpu:1")) == "map_cpu:");
  BOOST_TEST(env_type_name(spec_of("none")) == "none");
}

BOOST_AUTO_TEST_SUITE_END()

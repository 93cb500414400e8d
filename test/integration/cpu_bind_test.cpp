// `--cpu-bind`: real tasks bound by a real shoald, checked through /proc/self/status.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;

namespace {

/// The value of each "R: Cpus_allowed_list:\tLIST" line, indexed by rank R.
std::vector<std::string> allowed_lists(const std::string& out, size_t ranks) {
  std::vector<std::string> lists(ranks);
  std::regex line{R"(^(\d+): Cpus_allowed_list:\s*(\S+)$)"};
  for (auto& l : lines_of(out)) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    auto rank = std::stoul(m[1]);
    if (rank < ranks) lists[rank] = m[2];
  }
  return lists;
}

/// This process's own Cpus_allowed_list, as the kernel prints it: what the daemons it starts,
/// and their unbound tasks, inherit.
std::string own_allowed_list() {
  std::regex line{R"(^Cpus_allowed_list:\s*(\S+)$)"};
  for (auto& l : lines_of(read_file("/proc/self/status"))) {
    std::smatch m;
    if (std::regex_match(l, m, line)) return m[1];
  }
  return "<no Cpus_allowed_list in /proc/self/status>";
}

const std::vector<std::string> show_allowed = {"grep", "Cpus_allowed_list", "/proc/self/status"};

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(cpu_bind, one_node)

BOOST_AUTO_TEST_CASE(cores_give_each_task_its_own_core, *boost::unit_test::precondition(needs_cpus{
                                                            2, "to give two tasks a core each"})) {
  auto r = run_cli(with({"run", "-N1", "-n2", "-l", "--cpu-bind=cores"}, show_allowed));
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lists = allowed_lists(r.out, 2);
  // Each task one CPU, the tasks on different ones (one thread per core on most test machines;
  // with SMT a core's list names its siblings, still disjoint from the other task's).
  BOOST_TEST(!lists[0].empty(), r.describe());
  BOOST_TEST(!lists[1].empty(), r.describe());
  BOOST_TEST(lists[0] != lists[1], r.describe());
  for (auto& l : lists) BOOST_TEST(l != own_allowed_list(), "task not bound: " << r.describe());
}

BOOST_AUTO_TEST_CASE(threads_and_map_cpu_name_exact_cpus,
                     *boost::unit_test::precondition(needs_cpus{
                         2, "to map tasks to two different ones"})) {
  auto cpus = allowed_cpus();
  auto first = std::to_string(cpus[0]);
  auto second = std::to_string(cpus[1]);
  // map_cpu names OS CPU numbers, reused from the start of the list for later tasks.
  auto r = run_cli(with({"run", "-N1", "-n3", "-l", "--cpu-bind=map_cpu:" + second + "," + first},
                        show_allowed));
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lists = allowed_lists(r.out, 3);
  BOOST_TEST(lists == (std::vector<std::string>{second, first, second}),
             boost::test_tools::per_element());
  // More tasks than CPUs: the plan wraps and tasks share.
  auto t = run_cli(with({"run", "-N1", "-n3", "-l", "--cpu-bind=threads"}, show_allowed));
  BOOST_REQUIRE_MESSAGE(t.exit_code == 0, t.describe());
  auto wrapped = allowed_lists(t.out, 3);
  BOOST_TEST(wrapped[0] == wrapped[2], t.describe());
  BOOST_TEST(wrapped[0] != wrapped[1], t.describe());
}

BOOST_AUTO_TEST_CASE(none_leaves_the_inherited_cpus) {
  auto r = run_cli(with({"run", "-N1", "-n2", "-l", "--cpu-bind=none"}, show_allowed));
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto all = own_allowed_list();
  BOOST_TEST(allowed_lists(r.out, 2) == (std::vector<std::string>{all, all}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(verbose_prints_sruns_line_on_the_tasks_stderr) {
  auto r = run_cli({"run", "-N1", "-n1", "--cpu-bind=verbose,cores", "true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  std::regex line{R"(cpu-bind=MASK - node1, task  0  0 \[[0-9]+\]: mask 0x[0-9a-f]+ set)"};
  auto lines = lines_of(r.err);
  BOOST_TEST(std::any_of(lines.begin(), lines.end(),
                         [&](const std::string& l) { return std::regex_match(l, line); }),
             r.describe());
  auto none = run_cli({"run", "-N1", "-n1", "--cpu-bind=verbose", "true"});
  BOOST_REQUIRE_MESSAGE(none.exit_code == 0, none.describe());
  BOOST_TEST(none.err.find("cpu-bind=NONE - node1, task  0  0 [") != std::string::npos,
             none.describe());
}

BOOST_AUTO_TEST_CASE(tasks_see_the_binding_in_their_environment) {
  auto r = run_cli({"run", "-N1", "-n1", "--cpu-bind=map_cpu:" + std::to_string(allowed_cpus()[0]),
                    "sh", "-c",
                    "echo \"$SHOAL_CPU_BIND|$SHOAL_CPU_BIND_TYPE|$SHOAL_CPU_BIND_LIST|"
                    "$SHOAL_CPU_BIND_VERBOSE\""});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto cpu = std::to_string(allowed_cpus()[0]);
  BOOST_TEST(r.out == "quiet,map_cpu:" + cpu + "|map_cpu:|" + cpu + "|quiet\n");
  auto cores = run_cli({"run", "-N1", "-n1", "--cpu-bind=cores", "sh", "-c",
                        "echo \"$SHOAL_CPU_BIND_TYPE $SHOAL_CPU_BIND\""});
  BOOST_REQUIRE_MESSAGE(cores.exit_code == 0, cores.describe());
  BOOST_TEST(cores.out.rfind("mask_cpu: quiet,mask_cpu:0x", 0) == 0u, cores.describe());
  auto unbound = run_cli({"run", "-N1", "-n1", "sh", "-c", "echo \"[${SHOAL_CPU_BIND-unset}]\""});
  BOOST_TEST(unbound.out == "[unset]\n", unbound.describe());
}

BOOST_AUTO_TEST_CASE(bad_types_exit_2_with_the_reason) {
  auto r = run_cli({"run", "-n1", "--cpu-bind=bogus", "true"});
  BOOST_TEST(r.exit_code == 2, r.describe());
  BOOST_TEST(r.err.find("unknown type 'bogus'") != std::string::npos, r.describe());
  auto ldom = run_cli({"run", "-n1", "--cpu-bind=map_ldom:0", "true"});
  BOOST_TEST(ldom.exit_code == 2, ldom.describe());
  BOOST_TEST(ldom.err.find("'map_ldom' is not supported") != std::string::npos, ldom.describe());
  write_file(scratch.file("job.sh"), "#!/bin/sh\ntrue\n", true);
  auto batch = run_cli({"batch", "--cpu-bind=mask_cpu:zz", "job.sh"});
  BOOST_TEST(batch.exit_code == 2, batch.describe());
  BOOST_TEST(batch.err.find("not a hex CPU mask") != std::string::npos, batch.describe());
  auto help = run_cli({"run", "--cpu-bind=help", "true"});
  BOOST_TEST(help.exit_code == 0, help.describe());
  BOOST_TEST(help.out.find("CPU bind options:") == 0u, help.describe());
  // Nothing was submitted.
  BOOST_TEST(jobs().size() == 0u);
}

BOOST_AUTO_TEST_CASE(a_cpu_the_node_lacks_fails_the_step_before_it_starts) {
  auto r = run_cli({"run", "-N1", "-n1", "--cpu-bind=map_cpu:4095", "sh", "-c", "echo ran"});
  BOOST_TEST(r.exit_code != 0, r.describe());
  BOOST_TEST(r.out.find("ran") == std::string::npos, r.describe());
  BOOST_TEST(r.err.find("CPU 4095 is not one of this node's CPUs") != std::string::npos,
             r.describe());
}

BOOST_AUTO_TEST_CASE(a_batch_script_is_bound_as_local_task_0) {
  auto cpus = allowed_cpus();
  auto id = submit_script("bound.sh",
                          "#!/bin/sh\n#SHOAL --cpu-bind=threads\n"
                          "grep Cpus_allowed_list /proc/self/status\n"
                          "echo \"type=$SHOAL_CPU_BIND_TYPE\"\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  auto out = read_file(scratch.file("shoal-" + std::to_string(id) + ".out"));
  auto lines = lines_of(out);
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  std::regex allowed{R"(^Cpus_allowed_list:\s*(\S+)$)"};
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_match(lines[0], m, allowed), out);
  // threads: one CPU, the first hwloc lists.
  BOOST_TEST(m[1].str().find_first_of(",-") == std::string::npos, out);
  BOOST_TEST(lines[1] == "type=mask_cpu:");
}

BOOST_AUTO_TEST_SUITE_END()

// SwitchType=switch/elan end to end: every task of a step sees its program description and its
// capabilities in its environment and in the step's switch file (gone once the step ended), and
// program descriptions never repeat, across a kill -9 of the controller or a backup's takeover.

#include <signal.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "test/integration/controller_pair.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// The Elan map, in a directory of its own (the cluster's does not exist before it starts).
struct elan_map_file {
  scratch_dir map_dir;
  std::string path;
  /// node1 -> 20, node2 -> 21, ...
  elan_map_file()
      : path(write_file(map_dir.file("elanhosts"),
                        "# genders-style: NODES ATTRIBUTES\nnode[1-4] elanid=20,compute\n")) {}
  std::string config() const {
    return "SwitchType=switch/elan\nSwitchParameters=elan_map=" + path + ",elan_rails=2\n";
  }
};

struct elan_nodes : elan_map_file, cluster_fixture {
  elan_nodes() : elan_map_file(), cluster_fixture(2, config() + "HeartBeatInterval=0.5\n") {}
};

/// A step's program description, as its one task sees it; 0 when the step failed.
uint32_t program_of(const command_result& r) {
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  try {
    return static_cast<uint32_t>(std::stoul(r.out));
  } catch (const std::exception&) {
    return 0;
  }
}

/// A one-task step that prints its program description.
const std::vector<std::string> print_program{"run", "-N1", "sh", "-c", "echo $SHOAL_ELAN_PROGRAM"};

}  // namespace

BOOST_AUTO_TEST_SUITE(interconnect)

BOOST_FIXTURE_TEST_CASE(each_task_sees_its_capabilities_in_its_environment_and_file, elan_nodes) {
  // Per task: "E NODE PROGRAM NODE_ID RAILS CAP0 CAP1 FILE", then the file's lines as "F LINE".
  auto r = run_cli({"run", "-N2", "-n4", "sh", "-c",
                    "echo E $SHOAL_NODENAME $SHOAL_ELAN_PROGRAM $SHOAL_ELAN_NODE_ID "
                    "$SHOAL_ELAN_RAILS $SHOAL_ELAN_CAP0 $SHOAL_ELAN_CAP1 $SHOAL_SWITCH_FILE; "
                    "sed 's/^/F /' \"$SHOAL_SWITCH_FILE\""});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  std::set<std::string> programs, cap0, cap1, files, file_lines;
  std::map<std::string, std::string> node_ids;
  size_t tasks = 0;
  for (auto& line : lines_of(r.out)) {
    std::istringstream in{line};
    std::string tag;
    in >> tag;
    if (tag == "F") {
      file_lines.insert(line.substr(2));
      continue;
    }
    BOOST_REQUIRE_MESSAGE(tag == "E", line);
    std::string node, program, id, rails, c0, c1, file;
    in >> node >> program >> id >> rails >> c0 >> c1 >> file;
    ++tasks;
    programs.insert(program);
    node_ids[node] = id;
    BOOST_CHECK_EQUAL(rails, "2");
    cap0.insert(c0);
    cap1.insert(c1);
    files.insert(file);
  }
  BOOST_CHECK_EQUAL(tasks, 4u);
  BOOST_CHECK_EQUAL(programs.size(), 1u);  // one program description for the whole step
  BOOST_CHECK_EQUAL(node_ids["node1"], "20");
  BOOST_CHECK_EQUAL(node_ids["node2"], "21");
  // One capability per rail, the same on every node: KEY:LOWID-HIGHID:LOWCTX-HIGHCTX, two
  // contexts (two tasks per node).
  BOOST_REQUIRE_EQUAL(cap0.size(), 1u);
  BOOST_REQUIRE_EQUAL(cap1.size(), 1u);
  auto c0 = *cap0.begin();
  BOOST_CHECK_EQUAL(c0.size(), 32u + std::string{":20-21:1024-1025"}.size());
  BOOST_CHECK(c0.substr(32) == ":20-21:1024-1025");
  BOOST_CHECK(cap1.begin()->substr(32) == ":20-21:1024-1025");
  BOOST_CHECK(c0.substr(0, 32) != cap1.begin()->substr(0, 32));
  // Each node's file, with what the environment said.
  BOOST_CHECK_EQUAL(files.size(), 2u);
  BOOST_CHECK(file_lines.count("SHOAL_SWITCH_TYPE=elan") == 1);
  BOOST_CHECK(file_lines.count("SHOAL_ELAN_CAP0=" + c0) == 1);
  BOOST_CHECK(file_lines.count("SHOAL_ELAN_PROGRAM=" + *programs.begin()) == 1);
  // Released at the step's end: the files are gone.
  for (auto& file : files)
    BOOST_CHECK_MESSAGE(wait_until([&] { return ::access(file.c_str(), F_OK) != 0; }, 10s), file);

  // The next step: a new program description, new keys, the released contexts again.
  auto again =
      run_cli({"run", "-N2", "-n2", "sh", "-c", "echo $SHOAL_ELAN_PROGRAM $SHOAL_ELAN_CAP0"});
  BOOST_REQUIRE_MESSAGE(again.exit_code == 0, again.describe());
  for (auto& line : lines_of(again.out)) {
    std::istringstream in{line};
    std::string program, cap;
    in >> program >> cap;
    BOOST_CHECK(programs.count(program) == 0);
    BOOST_CHECK(cap.substr(0, 32) != c0.substr(0, 32));
    BOOST_CHECK(cap.substr(32) == ":20-21:1024-1024");
  }
}

BOOST_FIXTURE_TEST_CASE(program_descriptions_never_repeat_across_a_controller_restart, elan_nodes) {
  auto first = program_of(run_cli(print_program));
  auto second = program_of(run_cli(print_program));
  BOOST_CHECK_GT(second, first);
  // A batch job on node2 holds the lowest contexts across the restart.
  auto holder = submit_script("hold.sh", "#!/bin/sh\nsleep 120\n", {"-w", "node2"});
  BOOST_REQUIRE(wait_job_state(holder, "RUNNING"));
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE(!cluster.restart_controller());
  BOOST_REQUIRE(wait_node_state("node1", "IDLE"));
  auto after = program_of(run_cli(print_program));
  BOOST_CHECK_GT(after, second + 1);  // the batch step had second + 1
  auto r = run_cli({"run", "-w", "node1", "sh", "-c", "echo $SHOAL_ELAN_CAP0"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find(":20-20:1025-1025") != std::string::npos, r.describe());
  BOOST_CHECK_EQUAL(run_cli({"cancel", std::to_string(holder)}).exit_code, 0);
}

namespace {

/// The backup pair of backup_controller_test with switch/elan.
struct elan_pair : elan_map_file, controller_pair {
  elan_pair()
      : elan_map_file(),
        controller_pair(
            "NodeName=node[1-2] NodeAddr=127.0.0.1\n"
            "PartitionName=debug Nodes=node[1-2] Default=YES MaxTime=INFINITE\n" +
                config(),
            2, {{"node1", {"-N", "node1"}}, {"node2", {"-N", "node2"}}}) {}
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(program_descriptions_never_repeat_across_a_takeover, elan_pair) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, 60s), "the cluster never came up");
  auto before = program_of(shoal(print_program));
  BOOST_CHECK_GT(before, 0u);
  primary->kill_now();
  BOOST_REQUIRE(wait_for_log("ctl2.log", "controller in control role=backup"));
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, takeover_bound),
                        "the node daemons did not register with the backup");
  auto after = program_of(shoal(print_program));
  BOOST_CHECK_GT(after, before);
}

BOOST_AUTO_TEST_SUITE_END()

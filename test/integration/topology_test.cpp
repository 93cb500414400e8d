// The topology actor end to end: a local 8x4x4 torus of base partitions served by two front-end
// shoald processes, jobs with geometries, `shoal map --json`, box-form nodelists, mesh vs torus
// wrapping; and `shoal map` plus the torus options on an ordinary (1-D) cluster.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// An 8x4x4 torus (SelectType=select/torus3d, nodes bgl[000x733]) served by two front ends.
struct torus_cluster {
  torus_cluster() {
    if (auto err = cluster.launch_torus({8, 4, 4}, 2, test_auth_config())) {
      cluster.tear_down(true);
      throw std::runtime_error("cannot launch the torus: " + shoal::describe(err));
    }
    conf = cluster.config_path();
    if (auto err = cluster.wait_until_ready(90)) {
      cluster.tear_down(true);
      throw std::runtime_error("the torus did not come up: " + shoal::describe(err));
    }
  }

  ~torus_cluster() {
    if (current_test_passed()) return;
    std::cerr << "integration: torus test failed; cluster files kept in " << cluster.directory()
              << "\n";
    cluster.tear_down(true);
    scratch.keep();
  }

  command_result cli(const std::vector<std::string>& args) {
    command_options opt;
    opt.cwd = scratch.path();
    return run_shoal(conf, args, opt);
  }

  /// Submits `sleep 60` as a batch job with `options`; 0 after a failed check.
  uint64_t sleeper(const std::vector<std::string>& options) {
    write_file(scratch.file("sleep.sh"), "#!/bin/sh\nsleep 60\n", true);
    std::vector<std::string> args{"batch"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("sleep.sh");
    auto r = cli(args);
    auto id = submitted_job_id(r.out);
    BOOST_CHECK_MESSAGE(r.exit_code == 0 && id != 0, "shoal batch failed: " << r.describe());
    return id;
  }

  nlohmann::json job(uint64_t id) {
    auto doc = parse_json(cli({"queue", "-t", "all", "--json"}).out);
    if (doc.is_object() && doc["jobs"].is_array())
      for (auto& j : doc["jobs"])
        if (j.value("job_id", uint64_t{0}) == id) return j;
    return nullptr;
  }

  bool wait_state(uint64_t id, const std::string& state, const std::string& reason = "") {
    std::string last;
    bool ok = wait_until(
        [&] {
          auto j = job(id);
          last = j.is_object() ? j.value("state", "") + "/" + j.value("reason", "") : "";
          return j.is_object() && j.value("state", "") == state &&
                 (reason.empty() || j.value("reason", "") == reason);
        },
        60s);
    if (!ok) BOOST_TEST_MESSAGE("job " << id << " is " << last << ", not " << state);
    return ok;
  }

  nlohmann::json map() {
    auto r = cli({"map", "--json"});
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    return parse_json(r.out);
  }

  /// The map's allocation of `id`, or null.
  static nlohmann::json allocation(const nlohmann::json& map, uint64_t id) {
    for (auto& j : map["jobs"])
      if (j.value("job_id", uint64_t{0}) == id) return j;
    return nullptr;
  }

  shoal::runtime::local_cluster cluster;
  scratch_dir scratch;
  std::string conf;
};

std::vector<int> sizes_of(const nlohmann::json& alloc) {
  std::vector<int> out;
  for (auto& v : alloc["size"]) out.push_back(v.get<int>());
  return out;
}

/// Every node a job holds, by job id, from the map's node list.
std::map<uint64_t, std::set<std::string>> holders(const nlohmann::json& map) {
  std::map<uint64_t, std::set<std::string>> out;
  for (auto& n : map["nodes"]) {
    auto job = n.value("job_id", uint64_t{0});
    if (job != 0) out[job].insert(n.value("name", ""));
  }
  return out;
}

/// The base partitions a prism covers, wrapping around the 8x4x4 grid.
std::set<std::string> prism_names(const nlohmann::json& alloc) {
  const std::array<int, 3> dims{8, 4, 4};
  std::set<std::string> out;
  auto o = alloc["origin"];
  auto s = alloc["size"];
  for (int x = 0; x < s[0].get<int>(); ++x)
    for (int y = 0; y < s[1].get<int>(); ++y)
      for (int z = 0; z < s[2].get<int>(); ++z)
        out.insert("bgl" + std::to_string((o[0].get<int>() + x) % dims[0]) +
                   std::to_string((o[1].get<int>() + y) % dims[1]) +
                   std::to_string((o[2].get<int>() + z) % dims[2]));
  return out;
}

const std::regex box_form{R"(bgl\[[0-9A-Z]{3}x[0-9A-Z]{3}(,[0-9A-Z]{3}x[0-9A-Z]{3})*\])"};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(torus_topology, torus_cluster)

BOOST_AUTO_TEST_CASE(geometries_get_non_overlapping_prisms_shown_in_box_form) {
  // sinfo's lines in Blue Gene/L's box form: the idle torus is one box.
  auto summary = cli({"info"});
  BOOST_CHECK_MESSAGE(summary.out.find(" bgl[000x733]\n") != std::string::npos, summary.out);
  auto cube = sleeper({"-g", "2x2x2"});
  auto bar = sleeper({"--geometry=4x1x1", "--no-rotate"});
  auto count = sleeper({"-N", "4"});
  for (auto id : {cube, bar, count}) BOOST_REQUIRE(wait_state(id, "RUNNING"));

  auto doc = map();
  BOOST_REQUIRE(doc.is_object());
  BOOST_CHECK_EQUAL(doc.value("select_type", ""), "select/torus3d");
  BOOST_CHECK(doc["dims"] == nlohmann::json::array({8, 4, 4}));
  BOOST_CHECK_EQUAL(doc["nodes"].size(), 128u);
  BOOST_REQUIRE_EQUAL(doc["jobs"].size(), 3u);

  auto cube_alloc = allocation(doc, cube);
  auto bar_alloc = allocation(doc, bar);
  auto count_alloc = allocation(doc, count);
  BOOST_REQUIRE(cube_alloc.is_object() && bar_alloc.is_object() && count_alloc.is_object());
  BOOST_CHECK(sizes_of(cube_alloc) == (std::vector<int>{2, 2, 2}));
  BOOST_CHECK(sizes_of(bar_alloc) == (std::vector<int>{4, 1, 1}));  // --no-rotate: as given
  auto count_sizes = sizes_of(count_alloc);
  BOOST_CHECK_EQUAL(count_sizes[0] * count_sizes[1] * count_sizes[2], 4);
  BOOST_CHECK_EQUAL(cube_alloc.value("node_count", 0u), 8u);
  BOOST_CHECK_EQUAL(bar_alloc.value("node_count", 0u), 4u);
  BOOST_CHECK_EQUAL(count_alloc.value("node_count", 0u), 4u);

  // Each job holds exactly the base partitions of its prism, and no node is held twice.
  auto held = holders(doc);
  size_t total = 0;
  for (auto& [id, alloc] : {std::pair{cube, cube_alloc}, {bar, bar_alloc}, {count, count_alloc}}) {
    BOOST_CHECK_MESSAGE(held[id] == prism_names(alloc), "job " << id << " holds other nodes");
    total += held[id].size();
    BOOST_CHECK_MESSAGE(std::regex_match(alloc.value("nodelist", ""), box_form),
                        alloc.value("nodelist", ""));
  }
  std::set<std::string> all;
  for (auto& [id, names] : held) all.insert(names.begin(), names.end());
  BOOST_CHECK_EQUAL(all.size(), total);

  // squeue and scontrol show job list the same box form.
  auto queue = cli({"queue", "-o", "JobId,NodeList"});
  BOOST_CHECK_MESSAGE(queue.out.find(cube_alloc.value("nodelist", "?")) != std::string::npos,
                      queue.out);
  auto show = cli({"control", "show", "job", std::to_string(bar)});
  BOOST_CHECK_MESSAGE(
      show.out.find("NodeList=" + bar_alloc.value("nodelist", "?")) != std::string::npos, show.out);

  // sinfo's allocated line names 16 nodes in a few boxes; idle and allocated make 128.
  auto busy = cli({"info"});
  size_t allocated_lines = 0;
  for (auto& line : lines_of(busy.out)) {
    if (line.find(" alloc ") == std::string::npos) continue;
    ++allocated_lines;
    auto boxes = line.substr(line.rfind(' ') + 1);
    BOOST_CHECK_MESSAGE(boxes.find('x') != std::string::npos, line);
    auto names = cli({"control", "show", "hostnames", boxes});
    BOOST_CHECK_MESSAGE(lines_of(names.out).size() == 16u, names.describe());
  }
  BOOST_CHECK_MESSAGE(allocated_lines == 1u, busy.out);

  // The picture: a letter per job, a legend line per job.
  auto picture = cli({"map", "-c"});
  BOOST_CHECK_EQUAL(picture.exit_code, 0);
  BOOST_CHECK_MESSAGE(picture.out.find("x=7") != std::string::npos, picture.out);
  BOOST_CHECK_EQUAL(count_lines_with(picture.out, cube_alloc.value("nodelist", "?")), 1u);

  // The whole torus cannot start now: it waits for Resources, and starts once the others end.
  auto whole = sleeper({"-g", "8x4x4"});
  BOOST_REQUIRE(wait_state(whole, "PENDING", "Resources"));
  for (auto id : {cube, bar, count})
    BOOST_CHECK_EQUAL(cli({"cancel", std::to_string(id)}).exit_code, 0);
  BOOST_REQUIRE(wait_state(whole, "RUNNING"));
  auto after = map();
  BOOST_CHECK_EQUAL(holders(after)[whole].size(), 128u);
  BOOST_CHECK_EQUAL(allocation(after, whole).value("nodelist", ""), "bgl[000x733]");
  cli({"cancel", std::to_string(whole)});
}

BOOST_AUTO_TEST_CASE(only_a_torus_connection_wraps_around_the_grid) {
  // Fill the torus with eight X planes, then free planes x=0 and x=7: two free planes that
  // touch only through the wrap-around links.
  std::vector<uint64_t> planes;
  for (int i = 0; i < 8; ++i) planes.push_back(sleeper({"-g", "1x4x4", "-R"}));
  for (auto id : planes) BOOST_REQUIRE(wait_state(id, "RUNNING"));
  auto doc = map();
  for (auto id : planes) {
    auto x = allocation(doc, id)["origin"][0].get<int>();
    if (x == 0 || x == 7) BOOST_CHECK_EQUAL(cli({"cancel", std::to_string(id)}).exit_code, 0);
  }
  BOOST_REQUIRE(wait_until(
      [&] {
        auto m = map();
        return m.is_object() && m["jobs"].size() == 6u;
      },
      60s));

  auto mesh = sleeper({"-g", "2x4x4", "-R", "--conn-type=mesh"});
  BOOST_REQUIRE(wait_state(mesh, "PENDING", "Resources"));
  BOOST_CHECK_EQUAL(cli({"cancel", std::to_string(mesh)}).exit_code, 0);
  BOOST_REQUIRE(wait_state(mesh, "CANCELLED"));

  auto torus = sleeper({"-g", "2x4x4", "-R", "--conn-type=torus"});
  BOOST_REQUIRE(wait_state(torus, "RUNNING"));
  auto alloc = allocation(map(), torus);
  BOOST_REQUIRE(alloc.is_object());
  BOOST_CHECK_EQUAL(alloc["origin"][0].get<int>(), 7);
  BOOST_CHECK_EQUAL(alloc.value("conn_type", ""), "torus");
  // A wrapping prism prints as a list of boxes.
  BOOST_CHECK_MESSAGE(std::regex_match(alloc.value("nodelist", ""), box_form) &&
                          alloc.value("nodelist", "").find(',') != std::string::npos,
                      alloc.value("nodelist", ""));
  for (auto id : planes) cli({"cancel", std::to_string(id)});
  cli({"cancel", std::to_string(torus)});
}

BOOST_AUTO_TEST_CASE(bad_torus_options_are_usage_errors_and_impossible_geometries_rejected) {
  write_file(scratch.file("t.sh"), "#!/bin/sh\ntrue\n", true);
  for (auto args : std::vector<std::vector<std::string>>{{"batch", "-g", "2x2", "t.sh"},
                                                         {"batch", "-g", "0x1x1", "t.sh"},
                                                         {"batch", "--conn-type=ring", "t.sh"},
                                                         {"batch", "--node-use=dual", "t.sh"}}) {
    auto r = cli(args);
    BOOST_CHECK_MESSAGE(r.exit_code == 2 && r.err.find("invalid") != std::string::npos,
                        r.describe());
  }
  auto too_big = cli({"batch", "-g", "9x1x1", "t.sh"});
  BOOST_CHECK_EQUAL(too_big.exit_code, 1);
  BOOST_CHECK_MESSAGE(too_big.err.find("does not fit the 8x4x4 torus") != std::string::npos,
                      too_big.describe());
  auto no_rotate = cli({"batch", "-g", "1x8x1", "-R", "t.sh"});
  BOOST_CHECK_MESSAGE(
      no_rotate.exit_code == 1 && no_rotate.err.find("without rotation") != std::string::npos,
      no_rotate.describe());
  auto rotated = cli({"batch", "-g", "1x8x1", "t.sh"});
  BOOST_CHECK_MESSAGE(rotated.exit_code == 0, rotated.describe());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(map_on_a_line, two_nodes)

BOOST_AUTO_TEST_CASE(map_draws_the_node_line_and_a_geometry_is_refused) {
  auto id = submit_script("s.sh", "#!/bin/sh\nsleep 60\n");
  BOOST_REQUIRE(wait_job_state(id, "RUNNING"));
  auto r = run_cli({"map", "--json"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto doc = parse_json(r.out);
  BOOST_CHECK_EQUAL(doc.value("select_type", ""), "select/consecutive");
  BOOST_CHECK(doc["dims"].empty());
  BOOST_REQUIRE_EQUAL(doc["jobs"].size(), 1u);
  BOOST_CHECK_EQUAL(doc["jobs"][0].value("job_id", uint64_t{0}), id);
  BOOST_CHECK_EQUAL(doc["nodes"][0].value("letter", ""), "A");
  BOOST_CHECK_EQUAL(doc["nodes"][1].value("letter", ""), ".");
  auto picture = run_cli({"map", "--once"});
  BOOST_CHECK_MESSAGE(picture.out.find("node1 A.\n") != std::string::npos, picture.out);

  auto geometry = run_cli({"batch", "-g", "1x1x1", "s.sh"});
  BOOST_CHECK_EQUAL(geometry.exit_code, 1);
  BOOST_CHECK_MESSAGE(geometry.err.find("--geometry needs a 3-D torus") != std::string::npos,
                      geometry.describe());
  run_cli({"cancel", std::to_string(id)});
}

BOOST_AUTO_TEST_CASE(map_holds_each_array_task_under_its_own_id) {
  auto array = submit_script("a.sh", "#!/bin/sh\nsleep 60\n", {"--array=1-2"});
  BOOST_REQUIRE(array != 0);
  // Task ids follow the array id (array id + 1 + ordinal).
  BOOST_REQUIRE(wait_job_state(array + 1, "RUNNING"));
  BOOST_REQUIRE(wait_job_state(array + 2, "RUNNING"));
  auto r = run_cli({"map", "--json"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto doc = parse_json(r.out);
  std::vector<uint64_t> ids;
  for (auto& j : doc["jobs"]) ids.push_back(j.value("job_id", uint64_t{0}));
  std::sort(ids.begin(), ids.end());
  BOOST_CHECK((ids == std::vector<uint64_t>{array + 1, array + 2}));
  run_cli({"cancel", std::to_string(array)});
}

BOOST_AUTO_TEST_SUITE_END()

// Listings: `shoal queue`, `shoal info` and `shoal control show`, as tables and as JSON.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// A blank-free word of a table line and where it sits.
struct cell {
  std::string text;
  size_t begin = 0;
  size_t end = 0;
};

std::vector<cell> cells_of(const std::string& line) {
  std::vector<cell> out;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ') {
      ++i;
      continue;
    }
    auto end = line.find(' ', i);
    if (end == std::string::npos) end = line.size();
    out.push_back({line.substr(i, end - i), i, end});
    i = end;
  }
  return out;
}

/// Every line has the header's number of cells, each column's cells share their left edge (text)
/// or their right edge (numbers), and no line ends in a blank.
void check_columns_line_up(const std::string& table) {
  auto lines = lines_of(table);
  BOOST_REQUIRE_MESSAGE(lines.size() >= 2, table);
  std::vector<std::vector<cell>> rows;
  for (auto& l : lines) {
    BOOST_CHECK_MESSAGE(!l.empty() && l.back() != ' ', "trailing blank in '" << l << "'");
    rows.push_back(cells_of(l));
    BOOST_REQUIRE_MESSAGE(rows.back().size() == rows.front().size(), table);
  }
  for (size_t col = 0; col < rows.front().size(); ++col) {
    bool same_left = true;
    bool same_right = true;
    for (auto& r : rows) {
      same_left = same_left && r[col].begin == rows.front()[col].begin;
      same_right = same_right && r[col].end == rows.front()[col].end;
    }
    BOOST_CHECK_MESSAGE(same_left || same_right, "column " << rows.front()[col].text
                                                           << " does not line up:\n"
                                                           << table);
  }
}

/// The column named `header` in a table's rows (the header line excluded).
std::vector<std::string> column(const std::string& table, const std::string& header) {
  auto lines = lines_of(table);
  std::vector<std::string> out;
  if (lines.empty()) return out;
  auto heads = cells_of(lines[0]);
  size_t col = heads.size();
  for (size_t i = 0; i < heads.size(); ++i)
    if (heads[i].text == header) col = i;
  BOOST_REQUIRE_MESSAGE(col < heads.size(), "no column " << header << " in\n" << table);
  for (size_t i = 1; i < lines.size(); ++i) out.push_back(cells_of(lines[i]).at(col).text);
  return out;
}

const std::string sleeper = "#!/bin/sh\nsleep 60\n";

/// Two nodes, one of them running a 1-node job: node states and job states to list.
struct busy_cluster : two_nodes {
  busy_cluster() {
    running = submit_script("a.sh", sleeper, {"-w", "node1"});
    BOOST_REQUIRE(running != 0);
    BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  }
  uint64_t running = 0;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(listings, busy_cluster)

BOOST_AUTO_TEST_CASE(queue_columns_line_up) {
  // A pending job with a long name and a (Resources) reason widens the columns.
  auto pending = submit_script("a_much_longer_job_name.sh", sleeper, {"-N2"});
  BOOST_REQUIRE(pending != 0);
  BOOST_REQUIRE(wait_job_state(pending, "PENDING"));
  auto r = run_cli({"queue"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_CHECK_MESSAGE(lines[0].rfind("JOBID", 0) == 0 || lines[0].find(" JOBID") == 0, r.out);
  check_columns_line_up(r.out);
  auto ids = column(r.out, "JOBID");
  BOOST_CHECK((ids == std::vector<std::string>{std::to_string(running), std::to_string(pending)}));
  auto where = column(r.out, "NODELIST(REASON)");
  BOOST_CHECK((where == std::vector<std::string>{"node1", "(Resources)"}));
}

BOOST_AUTO_TEST_CASE(info_groups_nodes_by_state) {
  auto r = run_cli({"info"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  check_columns_line_up(r.out);
  BOOST_CHECK((column(r.out, "PARTITION") == std::vector<std::string>{"debug*", "debug*"}));
  BOOST_CHECK((column(r.out, "STATE") == std::vector<std::string>{"alloc", "idle"}));
  BOOST_CHECK((column(r.out, "NODELIST") == std::vector<std::string>{"node1", "node2"}));
  BOOST_CHECK((column(r.out, "NODES") == std::vector<std::string>{"1", "1"}));
}

BOOST_AUTO_TEST_CASE(json_output_parses_for_queue_info_and_control_show) {
  struct expectation {
    std::vector<std::string> args;
    std::string key;
    size_t count;
  };
  std::vector<expectation> cases{
      {{"queue", "--json"}, "jobs", 1},
      {{"info", "--json"}, "partitions", 1},
      {{"info", "-N", "--json"}, "nodes", 2},
      {{"control", "show", "node", "--json"}, "nodes", 2},
      {{"control", "show", "partition", "--json"}, "partitions", 1},
      {{"control", "show", "job", std::to_string(running), "--json"}, "jobs", 1},
  };
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT("shoal " << c.args[0] << " " << c.args[1]) {
      auto r = run_cli(c.args);
      BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
      auto doc = parse_json(r.out);
      BOOST_REQUIRE_MESSAGE(doc.is_object() && doc[c.key].is_array(), r.describe());
      BOOST_CHECK_EQUAL(doc[c.key].size(), c.count);
    }
  }
  auto info = parse_json(run_cli({"info", "--json"}).out);
  BOOST_CHECK_EQUAL(info["partitions"][0]["nodes_by_state"],
                    (nlohmann::json{{"alloc", 1}, {"idle", 1}}));
  auto one = parse_json(run_cli({"control", "show", "job", std::to_string(running), "--json"}).out);
  BOOST_CHECK_EQUAL(one["jobs"][0].value("state", ""), "RUNNING");
  BOOST_CHECK_EQUAL(one["jobs"][0].value("nodelist", ""), "node1");
}

BOOST_AUTO_TEST_CASE(format_filter_and_sort_options_shape_the_listing) {
  auto idle = run_cli({"info", "-N", "State=IDLE"});
  BOOST_REQUIRE_MESSAGE(idle.exit_code == 0, idle.describe());
  BOOST_CHECK((column(idle.out, "NODELIST") == std::vector<std::string>{"node2"}));

  auto picked = run_cli({"info", "-N", "-o", "Name,State", "-S", "-Name"});
  BOOST_REQUIRE_MESSAGE(picked.exit_code == 0, picked.describe());
  auto lines = lines_of(picked.out);
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_CHECK_EQUAL(cells_of(lines[0]).size(), 2u);
  BOOST_CHECK((column(picked.out, "NODENAME") == std::vector<std::string>{"node2", "node1"}));
  BOOST_CHECK((column(picked.out, "STATE") == std::vector<std::string>{"IDLE", "ALLOCATED"}));

  auto done = submit_script("quick.sh", "#!/bin/sh\ntrue\n", {"-w", "node2"});
  BOOST_REQUIRE(wait_job_state(done, "COMPLETED"));
  auto sorted = run_cli({"queue", "-t", "all", "-o", "JobId,State", "-S", "-JobId"});
  BOOST_REQUIRE_MESSAGE(sorted.exit_code == 0, sorted.describe());
  BOOST_CHECK((column(sorted.out, "JOBID") ==
               std::vector<std::string>{std::to_string(done), std::to_string(running)}));
  BOOST_CHECK((column(sorted.out, "STATE") == std::vector<std::string>{"COMPLETED", "RUNNING"}));
  // Without -t, finished jobs are left out, as squeue does.
  auto live = run_cli({"queue", "-h", "-o", "JobId"});
  BOOST_CHECK_EQUAL(live.out, std::to_string(running) + "\n");
}

BOOST_AUTO_TEST_SUITE_END()

#include <boost/test/unit_test.hpp>

#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "messages/states.hpp"

using namespace shoal::msg;

namespace {

const node_state all_node_states[] = {
    node_state::unknown, node_state::idle,     node_state::allocated, node_state::completing,
    node_state::down,    node_state::draining, node_state::drained};

const job_state all_job_states[] = {
    job_state::pending,   job_state::configuring,   job_state::running,   job_state::completing,
    job_state::completed, job_state::failed,        job_state::cancelled, job_state::timeout,
    job_state::node_fail, job_state::out_of_memory, job_state::preempted, job_state::suspended};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// "NODE_FAIL" -> "Node_fail": neither all upper nor all lower case.
std::string mixed(std::string s) {
  s = lower(s);
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(states)

BOOST_AUTO_TEST_CASE(every_node_state_round_trips_through_its_name) {
  std::set<std::string> names;
  for (auto s : all_node_states) {
    std::string name = to_string(s);
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(names.insert(name).second);
      auto back = parse_node_state(name);
      BOOST_REQUIRE(back.has_value());
      BOOST_CHECK(*back == s);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_job_state_round_trips_through_its_name_and_short_code) {
  std::set<std::string> names;
  for (auto s : all_job_states) {
    std::string name = to_string(s);
    std::string code = short_code(s);
    BOOST_TEST_CONTEXT(name << " / " << code) {
      BOOST_TEST(names.insert(name).second);
      BOOST_TEST(names.insert(code).second);
      auto back = parse_job_state(name);
      BOOST_REQUIRE(back.has_value());
      BOOST_CHECK(*back == s);
      auto from_code = parse_job_state(code);
      BOOST_REQUIRE(from_code.has_value());
      BOOST_CHECK(*from_code == s);
    }
  }
}

BOOST_AUTO_TEST_CASE(short_codes_are_slurms) {
  BOOST_TEST(std::string{short_code(job_state::pending)} == "PD");
  BOOST_TEST(std::string{short_code(job_state::configuring)} == "CF");
  BOOST_TEST(std::string{short_code(job_state::running)} == "R");
  BOOST_TEST(std::string{short_code(job_state::completing)} == "CG");
  BOOST_TEST(std::string{short_code(job_state::completed)} == "CD");
  BOOST_TEST(std::string{short_code(job_state::failed)} == "F");
  BOOST_TEST(std::string{short_code(job_state::cancelled)} == "CA");
  BOOST_TEST(std::string{short_code(job_state::timeout)} == "TO");
  BOOST_TEST(std::string{short_code(job_state::node_fail)} == "NF");
  BOOST_TEST(std::string{short_code(job_state::out_of_memory)} == "OOM");
  BOOST_TEST(std::string{to_string(job_state::out_of_memory)} == "OUT_OF_MEMORY");
  BOOST_TEST(std::string{short_code(job_state::preempted)} == "PR");
  BOOST_TEST(std::string{to_string(job_state::preempted)} == "PREEMPTED");
  BOOST_TEST(std::string{short_code(job_state::suspended)} == "S");
  BOOST_TEST(std::string{to_string(job_state::suspended)} == "SUSPENDED");
}

BOOST_AUTO_TEST_CASE(parsing_ignores_case) {
  for (auto s : all_node_states) {
    BOOST_TEST_CONTEXT(to_string(s)) {
      BOOST_CHECK(parse_node_state(lower(to_string(s))) == s);
      BOOST_CHECK(parse_node_state(mixed(to_string(s))) == s);
    }
  }
  for (auto s : all_job_states) {
    BOOST_TEST_CONTEXT(to_string(s)) {
      BOOST_CHECK(parse_job_state(lower(to_string(s))) == s);
      BOOST_CHECK(parse_job_state(mixed(to_string(s))) == s);
      BOOST_CHECK(parse_job_state(lower(short_code(s))) == s);
    }
  }
  BOOST_CHECK(parse_job_state("Pd") == job_state::pending);
  BOOST_CHECK(parse_job_state("cG") == job_state::completing);
}

BOOST_AUTO_TEST_CASE(parsing_rejects_anything_else) {
  for (auto text : {"", " IDLE", "IDLE ", "IDL", "IDLEX", "idle\n", "alloc", "drain", "PD"})
    BOOST_CHECK_MESSAGE(!parse_node_state(text), "'" << text << "' parsed as a node state");
  for (auto text : {"", "P", "PDX", "RUN", "RUNNING ", "NODE-FAIL", "NODEFAIL", "IDLE", "C"})
    BOOST_CHECK_MESSAGE(!parse_job_state(text), "'" << text << "' parsed as a job state");
}

BOOST_AUTO_TEST_CASE(parsing_reads_only_the_given_view) {
  // A view into a longer string must not match on what follows it.
  std::string text = "IDLEX";
  BOOST_CHECK(parse_node_state(std::string_view{text}.substr(0, 4)) == node_state::idle);
  std::string jobs = "RUNNING,PD";
  BOOST_CHECK(parse_job_state(std::string_view{jobs}.substr(0, 7)) == job_state::running);
  BOOST_CHECK(parse_job_state(std::string_view{jobs}.substr(8)) == job_state::pending);
}

BOOST_AUTO_TEST_CASE(short_node_names_are_distinct) {
  std::set<std::string> names;
  for (auto s : all_node_states) BOOST_TEST(names.insert(short_name(s)).second, short_name(s));
}

BOOST_AUTO_TEST_CASE(is_finished_is_true_for_terminal_job_states_only) {
  struct row {
    job_state state;
    bool finished;
  };
  const row table[] = {
      {job_state::pending, false},  {job_state::configuring, false},
      {job_state::running, false},  {job_state::completing, false},
      {job_state::completed, true}, {job_state::failed, true},
      {job_state::cancelled, true}, {job_state::timeout, true},
      {job_state::node_fail, true}, {job_state::out_of_memory, true},
      {job_state::preempted, true}, {job_state::suspended, false},
  };
  BOOST_TEST(std::size(table) == std::size(all_job_states));
  for (auto& r : table) BOOST_TEST(is_finished(r.state) == r.finished, to_string(r.state));
}

BOOST_AUTO_TEST_SUITE_END()

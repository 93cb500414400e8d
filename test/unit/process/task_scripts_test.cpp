#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "process/script_run.hpp"
#include "process/task_scripts.hpp"

using namespace shoal::process;

namespace {

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

script_spec shell(const std::string& code) {
  script_spec s;
  s.label = "test";
  s.argv = {"/bin/sh", "-c", code};
  s.env = {"PATH=/usr/bin:/bin", "WHO=me"};
  s.capture_output = true;
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(task_scripts_suite)

BOOST_AUTO_TEST_CASE(export_unset_and_print_lines_shape_the_environment_as_slurmstepd_reads_them) {
  std::vector<std::string> env = {"KEEP=1", "DROP=2", "SET=old"};
  auto printed = apply_task_prolog_output(
      "export SET=new value\nexport  NEW =a=b\nunset DROP\nprint   hello there\n"
      "something else\nexport BROKEN\nprint last",
      env);
  BOOST_CHECK(has(env, "KEEP=1"));
  BOOST_CHECK(!has(env, "DROP=2"));
  BOOST_CHECK(has(env, "SET=new value"));
  BOOST_CHECK(!has(env, "SET=old"));
  BOOST_CHECK(has(env, "NEW=a=b"));
  BOOST_CHECK_EQUAL(printed, "hello there\nlast\n");
}

BOOST_AUTO_TEST_CASE(a_script_reports_its_output_and_status) {
  auto r = run_script(shell("echo out $WHO; exit 0"));
  BOOST_CHECK(r.ok && r.started && !r.timed_out);
  BOOST_CHECK_EQUAL(r.output, "out me\n");
  BOOST_CHECK_EQUAL(r.status_text, "exit 0");
  r = run_script(shell("exit 3"));
  BOOST_CHECK(!r.ok && r.started);
  BOOST_CHECK_EQUAL(r.status_text, "exit 3");
  r = run_script(shell("kill -9 $$"));
  BOOST_CHECK_EQUAL(r.status_text, "signal 9");
}

BOOST_AUTO_TEST_CASE(a_script_past_its_timeout_is_killed_with_its_children) {
  auto spec = shell("sleep 30 & sleep 30");
  spec.timeout = std::chrono::seconds{1};
  auto r = run_script(spec);
  BOOST_CHECK(!r.ok && r.timed_out);
  BOOST_CHECK_EQUAL(r.status_text, "timed out after 1 s");
}

BOOST_AUTO_TEST_CASE(a_program_that_cannot_start_says_why) {
  script_spec s;
  s.argv = {"/nonexistent/prolog"};
  auto r = run_script(s);
  BOOST_CHECK(!r.ok && !r.started);
  BOOST_CHECK_EQUAL(r.status_text, "could not start: No such file or directory");
}

BOOST_AUTO_TEST_SUITE_END()

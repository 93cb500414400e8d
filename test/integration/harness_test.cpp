// The harness itself: a hung command is killed at its deadline, stdin is fed, streams are kept
// apart and a signal shows as 128+signal. The other suites rely on all of it.

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <csignal>

#include <string>

#include "test/integration/harness.hpp"

using namespace shoal::test;

BOOST_AUTO_TEST_SUITE(harness)

BOOST_AUTO_TEST_CASE(a_hung_command_is_killed_at_its_deadline) {
  command_options opt;
  opt.timeout = 300ms;
  // The background child holds the pipes open too: the whole process group must go.
  child_process child({"sh", "-c", "echo started; sleep 30 & sleep 30"}, opt);
  auto group = child.pid();  // the child leads its own process group
  auto r = child.finish();
  BOOST_CHECK(r.timed_out);
  BOOST_CHECK_EQUAL(r.exit_code, -1);
  BOOST_CHECK_EQUAL(r.out, "started\n");
  // Nothing of the group survives (the orphaned sleep may take a moment to be reaped).
  BOOST_CHECK(wait_until([&] { return ::kill(-group, 0) == -1 && errno == ESRCH; }, 10s));
}

BOOST_AUTO_TEST_CASE(stdin_is_fed_and_the_streams_are_kept_apart) {
  command_options opt;
  opt.input = "one\ntwo\n";
  opt.env.push_back({"IT_VALUE", "x"});
  auto r = run_command({"sh", "-c", "cat; echo \"err $IT_VALUE\" >&2; exit 3"}, opt);
  BOOST_CHECK_EQUAL(r.exit_code, 3);
  BOOST_CHECK_EQUAL(r.out, "one\ntwo\n");
  BOOST_CHECK_EQUAL(r.err, "err x\n");
}

BOOST_AUTO_TEST_CASE(a_signalled_command_gives_128_plus_the_signal) {
  auto r = run_command({"sh", "-c", "kill -TERM $$"});
  BOOST_CHECK_EQUAL(r.exit_code, 128 + 15);
  BOOST_CHECK(!r.timed_out);
}

BOOST_AUTO_TEST_CASE(shoal_variables_do_not_leak_into_children) {
  ::setenv("SHOAL_CONF", "/nonexistent", 1);
  auto r = run_command({"sh", "-c", "echo \"[${SHOAL_CONF-unset}]\""});
  ::unsetenv("SHOAL_CONF");
  BOOST_CHECK_EQUAL(r.out, "[unset]\n");
}

BOOST_AUTO_TEST_SUITE_END()

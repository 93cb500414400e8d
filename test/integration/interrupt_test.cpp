// What a waiting `shoal run` does with Ctrl-C and while it waits for nodes (srun's behaviour).

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <fstream>
#include <thread>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// The id of the one job whose name is `name`, or 0.
uint64_t job_named(cluster_fixture& c, const std::string& name) {
  for (auto& j : c.jobs())
    if (j.value("name", "") == name) return j.value("job_id", uint64_t{0});
  return 0;
}

/// Occupies the only node until `release` exists in the scratch directory.
uint64_t hold_the_node(cluster_fixture& c) {
  auto id = c.submit_script("hold.sh", "#!/bin/sh\nwhile [ ! -f release ]; do sleep 0.05; done\n",
                            {"-J", "hold"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(c.wait_job_state(id, "RUNNING"));
  return id;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(interrupts, one_node)

BOOST_AUTO_TEST_CASE(one_interrupt_is_passed_to_the_tasks) {
  auto ready = scratch.file("ready");
  auto cli = start_cli(
      {"run", "-J", "trapper", "sh", "-c",
       "trap 'echo got INT; exit 5' INT; touch " + ready + "; while :; do sleep 0.05; done"});
  BOOST_REQUIRE(wait_until([&] { return path_exists(ready); }, 30s));
  ::kill(cli->pid(), SIGINT);
  auto r = cli->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 5, r.describe());
  BOOST_CHECK_MESSAGE(r.out.find("got INT") != std::string::npos, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("interrupt") != std::string::npos, r.describe());
  auto id = job_named(*this, "trapper");
  BOOST_CHECK(wait_job_state(id, "FAILED", 10s));
}

BOOST_AUTO_TEST_CASE(two_interrupts_within_a_second_cancel_the_job) {
  auto ready = scratch.file("ready");
  auto cli =
      start_cli({"run", "-J", "stubborn", "sh", "-c",
                 "trap 'echo got INT' INT; touch " + ready + "; while :; do sleep 0.05; done"});
  BOOST_REQUIRE(wait_until([&] { return path_exists(ready); }, 30s));
  ::kill(cli->pid(), SIGINT);
  // The scenario itself: a second Ctrl-C well within srun's one-second window.
  std::this_thread::sleep_for(200ms);
  ::kill(cli->pid(), SIGINT);
  auto r = cli->finish();
  BOOST_CHECK_MESSAGE(r.exit_code != 0, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("CANCELLED") != std::string::npos, r.describe());
  BOOST_CHECK(wait_job_state(job_named(*this, "stubborn"), "CANCELLED", 10s));
  BOOST_CHECK(wait_node_state("node1", "IDLE", 10s));
}

BOOST_AUTO_TEST_CASE(with_X_one_interrupt_is_passed_on_without_a_word) {
  auto ready = scratch.file("ready");
  auto cli = start_cli(
      {"run", "-X", "sh", "-c",
       "trap 'echo got INT; exit 5' INT; touch " + ready + "; while :; do sleep 0.05; done"});
  BOOST_REQUIRE(wait_until([&] { return path_exists(ready); }, 30s));
  ::kill(cli->pid(), SIGINT);
  auto r = cli->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 5 && r.out.find("got INT") != std::string::npos, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("interrupt") == std::string::npos, r.describe());
}

BOOST_AUTO_TEST_CASE(quit_on_interrupt_cancels_at_the_first) {
  auto ready = scratch.file("ready");
  auto cli =
      start_cli({"run", "--quit-on-interrupt", "-J", "quitter", "sh", "-c",
                 "trap 'echo got INT' INT; touch " + ready + "; while :; do sleep 0.05; done"});
  BOOST_REQUIRE(wait_until([&] { return path_exists(ready); }, 30s));
  ::kill(cli->pid(), SIGINT);
  auto r = cli->finish();
  BOOST_CHECK_MESSAGE(r.exit_code != 0 && r.out.find("got INT") == std::string::npos, r.describe());
  BOOST_CHECK(wait_job_state(job_named(*this, "quitter"), "CANCELLED", 10s));
}

BOOST_AUTO_TEST_CASE(a_queued_run_says_it_waits_and_then_that_it_got_resources) {
  auto holder = hold_the_node(*this);
  auto cli = start_cli({"run", "-J", "patient", "echo", "hi"});
  BOOST_REQUIRE(wait_until(
      [&] {
        auto id = job_named(*this, "patient");
        return id != 0 && job(id).value("reason", "") == "Resources";
      },
      30s));
  write_file(scratch.file("release"), "");
  auto r = cli->finish();
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_EQUAL(r.out, "hi\n");
  BOOST_CHECK_MESSAGE(r.err.find("queued and waiting for resources") != std::string::npos,
                      r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("has been allocated resources") != std::string::npos,
                      r.describe());
  BOOST_CHECK(wait_job_state(holder, "COMPLETED", 10s));
}

BOOST_AUTO_TEST_CASE(an_interrupt_while_queued_withdraws_the_job) {
  hold_the_node(*this);
  auto cli = start_cli({"run", "-J", "impatient", "echo", "hi"});
  BOOST_REQUIRE(wait_until(
      [&] {
        auto id = job_named(*this, "impatient");
        return id != 0 && job(id).value("reason", "") == "Resources";
      },
      30s));
  ::kill(cli->pid(), SIGINT);
  auto r = cli->finish();
  BOOST_CHECK_MESSAGE(r.exit_code != 0, r.describe());
  BOOST_CHECK(r.out.empty());
  BOOST_CHECK(wait_job_state(job_named(*this, "impatient"), "CANCELLED", 10s));
  write_file(scratch.file("release"), "");
}

BOOST_AUTO_TEST_SUITE_END()

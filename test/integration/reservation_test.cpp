// Reservations (scontrol create|update|delete|show reservation): nodes held for their users
// from a start time on. A MAINT reservation starting in a minute keeps a job that would still run
// then off its nodes while a short one runs; a job in a reservation runs only on its nodes; others
// are refused it; the refusals are Slurm's; the table survives a controller restart.

#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test/integration/controller_pair.hpp"
#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;

namespace {

const char* const reservation_test_user = "shoal-it-user";

bool reservation_text_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct reservation_cluster : cluster_fixture {
  reservation_cluster() : cluster_fixture(2) {}

  command_result control(std::vector<std::string> words) {
    words.insert(words.begin(), "control");
    return run_cli(words);
  }

  std::string reason_of(uint64_t id) { return job(id).value("reason", ""); }
  std::string nodelist_of(uint64_t id) { return job(id).value("nodelist", ""); }

  /// Creates a reservation as root; fails the test when refused.
  void create(std::vector<std::string> words) {
    words.insert(words.begin(), {"create", "reservation"});
    auto made = control(words);
    BOOST_REQUIRE_MESSAGE(made.exit_code == 0, made.describe());
  }
};

/// node1 and node2 under a primary and a backup shoalctld.
struct reservation_pair : controller_pair {
  reservation_pair()
      : controller_pair(
            "NodeName=node[1-2] NodeAddr=127.0.0.1\n"
            "PartitionName=debug Nodes=node[1-2] Default=YES MaxTime=INFINITE\n",
            2, {{"node1", {"-N", "node1"}}, {"node2", {"-N", "node2"}}}) {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(reservations_takeover, reservation_pair)

BOOST_AUTO_TEST_CASE(a_backup_taking_over_keeps_the_reservations) {
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return nodes_idle(); }, 60s), "the cluster never came up");
  auto made = shoal({"control", "create", "reservation", "reservationname=held",
                     "starttime=now+1hour", "duration=30", "nodes=node1", "users=root"});
  BOOST_REQUIRE_MESSAGE(made.exit_code == 0, made.describe());
  primary->kill_now();
  BOOST_REQUIRE(wait_until([&] { return log_has("ctl2.log", "controller in control role=backup"); },
                           takeover_bound));
  auto shown = shoal({"control", "show", "reservation"});
  BOOST_TEST(shown.exit_code == 0, shown.describe());
  BOOST_TEST(reservation_text_has(shown.out, "ReservationName=held"), shown.describe());
  BOOST_TEST(reservation_text_has(shown.out, "Nodes=node1 NodeCnt=1"), shown.describe());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(reservations, reservation_cluster)

BOOST_AUTO_TEST_CASE(a_maint_reservation_keeps_a_long_job_off_its_nodes_while_a_short_one_runs) {
  create({"reservationname=maint", "starttime=now+60", "duration=10", "nodes=node[1-2]",
          "users=root", "flags=maint"});
  auto shown = control({"show", "reservation", "maint"});
  BOOST_TEST(reservation_text_has(shown.out, "State=INACTIVE"), shown.describe());
  BOOST_TEST(reservation_text_has(shown.out, "Flags=MAINT,SPEC_NODES"), shown.describe());
  // Two minutes would still run when it begins: pending, the nodes idle.
  auto long_job = submit_script("long.sh", "#!/bin/sh\ntrue\n", {"-t", "2"});
  BOOST_REQUIRE(long_job != 0);
  BOOST_TEST(wait_until([&] { return reason_of(long_job) == "Resources"; }, 30s));
  // Thirty seconds end before: it runs, and the long one still waits.
  auto short_job = submit_script("short.sh", "#!/bin/sh\ntrue\n", {"-t", "0:30"});
  BOOST_REQUIRE(short_job != 0);
  BOOST_TEST(wait_job_state(short_job, "COMPLETED"));
  BOOST_TEST(job_state(long_job) == "PENDING");
  BOOST_TEST(reason_of(long_job) == "Resources");
  auto cancelled = run_cli({"cancel", std::to_string(long_job)});
  BOOST_TEST(cancelled.exit_code == 0, cancelled.describe());
}

BOOST_AUTO_TEST_CASE(an_active_maint_reservation_shows_its_nodes_as_maint) {
  create({"reservationname=now", "starttime=now", "duration=10", "nodes=node2", "users=root",
          "flags=MAINT"});
  auto info = run_cli({"info"});
  BOOST_TEST(reservation_text_has(info.out, "maint"), info.describe());
  auto node = control({"show", "node", "node2"});
  BOOST_TEST(reservation_text_has(node.out, "State=IDLE+MAINT"), node.describe());
  auto other = control({"show", "node", "node1"});
  BOOST_TEST(!reservation_text_has(other.out, "MAINT"), other.describe());
}

BOOST_AUTO_TEST_CASE(a_job_in_a_reservation_runs_only_on_its_nodes) {
  create({"reservationname=mine", "starttime=now", "duration=10", "nodes=node2", "users=root"});
  // Others stay off node2 while it is reserved.
  auto outside = submit_script("out.sh", "#!/bin/sh\nsleep 30\n", {"-N1", "-t", "5"});
  BOOST_REQUIRE(outside != 0);
  BOOST_REQUIRE(wait_job_state(outside, "RUNNING"));
  BOOST_TEST(nodelist_of(outside) == "node1");
  auto inside = submit_script("in.sh", "#!/bin/sh\nsleep 30\n",
                              {"-N1", "--exclusive", "-t", "5", "--reservation=mine"});
  BOOST_REQUIRE(inside != 0);
  BOOST_REQUIRE(wait_job_state(inside, "RUNNING"));
  BOOST_TEST(nodelist_of(inside) == "node2");
  auto record = control({"show", "job", std::to_string(inside)});
  BOOST_TEST(reservation_text_has(record.out, "Reservation=mine"), record.describe());
  auto listed = run_cli({"queue", "-h", "-o", "%i %v"});
  BOOST_TEST(reservation_text_has(listed.out, std::to_string(inside) + " mine"), listed.describe());
  // A second job of the reservation waits for its one node, and nobody else's.
  auto second =
      submit_script("in2.sh", "#!/bin/sh\ntrue\n", {"-N1", "--exclusive", "--reservation=mine"});
  BOOST_REQUIRE(second != 0);
  BOOST_TEST(wait_until([&] { return reason_of(second) == "Resources"; }, 30s));
  run_cli({"cancel", std::to_string(outside), std::to_string(inside), std::to_string(second)});
}

BOOST_AUTO_TEST_CASE(a_job_waits_with_reason_reservation_until_it_begins) {
  create(
      {"reservationname=later", "starttime=now+1hour", "duration=10", "nodes=node2", "users=root"});
  auto early = submit_script("early.sh", "#!/bin/sh\ntrue\n", {"--reservation=later"});
  BOOST_REQUIRE(early != 0);
  BOOST_TEST(wait_until([&] { return reason_of(early) == "Reservation"; }, 30s));
  BOOST_TEST(job_state(early) == "PENDING");
  run_cli({"cancel", std::to_string(early)});
}

BOOST_AUTO_TEST_CASE(others_and_unknown_names_are_refused_at_submission) {
  create({"reservationname=theirs", "starttime=now", "duration=10", "nodes=node2",
          "users=nobody-here", "accounts=elsewhere"});
  auto denied = run_cli({"batch", "--reservation=theirs", "--wrap", "true"});
  BOOST_TEST(denied.exit_code == 1, denied.describe());
  BOOST_TEST(reservation_text_has(denied.err, "Access denied to requested reservation"),
             denied.describe());
  auto unknown = run_cli({"batch", "--reservation=nosuch", "--wrap", "true"});
  BOOST_TEST(unknown.exit_code == 1, unknown.describe());
  BOOST_TEST(reservation_text_has(unknown.err, "Requested reservation is invalid"),
             unknown.describe());
  auto by_account = run_cli({"batch", "--reservation=theirs", "-A", "elsewhere", "--wrap", "true"});
  BOOST_TEST(by_account.exit_code == 0, by_account.describe());
}

BOOST_AUTO_TEST_CASE(create_update_show_and_delete_round_trip) {
  auto none = control({"show", "reservation"});
  BOOST_TEST(none.out == "No reservations in the system\n", none.describe());
  auto made = control({"create", "reservation", "ReservationName=trip", "StartTime=now+1hour",
                       "Duration=30", "NodeCnt=1", "Users=root"});
  BOOST_TEST(made.exit_code == 0, made.describe());
  BOOST_TEST(made.out == "Reservation created: trip\n", made.describe());
  auto shown = control({"show", "reservation"});
  BOOST_TEST(reservation_text_has(shown.out, "ReservationName=trip StartTime="), shown.describe());
  BOOST_TEST(reservation_text_has(shown.out, "Duration=00:30:00"), shown.describe());
  BOOST_TEST(reservation_text_has(shown.out, "Nodes=node1 NodeCnt=1 CoreCnt="), shown.describe());
  BOOST_TEST(reservation_text_has(shown.out, "Features=(null) PartitionName=(null) Flags="),
             shown.describe());
  BOOST_TEST(reservation_text_has(shown.out,
                                  "Users=root Groups=(null) Accounts=(null) Licenses=(null) "
                                  "State=INACTIVE BurstBuffer=(null) Watts=n/a"),
             shown.describe());
  BOOST_TEST(reservation_text_has(shown.out, "MaxStartDelay=(null)"), shown.describe());
  auto updated =
      control({"update", "reservationname=trip", "duration=1-00:00:00", "users=root,adm"});
  BOOST_TEST(updated.exit_code == 0, updated.describe());
  BOOST_TEST(updated.out == "Reservation updated.\n", updated.describe());
  auto one = control({"-o", "show", "reservation", "trip"});
  BOOST_TEST(reservation_text_has(one.out, "Duration=1-00:00:00"), one.describe());
  BOOST_TEST(reservation_text_has(one.out, "Users=root,adm"), one.describe());
  BOOST_TEST(std::count(one.out.begin(), one.out.end(), '\n') == 1, one.describe());
  // Through scontrol's name too.
  auto slurm = run_slurm(*this, "scontrol", {"show", "reservation", "trip"});
  BOOST_TEST(reservation_text_has(slurm.out, "ReservationName=trip"), slurm.describe());
  auto deleted = control({"delete", "reservationname=trip"});
  BOOST_TEST(deleted.exit_code == 0, deleted.describe());
  auto gone = control({"show", "reservation"});
  BOOST_TEST(gone.out == "No reservations in the system\n", gone.describe());
  auto again = control({"delete", "reservationname=trip"});
  BOOST_TEST(again.exit_code == 1, again.describe());
  BOOST_TEST(reservation_text_has(again.err, "Requested reservation is invalid"), again.describe());
}

BOOST_AUTO_TEST_CASE(busy_nodes_and_overlaps_are_refused_unless_flagged) {
  auto running =
      submit_script("busy.sh", "#!/bin/sh\nsleep 60\n", {"-N1", "-w", "node1", "-t", "5"});
  BOOST_REQUIRE(running != 0);
  BOOST_REQUIRE(wait_job_state(running, "RUNNING"));
  auto busy = control({"create", "reservation", "reservationname=busy", "starttime=now",
                       "duration=10", "nodes=node1", "users=root"});
  BOOST_TEST(busy.exit_code == 1, busy.describe());
  BOOST_TEST(
      reservation_text_has(busy.err, "Error creating the reservation: Requested nodes are busy"),
      busy.describe());
  // After its time limit it would not run any more.
  create({"reservationname=after", "starttime=now+10minutes", "duration=10", "nodes=node1",
          "users=root"});
  create({"reservationname=busy", "starttime=now", "duration=5", "nodes=node1", "users=root",
          "flags=IGNORE_JOBS"});
  auto overlap =
      control({"create", "reservation", "reservationname=over", "starttime=now+12minutes",
               "duration=10", "nodes=node[1-2]", "users=root"});
  BOOST_TEST(overlap.exit_code == 1, overlap.describe());
  BOOST_TEST(
      reservation_text_has(overlap.err, "Requested reservation overlaps with another reservation"),
      overlap.describe());
  create({"reservationname=over", "starttime=now+12minutes", "duration=10", "nodes=node[1-2]",
          "users=root", "flags=OVERLAP"});
  auto moved = control({"update", "reservationname=busy", "starttime=now+8minutes"});
  BOOST_TEST(moved.exit_code == 1, moved.describe());
  BOOST_TEST(reservation_text_has(moved.err, "overlaps"), moved.describe());
  auto missing = control({"create", "reservation", "starttime=now", "duration=5", "nodes=node2"});
  BOOST_TEST(missing.exit_code == 1, missing.describe());
  BOOST_TEST(
      reservation_text_has(missing.err, "Either Users/Groups and/or Accounts must be specified"),
      missing.describe());
  run_cli({"cancel", std::to_string(running)});
}

BOOST_AUTO_TEST_CASE(the_reservations_survive_a_controller_restart) {
  create({"reservationname=kept", "starttime=now+1hour", "duration=60", "nodes=node2", "users=root",
          "flags=DAILY"});
  auto before = control({"show", "reservation", "kept"});
  auto first_line = before.out.substr(0, before.out.find('\n'));
  BOOST_REQUIRE(reservation_text_has(first_line, "ReservationName=kept StartTime="));
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE(!cluster.restart_controller());
  BOOST_REQUIRE(wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s));
  auto after = control({"show", "reservation", "kept"});
  BOOST_TEST(after.exit_code == 0, after.describe());
  BOOST_TEST(reservation_text_has(after.out, first_line), after.describe());
  BOOST_TEST(reservation_text_has(after.out, "Nodes=node2 NodeCnt=1"), after.describe());
  BOOST_TEST(reservation_text_has(after.out, "Flags=DAILY,SPEC_NODES"), after.describe());
  BOOST_TEST(reservation_text_has(after.out, "Users=root"), after.describe());
  // And it still holds its node from the scheduler's view.
  auto early = submit_script("early.sh", "#!/bin/sh\ntrue\n", {"--reservation=kept"});
  BOOST_REQUIRE(early != 0);
  BOOST_TEST(wait_until([&] { return reason_of(early) == "Reservation"; }, 30s));
  run_cli({"cancel", std::to_string(early)});
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(reservations_as_user, reservation_cluster)

BOOST_AUTO_TEST_CASE(only_admins_create_update_or_delete,
                     *boost::unit_test::precondition(needs_root{
                         "to create a test user and run the CLI as it"})) {
  const passwd* pw = ensure_user(reservation_test_user);
  BOOST_REQUIRE_MESSAGE(pw != nullptr, "no test user");
  auto as_user = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "control");
    return run_as(pw, args);
  };
  auto refused = as_user({"create", "reservation", "starttime=now", "duration=5", "nodes=node1",
                          "users=" + std::string{reservation_test_user}});
  BOOST_TEST(refused.exit_code == 1, refused.describe());
  BOOST_TEST(reservation_text_has(refused.err, "Access/permission denied"), refused.describe());
  create({"reservationname=adm", "starttime=now+1hour", "duration=5", "nodes=node1",
          "users=" + std::string{reservation_test_user}});
  auto update = as_user({"update", "reservationname=adm", "duration=10"});
  BOOST_TEST(update.exit_code == 1, update.describe());
  auto remove = as_user({"delete", "reservationname=adm"});
  BOOST_TEST(remove.exit_code == 1, remove.describe());
  // Anyone may look.
  auto shown = as_user({"show", "reservation"});
  BOOST_TEST(reservation_text_has(shown.out, "ReservationName=adm"), shown.describe());
}

BOOST_AUTO_TEST_SUITE_END()

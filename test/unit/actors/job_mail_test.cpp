// MailProg notices: which state changes mail for which --mail-type, and what slurmctld would
// put in the subject and environment.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>

#include "actors/job_mail.hpp"

using shoal::actors::mail_event;
using shoal::actors::mail_for;
using shoal::msg::job_state;

namespace {

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

shoal::msg::job_info finished_job() {
  shoal::msg::job_info j;
  j.job_id = 12;
  j.name = "guide";
  j.user = "alice";
  j.uid = 1000;
  j.partition = "debug";
  j.state = job_state::completed;
  j.submit_time = 1'000;
  j.start_time = 1'003;
  j.end_time = 1'065;
  j.exit_code = 0;
  return j;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(job_mail)

BOOST_AUTO_TEST_CASE(each_event_mails_only_when_asked) {
  BOOST_CHECK(*mail_event("BEGIN,END", job_state::pending, job_state::running) == "BEGIN");
  BOOST_CHECK(!mail_event("END", job_state::pending, job_state::running));
  BOOST_CHECK(!mail_event("", job_state::pending, job_state::running));
  // A resumed job began long ago; a suspension is no event Slurm mails.
  BOOST_CHECK(!mail_event("ALL", job_state::suspended, job_state::running));
  BOOST_CHECK(!mail_event("ALL", job_state::running, job_state::suspended));
  BOOST_CHECK(*mail_event("END", job_state::completing, job_state::completed) == "END");
  BOOST_CHECK(*mail_event("END", job_state::running, job_state::cancelled) == "END");
  BOOST_CHECK(!mail_event("BEGIN", job_state::completing, job_state::completed));
  BOOST_CHECK(!mail_event("END", job_state::running, job_state::completing));
  BOOST_CHECK(!mail_event("END", job_state::running, job_state::running));
}

BOOST_AUTO_TEST_CASE(a_failed_end_mails_fail_or_else_end) {
  BOOST_CHECK(*mail_event("END,FAIL", job_state::completing, job_state::failed) == "FAIL");
  BOOST_CHECK(*mail_event("END", job_state::completing, job_state::timeout) == "END");
  BOOST_CHECK(*mail_event("FAIL", job_state::running, job_state::node_fail) == "FAIL");
  // A clean end is never a failure.
  BOOST_CHECK(!mail_event("FAIL", job_state::completing, job_state::completed));
}

BOOST_AUTO_TEST_CASE(a_requeue_mails_requeue_when_asked) {
  BOOST_CHECK(*mail_event("REQUEUE", job_state::completing, job_state::pending) == "REQUEUE");
  BOOST_CHECK(!mail_event("BEGIN,END", job_state::completing, job_state::pending));
}

BOOST_AUTO_TEST_CASE(the_notice_reads_as_slurmctlds) {
  auto j = finished_job();
  auto end = mail_for(j, "END", "lab", "/usr/bin/mail", 2'000);
  BOOST_REQUIRE_EQUAL(end.argv.size(), 4u);
  BOOST_CHECK_EQUAL(end.argv[0], "/usr/bin/mail");
  BOOST_CHECK_EQUAL(end.argv[1], "-s");
  BOOST_CHECK_EQUAL(end.argv[2],
                    "Slurm Job_id=12 Name=guide Ended, Run time 00:01:02, COMPLETED, ExitCode 0");
  BOOST_CHECK_EQUAL(end.argv[3], "alice");  // no --mail-user: the owner
  BOOST_CHECK(has(end.env, "SLURM_JOB_ID=12"));
  BOOST_CHECK(has(end.env, "SLURM_JOB_MAIL_TYPE=Ended"));
  BOOST_CHECK(has(end.env, "SLURM_JOB_STATE=COMPLETED"));
  BOOST_CHECK(has(end.env, "SLURM_JOB_RUN_TIME=00:01:02"));
  BOOST_CHECK(has(end.env, "SLURM_JOB_EXIT_CODE_MAX=0"));
  BOOST_CHECK(has(end.env, "SLURM_CLUSTER_NAME=lab"));

  j.state = job_state::running;
  j.end_time = 0;
  j.mail_user = "bob@example.org";
  auto begin = mail_for(j, "BEGIN", "lab", "/usr/bin/mail", 2'000);
  BOOST_CHECK_EQUAL(begin.argv[2], "Slurm Job_id=12 Name=guide Began, Queued time 00:00:03");
  BOOST_CHECK_EQUAL(begin.argv[3], "bob@example.org");
  BOOST_CHECK(has(begin.env, "SLURM_JOB_QUEUED_TIME=00:00:03"));

  j.state = job_state::failed;
  j.end_time = 1'003 + 90'061;  // a day, an hour, a minute and a second
  j.exit_code = 3;
  j.array_job_id = 10;
  j.array_task_id = 2;
  auto fail = mail_for(j, "FAIL", "lab", "/usr/bin/mail", 2'000);
  BOOST_CHECK_EQUAL(fail.argv[2],
                    "Slurm Array Task Job_id=10_2 (12) Name=guide Failed, Run time 1-01:01:01, "
                    "FAILED, ExitCode 3");
}

BOOST_AUTO_TEST_SUITE_END()

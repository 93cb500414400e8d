// The Slurm options ordinary scripts carry (issue 18, item 1): a site guide's batch script runs
// whole, --wrap and --parsable chains, --export, --open-mode, the recorded account, QOS and
// comment, and the split between options warned about and options refused.

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// The job id `shoal batch --parsable` printed: digits and a newline, nothing else.
uint64_t parsable_job_id(const std::string& out) {
  if (out.size() < 2 || out.back() != '\n' || out.find_first_not_of("0123456789") != out.size() - 1)
    return 0;
  return std::stoull(out);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_options, two_nodes)

BOOST_AUTO_TEST_CASE(a_site_guide_batch_script_runs_to_completed) {
  auto script =
      "#!/bin/bash\n"
      "#SBATCH --job-name=guide\n"
      "#SBATCH --output=guide-%j.out\n"
      "#SBATCH --ntasks=4\n"
      "#SBATCH --ntasks-per-node=2\n"
      "#SBATCH --time=00:05:00\n"
      "#SBATCH --mem-per-cpu=100M\n"
      "#SBATCH --partition=debug\n"
      "#SBATCH --account=physics\n"
      "#SBATCH --qos=normal\n"
      "#SBATCH --mail-type=BEGIN,END,FAIL\n"
      "#SBATCH --mail-user=alice@example.org\n"
      "#SBATCH --export=ALL\n"
      "\n"
      "srun hostname\n"
      "echo $SLURM_JOB_ID\n";
  write_file(scratch.file("guide.sh"), script, true);
  auto r = run_cli({"batch", "guide.sh"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.err.empty(), "nothing to warn about, yet: " << r.err);
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  auto n = std::to_string(id);
  // 4 tasks at most 2 a node: both nodes. `srun` without -n starts the job's 4 tasks, as
  // Slurm's does (SLURM_NTASKS in the job's environment).
  auto host = local_hostname();
  BOOST_CHECK_EQUAL(read_file(scratch.file("guide-" + n + ".out")),
                    host + "\n" + host + "\n" + host + "\n" + host + "\n" + n + "\n");
  auto j = job(id);
  BOOST_CHECK_EQUAL(j.value("name", ""), "guide");
  BOOST_CHECK_EQUAL(j.value("node_count", 0), 2);
  BOOST_CHECK_EQUAL(j.value("ntasks", 0), 4);
  BOOST_CHECK_EQUAL(j.value("ntasks_per_node", 0), 2);
  BOOST_CHECK_EQUAL(j.value("account", ""), "physics");
  BOOST_CHECK_EQUAL(j.value("qos", ""), "normal");
  BOOST_CHECK_EQUAL(j.value("mail_type", ""), "BEGIN,END,FAIL");
  BOOST_CHECK_EQUAL(j.value("mail_user", ""), "alice@example.org");
  BOOST_CHECK_EQUAL(j.value("time_limit_s", 0), 300);
}

BOOST_AUTO_TEST_CASE(show_job_and_queue_fields_give_account_qos_and_comment) {
  auto id = submit_script("recorded.sh", "#!/bin/sh\n#SBATCH -A physics -q high\ntrue\n",
                          {"--comment=sweep 7", "--mail-type=END"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  auto n = std::to_string(id);
  auto show = run_cli({"control", "show", "job", n});
  BOOST_REQUIRE_MESSAGE(show.exit_code == 0, show.describe());
  for (auto key : {"Account=physics QOS=high", "\n   Comment=sweep 7 \n", "MailType=END"})
    BOOST_CHECK_MESSAGE(show.out.find(key) != std::string::npos, key << " in\n" << show.out);
  auto queue = run_cli({"queue", "-t", "all", "-h", "-j", n, "-o", "JobId,Account,QOS,Comment"});
  BOOST_REQUIRE_MESSAGE(queue.exit_code == 0, queue.describe());
  auto lines = lines_of(queue.out);
  BOOST_REQUIRE_EQUAL(lines.size(), 1u);
  std::istringstream cells{lines[0]};
  std::string id_cell, account, qos, comment;
  cells >> id_cell >> account >> qos;
  std::getline(cells >> std::ws, comment);
  BOOST_CHECK_EQUAL(id_cell, n);
  BOOST_CHECK_EQUAL(account, "physics");
  BOOST_CHECK_EQUAL(qos, "high");
  BOOST_CHECK_EQUAL(comment, "sweep 7");
}

BOOST_AUTO_TEST_CASE(wrap_submits_the_command_as_a_script) {
  auto r = run_cli({"batch", "--wrap=echo wrapped; echo \"tasks $SHOAL_NTASKS\""});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  BOOST_CHECK_EQUAL(read_file(scratch.file("shoal-" + std::to_string(id) + ".out")),
                    "wrapped\ntasks 1\n");
  BOOST_CHECK_EQUAL(job(id).value("name", ""), "wrap");
  auto refused = run_cli({"batch", "--wrap=true", "extra.sh"});
  BOOST_CHECK_EQUAL(refused.exit_code, 2);
  BOOST_CHECK_MESSAGE(
      refused.err.find("Script arguments not permitted with --wrap option") != std::string::npos,
      refused.err);
}

BOOST_AUTO_TEST_CASE(parsable_ids_chain_jobs_with_afterok) {
  write_file(scratch.file("first.sh"), "#!/bin/sh\necho first > order.txt\n", true);
  write_file(scratch.file("second.sh"), "#!/bin/sh\necho second >> order.txt\n", true);
  auto shoal = bin_path("shoal");
  command_options opt;
  opt.env = {{"SHOAL_CONF", conf}};
  opt.cwd = scratch.path();
  // As site guides chain jobs: the first id captured, the second submitted depending on it.
  auto r = run_command({"/bin/sh", "-c",
                        "jid=$(" + shoal + " batch --parsable first.sh) || exit 1\n" + shoal +
                            " batch --parsable --dependency=afterok:$jid second.sh"},
                       opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto second = parsable_job_id(r.out);
  BOOST_REQUIRE_MESSAGE(second != 0, r.describe());
  auto first = second - 1;
  BOOST_REQUIRE(wait_job_state(second, "COMPLETED"));
  BOOST_CHECK_EQUAL(job(first).value("state", ""), "COMPLETED");
  BOOST_CHECK_EQUAL(read_file(scratch.file("order.txt")), "first\nsecond\n");
  BOOST_CHECK(job(second).value("start_time", int64_t{0}) >=
              job(first).value("end_time", int64_t{0}));
  // --parsable on a #SBATCH line counts too.
  write_file(scratch.file("quiet.sh"), "#!/bin/sh\n#SBATCH --parsable\ntrue\n", true);
  auto quiet = run_cli({"batch", "quiet.sh"});
  BOOST_CHECK_MESSAGE(parsable_job_id(quiet.out) == second + 1, quiet.describe());
}

BOOST_AUTO_TEST_CASE(export_decides_the_environment_the_job_gets) {
  command_options opt;
  opt.env = {{"OPTIONS_TEST_VALUE", "from-submitter"}};
  auto script =
      "#!/bin/sh\necho \"value=${OPTIONS_TEST_VALUE-unset} extra=${EXTRA-unset} "
      "job=${SHOAL_JOB_ID:+set}\"\n";
  write_file(scratch.file("env.sh"), script, true);
  auto ids = std::vector<uint64_t>{};
  for (auto spec : {"--export=ALL", "--export=NONE", "--export=OPTIONS_TEST_VALUE,EXTRA=1"}) {
    auto r = run_cli({"batch", spec, "env.sh"}, opt);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    ids.push_back(submitted_job_id(r.out));
  }
  std::vector<std::string> want{"value=from-submitter extra=unset job=set\n",
                                "value=unset extra=unset job=set\n",
                                "value=from-submitter extra=1 job=set\n"};
  for (size_t i = 0; i < ids.size(); ++i) {
    BOOST_REQUIRE(wait_job_state(ids[i], "COMPLETED"));
    BOOST_CHECK_EQUAL(read_file(scratch.file("shoal-" + std::to_string(ids[i]) + ".out")), want[i]);
  }
}

BOOST_AUTO_TEST_CASE(open_mode_truncates_or_appends_the_output_file) {
  write_file(scratch.file("kept.out"), "earlier\n");
  write_file(scratch.file("replaced.out"), "earlier\n");
  auto appended =
      submit_script("a.sh", "#!/bin/sh\necho later\n", {"-o", "kept.out", "--open-mode=append"});
  auto truncated = submit_script("t.sh", "#!/bin/sh\necho later\n",
                                 {"-o", "replaced.out", "--open-mode=truncate"});
  BOOST_REQUIRE(appended != 0 && truncated != 0);
  BOOST_REQUIRE(wait_job_state(appended, "COMPLETED"));
  BOOST_REQUIRE(wait_job_state(truncated, "COMPLETED"));
  BOOST_CHECK_EQUAL(read_file(scratch.file("kept.out")), "earlier\nlater\n");
  BOOST_CHECK_EQUAL(read_file(scratch.file("replaced.out")), "later\n");
}

BOOST_AUTO_TEST_CASE(an_option_without_effect_warns_once_and_the_job_runs) {
  auto r = run_cli({"batch", "--gres=gpu:0", "--hint=nomultithread", "--wrap=echo ran"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_EQUAL(r.err,
                    "shoal batch: warning: --hint=nomultithread is ignored (use --cpu-bind to "
                    "bind tasks)\n");
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  // Slurm's options for what shoal has no plugin for, in a script's #SBATCH lines too: one line
  // each, the command line's value winning; none under -Q.
  write_file(scratch.file("site.sh"),
             "#!/bin/sh\n#SBATCH --acctg-freq=task=30\n#SBATCH --wckey=a\necho ran\n");
  auto site = run_cli({"batch", "--wckey=b", "--ignore-pbs", "site.sh"});
  BOOST_REQUIRE_MESSAGE(site.exit_code == 0, site.describe());
  BOOST_CHECK_EQUAL(site.err,
                    "shoal batch: warning: --acctg-freq=task=30 is ignored (shoal samples each "
                    "step's CPU and memory use at its own interval)\n"
                    "shoal batch: warning: --wckey=b is ignored (shoal keeps no workload "
                    "characterization keys)\n");
  BOOST_REQUIRE(wait_job_state(submitted_job_id(site.out), "COMPLETED"));
  auto quiet = run_cli({"batch", "-Q", "--profile=task", "--wrap=true"});
  BOOST_CHECK_MESSAGE(quiet.exit_code == 0 && quiet.err.empty(), quiet.describe());
  BOOST_REQUIRE(wait_job_state(submitted_job_id(quiet.out), "COMPLETED"));
  // gpu:0 asks for nothing, so it runs on a cluster without GRES, without a word.
  auto run = run_cli({"run", "--gres=gpu:0", "-N2", "--ntasks-per-node=2", "hostname"});
  BOOST_REQUIRE_MESSAGE(run.exit_code == 0, run.describe());
  BOOST_CHECK_EQUAL(count_lines_with(run.out, local_hostname()), 4u);
  BOOST_CHECK_MESSAGE(run.err.empty(), run.err);
}

BOOST_AUTO_TEST_CASE(an_option_that_would_change_what_the_job_gets_is_refused) {
  // No GresTypes here: the controller refuses the name.
  auto gres = run_cli({"batch", "--gres=gpu:2", "--wrap=true"});
  BOOST_CHECK_EQUAL(gres.exit_code, 1);
  BOOST_CHECK_MESSAGE(
      gres.err.find("error: Batch job submission failed: Invalid generic resource (gres) "
                    "specification") != std::string::npos,
      gres.err);
  auto too_many = run_cli({"batch", "-N1", "-n4", "--ntasks-per-node=2", "--wrap=true"});
  BOOST_CHECK_EQUAL(too_many.exit_code, 1);
  BOOST_CHECK_MESSAGE(
      too_many.err.find("Requested node configuration is not available") != std::string::npos,
      too_many.err);
  auto big = run_cli({"run", "--mincpus=4096", "true"});
  BOOST_CHECK_EQUAL(big.exit_code, 1);
  BOOST_CHECK_MESSAGE(big.err.find("(--mincpus)") != std::string::npos, big.err);
  BOOST_CHECK(jobs().size() == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

/// A MailProg that appends its mail type, subject and recipient to a log, one line a mail.
struct mail_log {
  scratch_dir dir;
  std::string log = dir.file("mail.log");
  std::string prog = write_file(dir.file("mail.sh"),
                                "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$SLURM_JOB_MAIL_TYPE\" "
                                "\"$2\" \"$3\" >> " +
                                    log + "\n",
                                true);
};

struct mailing_node : mail_log, cluster_fixture {
  mailing_node() : cluster_fixture(1, "MailProg=" + prog + "\n") {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(slurm_mail, mailing_node)

BOOST_AUTO_TEST_CASE(mail_prog_runs_on_the_events_the_job_asked_for) {
  auto quiet = run_cli({"batch", "--wrap=true"});
  BOOST_REQUIRE(wait_job_state(submitted_job_id(quiet.out), "COMPLETED"));
  auto r =
      run_cli({"batch", "--mail-type=BEGIN,END", "--mail-user=alice@example.org", "--wrap=true"});
  auto id = std::to_string(submitted_job_id(r.out));
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_until([&] { return lines_of(read_file(log)).size() >= 2; }, 30s));
  auto lines = lines_of(read_file(log));
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  auto began = "Began|Slurm Job_id=" + id + " Name=wrap Began, Queued time ";
  BOOST_CHECK_MESSAGE(lines[0].rfind(began, 0) == 0, lines[0]);
  BOOST_CHECK_MESSAGE(
      lines[0].size() > 18 && lines[0].substr(lines[0].size() - 18) == "|alice@example.org",
      lines[0]);
  auto ended = "Ended|Slurm Job_id=" + id + " Name=wrap Ended, Run time ";
  BOOST_CHECK_MESSAGE(lines[1].rfind(ended, 0) == 0, lines[1]);
  BOOST_CHECK_MESSAGE(
      lines[1].find(", COMPLETED, ExitCode 0|alice@example.org") != std::string::npos, lines[1]);

  auto failing = run_cli({"batch", "--mail-type=FAIL", "--wrap=exit 3"});
  auto failed_id = std::to_string(submitted_job_id(failing.out));
  BOOST_REQUIRE(wait_until([&] { return lines_of(read_file(log)).size() >= 3; }, 30s));
  auto last = lines_of(read_file(log)).back();
  BOOST_CHECK_MESSAGE(last.rfind("Failed|Slurm Job_id=" + failed_id + " Name=wrap Failed", 0) == 0,
                      last);
  // No --mail-user: the job's owner.
  BOOST_CHECK_MESSAGE(last.find(", FAILED, ExitCode 3|") != std::string::npos, last);
  BOOST_CHECK_MESSAGE(
      last.substr(last.rfind('|') + 1) == job(std::stoull(failed_id)).value("user", ""), last);
}

BOOST_AUTO_TEST_SUITE_END()

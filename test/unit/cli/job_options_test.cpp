// The options `shoal batch` and `shoal run` take from Slurm scripts (issue 18): what each sets on
// the request, which are only warned about, which are refused, and #SBATCH lines carrying them.

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "messages/errc.hpp"
#include "tools/cli/batch_script.hpp"
#include "tools/cli/job_options.hpp"

using shoal::cli::job_options;

namespace {

using words = std::vector<std::string>;

/// Options parsed from `args` as the batch (or run) command line parses them.
struct parsed {
  CLI::App app{"test"};
  job_options opts;

  parsed(const words& args, bool batch) {
    shoal::cli::add_job_options(app, opts, batch);
    words reversed(args.rbegin(), args.rend());  // CLI11 takes its words from the back
    app.parse(reversed);
  }
};

job_options options_of(const words& args, bool batch = true) {
  parsed p{args, batch};
  return p.opts;
}

shoal::msg::job_request request_of(const words& args, bool batch = true) {
  auto req = shoal::cli::build_request(options_of(args, batch), {"true"}, batch);
  BOOST_REQUIRE_MESSAGE(req, (req ? "" : shoal::describe(req.error())));
  return *req;
}

std::string refusal_of(const words& args, bool batch = true) {
  auto req = shoal::cli::build_request(options_of(args, batch), {"true"}, batch);
  BOOST_REQUIRE_MESSAGE(!req, "accepted, but should be refused");
  return shoal::describe(req.error());
}

bool has(const std::vector<std::string>& env, const std::string& entry) {
  for (auto& e : env)
    if (e == entry) return true;
  return false;
}

bool has_name(const std::vector<std::string>& env, const std::string& name) {
  for (auto& e : env)
    if (e.rfind(name + "=", 0) == 0) return true;
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(slurm_options)

BOOST_AUTO_TEST_CASE(ntasks_per_node_and_mincpus_reach_the_request) {
  auto req = request_of({"--ntasks-per-node=2", "--mincpus", "4", "-N", "3"});
  BOOST_CHECK_EQUAL(req.workload.ntasks_per_node, 2u);
  BOOST_CHECK_EQUAL(req.workload.min_cpus, 4u);
  BOOST_CHECK_EQUAL(req.min_nodes, 3u);
  // -n stays open: the controller derives it from the node count, as Slurm does.
  BOOST_CHECK_EQUAL(req.ntasks, 0u);
  BOOST_CHECK_EQUAL(request_of({"--ntasks-per-node=3"}, false).workload.ntasks_per_node, 3u);
}

BOOST_AUTO_TEST_CASE(a_count_that_is_not_positive_is_refused_in_slurms_words) {
  BOOST_CHECK_EQUAL(refusal_of({"--ntasks-per-node=0"}),
                    "Invalid numeric value \"0\" for --ntasks-per-node.");
  BOOST_CHECK_EQUAL(refusal_of({"--ntasks-per-node=two"}),
                    "Invalid numeric value \"two\" for --ntasks-per-node.");
  BOOST_CHECK_EQUAL(refusal_of({"--mincpus=-1"}), "Invalid numeric value \"-1\" for --mincpus.");
}

BOOST_AUTO_TEST_CASE(counts_and_node_counts_are_refused_with_slurms_exit_codes) {
  struct refused_case {
    words args;
    std::string text;
    int exit_code;
    bool submission;
  };
  // parse_int exits 1; verify_node_count's refusals leave sbatch with exit(-1); a count of no
  // nodes is the controller's refusal.
  std::vector<refused_case> cases{
      {{"-n", "0"}, "Invalid numeric value \"0\" for --ntasks.", 1, false},
      {{"--ntasks=-1"}, "Invalid numeric value \"-1\" for --ntasks.", 1, false},
      {{"-n", "abc"}, "Invalid numeric value \"abc\" for --ntasks.", 1, false},
      {{"-c", "0"}, "Invalid numeric value \"0\" for --cpus-per-task.", 1, false},
      {{"--cpus-per-task=-2"}, "Invalid numeric value \"-2\" for --cpus-per-task.", 1, false},
      {{"-N", "abc"}, "\"abc\" is not a valid node count", 255, false},
      {{"--mem=-5"}, "Invalid --mem specification", 255, false},
      {{"--mem-per-cpu=5X"}, "Invalid --mem-per-cpu specification", 255, false},
      {{"-N", "4-2"}, "Maximum node count 2 is less than minimum node count 4", 255, false},
      {{"-N", "0"}, "Node count specification invalid", 1, true},
      {{"-N", "0-0"}, "Node count specification invalid", 1, true},
  };
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.args.front()) {
      auto refused = shoal::cli::refused_count(options_of(c.args));
      BOOST_REQUIRE(refused.has_value());
      BOOST_CHECK_EQUAL(refused->text, c.text);
      BOOST_CHECK_EQUAL(refused->exit_code, c.exit_code);
      BOOST_CHECK_EQUAL(refused->submission, c.submission);
    }
  }
  for (auto ok : {words{"-n", "4"}, words{"-N", "2"}, words{"-N", "1-3"}, words{"-c", "2"}})
    BOOST_CHECK(!shoal::cli::refused_count(options_of(ok)).has_value());
}

BOOST_AUTO_TEST_CASE(account_qos_comment_and_mail_are_recorded) {
  auto req = request_of({"-A", "physics", "-q", "high", "--comment", "sweep 7", "--mail-type",
                         "end,begin", "--mail-user=alice@example.org"});
  BOOST_CHECK_EQUAL(req.workload.account, "physics");
  BOOST_CHECK_EQUAL(req.workload.qos, "high");
  BOOST_CHECK_EQUAL(req.workload.comment, "sweep 7");
  // In the order and case scontrol shows them.
  BOOST_CHECK_EQUAL(req.workload.mail_type, "BEGIN,END");
  BOOST_CHECK_EQUAL(req.workload.mail_user, "alice@example.org");
  auto long_forms = request_of({"--account=chem", "--qos=low"}, false);
  BOOST_CHECK_EQUAL(long_forms.workload.account, "chem");
  BOOST_CHECK_EQUAL(long_forms.workload.qos, "low");
}

BOOST_AUTO_TEST_CASE(mail_types_read_as_slurm_reads_them) {
  using shoal::cli::canonical_mail_type;
  BOOST_CHECK_EQUAL(*canonical_mail_type("ALL"), "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
  BOOST_CHECK_EQUAL(*canonical_mail_type("none"), "NONE");
  BOOST_CHECK_EQUAL(*canonical_mail_type("FAIL,TIME_LIMIT_80,ARRAY_TASKS"),
                    "ARRAY_TASKS,FAIL,TIME_LIMIT_80");
  // Slurm drops words it does not know as long as one is known.
  BOOST_CHECK_EQUAL(*canonical_mail_type("END,bogus"), "END");
  BOOST_CHECK(!canonical_mail_type("bogus"));
  BOOST_CHECK_EQUAL(refusal_of({"--mail-type=sometimes"}), "Invalid --mail-type specification");
  // NONE asks for nothing, so nothing is recorded.
  BOOST_CHECK_EQUAL(request_of({"--mail-type=NONE"}).workload.mail_type, "");
}

BOOST_AUTO_TEST_CASE(open_mode_is_read_from_its_first_letter) {
  BOOST_CHECK_EQUAL(request_of({"--open-mode=append"}).workload.open_mode, "append");
  BOOST_CHECK_EQUAL(request_of({"--open-mode=Truncate"}).workload.open_mode, "truncate");
  BOOST_CHECK_EQUAL(request_of({}).workload.open_mode, "");
  BOOST_CHECK_EQUAL(refusal_of({"--open-mode=overwrite"}), "Invalid --open-mode specification");
}

BOOST_AUTO_TEST_CASE(wrap_and_parsable_are_batch_options) {
  auto o = options_of({"--wrap", "echo hi; hostname", "--parsable"});
  BOOST_CHECK_EQUAL(o.wrap, "echo hi; hostname");
  BOOST_CHECK(o.parsable);
  BOOST_CHECK_EQUAL(shoal::cli::wrap_script("echo hi"),
                    "#!/bin/sh\n# This script was created by sbatch --wrap.\n\necho hi\n");
  BOOST_CHECK_THROW(options_of({"--wrap=hostname"}, false), CLI::ParseError);
  BOOST_CHECK_THROW(options_of({"--parsable"}, false), CLI::ParseError);
}

BOOST_AUTO_TEST_CASE(no_requeue_wins_over_requeue) {
  BOOST_CHECK(request_of({"--requeue"}).requeue);
  BOOST_CHECK(!request_of({"--requeue", "--no-requeue"}).requeue);
}

BOOST_AUTO_TEST_CASE(export_all_is_the_whole_environment) {
  std::vector<std::string> env{"HOME=/home/a", "PATH=/bin", "SLURM_JOB_ID=3", "SHOAL_CONF=/c"};
  BOOST_CHECK(*shoal::cli::exported_environment("", env) == env);
  BOOST_CHECK(*shoal::cli::exported_environment("ALL", env) == env);
  BOOST_CHECK(*shoal::cli::exported_environment("all", env) == env);
}

BOOST_AUTO_TEST_CASE(export_none_keeps_only_shoal_and_slurm_variables) {
  std::vector<std::string> env{"HOME=/home/a", "PATH=/bin", "SLURM_JOB_ID=3", "SHOAL_CONF=/c"};
  auto out = *shoal::cli::exported_environment("NONE", env);
  BOOST_CHECK((out == std::vector<std::string>{"SLURM_JOB_ID=3", "SHOAL_CONF=/c"}));
}

BOOST_AUTO_TEST_CASE(an_export_list_gives_the_named_variables_and_the_values_set) {
  std::vector<std::string> env{"HOME=/home/a", "PATH=/bin", "EDITOR=vi", "SLURM_NNODES=2"};
  auto out = *shoal::cli::exported_environment("PATH,EDITOR=emacs,UNSET,GREETING='a,b'", env);
  BOOST_CHECK(has(out, "PATH=/bin"));
  BOOST_CHECK(has(out, "EDITOR=emacs"));
  BOOST_CHECK(has(out, "GREETING='a,b'"));
  BOOST_CHECK(has(out, "SLURM_NNODES=2"));
  BOOST_CHECK(!has_name(out, "HOME"));
  BOOST_CHECK(!has_name(out, "UNSET"));
  // ALL in a list brings everything; a later item replaces an earlier one of the same name.
  auto all = *shoal::cli::exported_environment("ALL,EDITOR=nano", env);
  BOOST_CHECK(has(all, "HOME=/home/a"));
  BOOST_CHECK(has(all, "EDITOR=nano"));
  BOOST_CHECK(!has(all, "EDITOR=vi"));
  BOOST_CHECK(!shoal::cli::exported_environment("PATH,,HOME", env));
}

BOOST_AUTO_TEST_CASE(the_request_carries_the_exported_environment) {
  ::setenv("SHOAL_OPTIONS_TEST_KEEP", "1", 1);
  ::setenv("OPTIONS_TEST_DROP", "1", 1);
  auto none = request_of({"--export=NONE"});
  BOOST_CHECK(has(none.env, "SHOAL_OPTIONS_TEST_KEEP=1"));
  BOOST_CHECK(!has_name(none.env, "OPTIONS_TEST_DROP"));
  BOOST_CHECK(!has_name(none.env, "PATH"));
  auto listed = request_of({"--export=OPTIONS_TEST_DROP,X=2"}, false);
  BOOST_CHECK(has(listed.env, "OPTIONS_TEST_DROP=1"));
  BOOST_CHECK(has(listed.env, "X=2"));
  BOOST_CHECK(has_name(request_of({"--export=ALL"}).env, "OPTIONS_TEST_DROP"));
}

BOOST_AUTO_TEST_CASE(options_without_effect_here_warn_once_each) {
  auto o = options_of({"--gres=gpu:0", "--distribution=plane=2", "--hint=nomultithread"});
  BOOST_REQUIRE(shoal::cli::build_request(o, {"true"}, true));
  auto notes = shoal::cli::ignored_option_notes(o);
  BOOST_REQUIRE_EQUAL(notes.size(), 2u);
  BOOST_CHECK_EQUAL(notes[0],
                    "--distribution=plane=2 is ignored (tasks are placed in block order across "
                    "nodes)");
  BOOST_CHECK_EQUAL(notes[1], "--hint=nomultithread is ignored (use --cpu-bind to bind tasks)");
  // Block and cyclic are what shoal does: nothing to warn about.
  BOOST_CHECK(shoal::cli::ignored_option_notes(options_of({"-m", "block"})).empty());
  BOOST_CHECK(shoal::cli::ignored_option_notes(options_of({"-m", "cyclic"})).empty());
  BOOST_CHECK_EQUAL(shoal::cli::ignored_option_notes(options_of({"-m", "cyclic:block"})).front(),
                    "--distribution=cyclic:block is ignored (tasks are placed cyclic across "
                    "nodes)");
  BOOST_CHECK_EQUAL(shoal::cli::ignored_option_notes(options_of({"-m", "block:cyclic"})).size(),
                    1u);
  BOOST_CHECK(shoal::cli::ignored_option_notes(options_of({"-N", "2", "-A", "x"})).empty());
}

BOOST_AUTO_TEST_CASE(slurms_options_that_mean_nothing_here_warn_once_each_unless_quiet) {
  auto o = options_of({"--acctg-freq=task=30", "--profile", "task", "--propagate", "--wckey=x",
                       "--no-kill", "--get-user-env=10L", "--ignore-pbs", "-v"});
  // One line each (--ignore-pbs and -v ask nothing shoal does not do), in the options' order.
  auto notes = shoal::cli::ignored_option_notes(o);
  BOOST_REQUIRE_EQUAL(notes.size(), 6u);
  BOOST_CHECK_EQUAL(notes[0],
                    "--acctg-freq=task=30 is ignored (shoal samples each step's CPU and memory "
                    "use at its own interval)");
  BOOST_CHECK_EQUAL(notes[1],
                    "--profile=task is ignored (shoal has no acct_gather_profile plugin)");
  BOOST_CHECK_EQUAL(notes[2],
                    "--wckey=x is ignored (shoal keeps no workload characterization keys)");
  // An optional value comes only attached (--propagate=NPROC), as getopt's.
  BOOST_CHECK_EQUAL(notes[3],
                    "--propagate is ignored (tasks get the node's resource limits, not the "
                    "submitter's)");
  BOOST_CHECK_EQUAL(notes[4],
                    "--get-user-env=10L is ignored (the job gets the submitter's environment, as "
                    "--export says)");
  BOOST_CHECK_EQUAL(notes[5], "--no-kill is ignored (a failed node still ends the job here)");
  // Given in two layers (a #SBATCH line, then the command line): one warning, the last value.
  shoal::cli::job_options twice;
  twice.ignored = {{"--wckey=a", "why"}, {"--tmp=1G", "why"}, {"--wckey=b", "why"}};
  auto once = shoal::cli::ignored_option_notes(twice);
  BOOST_REQUIRE_EQUAL(once.size(), 2u);
  BOOST_CHECK_EQUAL(once[0], "--tmp=1G is ignored (why)");
  BOOST_CHECK_EQUAL(once[1], "--wckey=b is ignored (why)");
  // -Q: errors only.
  BOOST_CHECK(
      shoal::cli::ignored_option_notes(options_of({"-Q", "--hint=nomultithread", "--tmp=10G"}))
          .empty());
  // srun's own: --exact warns, --overlap is what steps do here.
  auto run = shoal::cli::ignored_option_notes(options_of({"--exact", "--overlap"}, false));
  BOOST_REQUIRE_EQUAL(run.size(), 1u);
  BOOST_CHECK_EQUAL(run[0].rfind("--exact is ignored (", 0), 0u);
}

BOOST_AUTO_TEST_CASE(cyclic_distribution_travels_and_reaches_the_batch_environment) {
  auto req = request_of({"-m", "cyclic"});
  BOOST_TEST(req.workload.cyclic);
  BOOST_TEST(has_name(req.env, "SLURM_DISTRIBUTION"));
  BOOST_TEST(!request_of({"-m", "block"}).workload.cyclic);
  // srun passes its own layout on in the step, not in the environment.
  BOOST_TEST(!has_name(request_of({"-m", "cyclic"}, false).env, "SLURM_DISTRIBUTION"));
}

BOOST_AUTO_TEST_CASE(gres_requests_travel_in_canonical_form) {
  BOOST_CHECK_EQUAL(request_of({"--gres=gpu"}).gres, "gpu:1");
  BOOST_CHECK_EQUAL(request_of({"--gres=gres:gpu:tesla:2,nic:1"}).gres, "gpu:tesla:2,nic:1");
  BOOST_CHECK_EQUAL(request_of({"--gres=gpu:0"}).gres, "");
  BOOST_CHECK_EQUAL(request_of({"--gres=none"}).gres, "");
  BOOST_CHECK_EQUAL(request_of({"--gres=gpu:tesla:0,mps:0"}).gres, "");
  BOOST_CHECK_EQUAL(request_of({"--gpus-per-node=2"}).gres, "gpu:2");
  BOOST_CHECK_EQUAL(request_of({"--gpus-per-node=tesla:1", "--gres=nic:1"}).gres,
                    "nic:1,gpu:tesla:1");
}

BOOST_AUTO_TEST_CASE(a_malformed_gres_is_an_error_in_slurms_words) {
  for (const char* gres : {"gpu:", ":2", "gpu:2x", "gpu:a:b:2", "gpu:1,gpu:tesla:1"})
    BOOST_CHECK_EQUAL(refusal_of({std::string{"--gres="} + gres}),
                      "Invalid generic resource (gres) specification");
  BOOST_CHECK_EQUAL(refusal_of({"--gpus-per-node=tesla"}),
                    "Invalid generic resource (gres) specification");
  BOOST_CHECK_EQUAL(refusal_of({"--gres=gpu:1", "--gpus-per-node=1"}),
                    "Invalid generic resource (gres) specification");
}

BOOST_AUTO_TEST_CASE(a_distribution_slurm_does_not_know_is_an_error) {
  BOOST_CHECK_EQUAL(refusal_of({"--distribution=diagonal"}),
                    "Invalid --distribution specification");
  BOOST_CHECK_EQUAL(refusal_of({"-m", "plane=0"}), "Invalid --distribution specification");
  BOOST_CHECK(shoal::cli::build_request(options_of({"-m", "plane=4"}), {"true"}, true));
  BOOST_CHECK(shoal::cli::build_request(options_of({"-m", "cyclic:block,Pack"}), {"x"}, false));
}

BOOST_AUTO_TEST_CASE(a_site_guide_script_parses_whole) {
  auto script =
      "#!/bin/bash\n"
      "#SBATCH --job-name=guide\n"
      "#SBATCH --output=guide-%j.out\n"
      "#SBATCH --ntasks=4\n"
      "#SBATCH --ntasks-per-node=2\n"
      "#SBATCH --time=00:10:00\n"
      "#SBATCH --mem-per-cpu=100M\n"
      "#SBATCH --partition=debug\n"
      "#SBATCH --account=physics\n"
      "#SBATCH --qos=normal\n"
      "#SBATCH --mail-type=BEGIN,END,FAIL\n"
      "#SBATCH --mail-user=alice@example.org\n"
      "#SBATCH --export=ALL\n"
      "#SBATCH --gres=gpu:0\n"
      "#SBATCH --comment \"two words\"\n"
      "#SBATCH --open-mode=append\n"
      "\n"
      "srun hostname\n"
      "echo $SLURM_JOB_ID\n";
  auto directives = shoal::cli::script_directives(script);
  auto req = request_of(directives);
  BOOST_CHECK_EQUAL(req.name, "guide");
  BOOST_CHECK_EQUAL(req.stdout_path, "guide-%j.out");
  BOOST_CHECK_EQUAL(req.ntasks, 4u);
  BOOST_CHECK_EQUAL(req.workload.ntasks_per_node, 2u);
  BOOST_CHECK_EQUAL(req.time_limit_s, 600);
  BOOST_CHECK_EQUAL(req.workload.mem_per_cpu_mb, 100u);
  BOOST_CHECK_EQUAL(req.partition, "debug");
  BOOST_CHECK_EQUAL(req.workload.account, "physics");
  BOOST_CHECK_EQUAL(req.workload.qos, "normal");
  BOOST_CHECK_EQUAL(req.workload.mail_type, "BEGIN,END,FAIL");
  BOOST_CHECK_EQUAL(req.workload.mail_user, "alice@example.org");
  BOOST_CHECK_EQUAL(req.workload.comment, "two words");
  BOOST_CHECK_EQUAL(req.workload.open_mode, "append");
  BOOST_CHECK_EQUAL(req.gres, "");  // gpu:0 asks for nothing
  BOOST_CHECK(shoal::cli::ignored_option_notes(options_of(directives)).empty());
}

BOOST_AUTO_TEST_CASE(the_command_line_wins_over_directives_for_every_option) {
  auto directives = shoal::cli::script_directives(
      "#!/bin/sh\n#SBATCH -A from_script --qos=script -J s --ntasks-per-node=1\n"
      "#SBATCH --dependency=afterok:1 --export=NONE\n");
  CLI::App script{"directives"};
  job_options from_script;
  shoal::cli::add_job_options(script, from_script, true);
  words reversed(directives.rbegin(), directives.rend());
  script.parse(reversed);
  parsed given{{"-A", "from_cli", "--ntasks-per-node=3", "--dependency=afterany:2", "--hold"},
               true};
  shoal::cli::apply_command_line(script, given.app);
  BOOST_CHECK_EQUAL(from_script.account, "from_cli");
  BOOST_CHECK_EQUAL(from_script.qos, "script");
  BOOST_CHECK_EQUAL(from_script.name, "s");
  BOOST_CHECK_EQUAL(from_script.ntasks_per_node, "3");
  BOOST_CHECK_EQUAL(from_script.dependency, "afterany:2");
  BOOST_CHECK(from_script.hold);
  BOOST_CHECK_EQUAL(from_script.export_env, "NONE");
}

BOOST_AUTO_TEST_SUITE_END()

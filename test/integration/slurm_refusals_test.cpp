// Bad input refused at submission in Slurm 22.05's words and with its exit codes (issue 34): what
// no node can ever hold, scripts sbatch will not send, nonsense counts and job ids. The expected
// lines are what Debian's slurm-wlm 22.05.8 printed for the same command lines against a
// slurmctld whose two nodes had CPUs=2 RealMemory=2000 Feature=fast (and the texts are those of
// src/common/slurm_errno.c, node_scheduler.c's _set_err_msg, proc_args.c's parse_int and
// verify_node_count, sbatch.c's _get_script_buffer, squeue's _build_job_list, scancel's
// _verify_job_ids and scontrol's scontrol_print_job). Where shoal adds what is missing, it is the
// explanation line Slurm's controller sends (or one like it), before Slurm's own last line.

#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Runs the Slurm name `name` (a link to shoal) with `args`, against the cluster `conf` names
/// ("" for none: the checks that need no controller), in `cwd`.
command_result slurm(const std::string& name, const std::vector<std::string>& args,
                     const std::string& conf = "", const std::string& cwd = "") {
  command_options opt;
  if (!conf.empty()) opt.env = {{"SHOAL_CONF", conf}};
  opt.cwd = cwd;
  opt.timeout = 30s;
  std::vector<std::string> argv{bin_path("slurm-names/" + name)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, opt);
}

/// Two nodes of 2 CPUs and 2000 MB with feature "fast", GPUs known to the cluster but on no node.
struct small_nodes : cluster_fixture {
  small_nodes() : cluster_fixture(2, "GresTypes=gpu\n", "CPUs=2 RealMemory=2000 Feature=fast") {}

  command_result run(const std::string& name, const std::vector<std::string>& args) {
    return slurm(name, args, conf, scratch.path());
  }

  /// sbatch, srun and salloc all refuse `ask`: `explanation` (or none) first, then the command's
  /// words for a refused submission and `slurm_text`, exit 1; sbatch --test-only says only
  /// "allocation failure: TEXT". Nothing is queued.
  void check_refused_everywhere(const std::vector<std::string>& ask,
                                const std::optional<std::string>& explanation,
                                const std::string& slurm_text) {
    struct command {
      const char* name;
      const char* failed;
      std::vector<std::string> tail;
    };
    for (auto& c :
         std::vector<command>{{"sbatch", "Batch job submission failed: ", {"--wrap=true"}},
                              {"srun", "Unable to allocate resources: ", {"true"}},
                              {"salloc", "Job submit/allocate failed: ", {"true"}}}) {
      BOOST_TEST_CONTEXT(c.name << " " << ask.front()) {
        auto args = ask;
        args.insert(args.end(), c.tail.begin(), c.tail.end());
        auto r = run(c.name, args);
        BOOST_CHECK_MESSAGE(r.exit_code == 1, r.describe());
        std::string last = std::string{c.name} + ": error: " + c.failed + slurm_text;
        auto lines = lines_of(r.err);
        BOOST_REQUIRE_MESSAGE(!lines.empty(), r.describe());
        BOOST_CHECK_EQUAL(lines.back(), last);
        if (explanation) {
          BOOST_REQUIRE_MESSAGE(lines.size() == 2, r.describe());
          BOOST_CHECK_MESSAGE(
              lines[0].rfind(std::string{c.name} + ": error: " + *explanation, 0) == 0,
              r.describe());
        }
        BOOST_CHECK_EQUAL(r.out, "");
      }
    }
    auto args = ask;
    args.insert(args.begin(), "--test-only");
    args.push_back("--wrap=true");
    auto test_only = run("sbatch", args);
    BOOST_CHECK_EQUAL(test_only.exit_code, 1);
    BOOST_CHECK_EQUAL(test_only.err, "allocation failure: " + slurm_text + "\n");
    BOOST_CHECK_EQUAL(jobs().size(), 0u);
  }
};

const std::string node_config = "Requested node configuration is not available";

/// A script file in a directory of its own.
struct script_dir {
  scratch_dir dir;
  std::string write(const std::string& name, const std::string& text) {
    return write_file(dir.file(name), text);
  }
};

/// `sbatch ARGS` fails with exactly `err` and `code`, before any controller is asked.
void check_sbatch_alone(const std::vector<std::string>& args, const std::string& err, int code) {
  auto r = slurm("sbatch", args);
  BOOST_CHECK_EQUAL(r.exit_code, code);
  BOOST_CHECK_EQUAL(r.err, err);
  BOOST_CHECK_EQUAL(r.out, "");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(slurm_refusals)

// -- what no node can ever hold ----------------------------------------------------------------

BOOST_FIXTURE_TEST_CASE(memory_above_every_node_is_refused_at_submission, small_nodes) {
  check_refused_everywhere({"--mem=5000"}, "Memory specification can not be satisfied",
                           node_config);
  check_refused_everywhere({"--mem-per-cpu=3000"}, "Memory specification can not be satisfied",
                           node_config);
}

BOOST_FIXTURE_TEST_CASE(more_cpus_than_any_node_has_are_refused_at_submission, small_nodes) {
  check_refused_everywhere({"--cpus-per-task=4"}, "CPU count per node can not be satisfied",
                           node_config);
  check_refused_everywhere({"--mincpus=3"}, "CPU count per node can not be satisfied", node_config);
}

BOOST_FIXTURE_TEST_CASE(more_nodes_than_the_partition_has_are_refused_at_submission, small_nodes) {
  check_refused_everywhere({"-N", "3"}, "3 nodes requested, partition debug has 2", node_config);
}

BOOST_FIXTURE_TEST_CASE(gres_no_node_has_is_refused_at_submission, small_nodes) {
  check_refused_everywhere({"--gres=gpu:1"}, std::nullopt, node_config);
}

BOOST_FIXTURE_TEST_CASE(a_feature_no_node_has_is_refused_at_submission, small_nodes) {
  check_refused_everywhere({"-C", "slow"}, "no node has feature 'slow'",
                           "Invalid feature specification");
  // The feature the nodes have is fine.
  auto r = run("sbatch", {"-C", "fast", "--parsable", "--wrap=true"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
}

// -- the script --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(an_empty_script_a_directory_and_dev_null_are_empty) {
  script_dir d;
  auto empty = d.write("empty.sh", "");
  for (auto& path : {empty, d.dir.path(), std::string{"/dev/null"}}) BOOST_TEST_CONTEXT(path) {
      check_sbatch_alone({path}, "sbatch: error: Batch script is empty!\n", 1);
    }
  check_sbatch_alone({d.write("blank.sh", "  \n\n")},
                     "sbatch: error: Batch script contains only whitespace!\n", 1);
}

BOOST_AUTO_TEST_CASE(a_script_without_an_interpreter_line_is_refused) {
  script_dir d;
  check_sbatch_alone({d.write("plain.sh", "hostname\n")},
                     "sbatch: error: This does not look like a batch script.  The first\n"
                     "sbatch: error: line must start with #! followed by the path to an "
                     "interpreter.\n"
                     "sbatch: error: For instance: #!/bin/sh\n",
                     1);
}

BOOST_AUTO_TEST_CASE(a_script_with_dos_line_breaks_is_refused) {
  script_dir d;
  check_sbatch_alone({d.write("dos.sh", "#!/bin/sh\r\nhostname\r\n")},
                     "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
                     "sbatch: error: instead of expected UNIX line breaks (\\n).\n",
                     1);
}

// -- nonsense counts ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(task_and_cpu_counts_below_one_are_refused_as_parse_int_refuses_them) {
  struct refused {
    const char* name;
    std::vector<std::string> args;
    std::string err;
  };
  for (auto& c : std::vector<refused>{
           {"sbatch", {"-n", "0"}, "sbatch: error: Invalid numeric value \"0\" for --ntasks.\n"},
           {"sbatch", {"-n", "-1"}, "sbatch: error: Invalid numeric value \"-1\" for --ntasks.\n"},
           {"sbatch",
            {"-n", "abc"},
            "sbatch: error: Invalid numeric value \"abc\" for --ntasks.\n"},
           {"sbatch",
            {"-c", "0"},
            "sbatch: error: Invalid numeric value \"0\" for --cpus-per-task.\n"},
           {"sbatch",
            {"-c", "-2"},
            "sbatch: error: Invalid numeric value \"-2\" for --cpus-per-task.\n"},
           {"sbatch",
            {"--ntasks-per-node=0"},
            "sbatch: error: Invalid numeric value \"0\" for --ntasks-per-node.\n"},
           {"srun", {"-n", "0"}, "srun: error: Invalid numeric value \"0\" for --ntasks.\n"},
           {"srun", {"-c", "0"}, "srun: error: Invalid numeric value \"0\" for --cpus-per-task.\n"},
           {"salloc", {"-n", "0"}, "salloc: error: Invalid numeric value \"0\" for --ntasks.\n"},
       }) {
    BOOST_TEST_CONTEXT(c.name << " " << c.args.front() << " " << c.args.back()) {
      auto args = c.args;
      args.push_back(std::string{c.name} == "sbatch" ? "--wrap=true" : "true");
      auto r = slurm(c.name, args);
      BOOST_CHECK_EQUAL(r.exit_code, 1);
      BOOST_CHECK_EQUAL(r.err, c.err);
    }
  }
}

BOOST_AUTO_TEST_CASE(node_counts_are_refused_as_slurm_refuses_them) {
  // No nodes: slurmctld's refusal, in each command's words.
  for (auto count : {"0", "0-0"}) BOOST_TEST_CONTEXT(count) {
      check_sbatch_alone({"-N", count, "--wrap=true"},
                         "sbatch: error: Batch job submission failed: Node count specification "
                         "invalid\n",
                         1);
    }
  auto srun = slurm("srun", {"-N", "0", "true"});
  BOOST_CHECK_EQUAL(srun.exit_code, 1);
  BOOST_CHECK_EQUAL(
      srun.err, "srun: error: Unable to allocate resources: Node count specification invalid\n");
  auto salloc = slurm("salloc", {"-N", "0", "true"});
  BOOST_CHECK_EQUAL(salloc.exit_code, 1);
  BOOST_CHECK_EQUAL(
      salloc.err, "salloc: error: Job submit/allocate failed: Node count specification invalid\n");
  // Not a count: verify_node_count's words, and sbatch's exit(-1).
  check_sbatch_alone({"-N", "abc", "--wrap=true"},
                     "sbatch: error: \"abc\" is not a valid node count\n", 255);
  check_sbatch_alone({"-N", "4-2", "--wrap=true"},
                     "sbatch: error: Maximum node count 2 is less than minimum node count 4\n",
                     255);
}

BOOST_AUTO_TEST_CASE(memory_sizes_that_are_not_sizes_are_refused_as_arg_set_mem_refuses_them) {
  check_sbatch_alone({"--mem=-5", "--wrap=true"}, "sbatch: error: Invalid --mem specification\n",
                     255);
  check_sbatch_alone({"--mem=abc", "--wrap=true"}, "sbatch: error: Invalid --mem specification\n",
                     255);
  check_sbatch_alone({"--mem-per-cpu=-1", "--wrap=true"},
                     "sbatch: error: Invalid --mem-per-cpu specification\n", 255);
}

// -- nonsense job ids --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(job_ids_that_are_not_numbers_are_refused_before_asking) {
  for (auto id : {"abc", "0"}) {
    BOOST_TEST_CONTEXT(id) {
      auto q = slurm("squeue", {"-j", id});
      BOOST_CHECK_EQUAL(q.exit_code, 1);
      BOOST_CHECK_EQUAL(q.err, "squeue: error: Invalid job id: " + std::string{id} + "\n");
      auto c = slurm("scancel", {id});
      BOOST_CHECK_EQUAL(c.exit_code, 1);
      BOOST_CHECK_EQUAL(c.err, "scancel: error: Invalid job id " + std::string{id} + "\n");
    }
  }
  auto c = slurm("scancel", {"12_[1-3"});
  BOOST_CHECK_EQUAL(c.exit_code, 1);
  BOOST_CHECK_EQUAL(c.err, "scancel: error: Invalid job id 12_[1-3\n");
}

BOOST_FIXTURE_TEST_CASE(unknown_and_malformed_job_ids_read_as_slurm_reports_them, small_nodes) {
  auto show = run("scontrol", {"show", "job", "abc"});
  BOOST_CHECK_EQUAL(show.exit_code, 1);
  BOOST_CHECK_EQUAL(show.err, "scontrol_print_job error: Invalid job id specified\n");
  BOOST_CHECK_EQUAL(show.out, "");
  auto unknown = run("scontrol", {"show", "job", "99999"});
  BOOST_CHECK_EQUAL(unknown.exit_code, 1);
  BOOST_CHECK_EQUAL(unknown.err, "slurm_load_jobs error: Invalid job id specified\n");
  auto queue = run("squeue", {"-j", "99999"});
  BOOST_CHECK_EQUAL(queue.exit_code, 1);
  BOOST_CHECK_EQUAL(queue.err, "slurm_load_jobs error: Invalid job id specified\n");
  BOOST_CHECK_EQUAL(queue.out, "");
}

BOOST_AUTO_TEST_SUITE_END()

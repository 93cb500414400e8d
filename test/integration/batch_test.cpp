// `shoal batch`: submission, the output file, #SHOAL directives and steps inside the script.

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <regex>
#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

}  // namespace

BOOST_FIXTURE_TEST_SUITE(batch_jobs, two_nodes)

BOOST_AUTO_TEST_CASE(batch_prints_the_job_id_and_writes_shoal_n_out) {
  write_file(scratch.file("hello.sh"), "#!/bin/sh\necho hello from batch\n", true);
  auto r = run_cli({"batch", "hello.sh"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(std::regex_match(r.out, std::regex{"Submitted batch job [0-9]+\n"}), r.out);
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  auto out_file = scratch.file("shoal-" + std::to_string(id) + ".out");
  BOOST_CHECK_EQUAL(read_file(out_file), "hello from batch\n");
  BOOST_CHECK_EQUAL(job(id).value("name", ""), "hello.sh");
}

BOOST_AUTO_TEST_CASE(script_directives_set_the_name_and_the_output_file) {
  auto id = submit_script("named.sh",
                          "#!/bin/sh\n#SHOAL -J custom_name\n#SHOAL -o custom-%j.txt\n"
                          "echo named output\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  auto n = std::to_string(id);
  BOOST_CHECK_EQUAL(job(id).value("name", ""), "custom_name");
  BOOST_CHECK_EQUAL(read_file(scratch.file("custom-" + n + ".txt")), "named output\n");
  BOOST_CHECK(!std::filesystem::exists(scratch.file("shoal-" + n + ".out")));
}

BOOST_AUTO_TEST_CASE(the_command_line_wins_over_script_directives) {
  auto id = submit_script("both.sh",
                          "#!/bin/sh\n#SHOAL -J from_script\n#SHOAL -o script-%j.txt\necho hi\n",
                          {"-J", "from_command_line", "-o", "cli-%j.txt"});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  auto n = std::to_string(id);
  BOOST_CHECK_EQUAL(job(id).value("name", ""), "from_command_line");
  BOOST_CHECK_EQUAL(read_file(scratch.file("cli-" + n + ".txt")), "hi\n");
  BOOST_CHECK(!std::filesystem::exists(scratch.file("script-" + n + ".txt")));
}

BOOST_AUTO_TEST_CASE(a_step_inside_the_script_runs_and_its_output_lands_in_the_job_file) {
  // The script finds the cluster through SHOAL_CONF and its job through SHOAL_JOB_ID.
  auto id = submit_script("steps.sh", "#!/bin/sh\necho before\n" + bin_path("shoal") +
                                          " run hostname\necho \"after rc=$?\"\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED"));
  auto text = read_file(scratch.file("shoal-" + std::to_string(id) + ".out"));
  BOOST_CHECK_EQUAL(text, "before\n" + local_hostname() + "\nafter rc=0\n");
  BOOST_CHECK_EQUAL(job(id).value("step_count", 0), 1);
}

BOOST_AUTO_TEST_SUITE_END()

// Licenses=: a cluster-wide pool jobs ask for with -L, held while they run. Two jobs each
// needing 2 of 3 licenses run one after the other, the second pending with reason Licenses while
// the first runs, on a cluster with a free node for it all along.

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;
namespace fs = std::filesystem;

namespace {

struct licensed_nodes : cluster_fixture {
  licensed_nodes() : cluster_fixture(2, "Licenses=sim:3,viz\n") {}

  std::string reason_of(uint64_t id) { return job(id).value("reason", ""); }

  /// A script that marks its start in `started` and ends once `go` exists.
  std::string waiting_script(const std::string& started, const std::string& go) {
    return "#!/bin/sh\ntouch " + started + "\nwhile [ ! -e " + go + " ]; do sleep 0.2; done\n";
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(licenses, licensed_nodes)

BOOST_AUTO_TEST_CASE(two_jobs_needing_two_of_three_run_one_after_the_other) {
  auto go = scratch.file("go");
  auto first = submit_script("first.sh", waiting_script(scratch.file("first.started"), go),
                             {"-N1", "-L", "sim:2"});
  BOOST_REQUIRE(first != 0);
  BOOST_REQUIRE(wait_job_state(first, "RUNNING"));
  auto second = submit_script("second.sh", waiting_script(scratch.file("second.started"), go),
                              {"-N1", "--licenses=sim:2"});
  BOOST_REQUIRE(second != 0);
  BOOST_CHECK(wait_until([&] { return reason_of(second) == "Licenses"; }, 30s));
  BOOST_CHECK_EQUAL(job_state(second), "PENDING");
  BOOST_CHECK_EQUAL(job_state(first), "RUNNING");

  // What scontrol and squeue show meanwhile.
  auto shown = run_cli({"control", "show", "licenses"});
  BOOST_CHECK_MESSAGE(shown.exit_code == 0, shown.describe());
  BOOST_CHECK_EQUAL(shown.out,
                    "LicenseName=sim\n    Total=3 Used=2 Free=1 Reserved=0 Remote=no\n"
                    "LicenseName=viz\n    Total=1 Used=0 Free=1 Reserved=0 Remote=no\n");
  auto one = run_cli({"control", "show", "license", "sim", "-o"});
  BOOST_CHECK_EQUAL(one.out, "LicenseName=sim Total=3 Used=2 Free=1 Reserved=0 Remote=no\n");
  auto listed = run_cli({"queue", "-h", "-o", "%i %W %r"});
  BOOST_CHECK_MESSAGE(listed.out.find(std::to_string(first) + " sim:2 None") != std::string::npos,
                      listed.describe());
  BOOST_CHECK_MESSAGE(
      listed.out.find(std::to_string(second) + " sim:2 Licenses") != std::string::npos,
      listed.describe());
  auto record = run_cli({"control", "show", "job", std::to_string(second)});
  BOOST_CHECK_MESSAGE(record.out.find("Licenses=sim:2") != std::string::npos, record.describe());
  BOOST_CHECK_MESSAGE(record.out.find("Reason=Licenses") != std::string::npos, record.describe());

  // The first ends; the second takes the licenses.
  write_file(go, "");
  BOOST_CHECK(wait_job_state(first, "COMPLETED"));
  BOOST_CHECK(wait_job_state(second, "COMPLETED"));
}

BOOST_AUTO_TEST_CASE(an_unknown_license_is_refused_at_submission_in_slurms_words) {
  auto r = run_cli({"batch", "-L", "nosuch:1", "--wrap", "true"});
  BOOST_CHECK_MESSAGE(r.exit_code == 1, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("Invalid license specification") != std::string::npos,
                      r.describe());
  auto bad = run_cli({"run", "-L", "sim:x", "true"});
  BOOST_CHECK_MESSAGE(bad.exit_code == 1, bad.describe());
  BOOST_CHECK_MESSAGE(bad.err.find("Invalid license specification") != std::string::npos,
                      bad.describe());
  BOOST_CHECK_EQUAL(jobs().size(), 0u);
}

BOOST_AUTO_TEST_SUITE_END()

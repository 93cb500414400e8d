// Generic resources on a real local cluster (issue 18, item 1): GresTypes=gpu, nodes with
// Gres=gpu:2 and a gres.conf whose File= entries name files this test creates, jobs asking
// --gres=gpu:N, the devices their tasks see, and what listings show.

#include <signal.h>
#include <stdlib.h>

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Two nodes of two GPUs each, jobs sharing nodes (cons_tres).
struct gpu_nodes : two_gpu_nodes {
  /// `shoal control show NODE_OR_JOB` as text.
  std::string show(const std::string& what, const std::string& id) {
    auto r = run_cli({"control", "show", what, id});
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    return r.out;
  }

  /// Polls until `file` in the scratch directory holds a whole line; its text then.
  std::string wait_output(const std::string& file) {
    std::string text;
    wait_until(
        [&] {
          text = read_file(scratch.file(file));
          return !text.empty() && text.back() == '\n';
        },
        30s);
    return text;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(gres, gpu_nodes)

BOOST_AUTO_TEST_CASE(nodes_show_their_gres_and_two_jobs_on_one_node_get_different_gpus) {
  BOOST_CHECK_MESSAGE(contains(show("node", "node1"), "Gres=gpu:2\n   GresUsed=gpu:0(IDX:N/A)\n"),
                      show("node", "node1"));
  // Each job prints its GPUs, then waits for the test to let it go: both hold theirs at once.
  auto script =
      "#!/bin/sh\n"
      "echo \"$CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS $GPU_DEVICE_ORDINAL\"\n"
      "while [ ! -e release ]; do sleep 0.1; done\n";
  auto first = submit_script("gpu.sh", script, {"--gres=gpu:1", "-w", "node1", "-o", "first.out"});
  auto second =
      submit_script("gpu.sh", script, {"--gres=gpu:1", "-w", "node1", "-o", "second.out"});
  BOOST_REQUIRE(first != 0 && second != 0);
  BOOST_REQUIRE(wait_job_state(first, "RUNNING"));
  BOOST_REQUIRE(wait_job_state(second, "RUNNING"));
  auto a = wait_output("first.out");
  auto b = wait_output("second.out");
  BOOST_CHECK((a == "0 0 0\n" && b == "1 1 1\n") || (a == "1 1 1\n" && b == "0 0 0\n"));
  BOOST_CHECK_MESSAGE(a != b, a << " / " << b);
  auto node = show("node", "node1");
  BOOST_CHECK_MESSAGE(contains(node, "GresUsed=gpu:2(IDX:0-1)"), node);
  auto job = show("job", std::to_string(first));
  BOOST_CHECK_MESSAGE(contains(job, "TresPerNode=gres:gpu:1"), job);
  // A third job for node1 waits: both GPUs (and here both CPUs) are held.
  auto third = submit_script("gpu.sh", script, {"--gres=gpu:1", "-w", "node1", "-o", "third.out"});
  BOOST_CHECK(wait_job_state(third, "PENDING"));
  write_file(scratch.file("release"), "");
  BOOST_CHECK(wait_job_state(first, "COMPLETED"));
  BOOST_CHECK(wait_job_state(second, "COMPLETED"));
  BOOST_CHECK(wait_job_state(third, "COMPLETED"));
  auto freed =
      wait_until([&] { return contains(show("node", "node1"), "GresUsed=gpu:0(IDX:N/A)"); }, 30s);
  BOOST_CHECK_MESSAGE(freed, show("node", "node1"));
}

BOOST_AUTO_TEST_CASE(a_restarted_controller_gives_a_running_job_its_gpus_back) {
  auto script =
      "#!/bin/sh\n"
      "echo \"$CUDA_VISIBLE_DEVICES\"\n"
      "while [ ! -e release ]; do sleep 0.1; done\n";
  auto first = submit_script("gpu.sh", script, {"--gres=gpu:1", "-w", "node1", "-o", "first.out"});
  BOOST_REQUIRE(first != 0);
  BOOST_REQUIRE(wait_job_state(first, "RUNNING"));
  auto held = wait_output("first.out");
  BOOST_REQUIRE(held == "0\n" || held == "1\n");
  auto index = held.substr(0, 1);

  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE_MESSAGE(!cluster.restart_controller(), "restart failed");
  BOOST_REQUIRE(wait_until([&] { return run_cli({"queue"}).exit_code == 0; }, 30s));
  BOOST_CHECK(wait_until(
      [&] { return contains(show("node", "node1"), "GresUsed=gpu:1(IDX:" + index + ")"); }, 30s));
  // The recovered job still holds its GPU: the next job on node1 gets the other one.
  auto second =
      submit_script("gpu.sh", script, {"--gres=gpu:1", "-w", "node1", "-o", "second.out"});
  BOOST_REQUIRE(second != 0);
  BOOST_REQUIRE(wait_job_state(second, "RUNNING"));
  BOOST_CHECK_EQUAL(wait_output("second.out"), (index == "0" ? "1\n" : "0\n"));
  write_file(scratch.file("release"), "");
  BOOST_CHECK(wait_job_state(first, "COMPLETED"));
  BOOST_CHECK(wait_job_state(second, "COMPLETED"));
}

BOOST_AUTO_TEST_CASE(a_run_step_sees_the_gpus_of_its_node) {
  auto r = run_cli({"run", "--gres=gpu:2", "-N2", "sh", "-c", "echo $CUDA_VISIBLE_DEVICES"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_EQUAL(r.out, "0,1\n0,1\n");
  auto one = run_cli({"run", "--gpus-per-node=1", "printenv", "SLURM_STEP_GPUS"});
  BOOST_REQUIRE_MESSAGE(one.exit_code == 0, one.describe());
  BOOST_CHECK_EQUAL(one.out, "0\n");
}

BOOST_AUTO_TEST_CASE(gpu_0_asks_for_nothing_and_sees_no_gpu) {
  command_options inherited;
  inherited.env = {{"CUDA_VISIBLE_DEVICES", "0,1"}};
  auto r =
      run_cli({"run", "--gres=gpu:0", "sh", "-c", "echo \"[$CUDA_VISIBLE_DEVICES]\""}, inherited);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_EQUAL(r.out, "[]\n");
  BOOST_CHECK_MESSAGE(r.err.empty(), r.err);
}

BOOST_AUTO_TEST_CASE(more_gpus_than_a_node_has_or_an_unknown_name_is_refused_in_slurms_words) {
  auto three = run_cli({"batch", "--gres=gpu:3", "--wrap=true"});
  BOOST_CHECK_EQUAL(three.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(three.err, "Requested node configuration is not available"),
                      three.err);
  auto fpga = run_cli({"batch", "--gres=fpga:1", "--wrap=true"});
  BOOST_CHECK_EQUAL(fpga.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(fpga.err, "Invalid generic resource (gres) specification"),
                      fpga.err);
  auto malformed = run_cli({"batch", "--gres=gpu:2x", "--wrap=true"});
  BOOST_CHECK_EQUAL(malformed.exit_code, 2);
}

BOOST_AUTO_TEST_SUITE_END()

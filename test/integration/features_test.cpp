// Node features and weights on a real local cluster (issue 32, item 5): `-C` picks the node with
// the feature, an unknown feature is refused as sbatch refuses it, and among nodes that fit the
// lightest Weight= goes first.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "config/config.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// Three nodes of their own lines (local_cluster gives every node the same line, so this writes
/// the config and starts the daemons itself): node1 Weight=10 with gpu, node2 Weight=5, node3
/// Weight=1, one partition, whole nodes.
struct featured_nodes {
  scratch_dir dir;
  std::string conf;
  std::vector<std::unique_ptr<daemon_process>> daemons;

  featured_nodes() {
    auto text = shoal::config::default_config_text(3, free_port());
    const std::string nodes_line = "NodeName=node[1-3] NodeAddr=127.0.0.1\n";
    auto at = text.find(nodes_line);
    if (at == std::string::npos) throw std::runtime_error("unexpected default config:\n" + text);
    text.replace(at, nodes_line.size(),
                 "NodeName=node1 NodeAddr=127.0.0.1 Weight=10 Features=gpu,fast\n"
                 "NodeName=node2 NodeAddr=127.0.0.1 Weight=5 Feature=fast\n"
                 "NodeName=node3 NodeAddr=127.0.0.1 Weight=1\n");
    text += "StateSaveLocation=" + dir.path() + "/state\nTmpFS=" + dir.path() + "\n";
    text += "SlurmdSpoolDir=" + dir.path() + "/spool\n" + test_auth_config();
    conf = write_file(dir.file("shoal.conf"), text);
    daemons.push_back(std::make_unique<daemon_process>(
        std::vector<std::string>{bin_path("shoalctld"), "-f", conf}, dir.file("shoalctld.log")));
    for (const char* name : {"node1", "node2", "node3"})
      daemons.push_back(std::make_unique<daemon_process>(
          std::vector<std::string>{bin_path("shoald"), "-f", conf, "--node-name", name},
          dir.file(std::string{"shoald-"} + name + ".log")));
    bool up = wait_until(
        [&] {
          auto doc = parse_json(run({"info", "-N", "--json"}).out);
          if (!doc.is_object()) return false;
          size_t idle = 0;
          for (auto& n : doc["nodes"])
            if (n.value("state", "") == "IDLE") ++idle;
          return idle == 3;
        },
        60s);
    if (!up) {
      dir.keep();
      throw std::runtime_error("the cluster did not come up; files in " + dir.path());
    }
  }

  ~featured_nodes() {
    if (!current_test_passed()) {
      dir.keep();
      std::cerr << "integration: test failed; files kept in " << dir.path() << "\n";
    }
  }

  command_result run(const std::vector<std::string>& args) {
    command_options opt;
    opt.cwd = dir.path();
    return run_shoal(conf, args, opt);
  }

  nlohmann::json job(uint64_t id) { return job_record(conf, id); }

  /// Submits `--wrap` with `options`; the job id (0 when refused).
  uint64_t submit(const std::vector<std::string>& options, const std::string& command) {
    std::vector<std::string> args{"batch", "--parsable"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--wrap=" + command);
    auto r = run(args);
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    return r.exit_code == 0 ? std::stoull(r.out) : 0;
  }

  /// The node a finished one-node job ran on.
  std::string node_of(uint64_t id) {
    std::string nodes;
    wait_until(
        [&] {
          auto j = job(id);
          if (j.is_null() || j.value("state", "") != "COMPLETED") return false;
          nodes = j.value("nodelist", "");
          return true;
        },
        30s);
    return nodes;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(features, featured_nodes)

BOOST_AUTO_TEST_CASE(constraint_picks_the_featured_node_weight_orders_the_rest) {
  // Without a constraint the lightest node (node3, Weight=1) goes first.
  BOOST_CHECK_EQUAL(node_of(submit({}, "true")), "node3");
  // -C gpu: only node1 has it, though it is the heaviest.
  BOOST_CHECK_EQUAL(node_of(submit({"-C", "gpu"}, "true")), "node1");
  // -C fast: node1 and node2 have it; the lighter, node2, goes first.
  BOOST_CHECK_EQUAL(node_of(submit({"--constraint=fast"}, "true")), "node2");
  // Two nodes with fast, none without: -N 2 -C fast gets node[1-2].
  BOOST_CHECK_EQUAL(node_of(submit({"-N", "2", "-C", "fast"}, "true")), "node[1-2]");
  // #SBATCH -C in a script.
  write_file(dir.file("gpu.sh"), "#!/bin/sh\n#SBATCH -C gpu&fast\ntrue\n", true);
  auto r = run({"batch", "--parsable", "gpu.sh"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_EQUAL(node_of(std::stoull(r.out)), "node1");
}

BOOST_AUTO_TEST_CASE(an_unknown_feature_is_refused_as_sbatch_refuses_it) {
  auto r = run({"batch", "-C", "nope", "--wrap=true"});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_MESSAGE(
      contains(r.err, "error: Batch job submission failed: Invalid feature specification"),
      r.describe());
  auto bad_syntax = run({"batch", "-C", "gpu&", "--wrap=true"});
  BOOST_CHECK_EQUAL(bad_syntax.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(bad_syntax.err, "Invalid feature specification"),
                      bad_syntax.describe());
  auto both = run({"batch", "-N", "3", "-C", "fast", "--wrap=true"});
  BOOST_CHECK_EQUAL(both.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(both.err, "Requested node configuration is not available"),
                      both.describe());
  auto ran = run({"run", "-C", "nope", "true"});
  BOOST_CHECK(ran.exit_code != 0);
  BOOST_CHECK_MESSAGE(contains(ran.err, "Invalid feature specification"), ran.describe());
}

BOOST_AUTO_TEST_CASE(show_node_and_sinfo_show_features_and_weights) {
  auto show = run({"control", "show", "node", "node1"});
  BOOST_CHECK_MESSAGE(
      contains(show.out, "AvailableFeatures=gpu,fast\n   ActiveFeatures=gpu,fast\n"), show.out);
  BOOST_CHECK_MESSAGE(contains(show.out, "Weight=10"), show.out);
  auto sinfo = run({"info", "-N", "-o", "%N %f %w"});
  BOOST_CHECK_MESSAGE(contains(sinfo.out, "node1 gpu,fast 10"), sinfo.describe());
  BOOST_CHECK_MESSAGE(contains(sinfo.out, "node2 fast 5"), sinfo.describe());
  BOOST_CHECK_MESSAGE(contains(sinfo.out, "node3 (null) 1"), sinfo.describe());
}

BOOST_AUTO_TEST_SUITE_END()

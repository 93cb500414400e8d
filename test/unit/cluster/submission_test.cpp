#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "cluster/submission.hpp"
#include "config/config.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using cluster::expand_output_path;
using cluster::resolve_submission;

namespace {

/// The error text of a rejected result, "" for an accepted one (Boost.Test evaluates a
/// message's operands even when the check passes).
template <class T>
std::string why(const shoal::expected<T>& r) {
  return r ? std::string{} : describe(r.error());
}

config::partition_config partition(std::string name, std::vector<std::string> nodes) {
  config::partition_config p;
  p.name = std::move(name);
  p.nodes = std::move(nodes);
  return p;
}

/// node1-node6; "debug" (default): node1-4, MaxTime 1h, DefaultTime 10m; "batch": node1-6,
/// MaxNodes 3, no time limits; "short": node5-6, MaxTime 30m only.
struct fixture {
  config::cluster_config cfg;
  std::map<std::string, msg::node_info> nodes;

  fixture() {
    for (int i = 1; i <= 6; ++i) {
      config::node_config n;
      n.name = "node" + std::to_string(i);
      cfg.nodes.push_back(n);
      msg::node_info info;
      info.name = n.name;
      info.cpus = 4;
      nodes[n.name] = info;
    }
    auto debug = partition("debug", {"node1", "node2", "node3", "node4"});
    debug.is_default = true;
    debug.max_time_s = 3600;
    debug.default_time_s = 600;
    auto batch = partition("batch", {"node1", "node2", "node3", "node4", "node5", "node6"});
    batch.max_nodes = 3;
    auto short_part = partition("short", {"node5", "node6"});
    short_part.max_time_s = 1800;
    cfg.partitions = {debug, batch, short_part};
  }

  static msg::job_request request() {
    msg::job_request req;
    req.user = "alice";
    req.argv = {"hostname"};
    req.cwd = "/home/alice";
    return req;
  }

  /// --gres as the controller parses it before resolving (policy::parsed_workload).
  static policy::gres_list parsed_gres(const msg::job_request& req) {
    auto gres = policy::parse_gres_request(req.gres);
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(gres), "bad --gres in the test");
    return *gres;
  }

  msg::job_request resolve_ok(const msg::job_request& req) {
    auto r = resolve_submission(cfg, nodes, req, parsed_gres(req));
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), "rejected: " << why(r));
    return *r;
  }

  /// The error's text; fails the test unless the request is rejected with `code`.
  std::string resolve_error(const msg::job_request& req, errc code) {
    auto r = resolve_submission(cfg, nodes, req, parsed_gres(req));
    BOOST_REQUIRE_MESSAGE(!r, "accepted, expected " << to_string(code));
    BOOST_CHECK_MESSAGE(r.error() == code, "error " << to_string(r.error().code()) << ", expected "
                                                    << to_string(code));
    return describe(r.error());
  }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(resolve_submission_rules, fixture)

// -- partitions ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_default_partition_is_filled_in) {
  auto r = resolve_ok(request());
  BOOST_TEST(r.partition == "debug");
}

BOOST_AUTO_TEST_CASE(a_named_partition_is_kept) {
  auto req = request();
  req.partition = "batch";
  BOOST_TEST(resolve_ok(req).partition == "batch");
}

BOOST_AUTO_TEST_CASE(no_default_partition_asks_for_p) {
  cfg.partitions[0].is_default = false;
  auto text = resolve_error(request(), errc::unknown_partition);
  BOOST_TEST(contains(text, "-p"), text);
  BOOST_TEST(contains(text, "debug, batch, short"), text);
}

BOOST_AUTO_TEST_CASE(an_unknown_partition_lists_the_partitions) {
  auto req = request();
  req.partition = "gpu";
  auto text = resolve_error(req, errc::unknown_partition);
  BOOST_TEST(contains(text, "'gpu'"), text);
  BOOST_TEST(contains(text, "debug, batch, short"), text);
}

BOOST_AUTO_TEST_CASE(no_command_is_an_invalid_request) {
  auto req = request();
  req.argv.clear();
  resolve_error(req, errc::invalid_request);
  req.batch = true;  // a batch job runs its script
  req.script = "#!/bin/sh\n";
  BOOST_TEST(resolve_ok(req).partition == "debug");
}

// -- node and task counts -----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(more_nodes_than_the_partition_has_is_unsatisfiable_with_the_counts) {
  auto req = request();
  req.min_nodes = 5;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "5 nodes requested"), text);
  BOOST_TEST(contains(text, "debug has 4"), text);
}

BOOST_AUTO_TEST_CASE(all_nodes_of_the_partition_is_fine) {
  auto req = request();
  req.min_nodes = 4;
  auto r = resolve_ok(req);
  BOOST_TEST(r.min_nodes == 4u);
  BOOST_TEST(r.ntasks == 4u);
}

BOOST_AUTO_TEST_CASE(over_max_nodes_is_unsatisfiable_naming_max_nodes) {
  auto req = request();
  req.partition = "batch";
  req.min_nodes = 4;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "4 nodes requested"), text);
  BOOST_TEST(contains(text, "at most 3"), text);
  BOOST_TEST(contains(text, "MaxNodes"), text);
  req.min_nodes = 3;
  BOOST_TEST(resolve_ok(req).min_nodes == 3u);
}

BOOST_AUTO_TEST_CASE(ntasks_defaults_to_the_node_count) {
  auto req = request();
  req.min_nodes = 3;
  BOOST_TEST(resolve_ok(req).ntasks == 3u);
}

BOOST_AUTO_TEST_CASE(nothing_given_is_one_task_on_one_node) {
  auto r = resolve_ok(request());
  BOOST_TEST(r.min_nodes == 1u);
  BOOST_TEST(r.ntasks == 1u);
}

BOOST_AUTO_TEST_CASE(ntasks_alone_fills_nodes_by_their_cpus) {
  auto req = request();
  req.ntasks = 10;  // 4 CPUs a node: 3 nodes
  auto r = resolve_ok(req);
  BOOST_TEST(r.min_nodes == 3u);
  BOOST_TEST(r.ntasks == 10u);
  req.ntasks = 8;
  BOOST_TEST(resolve_ok(req).min_nodes == 2u);
  req.ntasks = 1;
  BOOST_TEST(resolve_ok(req).min_nodes == 1u);
}

BOOST_AUTO_TEST_CASE(ntasks_alone_counts_cpus_per_task) {
  auto req = request();
  req.ntasks = 6;
  req.cpus_per_task = 2;  // 2 tasks a node: 3 nodes
  BOOST_TEST(resolve_ok(req).min_nodes == 3u);
  req.cpus_per_task = 8;  // more CPUs than any node has: no node can ever take a task
  req.ntasks = 2;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "Requested node configuration is not available"), text);
}

BOOST_AUTO_TEST_CASE(what_no_node_holds_is_refused_in_slurms_two_lines) {
  // slurmctld's err_msg first, then the error's text alone on the last line, as sbatch prints
  // them; CPUs are named before memory, as node_scheduler.c's _set_err_msg names them.
  for (auto& [name, n] : nodes) n.real_memory_mb = 2000;
  auto req = request();
  req.cpus_per_task = 8;
  req.workload.mem_per_node_mb = 5000;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(text.rfind("CPU count per node can not be satisfied: ", 0) == 0, text);
  BOOST_TEST(text.substr(text.rfind('\n') + 1) == "Requested node configuration is not available",
             text);
  req.cpus_per_task = 0;
  text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(text.rfind("Memory specification can not be satisfied: ", 0) == 0, text);
  BOOST_TEST(text.substr(text.rfind('\n') + 1) == "Requested node configuration is not available",
             text);
  req.workload.mem_per_node_mb = 0;
  req.min_nodes = 5;
  text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(text ==
                 "5 nodes requested, partition debug has 4\n"
                 "Requested node configuration is not available",
             text);
}

BOOST_AUTO_TEST_CASE(memory_no_node_has_is_unsatisfiable) {
  for (auto& [name, n] : nodes) n.real_memory_mb = 2000;
  auto req = request();
  req.workload.mem_per_node_mb = 2000;
  BOOST_TEST(resolve_ok(req).min_nodes == 1u);
  req.workload.mem_per_node_mb = 5000;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "Requested node configuration is not available"), text);
  req.workload.mem_per_node_mb = 0;
  req.workload.mem_per_cpu_mb = 1500;
  req.cpus_per_task = 2;  // 3000 MB for one task
  text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "Requested node configuration is not available"), text);
  // A node not yet heard from, with nothing configured, may fit.
  nodes["node1"].real_memory_mb = 0;
  BOOST_TEST(resolve_ok(req).min_nodes == 1u);
}

BOOST_AUTO_TEST_CASE(ntasks_alone_uses_reported_cpus_when_none_are_configured) {
  nodes["node2"].cpus = 0;
  nodes["node2"].reported.cpus = 2;  // the smallest member decides: 2 CPUs a node
  auto req = request();
  req.ntasks = 4;
  BOOST_TEST(resolve_ok(req).min_nodes == 2u);
}

BOOST_AUTO_TEST_CASE(ntasks_alone_ignores_nodes_outside_the_partition) {
  nodes["node6"].cpus = 1;  // node6 is not in debug
  auto req = request();
  req.ntasks = 8;
  BOOST_TEST(resolve_ok(req).min_nodes == 2u);
}

BOOST_AUTO_TEST_CASE(ntasks_alone_without_any_cpu_count_is_one_task_a_node) {
  nodes.clear();
  auto req = request();
  req.ntasks = 3;
  BOOST_TEST(resolve_ok(req).min_nodes == 3u);
}

BOOST_AUTO_TEST_CASE(ntasks_alone_needing_too_many_nodes_is_unsatisfiable) {
  auto req = request();
  req.ntasks = 17;  // 5 nodes of 4 CPUs
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "5 nodes requested"), text);
}

BOOST_AUTO_TEST_CASE(fewer_tasks_than_nodes_is_an_invalid_request) {
  auto req = request();
  req.min_nodes = 3;
  req.ntasks = 2;
  auto text = resolve_error(req, errc::invalid_request);
  BOOST_TEST(contains(text, "-n 2"), text);
  BOOST_TEST(contains(text, "-N 3"), text);
}

BOOST_AUTO_TEST_CASE(a_batch_job_may_have_fewer_tasks_than_nodes) {
  auto req = request();
  req.batch = true;
  req.min_nodes = 3;
  req.ntasks = 1;
  auto r = resolve_ok(req);
  BOOST_TEST(r.min_nodes == 3u);
  BOOST_TEST(r.ntasks == 1u);
}

// -- --ntasks-per-node and --mincpus (as Slurm reads them) --------------------------------------

BOOST_AUTO_TEST_CASE(ntasks_per_node_alone_is_that_many_tasks_on_one_node) {
  auto req = request();
  req.workload.ntasks_per_node = 3;
  auto r = resolve_ok(req);
  BOOST_TEST(r.min_nodes == 1u);
  BOOST_TEST(r.ntasks == 3u);
}

BOOST_AUTO_TEST_CASE(ntasks_per_node_without_ntasks_multiplies_the_node_count) {
  auto req = request();
  req.min_nodes = 3;
  req.workload.ntasks_per_node = 2;
  auto r = resolve_ok(req);
  BOOST_TEST(r.min_nodes == 3u);
  BOOST_TEST(r.ntasks == 6u);
}

BOOST_AUTO_TEST_CASE(ntasks_with_ntasks_per_node_sets_the_node_count) {
  auto req = request();
  req.ntasks = 4;
  req.workload.ntasks_per_node = 2;  // 4 CPUs a node would hold 4; at most 2 a node: 2 nodes
  BOOST_TEST(resolve_ok(req).min_nodes == 2u);
  req.ntasks = 5;
  BOOST_TEST(resolve_ok(req).min_nodes == 3u);
  req.workload.ntasks_per_node = 8;  // more than the CPUs: the CPUs decide
  BOOST_TEST(resolve_ok(req).min_nodes == 2u);
}

BOOST_AUTO_TEST_CASE(more_tasks_than_nodes_times_ntasks_per_node_is_unsatisfiable) {
  auto req = request();
  req.min_nodes = 2;
  req.ntasks = 6;
  req.workload.ntasks_per_node = 2;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "Requested node configuration is not available"), text);
  BOOST_TEST(contains(text, "need 3 nodes, -N asks for 2"), text);
  req.ntasks = 4;
  BOOST_TEST(resolve_ok(req).ntasks == 4u);
}

BOOST_AUTO_TEST_CASE(mincpus_beyond_every_node_is_unsatisfiable) {
  auto req = request();
  req.workload.min_cpus = 4;
  BOOST_TEST(resolve_ok(req).min_nodes == 1u);
  nodes["node1"].cpus = 2;
  nodes["node2"].cpus = 2;
  req.min_nodes = 2;
  BOOST_TEST(resolve_ok(req).min_nodes == 2u);  // node3 and node4 have 4
  req.min_nodes = 3;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "at least 4 CPUs (--mincpus)"), text);
  BOOST_TEST(contains(text, "debug has 2"), text);
}

// -- time limits --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(over_max_time_is_unsatisfiable_naming_max_time) {
  auto req = request();
  req.time_limit_s = 7200;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "MaxTime"), text);
  BOOST_TEST(contains(text, "debug"), text);
}

BOOST_AUTO_TEST_CASE(unlimited_time_under_a_max_time_is_unsatisfiable) {
  auto req = request();
  req.time_limit_s = -1;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "MaxTime"), text);
}

BOOST_AUTO_TEST_CASE(exactly_max_time_is_fine) {
  auto req = request();
  req.time_limit_s = 3600;
  BOOST_TEST(resolve_ok(req).time_limit_s == 3600);
}

BOOST_AUTO_TEST_CASE(the_time_limit_defaults_to_default_time) {
  BOOST_TEST(resolve_ok(request()).time_limit_s == 600);
}

BOOST_AUTO_TEST_CASE(the_time_limit_defaults_to_max_time_without_default_time) {
  auto req = request();
  req.partition = "short";
  BOOST_TEST(resolve_ok(req).time_limit_s == 1800);
}

BOOST_AUTO_TEST_CASE(the_time_limit_stays_unlimited_without_any_limit) {
  auto req = request();
  req.partition = "batch";
  BOOST_TEST(resolve_ok(req).time_limit_s == -1);
  req.time_limit_s = 999'999;
  BOOST_TEST(resolve_ok(req).time_limit_s == 999'999);
}

BOOST_AUTO_TEST_CASE(an_explicit_time_limit_is_kept) {
  auto req = request();
  req.time_limit_s = 60;
  BOOST_TEST(resolve_ok(req).time_limit_s == 60);
}

// -- required and excluded nodes ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_required_node_outside_the_partition_is_unknown_node) {
  auto req = request();
  req.nodelist = "node5";  // exists, but not in debug
  auto text = resolve_error(req, errc::unknown_node);
  BOOST_TEST(contains(text, "node5"), text);
  req.nodelist = "node[1,9]";  // does not exist at all
  text = resolve_error(req, errc::unknown_node);
  BOOST_TEST(contains(text, "node9"), text);
}

BOOST_AUTO_TEST_CASE(an_excluded_node_outside_the_partition_is_unknown_node) {
  auto req = request();
  req.exclude = "ghost";
  auto text = resolve_error(req, errc::unknown_node);
  BOOST_TEST(contains(text, "ghost"), text);
}

BOOST_AUTO_TEST_CASE(a_malformed_node_list_is_invalid_hostlist) {
  auto req = request();
  req.nodelist = "node[1-";
  resolve_error(req, errc::invalid_hostlist);
  req.nodelist.clear();
  req.exclude = "node[3-1]";
  resolve_error(req, errc::invalid_hostlist);
}

BOOST_AUTO_TEST_CASE(required_nodes_raise_the_node_count_and_are_compressed) {
  auto req = request();
  req.nodelist = "node1,node2,node3";
  auto r = resolve_ok(req);
  BOOST_TEST(r.min_nodes == 3u);
  BOOST_TEST(r.ntasks == 3u);
  BOOST_TEST(r.nodelist == "node[1-3]");
}

BOOST_AUTO_TEST_CASE(more_required_nodes_than_n_asks_for_is_an_invalid_request) {
  auto req = request();
  req.min_nodes = 1;
  req.nodelist = "node[1-2]";
  auto text = resolve_error(req, errc::invalid_request);
  BOOST_TEST(contains(text, "-w"), text);
}

BOOST_AUTO_TEST_CASE(a_node_both_required_and_excluded_is_an_invalid_request) {
  auto req = request();
  req.nodelist = "node[1-2]";
  req.exclude = "node[2-3]";
  auto text = resolve_error(req, errc::invalid_request);
  BOOST_TEST(contains(text, "node2"), text);
}

BOOST_AUTO_TEST_CASE(excluded_nodes_reduce_the_usable_count) {
  auto req = request();
  req.exclude = "node[1-2]";
  req.min_nodes = 3;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "3 nodes requested"), text);
  BOOST_TEST(contains(text, "has 2 after exclusions"), text);
  req.min_nodes = 2;
  BOOST_TEST(resolve_ok(req).min_nodes == 2u);
}

BOOST_AUTO_TEST_CASE(a_node_excluded_twice_counts_once) {
  auto req = request();
  req.exclude = "node1,node1";
  req.min_nodes = 3;  // node2-4 remain
  auto r = resolve_submission(cfg, nodes, req, parsed_gres(req));
  if (!r)
    BOOST_TEST_MESSAGE(
        "PRODUCT BUG: resolve_submission counts a node named twice in -x twice "
        "(usable = members - list size): "
        << describe(r.error()));
  BOOST_CHECK(static_cast<bool>(r));
}

BOOST_AUTO_TEST_CASE(excluding_more_names_than_members_does_not_wrap_the_usable_count) {
  auto req = request();
  req.exclude = "node1,node1,node1,node1,node1";
  req.min_nodes = 4;  // only node2-4 remain
  auto r = resolve_submission(cfg, nodes, req, parsed_gres(req));
  if (r)
    BOOST_TEST_MESSAGE(
        "PRODUCT BUG: with -x longer than the partition, members - list size "
        "wraps around (size_t) and -N 4 is accepted on 3 usable nodes; the job "
        "would pend forever with Resources and hold back its partition");
  BOOST_CHECK(!r);
  if (!r) BOOST_CHECK(r.error() == errc::unsatisfiable);
}

BOOST_AUTO_TEST_CASE(a_node_required_twice_counts_once) {
  auto req = request();
  req.nodelist = "node1,node1";
  auto r = resolve_submission(cfg, nodes, req, parsed_gres(req));
  BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), why(r));
  if (r->min_nodes != 1u)
    BOOST_TEST_MESSAGE("PRODUCT BUG: -w node1,node1 asks for " << r->min_nodes
                                                               << " nodes with "
                                                                  "nodelist '"
                                                               << r->nodelist
                                                               << "'; the scheduler then places "
                                                                  "the job on node1 twice");
  BOOST_TEST(r->min_nodes == 1u);
  BOOST_TEST(r->nodelist == "node1");
}

// -- names and the rest -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_job_name_defaults_to_the_command_or_script) {
  BOOST_TEST(resolve_ok(request()).name == "hostname");
  auto req = request();
  req.batch = true;
  BOOST_TEST(resolve_ok(req).name == "script");
  req.name = "mine";
  BOOST_TEST(resolve_ok(req).name == "mine");
}

BOOST_AUTO_TEST_CASE(a_parsed_configuration_resolves_the_same_way) {
  auto parsed = config::parse_config(
      "ClusterName=t\n"
      "NodeName=node[1-4] CPUs=4\n"
      "NodeName=node[5-6] CPUs=8\n"
      "PartitionName=debug Nodes=node[1-4] Default=YES "
      "MaxTime=60 DefaultTime=10 MaxNodes=3\n"
      "PartitionName=long Nodes=node[1-6] MaxTime=INFINITE\n",
      "<test>", "");
  BOOST_REQUIRE_MESSAGE(static_cast<bool>(parsed), why(parsed));
  cfg = *parsed;
  auto r = resolve_ok(request());
  BOOST_TEST(r.partition == "debug");
  BOOST_TEST(r.time_limit_s == 600);
  auto req = request();
  req.min_nodes = 4;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_TEST(contains(text, "MaxNodes"), text);
  req.partition = "long";
  req.time_limit_s = -1;
  BOOST_TEST(resolve_ok(req).time_limit_s == -1);
}

BOOST_AUTO_TEST_CASE(a_geometry_off_a_torus_is_refused_other_torus_options_are_ignored) {
  auto req = request();
  req.shape.geometry = {1, 1, 1};
  auto text = resolve_error(req, errc::invalid_request);
  BOOST_CHECK_MESSAGE(text.find("--geometry needs a 3-D torus") != std::string::npos, text);
  req.shape.geometry.clear();
  req.shape.rotate = false;
  req.shape.conn_type = "mesh";
  req.shape.node_use = "virtual";
  BOOST_CHECK_EQUAL(resolve_ok(req).min_nodes, 1u);
  req.shape.conn_type = "ring";
  resolve_error(req, errc::invalid_request);
}

BOOST_AUTO_TEST_CASE(on_a_torus_a_geometry_must_fit_and_sets_the_node_count) {
  cfg = config::cluster_config{};
  cfg.torus3d = true;
  cfg.torus.prefix = "bgl";
  cfg.torus.dims = {4, 2, 2};
  auto all = partition("all", {});
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 2; ++y)
      for (int z = 0; z < 2; ++z) {
        config::node_config n;
        n.name = config::base_partition_name("bgl", x, y, z);
        cfg.nodes.push_back(n);
        all.nodes.push_back(n.name);
      }
  all.is_default = true;
  cfg.partitions = {all};
  nodes.clear();
  auto req = request();
  req.shape.geometry = {2, 2, 1};
  BOOST_CHECK_EQUAL(resolve_ok(req).min_nodes, 4u);
  req.shape.geometry = {1, 1, 4};  // fits rotated (4x1x1)
  BOOST_CHECK_EQUAL(resolve_ok(req).min_nodes, 4u);
  req.shape.rotate = false;
  auto text = resolve_error(req, errc::unsatisfiable);
  BOOST_CHECK_MESSAGE(
      text.find("does not fit the 4x2x2 torus without rotation") != std::string::npos, text);
  req.shape.rotate = true;
  req.shape.geometry = {5, 1, 1};
  resolve_error(req, errc::unsatisfiable);
  req.shape.geometry = {2, 2, 1};
  req.min_nodes = 3;
  text = resolve_error(req, errc::invalid_request);
  BOOST_CHECK_MESSAGE(text.find("-N 3 does not match --geometry 2x2x1") != std::string::npos, text);
  req.min_nodes = 0;
  req.nodelist = "bgl000";
  text = resolve_error(req, errc::invalid_request);
  BOOST_CHECK_MESSAGE(text.find("-w/--nodelist is not supported") != std::string::npos, text);
  auto counted = request();
  counted.min_nodes = 3;  // a count: the allocator finds the smallest prism holding it
  BOOST_CHECK_EQUAL(resolve_ok(counted).min_nodes, 3u);
}

// -- generic resources ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(gres_is_checked_against_gres_types_and_the_partitions_nodes) {
  cfg.gres_types = {"gpu"};
  cfg.nodes[0].gres = {{"gpu", "tesla", 2, {}}};
  cfg.nodes[1].gres = {{"gpu", "", 4, {}}};
  auto req = request();
  req.gres = "gpu:2";
  req.min_nodes = 2;
  BOOST_CHECK_EQUAL(resolve_ok(req).gres, "gpu:2");
  req.gres = "gpu:tesla:1";
  req.min_nodes = 1;
  BOOST_CHECK_EQUAL(resolve_ok(req).gres, "gpu:tesla:1");
  req.gres = "gpu:0";  // nothing asked: runs anywhere
  BOOST_CHECK_EQUAL(resolve_ok(req).gres, "");
  req.gres = "gpu:3";
  req.min_nodes = 2;
  BOOST_CHECK_EQUAL(resolve_error(req, errc::unsatisfiable),
                    "2 nodes with --gres=gpu:3 requested, partition debug has 1\n"
                    "Requested node configuration is not available");
  req.gres = "gpu:1";
  req.min_nodes = 0;
  req.nodelist = "node3";
  BOOST_CHECK(contains(resolve_error(req, errc::unsatisfiable),
                       "node node3 (-w) does not have --gres=gpu:1\n"
                       "Requested node configuration is not available"));
  req.nodelist.clear();
  req.gres = "fpga:1";
  BOOST_CHECK_EQUAL(resolve_error(req, errc::invalid_request),
                    "fpga is not a generic resource of this cluster (GresTypes=gpu)\n"
                    "Invalid generic resource (gres) specification");
}

BOOST_AUTO_TEST_SUITE_END()

// -- output paths -------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(output_paths)

namespace {

msg::job_request batch_request() {
  msg::job_request req;
  req.user = "alice";
  req.name = "relax";
  req.cwd = "/home/alice/run";
  req.batch = true;
  return req;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_default_pattern_is_shoal_job_id_out_in_the_working_directory) {
  BOOST_TEST(expand_output_path("", 42, batch_request()) == "/home/alice/run/shoal-42.out");
}

BOOST_AUTO_TEST_CASE(job_id_user_name_and_percent_are_replaced) {
  BOOST_TEST(expand_output_path("%x-%u-%j-100%%.log", 42, batch_request()) ==
             "/home/alice/run/relax-alice-42-100%.log");
  BOOST_TEST(expand_output_path("%j%j", 7, batch_request()) == "/home/alice/run/77");
}

BOOST_AUTO_TEST_CASE(an_absolute_pattern_stays_where_it_is) {
  BOOST_TEST(expand_output_path("/scratch/%u/%j.out", 42, batch_request()) ==
             "/scratch/alice/42.out");
}

BOOST_AUTO_TEST_CASE(a_relative_pattern_is_made_absolute_against_the_working_directory) {
  BOOST_TEST(expand_output_path("logs/%j.out", 42, batch_request()) ==
             "/home/alice/run/logs/42.out");
}

BOOST_AUTO_TEST_CASE(unknown_escapes_and_a_trailing_percent_are_kept) {
  BOOST_TEST(expand_output_path("a%qb%", 42, batch_request()) == "/home/alice/run/a%qb%");
}

BOOST_AUTO_TEST_SUITE_END()

// -- -C/--constraint ---------------------------------------------------------------------------

BOOST_FIXTURE_TEST_SUITE(constraint_checks, fixture)

BOOST_AUTO_TEST_CASE(a_constraint_needs_known_features_and_enough_nodes) {
  cfg.nodes[0].features = "gpu,fast";  // node1
  cfg.nodes[1].features = "fast";      // node2
  cfg.nodes[4].features = "big";       // node5, only in batch and short
  auto check = [&](const std::string& text, uint32_t min_nodes, const std::string& partition) {
    auto req = request();
    req.min_nodes = min_nodes;
    req.partition = partition;
    auto c = policy::parse_constraint(text);
    BOOST_REQUIRE(c);
    return resolve_submission(cfg, nodes, req, {}, *c);
  };
  BOOST_CHECK_MESSAGE(check("gpu", 1, ""), why(check("gpu", 1, "")));
  BOOST_CHECK(check("fast", 2, ""));
  BOOST_CHECK(check("gpu*1", 3, ""));
  BOOST_CHECK(check("[gpu|big]", 1, "batch"));
  auto unknown = check("gpu&nope", 1, "");
  BOOST_REQUIRE(!unknown);
  BOOST_CHECK(unknown.error() == errc::invalid_request);
  BOOST_CHECK_MESSAGE(contains(why(unknown), "Invalid feature specification"), why(unknown));
  BOOST_CHECK_MESSAGE(contains(why(unknown), "'nope'"), why(unknown));
  auto too_few = check("fast", 3, "");
  BOOST_REQUIRE(!too_few);
  BOOST_CHECK(too_few.error() == errc::unsatisfiable);
  BOOST_CHECK_MESSAGE(contains(why(too_few), "Requested node configuration is not available"),
                      why(too_few));
  // big exists, but not in debug.
  BOOST_CHECK(!check("big", 1, ""));
  BOOST_CHECK(!check("gpu*2", 2, ""));
  // A -w node without the feature.
  auto req = request();
  req.nodelist = "node3";
  auto c = policy::parse_constraint("gpu");
  BOOST_CHECK(!resolve_submission(cfg, nodes, req, {}, *c));
}

BOOST_AUTO_TEST_SUITE_END()

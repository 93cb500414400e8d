// The accounting store's limits as the passes count them: TRES text, the tree, inheritance.

#include <boost/test/unit_test.hpp>

#include "cluster/limit_rules.hpp"

using namespace shoal;

namespace {

msg::association account(const std::string& name, const std::string& parent) {
  msg::association a;
  a.cluster = "c";
  a.account = name;
  a.parent = parent;
  return a;
}

msg::association user(const std::string& name, const std::string& acct,
                      const std::string& partition = "") {
  msg::association a;
  a.cluster = "c";
  a.account = acct;
  a.user = name;
  a.partition = partition;
  return a;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(limit_rules_of_the_store)

BOOST_AUTO_TEST_CASE(tres_text_reads_cpu_mem_and_node) {
  auto caps = cluster::parse_tres_caps("cpu=8,mem=2G,node=2,gres/gpu=1");
  BOOST_TEST(caps.cpus.value_or(0) == 8u);
  BOOST_TEST(caps.memory_mb.value_or(0) == 2048u);
  BOOST_TEST(caps.nodes.value_or(0) == 2u);
  BOOST_TEST(cluster::parse_tres_caps("mem=1500").memory_mb.value_or(0) == 1500u);
  BOOST_TEST(cluster::parse_tres_caps("mem=1T").memory_mb.value_or(0) == 1024u * 1024u);
  BOOST_TEST(!cluster::parse_tres_caps("").cpus.has_value());
  BOOST_TEST(!cluster::parse_tres_caps("cpu=x").cpus.has_value());
}

BOOST_AUTO_TEST_CASE(no_limit_anywhere_gives_no_rules) {
  msg::association_data data;
  data.associations = {account("root", ""), account("physics", "root"), user("alice", "physics")};
  data.qos.push_back({});
  data.qos.back().name = "normal";
  BOOST_TEST(cluster::limit_rules_of(data, "c", {}) == nullptr);
}

BOOST_AUTO_TEST_CASE(users_inherit_per_job_limits_and_count_in_their_accounts) {
  msg::association_data data;
  data.associations = {account("root", ""), account("physics", "root"), user("alice", "physics"),
                       user("alice", "physics", "gpu"), user("bob", "physics")};
  data.associations[0].max_wall_min = 600;  // root's MaxWall reaches every user without one
  data.associations[1].max_jobs = 3;
  data.associations[1].grp_tres = "cpu=16";
  data.associations[4].max_jobs = 1;  // bob's own
  data.associations[3].partition = "gpu";
  std::unordered_map<std::string, size_t> partitions{{"debug", 0}, {"gpu", 1}};
  auto rules = cluster::limit_rules_of(data, "c", partitions);
  BOOST_REQUIRE(rules != nullptr);
  auto alice = rules->user_assoc("alice", "physics", 0);
  auto alice_gpu = rules->user_assoc("alice", "physics", 1);
  auto bob = rules->user_assoc("bob", "physics", 0);
  BOOST_REQUIRE(alice && alice_gpu && bob);
  BOOST_TEST(*alice != *alice_gpu);  // the partition's own association
  const auto& a = rules->assocs[*alice];
  BOOST_TEST(a.max_jobs.value_or(0) == 3u);
  BOOST_TEST(a.max_wall_s.value_or(0) == 36000);
  BOOST_TEST(rules->assocs[*bob].max_jobs.value_or(0) == 1u);
  // Group limits stay where they are set: physics holds cpu=16 over both users.
  BOOST_REQUIRE(a.parent != policy::assoc_limits::no_parent);
  BOOST_TEST(rules->assocs[a.parent].grp_tres.cpus.value_or(0) == 16u);
  BOOST_TEST(!a.grp_tres.cpus.has_value());
  BOOST_TEST(!rules->user_assoc("carol", "physics", 0).has_value());
}

BOOST_AUTO_TEST_CASE(max_wall_comes_from_the_qos_first_then_the_tree) {
  msg::association_data data;
  data.associations = {account("root", ""), account("physics", "root"), user("alice", "physics")};
  data.associations[1].max_wall_min = 30;
  msg::qos_info q;
  q.name = "long";
  q.max_wall_min = 120;
  data.qos.push_back(q);
  BOOST_TEST(cluster::max_wall_of(data, "c", "alice", "physics", "", "normal").value_or(0) == 1800);
  BOOST_TEST(cluster::max_wall_of(data, "c", "alice", "physics", "", "long").value_or(0) == 7200);
  BOOST_TEST(!cluster::max_wall_of(data, "c", "bob", "physics", "", "normal").has_value());
}

BOOST_AUTO_TEST_CASE(a_job_without_a_time_limit_gets_its_max_wall_capped_by_the_partition) {
  msg::association_data data;
  data.associations = {account("root", ""), account("physics", "root"), user("alice", "physics")};
  data.associations[1].max_wall_min = 120;
  config::cluster_config cfg;
  cfg.cluster_name = "c";
  cfg.partitions.resize(2);
  cfg.partitions[0].name = "open";  // MaxTime=INFINITE
  cfg.partitions[1].name = "short";
  cfg.partitions[1].max_time_s = 3600;
  msg::job_request req;
  req.user = "alice";
  req.workload.account = "physics";
  req.partition = "open";
  req.time_limit_s = -1;  // the partition's (none), as resolve_submission leaves it
  cluster::give_max_wall(cfg, &data, req);
  BOOST_TEST(req.time_limit_s == -1);  // not enforcing: unchanged
  cfg.accounting.enforce_limits = true;
  cluster::give_max_wall(cfg, &data, req);
  BOOST_TEST(req.time_limit_s == 7200);
  req.partition = "short";
  req.time_limit_s = 3600;
  cluster::give_max_wall(cfg, &data, req);
  BOOST_TEST(req.time_limit_s == 3600);  // Slurm's min(MaxWall, the partition's MaxTime)
  req.user = "bob";                      // no association: nothing applies
  req.time_limit_s = 60;
  cluster::give_max_wall(cfg, &data, req);
  BOOST_TEST(req.time_limit_s == 60);
}

BOOST_AUTO_TEST_CASE(submit_limits_count_unfinished_jobs_per_user_tree_and_qos) {
  msg::association_data data;
  data.associations = {account("root", ""), account("physics", "root"), user("alice", "physics"),
                       user("bob", "physics")};
  data.associations[1].max_submit = 2;  // inherited by alice and bob
  data.associations[0].grp_submit = 3;  // the whole tree
  BOOST_TEST(cluster::has_submit_limits(data, "c"));
  std::vector<cluster::submitted_jobs> active{{"alice", "physics", "normal", 1}};
  auto check = [&](const std::string& who, uint64_t count, const std::string& qos = "normal") {
    return !cluster::check_submit_limits(data, "c", who, "physics", "", qos, count, active);
  };
  BOOST_TEST(check("alice", 1));
  BOOST_TEST(!check("alice", 2));  // an array of two: 3 > MaxSubmitJobs=2
  active.push_back({"bob", "physics", "normal", 2});
  BOOST_TEST(!check("alice", 1));  // root's GrpSubmitJobs=3 is full
  auto err = cluster::check_submit_limits(data, "c", "alice", "physics", "", "normal", 1, active);
  BOOST_TEST(describe(err) == cluster::submit_limit_text);
  // A QOS's per-user limit replaces MaxSubmitJobs; its own GrpSubmitJobs replaces the tree's.
  msg::qos_info q;
  q.name = "burst";
  q.max_submit_per_user = 5;
  q.grp_submit = 10;
  data.qos.push_back(q);
  active = {{"alice", "physics", "burst", 4}};
  BOOST_TEST(check("alice", 1, "burst"));
  BOOST_TEST(!check("alice", 2, "burst"));
  BOOST_TEST(!cluster::has_submit_limits(msg::association_data{}, "c"));
}

BOOST_AUTO_TEST_SUITE_END()

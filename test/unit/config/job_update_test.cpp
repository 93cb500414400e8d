#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "config/job_update.hpp"
#include "messages/errc.hpp"

using namespace shoal::config;

namespace {

job_update_spec parsed(const std::vector<std::string>& words, int64_t now = 0) {
  auto spec = parse_job_update(words, now);
  BOOST_REQUIRE_MESSAGE(spec, (spec ? std::string{} : shoal::describe(spec.error())));
  return *spec;
}

std::string refusal(const std::vector<std::string>& words) {
  auto spec = parse_job_update(words, 0);
  BOOST_REQUIRE(!spec);
  BOOST_CHECK(spec.error() == shoal::errc::invalid_request);
  return shoal::describe(spec.error());
}

shoal::msg::job_request pending_request() {
  shoal::msg::job_request req;
  req.partition = "debug";
  req.min_nodes = 1;
  req.ntasks = 1;
  req.time_limit_s = 3600;
  return req;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(job_update)

BOOST_AUTO_TEST_CASE(every_key_is_read_as_scontrol_reads_it) {
  auto s = parsed({"JobId=12,13", "TimeLimit=1:30:00", "Partition=batch", "NumNodes=2-3",
                   "NumTasks=4", "Priority=500", "Nice=10", "Dependency=afterok:11", "Name=renamed",
                   "Comment=a note", "Features=fast&big", "QOS=high", "Account=physics",
                   "ExcNodeList=node[3-4]", "StartTime=now+1hour"},
                  1000);
  BOOST_TEST(s.jobs == (std::vector<std::string>{"12", "13"}));
  BOOST_TEST(*s.time_limit_s == 5400);
  BOOST_TEST(*s.partition == "batch");
  BOOST_TEST(*s.min_nodes == 2u);
  BOOST_TEST(*s.max_nodes == 3u);
  BOOST_TEST(*s.ntasks == 4u);
  BOOST_TEST(*s.priority == 500u);
  BOOST_TEST(*s.nice == 10);
  BOOST_TEST(*s.dependency == "afterok:11");
  BOOST_TEST(*s.name == "renamed");
  BOOST_TEST(*s.comment == "a note");
  BOOST_TEST(*s.features == "fast&big");
  BOOST_TEST(*s.qos == "high");
  BOOST_TEST(*s.account == "physics");
  BOOST_TEST(*s.exclude == "node[3-4]");
  BOOST_TEST(*s.begin_time == 1000 + 3600);
  BOOST_TEST(changed_keys(s) ==
             "TimeLimit,Partition,NumNodes,NumTasks,Priority,Nice,Dependency,StartTime,Name,"
             "Comment,Features,QOS,Account,ExcNodeList");
}

BOOST_AUTO_TEST_CASE(keys_are_case_insensitive_and_abbreviated_as_scontrol_allows) {
  auto s = parsed({"jobid=7", "timel=30", "pa=debug", "pr=9", "ni=-5", "na=x", "f=a", "a=acct",
                   "exc=node1", "d=singleton", "numnodes=1", "numtasks=2", "com=c", "qo=q"});
  BOOST_TEST(s.jobs == (std::vector<std::string>{"7"}));
  BOOST_TEST(*s.time_limit_s == 1800);  // minutes, as scontrol's TimeLimit
  BOOST_TEST(*s.partition == "debug");
  BOOST_TEST(*s.priority == 9u);
  BOOST_TEST(*s.nice == -5);
  BOOST_TEST(*s.name == "x");
  BOOST_TEST(*s.features == "a");
  BOOST_TEST(*s.account == "acct");
  BOOST_TEST(*s.exclude == "node1");
  BOOST_TEST(*s.dependency == "singleton");
  BOOST_TEST(*s.min_nodes == 1u);
  BOOST_TEST(*s.ntasks == 2u);
  BOOST_TEST(*s.comment == "c");
  BOOST_TEST(*s.qos == "q");
  // JobName= and EligibleTime= are the other names of Name= and StartTime=; a key may also
  // stand apart from its value, and Nice alone is Nice=100.
  auto t = parsed({"JobId", "5", "JobName=y", "EligibleTime=now", "Nice"}, 50);
  BOOST_TEST(t.jobs == (std::vector<std::string>{"5"}));
  BOOST_TEST(*t.name == "y");
  BOOST_TEST(*t.begin_time == 50);
  BOOST_TEST(*t.nice == 100);
}

BOOST_AUTO_TEST_CASE(bad_words_are_refused_in_scontrols_words) {
  BOOST_TEST(refusal({"JobId=1", "MinMemoryNode=5"}) ==
             "Update of this parameter is not supported: MinMemoryNode=5");
  // Too short an abbreviation is no key ("T" could be TimeLimit or TimeMin).
  BOOST_TEST(refusal({"JobId=1", "T=5"}) == "Update of this parameter is not supported: T=5");
  BOOST_TEST(refusal({"JobId=1", "TimeLimit=soon"}) == "Invalid TimeLimit value");
  BOOST_TEST(refusal({"JobId=1", "Priority=high"}) == "Invalid Priority value: high");
  BOOST_TEST(refusal({"JobId=1", "Priority=0"}) ==
             "Invalid Priority value: 0 (to hold a job: shoal control hold)");
  BOOST_TEST(refusal({"JobId=1", "Nice=3000000000"}) ==
             "Nice value out of range (+/- 2147483645). Value ignored");
  BOOST_TEST(refusal({"JobId=1", "NumTasks=x"}) == "Invalid NumTasks value: x");
  BOOST_TEST(refusal({"JobId=1", "Partition+=x"}) ==
             "Option Partition does not accept [+|-]= syntax");
  BOOST_TEST(refusal({"JobId=1"}) == "No changes specified");
  BOOST_TEST(refusal({"JobId=1", "TimeLimit"}) == "Invalid input: TimeLimit\nRequest aborted");
  auto when = parse_job_update({"JobId=1", "StartTime=someday"}, 100);
  BOOST_REQUIRE(!when);
  BOOST_TEST(shoal::describe(when.error()) == "Invalid StartTime value: someday");
}

BOOST_AUTO_TEST_CASE(a_start_time_in_the_past_is_now_and_none_is_resolved_without_a_clock) {
  BOOST_TEST(*parsed({"JobId=1", "StartTime=2000-01-01"}, 5000000000).begin_time == 5000000000);
  auto s = parsed({"JobId=1", "StartTime=now+1hour"}, 0);
  BOOST_TEST(!s.begin_time);
  BOOST_TEST(*s.start_text == "now+1hour");
}

BOOST_AUTO_TEST_CASE(changes_apply_to_the_request_and_time_limits_add_and_subtract) {
  auto req = pending_request();
  auto out = apply_job_update(parsed({"JobId=1", "NumNodes=3", "Name=n", "ExcNodeList="}), req);
  BOOST_REQUIRE(out);
  BOOST_TEST(out->min_nodes == 3u);
  BOOST_TEST(out->nodes_max == 0u);
  BOOST_TEST(out->ntasks == 3u);  // at least one task a node, as slurmctld adjusts it
  BOOST_TEST(out->name == "n");
  BOOST_TEST(out->exclude.empty());
  auto plus = apply_job_update(parsed({"JobId=1", "TimeLimit=+30"}), req);
  BOOST_TEST(plus->time_limit_s == 3600 + 1800);
  auto minus = apply_job_update(parsed({"JobId=1", "TimeLimit-=30"}), req);
  BOOST_TEST(minus->time_limit_s == 1800);
  auto too_much = apply_job_update(parsed({"JobId=1", "TimeLimit=-2:00:00"}), req);
  BOOST_REQUIRE(!too_much);
  BOOST_TEST(shoal::describe(too_much.error()) ==
             "TimeLimit decrement larger than current time limit (2:00:00 > 1:00:00)");
  // 0 would be "the partition's default" (for a running job, no limit at all).
  for (auto words : {"TimeLimit=0", "TimeLimit-=60"}) {
    auto zero = apply_job_update(parsed({"JobId=1", words}), req);
    BOOST_REQUIRE(!zero);
    BOOST_TEST(shoal::describe(zero.error()) == "Invalid TimeLimit value");
  }
  auto zero_nodes = apply_job_update(parsed({"JobId=1", "NumNodes=0"}), req);
  BOOST_REQUIRE(!zero_nodes);
  BOOST_TEST(shoal::describe(zero_nodes.error()) == "Node count specification invalid");
  auto zero_tasks = apply_job_update(parsed({"JobId=1", "NumTasks=0"}), req);
  BOOST_REQUIRE(!zero_tasks);
  BOOST_TEST(shoal::describe(zero_tasks.error()) == "Task count specification invalid");
  auto backwards = apply_job_update(parsed({"JobId=1", "NumNodes=3-2"}), req);
  BOOST_TEST(!backwards);
}

BOOST_AUTO_TEST_CASE(pending_only_keys_count_only_when_their_value_changes) {
  auto req = pending_request();
  auto same = apply_job_update(parsed({"JobId=1", "Partition=debug", "TimeLimit=30"}), req);
  BOOST_TEST(pending_only_changes(req, *same).empty());
  auto moved = apply_job_update(parsed({"JobId=1", "Partition=batch", "Features=x"}), req);
  BOOST_TEST(pending_only_changes(req, *moved) ==
             (std::vector<std::string>{"Partition", "Features"}));
  auto renamed = apply_job_update(parsed({"JobId=1", "Name=x", "Comment=y", "Nice=5"}), req);
  BOOST_TEST(pending_only_changes(req, *renamed).empty());
}

// Slurm's operators alone raise a running job's limit, set a priority or a negative nice; a
// user may raise a pending job's limit up to its partition's MaxTime.
BOOST_AUTO_TEST_CASE(what_needs_an_admin) {
  auto req = pending_request();
  auto with = [&](const std::vector<std::string>& words) {
    return *apply_job_update(parsed(words), req);
  };
  auto lower = with({"JobId=1", "TimeLimit=30"});
  auto higher = with({"JobId=1", "TimeLimit=120"});
  auto unlimited = with({"JobId=1", "TimeLimit=UNLIMITED"});
  BOOST_TEST(!needs_admin(req, lower, false, -1, false));
  BOOST_TEST(!needs_admin(req, lower, true, 1800, false));
  BOOST_TEST(needs_admin(req, higher, false, -1, false));
  BOOST_TEST(!needs_admin(req, higher, true, 7200, false));
  BOOST_TEST(!needs_admin(req, higher, true, -1, false));
  BOOST_TEST(needs_admin(req, higher, true, 3600, false));
  BOOST_TEST(needs_admin(req, unlimited, true, 7200, false));
  BOOST_TEST(!needs_admin(req, unlimited, true, -1, false));
  BOOST_TEST(needs_admin(req, req, true, -1, true));  // any Priority=
  BOOST_TEST(needs_admin(req, with({"JobId=1", "Nice=-1"}), true, -1, false));
  BOOST_TEST(!needs_admin(req, with({"JobId=1", "Nice=50"}), true, -1, false));
}

BOOST_AUTO_TEST_SUITE_END()

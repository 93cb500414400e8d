#include <boost/test/unit_test.hpp>

#include <string>

#include "config/config.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

const std::string preempt_nodes = "NodeName=n[1-2]\nPartitionName=debug Nodes=n[1-2] Default=YES\n";

std::string preempt_error_of(const std::string& text) {
  auto cfg = parse_config(text, "test.conf", "");
  return cfg ? std::string{} : describe(cfg.error());
}

bool preempt_text_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(preempt_settings_suite)

BOOST_AUTO_TEST_CASE(the_preemption_keys_are_read_with_slurms_words) {
  auto cfg = parse_config(preempt_nodes +
                              "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE,GANG\n"
                              "PreemptExemptTime=0:10:00\n"
                              "PartitionName=low Nodes=n1 PriorityTier=1 PreemptMode=cancel "
                              "GraceTime=45\n",
                          "test.conf", "");
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? std::string{} : describe(cfg.error())));
  const auto& s = cfg->scheduling;
  BOOST_CHECK(s.preempt_partition_prio);
  BOOST_CHECK(s.preempt_mode == policy::preempt_mode::requeue);
  BOOST_CHECK(s.preempt_gang);
  BOOST_CHECK_EQUAL(s.preempt_exempt_s, 600);
  const auto& low = cfg->partitions.back();
  BOOST_REQUIRE(low.preempt_mode.has_value());
  BOOST_CHECK(*low.preempt_mode == policy::preempt_mode::cancel);
  BOOST_CHECK_EQUAL(low.grace_time_s, 45);
  BOOST_CHECK(!cfg->partitions.front().preempt_mode.has_value());
}

BOOST_AUTO_TEST_CASE(by_default_nothing_is_preempted) {
  auto cfg = parse_config(preempt_nodes, "test.conf", "");
  BOOST_REQUIRE(cfg);
  BOOST_CHECK(!cfg->scheduling.preempt_partition_prio);
  BOOST_CHECK(cfg->scheduling.preempt_mode == policy::preempt_mode::off);
  BOOST_CHECK_EQUAL(cfg->scheduling.preempt_exempt_s, 0);
}

BOOST_AUTO_TEST_CASE(a_bad_value_stops_the_load_with_file_and_line) {
  auto type = preempt_error_of(preempt_nodes + "PreemptType=preempt/job_prio\n");
  BOOST_CHECK_MESSAGE(preempt_text_has(type, "test.conf:3"), type);
  BOOST_CHECK_MESSAGE(preempt_text_has(type, "preempt/qos"), type);  // named among the choices
  auto on_line = preempt_error_of(preempt_nodes + "PartitionName=low Nodes=n1 PreemptMode=kill\n");
  BOOST_CHECK_MESSAGE(preempt_text_has(on_line, "test.conf:3"), on_line);
  BOOST_CHECK_MESSAGE(preempt_text_has(on_line, "PreemptMode"), on_line);
  auto grace = preempt_error_of(preempt_nodes + "PartitionName=low Nodes=n1 GraceTime=soon\n");
  BOOST_CHECK_MESSAGE(preempt_text_has(grace, "GraceTime"), grace);
}

BOOST_AUTO_TEST_CASE(preempt_qos_is_read) {
  auto cfg = parse_config(preempt_nodes + "PreemptType=preempt/qos\nPreemptMode=CANCEL\n",
                          "test.conf", "");
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? std::string{} : describe(cfg.error())));
  BOOST_CHECK(cfg->scheduling.preempt_qos);
  BOOST_CHECK(!cfg->scheduling.preempt_partition_prio);
}

BOOST_AUTO_TEST_CASE(suspend_is_read_with_gang_and_refused_without_it) {
  auto cfg = parse_config(preempt_nodes +
                              "PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG\n"
                              "PartitionName=low Nodes=n1 PriorityTier=1 PreemptMode=suspend\n",
                          "test.conf", "");
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? std::string{} : describe(cfg.error())));
  BOOST_CHECK(cfg->scheduling.preempt_mode == policy::preempt_mode::suspend);
  BOOST_CHECK(cfg->scheduling.preempt_gang);
  BOOST_CHECK(cfg->partitions.back().preempt_mode == policy::preempt_mode::suspend);
  // Slurm's gang scheduler is what resumes them: SUSPEND alone would never be undone.
  auto main = preempt_error_of(preempt_nodes + "PreemptMode=SUSPEND\n");
  BOOST_CHECK_MESSAGE(preempt_text_has(main, "test.conf:3"), main);
  BOOST_CHECK_MESSAGE(preempt_text_has(main, "needs GANG"), main);
  auto part = preempt_error_of(preempt_nodes +
                               "PreemptMode=CANCEL\n"
                               "PartitionName=low Nodes=n1 PreemptMode=SUSPEND\n");
  BOOST_CHECK_MESSAGE(preempt_text_has(part, "test.conf:4"), part);
  BOOST_CHECK_MESSAGE(preempt_text_has(part, "partition 'low'"), part);
  BOOST_CHECK_MESSAGE(preempt_text_has(part, "needs GANG"), part);
}

BOOST_AUTO_TEST_SUITE_END()

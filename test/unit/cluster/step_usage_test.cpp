// A step's use over its nodes (cluster/step_usage.hpp): what sacct's TotalCPU, MaxRSS(Node) and
// AveRSS show.

#include <boost/test/unit_test.hpp>

#include "cluster/step_usage.hpp"

using shoal::cluster::add_node_usage;

BOOST_AUTO_TEST_SUITE(step_usage_over_nodes)

BOOST_AUTO_TEST_CASE(cpu_and_io_add_up_peaks_keep_their_node_and_averages_weigh_samples) {
  shoal::msg::step_usage total;
  shoal::msg::step_usage a;
  a.user_cpu_us = 1'000'000;
  a.system_cpu_us = 100;
  a.max_rss_bytes = 300;
  a.max_rss_task = 1;
  a.max_vsize_bytes = 900;
  a.ave_rss_bytes = 100;
  a.samples = 1;
  a.read_bytes = 10;
  a.written_bytes = 20;
  auto b = a;
  b.max_rss_bytes = 500;
  b.max_rss_task = 3;
  b.max_vsize_bytes = 800;
  b.ave_rss_bytes = 400;
  b.samples = 3;
  add_node_usage(total, a, "n1");
  add_node_usage(total, b, "n2");
  BOOST_CHECK_EQUAL(total.user_cpu_us, 2'000'000u);
  BOOST_CHECK_EQUAL(total.system_cpu_us, 200u);
  BOOST_CHECK_EQUAL(total.read_bytes, 20u);
  BOOST_CHECK_EQUAL(total.written_bytes, 40u);
  BOOST_CHECK_EQUAL(total.max_rss_bytes, 500u);
  BOOST_CHECK_EQUAL(total.max_rss_node, "n2");
  BOOST_CHECK_EQUAL(total.max_rss_task, 3);
  BOOST_CHECK_EQUAL(total.max_vsize_bytes, 900u);
  BOOST_CHECK_EQUAL(total.max_vsize_node, "n1");
  BOOST_CHECK_EQUAL(total.ave_rss_bytes, (100u * 1 + 400u * 3) / 4);
  BOOST_CHECK_EQUAL(total.samples, 4u);
}

BOOST_AUTO_TEST_CASE(a_node_that_sampled_nothing_leaves_the_average_alone) {
  shoal::msg::step_usage total;
  shoal::msg::step_usage sampled;
  sampled.ave_rss_bytes = 1000;
  sampled.samples = 2;
  add_node_usage(total, sampled, "n1");
  add_node_usage(total, shoal::msg::step_usage{}, "n2");
  BOOST_CHECK_EQUAL(total.ave_rss_bytes, 1000u);
  BOOST_CHECK_EQUAL(total.max_rss_node, "n1");
}

BOOST_AUTO_TEST_SUITE_END()

// A step's use over its nodes (cluster/step_usage.hpp): what sacct's TotalCPU, MaxRSS(Node) and
// AveRSS show.

#include <boost/test/unit_test.hpp>

#include "cluster/step_usage.hpp"

using shoal::cluster::add_node_usage;
using shoal::cluster::add_step_usage;

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

BOOST_AUTO_TEST_CASE(tasks_add_up_and_the_lowest_per_task_cpu_keeps_its_node_and_task) {
  shoal::msg::step_usage total;
  shoal::msg::step_usage a;
  a.tasks = 2;
  a.min_cpu_us = 700;
  a.min_cpu_task = 0;
  auto b = a;
  b.tasks = 3;
  b.min_cpu_us = 400;
  b.min_cpu_task = 2;
  add_node_usage(total, a, "n1");
  add_node_usage(total, b, "n2");
  // A node that knows no tasks (an older shoald) counts for neither.
  add_node_usage(total, shoal::msg::step_usage{}, "n3");
  BOOST_CHECK_EQUAL(total.tasks, 5u);
  BOOST_CHECK_EQUAL(total.min_cpu_us, 400u);
  BOOST_CHECK_EQUAL(total.min_cpu_node, "n2");
  BOOST_CHECK_EQUAL(total.min_cpu_task, 2);
}

BOOST_AUTO_TEST_CASE(a_jobs_total_sums_its_steps_cpu_and_keeps_the_highest_peak_with_its_node) {
  shoal::msg::step_usage job;
  shoal::msg::step_usage first;
  first.user_cpu_us = 1000;
  first.system_cpu_us = 10;
  first.max_rss_bytes = 5000;
  first.max_rss_node = "n1";
  first.max_rss_task = 0;
  first.read_bytes = 7;
  auto second = first;
  second.max_rss_bytes = 9000;
  second.max_rss_node = "n2";
  second.max_rss_task = 4;
  second.max_vsize_bytes = 20000;
  second.max_vsize_node = "n2";
  add_step_usage(job, first);
  add_step_usage(job, second);
  BOOST_CHECK_EQUAL(job.user_cpu_us, 2000u);
  BOOST_CHECK_EQUAL(job.system_cpu_us, 20u);
  BOOST_CHECK_EQUAL(job.read_bytes, 14u);
  BOOST_CHECK_EQUAL(job.max_rss_bytes, 9000u);
  BOOST_CHECK_EQUAL(job.max_rss_node, "n2");
  BOOST_CHECK_EQUAL(job.max_rss_task, 4);
  BOOST_CHECK_EQUAL(job.max_vsize_node, "n2");
}

BOOST_AUTO_TEST_SUITE_END()

// sstat's output (tools/format/sstat_format.hpp), laid out as Slurm 22.05's print_fields prints
// it: widths from sstat's table, the header and dashes, -p/-P, and the figures' forms.

#include <boost/test/unit_test.hpp>

#include "accounting/rows.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/sstat_format.hpp"

using namespace shoal;

namespace {

msg::accounted_step running_step() {
  msg::accounted_step s;
  s.step_id = 0;
  s.nodelist = "node[1-2]";
  s.node_count = 2;
  s.ntasks = 4;
  s.state = "RUNNING";
  s.usage.user_cpu_us = 7'000'000;
  s.usage.system_cpu_us = 1'000'000;
  s.usage.tasks = 4;
  s.usage.min_cpu_us = 1'500'000;
  s.usage.min_cpu_node = "node2";
  s.usage.min_cpu_task = 2;
  s.usage.max_rss_bytes = 200u << 20;
  s.usage.max_rss_node = "node1";
  s.usage.max_rss_task = 1;
  s.usage.ave_rss_bytes = 100u << 20;
  s.usage.max_vsize_bytes = 1u << 30;
  s.usage.max_vsize_node = "node1";
  s.usage.read_bytes = 4096;
  return s;
}

std::vector<cli::sacct_column> columns(const char* list) {
  auto c = cli::parse_sstat_fields(list);
  BOOST_REQUIRE_MESSAGE(c, (c ? "" : describe(c.error())));
  return *c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sstat_format)

BOOST_AUTO_TEST_CASE(columns_take_sstats_widths_with_a_header_and_dashes) {
  auto cols = columns("JobID,MaxRSS,MaxRSSNode,AveCPU,NTasks");
  cli::sstat_print_options opt;
  BOOST_CHECK_EQUAL(cli::render_sstat_header(cols, opt),
                    "JobID            MaxRSS MaxRSSNode     AveCPU   NTasks \n"
                    "------------ ---------- ---------- ---------- -------- \n");
  BOOST_CHECK_EQUAL(cli::render_sstat_line("12", running_step(), cols, opt),
                    "12.0               200M      node1   00:00:02        4 \n");
}

BOOST_AUTO_TEST_CASE(parsable_forms_end_with_or_without_the_bar) {
  auto cols = columns("jobid,mincpu,mincpun,mincput,averss,maxvms,maxdiskread,avediskread");
  cli::sstat_print_options opt;
  opt.parsable = 1;
  BOOST_CHECK_EQUAL(cli::render_sstat_header(cols, opt),
                    "JobID|MinCPU|MinCPUNode|MinCPUTask|AveRSS|MaxVMSize|MaxDiskRead|"
                    "AveDiskRead|\n");
  opt.parsable = 2;
  BOOST_CHECK_EQUAL(cli::render_sstat_line("12", running_step(), cols, opt),
                    "12.0|00:00:01|node2|2|100M|1G|4K|1K\n");
  opt.no_header = true;
  BOOST_CHECK_EQUAL(cli::render_sstat_header(cols, opt), "");
}

BOOST_AUTO_TEST_CASE(the_batch_step_and_figures_shoal_has_no_data_for) {
  auto step = running_step();
  step.step_id = accounting::batch_step;
  step.usage = {};
  auto cols = columns("JobID,MaxPages,AveVMSize,MaxDiskWrite,ConsumedEnergy,ReqCPUFreqMin,Pids");
  cli::sstat_print_options opt;
  opt.parsable = 2;
  BOOST_CHECK_EQUAL(cli::render_sstat_line("7", step, cols, opt), "7.batch|||0|0|Unknown|\n");
}

BOOST_AUTO_TEST_CASE(noconvert_prints_memory_in_bytes) {
  auto cols = columns("MaxRSS");
  cli::sstat_print_options opt;
  opt.parsable = 2;
  cli::no_unit_conversion() = true;
  auto line = cli::render_sstat_line("12", running_step(), cols, opt);
  cli::no_unit_conversion() = false;
  BOOST_CHECK_EQUAL(line, std::to_string(200u << 20) + "\n");
}

BOOST_AUTO_TEST_CASE(an_unknown_field_is_refused_as_sstat_refuses_it) {
  auto c = cli::parse_sstat_fields("JobID,TotalCPU");
  BOOST_REQUIRE(!c);
  BOOST_CHECK_EQUAL(c.error().text(), "Invalid field requested: \"TotalCPU\"");
  // A width after the name, and prefixes resolved in the table's order.
  auto w = columns("maxrss%20,ave");
  BOOST_REQUIRE_EQUAL(w.size(), 2u);
  BOOST_CHECK_EQUAL(w[0].width, 20);
  BOOST_CHECK_EQUAL(w[1].name, "AveCPU");
}

BOOST_AUTO_TEST_SUITE_END()

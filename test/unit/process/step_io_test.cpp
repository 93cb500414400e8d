// srun's per-task I/O as pure functions: -i FILE patterns and --multi-prog configuration files.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "process/step_io.hpp"

using namespace shoal;

BOOST_AUTO_TEST_SUITE(step_io)

BOOST_AUTO_TEST_CASE(io_patterns_expand_srun_letters_with_widths) {
  process::io_pattern_values v;
  v.job_id = 12;
  v.step_id = 3;
  v.rank = 7;
  v.node_id = 1;
  v.node_name = "node2";
  v.user = "alice";
  v.job_name = "relax";
  BOOST_TEST(process::expand_io_pattern("in.%j.%J.%s.%t.%n.%N.%u.%x.%%", v) ==
             "in.12.12.3.3.7.1.node2.alice.relax.%");
  BOOST_TEST(process::expand_io_pattern("f%3t-%q-%", v) == "f007-%q-%");
}

BOOST_AUTO_TEST_CASE(multi_prog_picks_the_first_line_naming_the_task) {
  std::string conf =
      "# comment\n"
      "  # indented comment\n"
      "0        prog first\n"
      "1-2,5    prog 'two words' %t %o \\\n"
      "         continued\n"
      "*        rest \"%t\"\n";
  using argv = std::vector<std::string>;
  BOOST_TEST(*process::multi_prog_argv(conf, 0) == (argv{"prog", "first"}));
  BOOST_TEST(*process::multi_prog_argv(conf, 2) ==
             (argv{"prog", "two words", "2", "1", "continued"}));
  BOOST_TEST(*process::multi_prog_argv(conf, 5) ==
             (argv{"prog", "two words", "5", "2", "continued"}));
  BOOST_TEST(*process::multi_prog_argv(conf, 9) == (argv{"rest", "9"}));
  BOOST_TEST(!static_cast<bool>(process::check_multi_prog(conf, 8)));
}

BOOST_AUTO_TEST_CASE(multi_prog_refuses_gaps_bad_lists_and_tasks_out_of_range) {
  auto gap = process::check_multi_prog("0 a\n2 b\n", 3);
  BOOST_TEST(shoal::describe(gap).find("task 1") != std::string::npos);
  auto bad = process::check_multi_prog("0 a\nx-y b\n", 0);
  BOOST_TEST(shoal::describe(bad).find("line 2") != std::string::npos);
  auto lone = process::check_multi_prog("0\n", 1);
  BOOST_TEST(shoal::describe(lone).find("line 1") != std::string::npos);
  auto range = process::check_multi_prog("0-3 a\n", 2);
  BOOST_TEST(shoal::describe(range).find("out of range") != std::string::npos);
  BOOST_TEST(static_cast<bool>(process::check_multi_prog("", 1)));
}

BOOST_AUTO_TEST_SUITE_END()

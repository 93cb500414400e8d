// --usage (tools/cli/usage.hpp): the brief synopsis Slurm's commands print, made from the
// command's own options, and the flag that stops the parse to print it.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/cli/usage.hpp"

using shoal::cli::brief_usage;

BOOST_AUTO_TEST_SUITE(brief_usage_synopsis)

BOOST_AUTO_TEST_CASE(values_then_long_flags_then_short_flags_then_positionals) {
  CLI::App app{"x"};
  std::string account, begin, states;
  std::vector<std::string> ids;
  bool all = false, hold = false, me = false;
  app.add_option("-A,--account", account, "a");
  app.add_option("--begin", begin, "b")->type_name("TIME");
  app.add_option("-s,--steps", states, "s")->expected(0, 1);
  app.add_flag("--me", me, "m");
  app.add_flag("-a,--all", all, "a");
  app.add_flag("-H,--hold", hold, "h");
  app.add_option("job_id", ids, "j");
  BOOST_TEST(brief_usage(app, "scancel") ==
             "Usage: scancel [-A account] [--begin=time] [-s[steps]] [--me] [-ahH] "
             "[job_id...]\n");
}

BOOST_AUTO_TEST_CASE(long_lines_wrap_under_the_first_item) {
  CLI::App app{"x"};
  std::vector<std::string> values(12);
  for (size_t i = 0; i < values.size(); ++i)
    app.add_option("--option-number-" + std::to_string(i), values[i], "v");
  auto usage = brief_usage(app, "sbatch");
  size_t start = 0;
  for (auto end = usage.find('\n'); end != std::string::npos;
       start = end + 1, end = usage.find('\n', start)) {
    auto line = usage.substr(start, end - start);
    BOOST_TEST(line.size() <= 80u, line);
    if (start != 0) BOOST_TEST(line.rfind(std::string(14, ' ') + "[--option-number-", 0) == 0u);
  }
  BOOST_TEST(usage.find("[--option-number-11=option-number-11]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_prefix_command_ends_with_the_program_it_runs) {
  CLI::App app{"x"};
  auto* run = app.add_subcommand("run", "r");
  run->prefix_command();
  BOOST_TEST(brief_usage(*run, "srun") == "Usage: srun [-h] executable [args...]\n");
}

BOOST_AUTO_TEST_CASE(usage_stops_the_parse_wherever_it_comes) {
  CLI::App app{"x"};
  int nodes = 0;
  app.add_option("-N,--nodes", nodes, "n")->required();
  shoal::cli::add_usage_flag(app);
  std::vector<std::string> args{"--usage", "--no-such-option"};
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  bool stopped = false;
  try {
    app.parse(args);
  } catch (const shoal::cli::usage_requested& u) {
    stopped = u.command == &app;
  }
  BOOST_TEST(stopped);
}

BOOST_AUTO_TEST_SUITE_END()

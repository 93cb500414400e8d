#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "tools/cli/subcommand.hpp"

using shoal::cli::named_subcommand;

BOOST_AUTO_TEST_SUITE(subcommand_name)

BOOST_AUTO_TEST_CASE(the_first_word_after_the_top_level_options_is_the_subcommand) {
  BOOST_TEST(named_subcommand({"shoal", "queue"}) == "queue");
  BOOST_TEST(named_subcommand({"shoal", "queue", "-t", "all"}) == "queue");
  BOOST_TEST(named_subcommand({"shoal", "-f", "a.conf", "info", "-N"}) == "info");
  BOOST_TEST(named_subcommand({"shoal", "--config", "queue", "run", "true"}) == "run");
  BOOST_TEST(named_subcommand({"shoal", "--config=a.conf", "batch", "x.sh"}) == "batch");
}

BOOST_AUTO_TEST_CASE(help_version_or_no_word_asks_for_every_subcommand) {
  BOOST_TEST(named_subcommand({"shoal"}).empty());
  BOOST_TEST(named_subcommand({"shoal", "--help"}).empty());
  BOOST_TEST(named_subcommand({"shoal", "-h", "queue"}).empty());
  BOOST_TEST(named_subcommand({"shoal", "--help-all"}).empty());
  BOOST_TEST(named_subcommand({"shoal", "--version"}).empty());
  BOOST_TEST(named_subcommand({"shoal", "-f", "a.conf"}).empty());
}

BOOST_AUTO_TEST_SUITE_END()

#include <boost/test/unit_test.hpp>

#include <string>

#include "config/config.hpp"
#include "config/prolog_settings.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

const std::string nodes = "NodeName=n[1-2]\nPartitionName=debug Nodes=n[1-2] Default=YES\n";

std::string error_of(const std::string& text) {
  auto cfg = parse_config(text, "test.conf", "");
  return cfg ? std::string{} : describe(cfg.error());
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(prolog_settings_suite)

BOOST_AUTO_TEST_CASE(the_programs_and_flags_are_read_with_slurms_keys) {
  auto cfg = parse_config(nodes +
                              "Prolog=/etc/shoal/prolog\nEpilog=/etc/shoal/epilog\n"
                              "PrologSlurmctld=/p/ctld\nEpilogSlurmctld=/e/ctld\n"
                              "TaskProlog=/t/pro\nTaskEpilog=/t/epi\n"
                              "PrologFlags=alloc,Serial\nPrologEpilogTimeout=30\n",
                          "test.conf", "");
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? std::string{} : describe(cfg.error())));
  const auto& s = cfg->prologs;
  BOOST_CHECK_EQUAL(s.prolog, "/etc/shoal/prolog");
  BOOST_CHECK_EQUAL(s.epilog, "/etc/shoal/epilog");
  BOOST_CHECK_EQUAL(s.prolog_ctld, "/p/ctld");
  BOOST_CHECK_EQUAL(s.epilog_ctld, "/e/ctld");
  BOOST_CHECK_EQUAL(s.task_prolog, "/t/pro");
  BOOST_CHECK_EQUAL(s.task_epilog, "/t/epi");
  BOOST_CHECK(s.alloc && s.serial && !s.contain && !s.no_hold);
  BOOST_CHECK_EQUAL(s.timeout_s, 30);
  auto shown = render_config(*cfg);
  BOOST_CHECK(contains(shown, "PrologFlags             = Alloc,Serial"));
  BOOST_CHECK(contains(shown, "Prolog                  = /etc/shoal/prolog"));
  BOOST_CHECK(contains(shown, "PrologEpilogTimeout     = 30"));
}

BOOST_AUTO_TEST_CASE(contain_implies_alloc_as_in_slurm) {
  auto cfg = parse_config(nodes + "PrologFlags=Contain\n", "test.conf", "");
  BOOST_REQUIRE(cfg);
  BOOST_CHECK(cfg->prologs.contain && cfg->prologs.alloc);
}

BOOST_AUTO_TEST_CASE(bad_values_name_the_line_and_what_is_expected) {
  BOOST_CHECK(contains(error_of(nodes + "Prolog=prolog.sh\n"), "test.conf:3"));
  BOOST_CHECK(contains(error_of(nodes + "Prolog=prolog.sh\n"), "absolute path"));
  BOOST_CHECK(contains(error_of(nodes + "PrologFlags=X11\n"), "unknown flag 'X11'"));
  BOOST_CHECK(contains(error_of(nodes + "PrologEpilogTimeout=-1\n"), "whole seconds"));
}

BOOST_AUTO_TEST_CASE(nohold_on_prolog_fail_is_a_scheduler_parameter) {
  auto cfg = parse_config(nodes + "SchedulerParameters=nohold_on_prolog_fail\n", "test.conf", "");
  BOOST_REQUIRE(cfg);
  BOOST_CHECK(cfg->scheduling.nohold_on_prolog_fail);
}

BOOST_AUTO_TEST_SUITE_END()

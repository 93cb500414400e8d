// --signal=[{R|B}:]SIG[@TIME] as Slurm 22.05's get_signal_opts reads it.

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <string>

#include "messages/errc.hpp"
#include "policy/warn_signal.hpp"

using namespace shoal;
using namespace shoal::policy;

BOOST_AUTO_TEST_SUITE(warn_signal_option)

BOOST_AUTO_TEST_CASE(names_numbers_and_the_default_time) {
  struct row {
    std::string text;
    int32_t signo;
    uint32_t time_s;
  };
  const row rows[] = {
      {"USR1", SIGUSR1, 60},     {"SIGUSR2@30", SIGUSR2, 30},    {"usr1@90", SIGUSR1, 90},
      {"10@5", 10, 5},           {"sigterm", SIGTERM, 60},       {"XCPU@0", SIGXCPU, 0},
      {":HUP@120", SIGHUP, 120}, {"KILL@65535", SIGKILL, 65535}, {"USR1@", SIGUSR1, 0},
      {" INT", SIGINT, 60},
  };
  for (auto& r : rows) {
    BOOST_TEST_CONTEXT(r.text) {
      for (bool batch : {true, false}) {
        auto parsed = parse_warn_signal(r.text, batch);
        BOOST_REQUIRE(parsed);
        BOOST_TEST(parsed->signo == r.signo);
        BOOST_TEST(parsed->time_s == r.time_s);
        BOOST_TEST(!parsed->batch_only);
        BOOST_TEST(!parsed->reservation);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(b_is_the_batch_shell_and_only_sbatch_knows_it) {
  for (auto text : {"B:USR1@30", "b:USR1@30", "BUSR1@30"}) {
    BOOST_TEST_CONTEXT(text) {
      auto parsed = parse_warn_signal(text, true);
      BOOST_REQUIRE(parsed);
      BOOST_TEST(parsed->batch_only);
      BOOST_TEST(parsed->signo == SIGUSR1);
      BOOST_TEST(parsed->time_s == 30u);
      auto refused = parse_warn_signal(text, false);
      BOOST_REQUIRE(!refused);
      BOOST_TEST(describe(refused.error()).find("Invalid --signal specification") !=
                 std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(r_is_recorded_alone_or_with_b_in_either_order) {
  auto r = parse_warn_signal("R:USR2", false);
  BOOST_REQUIRE(r);
  BOOST_TEST(r->reservation);
  BOOST_TEST(!r->batch_only);
  for (auto text : {"RB:USR2@10", "BR:USR2@10"}) {
    BOOST_TEST_CONTEXT(text) {
      auto both = parse_warn_signal(text, true);
      BOOST_REQUIRE(both);
      BOOST_TEST(both->reservation);
      BOOST_TEST(both->batch_only);
      BOOST_TEST(both->signo == SIGUSR2);
      BOOST_TEST(both->time_s == 10u);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_specifications_are_refused_in_slurms_words) {
  for (auto text : {"", "USR3", "0", "-1", "70000", "USR1@-1", "USR1@70000", "USR1@5s", "USR1@@5",
                    "B", "X:USR1", "USR1 extra"}) {
    BOOST_TEST_CONTEXT("'" << text << "'") {
      auto parsed = parse_warn_signal(text, true);
      BOOST_REQUIRE(!parsed);
      BOOST_TEST(describe(parsed.error()) == "Invalid --signal specification");
    }
  }
}

BOOST_AUTO_TEST_CASE(signal_numbers_follow_slurms_names) {
  BOOST_TEST(signal_number("HUP") == SIGHUP);
  BOOST_TEST(signal_number("SIGCONT") == SIGCONT);
  BOOST_TEST(signal_number("ttou") == SIGTTOU);
  BOOST_TEST(signal_number("12") == 12);
  BOOST_TEST(signal_number("SEGV") == 0);  // not in Slurm's list
  BOOST_TEST(signal_number("12x") == 0);
}

BOOST_AUTO_TEST_SUITE_END()

#include <ctime>

#include <boost/test/unit_test.hpp>

#include "messages/errc.hpp"
#include "config/begin_time.hpp"
#include "config/memory_size.hpp"

using shoal::config::parse_begin_time;
using shoal::config::parse_memory_mb;

namespace {

/// 2026-03-10 14:30:00 local time.
int64_t reference_now() {
  std::tm tm{};
  tm.tm_year = 126;
  tm.tm_mon = 2;
  tm.tm_mday = 10;
  tm.tm_hour = 14;
  tm.tm_min = 30;
  tm.tm_isdst = -1;
  return static_cast<int64_t>(std::mktime(&tm));
}

std::tm local(int64_t t) {
  std::tm tm{};
  auto tt = static_cast<std::time_t>(t);
  localtime_r(&tt, &tm);
  return tm;
}

int64_t begin(const char* text) {
  auto r = parse_begin_time(text, reference_now());
  BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), "'" << text << "' should parse");
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(begin_time)

BOOST_AUTO_TEST_CASE(now_plus_a_count_uses_seconds_unless_a_unit_is_given) {
  auto now = reference_now();
  BOOST_TEST(begin("now") == now);
  BOOST_TEST(begin("now+60") == now + 60);
  BOOST_TEST(begin("now+10minutes") == now + 600);
  BOOST_TEST(begin("now+2m") == now + 120);
  BOOST_TEST(begin("now+1hour") == now + 3600);
  BOOST_TEST(begin("now+1days") == now + 86400);
  BOOST_TEST(begin("now+1weeks") == now + 7 * 86400);
  BOOST_TEST(begin("NOW-30") == now - 30);
}

BOOST_AUTO_TEST_CASE(a_clock_time_means_today_or_tomorrow_when_it_has_passed) {
  auto later = local(begin("16:00"));
  BOOST_TEST(later.tm_mday == 10);
  BOOST_TEST(later.tm_hour == 16);
  auto passed = local(begin("09:15:30"));
  BOOST_TEST(passed.tm_mday == 11);
  BOOST_TEST(passed.tm_hour == 9);
  BOOST_TEST(passed.tm_min == 15);
  BOOST_TEST(passed.tm_sec == 30);
  BOOST_TEST(local(begin("3:00 PM")).tm_hour == 15);
  BOOST_TEST(local(begin("12:00AM")).tm_hour == 0);
}

BOOST_AUTO_TEST_CASE(keywords_name_the_next_such_time) {
  BOOST_TEST(local(begin("midnight")).tm_mday == 11);
  BOOST_TEST(local(begin("tomorrow")).tm_hour == 0);
  BOOST_TEST(local(begin("today")).tm_mday == 10);
  BOOST_TEST(local(begin("teatime")).tm_hour == 16);
  BOOST_TEST(local(begin("noon")).tm_mday == 11);
}

BOOST_AUTO_TEST_CASE(dates_in_every_slurm_form_parse) {
  auto iso = local(begin("2026-12-24T18:05"));
  BOOST_TEST(iso.tm_year == 126);
  BOOST_TEST(iso.tm_mon == 11);
  BOOST_TEST(iso.tm_mday == 24);
  BOOST_TEST(iso.tm_hour == 18);
  BOOST_TEST(iso.tm_min == 5);
  BOOST_TEST(local(begin("2026-12-24")).tm_hour == 0);
  auto us = local(begin("12/24/27-06:00"));
  BOOST_TEST(us.tm_year == 127);
  BOOST_TEST(us.tm_hour == 6);
  // No year and a date already passed this year: next year's.
  BOOST_TEST(local(begin("01/05")).tm_year == 127);
  BOOST_TEST(local(begin("0401")).tm_mon == 3);
  BOOST_TEST(local(begin("040127")).tm_year == 127);
}

BOOST_AUTO_TEST_CASE(malformed_times_are_errors) {
  for (auto bad : {"", "later", "now+", "now+5parsecs", "25:00", "13:00 PM", "2026-13-01", "12/40",
                   "1/2/3/4", "2026-12-24T", "now*2"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!parse_begin_time(bad, reference_now()));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(memory_size)

BOOST_AUTO_TEST_CASE(sizes_default_to_megabytes_and_take_slurm_suffixes) {
  BOOST_TEST(*parse_memory_mb("100", "--mem") == 100u);
  BOOST_TEST(*parse_memory_mb("100M", "--mem") == 100u);
  BOOST_TEST(*parse_memory_mb("2G", "--mem") == 2048u);
  BOOST_TEST(*parse_memory_mb("1t", "--mem") == 1024u * 1024u);
  BOOST_TEST(*parse_memory_mb("1500K", "--mem") == 2u);
  BOOST_TEST(*parse_memory_mb("0", "--mem") == 0u);
}

BOOST_AUTO_TEST_CASE(bad_sizes_name_the_option) {
  for (auto bad : {"", "G", "1.5G", "10GB", "-1", "99999999999999999999", "18014398509481984T"}) {
    BOOST_TEST_CONTEXT(bad) {
      auto r = parse_memory_mb(bad, "--mem-per-cpu");
      BOOST_REQUIRE(!r);
      BOOST_TEST(shoal::describe(r.error()).find("--mem-per-cpu") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

#include <boost/test/unit_test.hpp>

#include "config/duration.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

/// The error code of a failed parse, or 0 when the parse succeeded.
template <class T>
uint8_t error_code(const shoal::expected<T>& result) {
  return result ? 0 : static_cast<uint8_t>(result.error().code());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(duration)

BOOST_AUTO_TEST_CASE(time_limits_parse_in_every_slurm_form) {
  BOOST_CHECK_EQUAL(*parse_time_limit("1-02:03:04"), 93784);
  BOOST_CHECK_EQUAL(*parse_time_limit("90"), 5400);
  BOOST_CHECK_EQUAL(*parse_time_limit("1:30"), 90);
  BOOST_CHECK_EQUAL(*parse_time_limit("2:00:00"), 7200);
  BOOST_CHECK_EQUAL(*parse_time_limit("1-2"), 86400 + 7200);
  BOOST_CHECK_EQUAL(*parse_time_limit("1-2:03"), 86400 + 7200 + 180);
  BOOST_CHECK_EQUAL(*parse_time_limit("0"), 0);
}

BOOST_AUTO_TEST_CASE(unlimited_spellings_give_unlimited) {
  BOOST_CHECK_EQUAL(*parse_time_limit("UNLIMITED"), unlimited);
  BOOST_CHECK_EQUAL(*parse_time_limit("unlimited"), -1);
  BOOST_CHECK_EQUAL(*parse_time_limit("INFINITE"), -1);
  BOOST_CHECK_EQUAL(*parse_time_limit("Infinite"), -1);
  BOOST_CHECK_EQUAL(*parse_time_limit("-1"), -1);
}

BOOST_AUTO_TEST_CASE(malformed_time_limits_are_invalid_time_errors) {
  for (const char* text : {"abc", "1:2:3:4", "", "1-", ":30", "1::2", "1-1:2:3:4", "-5", "1.5",
                           " 90", "1-2-3", "12a"}) {
    BOOST_TEST_CONTEXT("input '" << text << "'") {
      auto result = parse_time_limit(text);
      BOOST_REQUIRE(!result);
      BOOST_CHECK(result.error() == errc::invalid_time);
      BOOST_CHECK(describe(result.error()).find("'" + std::string{text} + "'") !=
                  std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(durations_format_as_slurm_prints_them) {
  BOOST_CHECK_EQUAL(format_duration(59), "0:59");
  BOOST_CHECK_EQUAL(format_duration(0), "0:00");
  BOOST_CHECK_EQUAL(format_duration(600), "10:00");
  BOOST_CHECK_EQUAL(format_duration(3600), "1:00:00");
  BOOST_CHECK_EQUAL(format_duration(86399), "23:59:59");
  BOOST_CHECK_EQUAL(format_duration(86400), "1-00:00:00");
  BOOST_CHECK_EQUAL(format_duration(90061), "1-01:01:01");
  BOOST_CHECK_EQUAL(format_duration(unlimited), "UNLIMITED");
  BOOST_CHECK_EQUAL(format_duration(-42), "UNLIMITED");
}

BOOST_AUTO_TEST_CASE(formatted_durations_parse_back_to_the_same_seconds) {
  for (int64_t seconds :
       {int64_t{0}, int64_t{1}, int64_t{59}, int64_t{60}, int64_t{3599}, int64_t{3600},
        int64_t{86399}, int64_t{86400}, int64_t{93784}, int64_t{10 * 86400 + 5}, unlimited}) {
    BOOST_TEST_CONTEXT("seconds " << seconds) {
      auto parsed = parse_time_limit(format_duration(seconds));
      BOOST_REQUIRE(parsed);
      BOOST_CHECK_EQUAL(*parsed, seconds);
    }
  }
}

BOOST_AUTO_TEST_CASE(seconds_parse_as_milliseconds_with_fractions) {
  BOOST_CHECK_EQUAL(*parse_seconds_as_ms("30"), 30000);
  BOOST_CHECK_EQUAL(*parse_seconds_as_ms("0"), 0);
  BOOST_CHECK_EQUAL(*parse_seconds_as_ms("0.5"), 500);
  BOOST_CHECK_EQUAL(*parse_seconds_as_ms("1.5"), 1500);
  BOOST_CHECK_EQUAL(*parse_seconds_as_ms(".25"), 250);
  BOOST_CHECK_EQUAL(*parse_seconds_as_ms("2."), 2000);
  BOOST_CHECK_EQUAL(*parse_seconds_as_ms("1.2345"), 1234);  // below a millisecond is dropped
}

BOOST_AUTO_TEST_CASE(bad_seconds_are_invalid_time_errors) {
  for (const char* text : {"", "-1", "abc", "1.2.3", "1s", ".", " 1"}) {
    BOOST_TEST_CONTEXT("input '" << text << "'") {
      BOOST_CHECK_EQUAL(error_code(parse_seconds_as_ms(text)),
                        static_cast<uint8_t>(errc::invalid_time));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

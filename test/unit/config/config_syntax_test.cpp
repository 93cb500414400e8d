// The config's number syntax (config/config_syntax.hpp).

#include <boost/test/unit_test.hpp>

#include "config/config_syntax.hpp"

using shoal::config::config_syntax::max_u32;
using shoal::config::config_syntax::max_u64;
using shoal::config::config_syntax::parse_unsigned;

BOOST_AUTO_TEST_SUITE(number_syntax)

BOOST_AUTO_TEST_CASE(an_unsigned_value_above_its_maximum_is_refused_whatever_the_maximum) {
  BOOST_CHECK_EQUAL(parse_unsigned("5", 5).value_or(99), 5u);
  BOOST_CHECK(!parse_unsigned("7", 5));  // one digit above a one-digit maximum
  BOOST_CHECK(!parse_unsigned("12", 9));
  BOOST_CHECK(!parse_unsigned("3", 2));
  BOOST_CHECK_EQUAL(parse_unsigned("0", 0).value_or(99), 0u);
  BOOST_CHECK(!parse_unsigned("1", 0));
  BOOST_CHECK_EQUAL(parse_unsigned("4294967295", max_u32).value_or(0), max_u32);
  BOOST_CHECK(!parse_unsigned("4294967296", max_u32));
  BOOST_CHECK_EQUAL(parse_unsigned("18446744073709551615", max_u64).value_or(0), max_u64);
  BOOST_CHECK(!parse_unsigned("18446744073709551616", max_u64));
}

BOOST_AUTO_TEST_CASE(an_unsigned_value_is_digits_only) {
  BOOST_CHECK(!parse_unsigned("", max_u32));
  BOOST_CHECK(!parse_unsigned("-1", max_u32));
  BOOST_CHECK(!parse_unsigned("+1", max_u32));
  BOOST_CHECK(!parse_unsigned(" 1", max_u32));
  BOOST_CHECK(!parse_unsigned("1k", max_u32));
}

BOOST_AUTO_TEST_SUITE_END()

#define BOOST_TEST_MODULE restd
#include <boost/test/unit_test.hpp>

#include "test/preconditions.hpp"

// Prints each case a precondition skipped, and why.
using shoal::test::skips_reported;
BOOST_TEST_GLOBAL_FIXTURE(skips_reported);

#define BOOST_TEST_MODULE cli_format
#include <boost/test/unit_test.hpp>

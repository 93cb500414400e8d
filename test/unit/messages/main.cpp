#define BOOST_TEST_MODULE messages
#include <boost/test/unit_test.hpp>

#define BOOST_TEST_MODULE interconnect
#include <boost/test/unit_test.hpp>

#define BOOST_TEST_MODULE policy
#include <boost/test/unit_test.hpp>

#define BOOST_TEST_MODULE unit_metrics
#include <boost/test/unit_test.hpp>

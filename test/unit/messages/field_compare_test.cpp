#include <boost/test/unit_test.hpp>

#include "messages/field_compare.hpp"

using namespace shoal;

BOOST_AUTO_TEST_SUITE(field_compare)

BOOST_AUTO_TEST_CASE(same_fields_sees_every_field_nested_ones_included_but_the_skipped_one) {
  msg::node_info a;
  a.name = "n1";
  a.job_ids = {3, 4};
  a.reported.hostname = "host1";
  auto b = a;
  BOOST_TEST(msg::same_fields(a, b));
  b.last_response = 42;
  BOOST_TEST(!msg::same_fields(a, b));
  BOOST_TEST(msg::same_fields(a, b, "last_response"));
  b.reported.hostname = "host2";
  BOOST_TEST(!msg::same_fields(a, b, "last_response"));
  b = a;
  b.job_ids.push_back(5);
  BOOST_TEST(!msg::same_fields(a, b));
}

BOOST_AUTO_TEST_CASE(same_fields_compares_lists_of_structs_element_by_element) {
  msg::step_exit a;
  a.tasks = {{0, 0, 0}, {1, 2, 0}};
  auto b = a;
  BOOST_TEST(msg::same_fields(a, b));
  b.tasks[1].exit_code = 3;
  BOOST_TEST(!msg::same_fields(a, b));
  b.tasks.pop_back();
  BOOST_TEST(!msg::same_fields(a, b));
}

BOOST_AUTO_TEST_SUITE_END()

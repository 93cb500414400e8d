#include <boost/test/unit_test.hpp>

#include "cluster/job_ref.hpp"

using shoal::cluster::names_task;
using shoal::cluster::parse_job_ref;

BOOST_AUTO_TEST_SUITE(job_ref)

BOOST_AUTO_TEST_CASE(a_plain_id_names_the_whole_job) {
  auto r = parse_job_ref("12");
  BOOST_REQUIRE(r);
  BOOST_TEST(r->id == 12u);
  BOOST_TEST(r->whole);
  BOOST_TEST(names_task(*r, 99));
}

BOOST_AUTO_TEST_CASE(an_underscore_names_one_task_or_a_bracketed_list) {
  auto one = parse_job_ref("12_4");
  BOOST_REQUIRE(one);
  BOOST_TEST(!one->whole);
  BOOST_TEST(names_task(*one, 4));
  BOOST_TEST(!names_task(*one, 5));
  auto some = parse_job_ref("12_[1-3,7]");
  BOOST_REQUIRE(some);
  BOOST_TEST(some->id == 12u);
  for (uint32_t i : {1u, 2u, 3u, 7u}) BOOST_TEST(names_task(*some, i));
  for (uint32_t i : {0u, 4u, 6u, 8u}) BOOST_TEST(!names_task(*some, i));
}

BOOST_AUTO_TEST_CASE(malformed_references_are_errors) {
  for (auto bad : {"", "0", "x", "12_", "12_x", "12_[", "12_[3-1]", "12_[1-2", "12_1-2", "12_[1,]",
                   "12__1", "12 ", "99999999999999999999999", "12_4294967296"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!parse_job_ref(bad));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

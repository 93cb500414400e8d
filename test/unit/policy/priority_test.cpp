#include <boost/test/unit_test.hpp>

#include "policy/priority.hpp"

using namespace shoal::policy;

BOOST_AUTO_TEST_SUITE(multifactor_priority_tests)

BOOST_AUTO_TEST_CASE(each_factor_is_weighted_and_shown) {
  priority_config c;
  c.weight_age = 1000;
  c.weight_job_size = 500;
  c.weight_partition = 2000;
  c.max_age = 1000;
  priority_scale s{100, 1000, 10};
  priority_input j{0, 10, 40, 5, 0};
  auto f = multifactor_priority(j, s, c, 250);
  BOOST_TEST(f.age == 250);
  BOOST_TEST(f.job_size == 50);  // 10 of 100 nodes beats 40 of 1000 CPUs
  BOOST_TEST(f.partition == 1000);
  BOOST_TEST(f.total == 1300);
  // Age is capped by PriorityMaxAge.
  BOOST_TEST(multifactor_priority(j, s, c, 99999).age == 1000);
  // Nice subtracts; negative nice (admins) adds.
  j.nice = 300;
  BOOST_TEST(multifactor_priority(j, s, c, 250).total == 1000);
  j.nice = -300;
  BOOST_TEST(multifactor_priority(j, s, c, 250).total == 1600);
}

BOOST_AUTO_TEST_CASE(favor_small_turns_the_size_factor_around) {
  priority_config c;
  c.weight_age = 0;
  c.weight_partition = 0;
  c.weight_job_size = 1000;
  priority_scale s{10, 100, 1};
  priority_input small{0, 1, 1, 1, 0};
  priority_input big{0, 10, 100, 1, 0};
  BOOST_TEST(multifactor_priority(small, s, c, 0).job_size <
             multifactor_priority(big, s, c, 0).job_size);
  c.favor_small = true;
  BOOST_TEST(multifactor_priority(small, s, c, 0).job_size >
             multifactor_priority(big, s, c, 0).job_size);
}

BOOST_AUTO_TEST_CASE(a_computed_priority_is_never_zero_which_means_held) {
  priority_config c;
  priority_scale s{10, 100, 1};
  priority_input j{0, 1, 1, 0, 100000};
  BOOST_TEST(multifactor_priority(j, s, c, 0).total == 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(multifactor_fairshare_and_qos)

BOOST_AUTO_TEST_CASE(fairshare_and_qos_are_weighted_and_added) {
  priority_config c;
  c.weight_age = 0;
  c.weight_job_size = 0;
  c.weight_partition = 0;
  c.weight_fairshare = 10000;
  c.weight_qos = 2000;
  priority_scale s{1, 1, 1};
  priority_input j;
  j.fairshare = 0.25;
  j.qos = 0.5;
  auto f = multifactor_priority(j, s, c, 0);
  BOOST_TEST(f.fairshare == 2500);
  BOOST_TEST(f.qos == 1000);
  BOOST_TEST(f.total == 3500);
  // Slurm's defaults weigh neither: the factors change nothing.
  priority_config slurm_defaults;
  BOOST_TEST(multifactor_priority(j, s, slurm_defaults, 0).fairshare == 0);
  BOOST_TEST(multifactor_priority(j, s, slurm_defaults, 0).qos == 0);
  // Factors outside 0..1 are clamped.
  j.fairshare = 3.0;
  BOOST_TEST(multifactor_priority(j, s, c, 0).fairshare == 10000);
}

BOOST_AUTO_TEST_SUITE_END()

// The request kinds generated from messages/shoal.capnp's ClientOp: their numbers are the wire's,
// so they must not move; their names are what the front door logs.

#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "messages/front_door.hpp"

using shoal::msg::client_op;

BOOST_AUTO_TEST_SUITE(client_ops)

BOOST_AUTO_TEST_CASE(the_kinds_keep_the_numbers_clients_already_send) {
  // The numbers before the kinds were generated from the schema (a CLI of then sends these).
  const std::pair<client_op, int> sent[] = {
      {client_op::ping, 1},
      {client_op::jobs, 2},
      {client_op::job, 3},
      {client_op::nodes, 4},
      {client_op::partitions, 5},
      {client_op::config, 6},
      {client_op::cancel, 7},
      {client_op::job_control, 8},
      {client_op::pending, 9},
      {client_op::map, 10},
      {client_op::node_update, 11},
      {client_op::set_debug, 12},
      {client_op::debug_flags, 13},
      {client_op::diag_reset, 14},
      {client_op::submit, 15},
      {client_op::signal, 16},
      {client_op::run, 17},
      {client_op::attach, 18},
      {client_op::collectors, 19},
      {client_op::partition_summary, 20},
      {client_op::partition_edit, 21},
      {client_op::test_only, 22},
      {client_op::complete, 23},
      {client_op::cluster_identity, 24},
  };
  for (auto [kind, number] : sent)
    BOOST_TEST(static_cast<int>(kind) == number, shoal::msg::to_string(kind));
  BOOST_TEST(static_cast<int>(client_op::unknown) == 0);
  BOOST_TEST(shoal::msg::make_client_request(client_op::partition_edit).op == 21);
}

BOOST_AUTO_TEST_CASE(every_kind_has_a_name_of_its_own) {
  std::set<std::string> names;
  for (size_t i = 0; i < shoal::msg::client_op_count; ++i) {
    auto name = shoal::msg::to_string(static_cast<client_op>(i));
    BOOST_TEST_CONTEXT("kind " << i) {
      BOOST_TEST(!name.empty());
      BOOST_TEST(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos);
      BOOST_TEST(names.insert(name).second, "duplicate name " << name);
    }
  }
  BOOST_TEST(shoal::msg::to_string(client_op::node_update) == "node_update");
  BOOST_TEST(shoal::msg::to_string(client_op::partition_summary) == "partition_summary");
}

BOOST_AUTO_TEST_CASE(a_number_the_schema_does_not_name_is_shown_as_the_number) {
  BOOST_TEST(shoal::msg::to_string(static_cast<client_op>(shoal::msg::client_op_count)) ==
             std::to_string(shoal::msg::client_op_count));
  BOOST_TEST(shoal::msg::to_string(static_cast<client_op>(200)) == "200");
}

BOOST_AUTO_TEST_SUITE_END()

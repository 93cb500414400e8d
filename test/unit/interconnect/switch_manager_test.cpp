#include <boost/test/unit_test.hpp>

#include "interconnect/switch_manager.hpp"
#include "messages/errc.hpp"

using namespace shoal;

BOOST_AUTO_TEST_SUITE(switch_manager)

BOOST_AUTO_TEST_CASE(none_is_found_by_either_spelling_and_reserves_nothing) {
  for (auto name : {"none", "switch/none", ""}) {
    auto plugin = interconnect::make_switch_manager(name);
    BOOST_REQUIRE_MESSAGE(plugin, name);
    BOOST_TEST((*plugin)->name() == "none");
    interconnect::step_request req;
    req.job_id = 3;
    req.nodes = {"n1", "n2"};
    auto data = (*plugin)->allocate(req);
    BOOST_REQUIRE(data);
    BOOST_TEST(data->empty());
    (*plugin)->release(3, 0);  // and an unknown step is no error
    (*plugin)->release(99, 7);
  }
}

BOOST_AUTO_TEST_CASE(an_unknown_switch_type_is_an_error_naming_what_exists) {
  auto plugin = interconnect::make_switch_manager("switch/myrinet");
  BOOST_REQUIRE(!plugin);
  auto text = describe(plugin.error());
  BOOST_TEST(text.find("switch/myrinet") != std::string::npos, text);
  BOOST_TEST(text.find("known: switch/none, switch/elan") != std::string::npos, text);
}

BOOST_AUTO_TEST_SUITE_END()

#include <boost/test/unit_test.hpp>

#include <string>

#include "config/config.hpp"
#include "config/health_settings.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

const std::string health_nodes = "NodeName=n[1-2]\nPartitionName=debug Nodes=n[1-2] Default=YES\n";

std::string health_error_of(const std::string& text) {
  auto cfg = parse_config(health_nodes + text, "test.conf", "");
  return cfg ? std::string{} : describe(cfg.error());
}

bool health_text_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(health_settings_suite)

BOOST_AUTO_TEST_CASE(the_three_keys_are_read_with_slurms_words_and_shown) {
  auto cfg = parse_config(health_nodes +
                              "HealthCheckProgram=/usr/sbin/nhc\nHealthCheckInterval=300\n"
                              "HealthCheckNodeState=idle,CYCLE\n",
                          "test.conf", "");
  BOOST_REQUIRE_MESSAGE(cfg, (cfg ? std::string{} : describe(cfg.error())));
  const auto& h = cfg->health;
  BOOST_CHECK_EQUAL(h.program, "/usr/sbin/nhc");
  BOOST_CHECK_EQUAL(h.interval_s, 300);
  BOOST_CHECK_EQUAL(h.node_states, health_state::idle | health_state::cycle);
  BOOST_CHECK(h.enabled());
  auto shown = render_config(*cfg);
  BOOST_CHECK(health_text_has(shown, "HealthCheckInterval     = 300"));
  BOOST_CHECK(health_text_has(shown, "HealthCheckNodeState    = IDLE,CYCLE"));
  BOOST_CHECK(health_text_has(shown, "HealthCheckProgram      = /usr/sbin/nhc"));
}

BOOST_AUTO_TEST_CASE(the_defaults_are_slurms_off_and_any) {
  auto cfg = parse_config(health_nodes, "test.conf", "");
  BOOST_REQUIRE(cfg);
  BOOST_CHECK(!cfg->health.enabled());
  BOOST_CHECK_EQUAL(cfg->health.node_states, health_state::any);
  BOOST_CHECK(health_text_has(render_config(*cfg), "HealthCheckNodeState    = ANY"));
  // A program without an interval never runs, as slurmd's run_script_health_check.
  auto no_interval = parse_config(health_nodes + "HealthCheckProgram=/x\n", "test.conf", "");
  BOOST_REQUIRE(no_interval);
  BOOST_CHECK(!no_interval->health.enabled());
}

BOOST_AUTO_TEST_CASE(bad_values_stop_the_start_with_the_key_named) {
  BOOST_CHECK(
      health_text_has(health_error_of("HealthCheckNodeState=IDLE,BUSY\n"), "unknown state 'BUSY'"));
  BOOST_CHECK(health_text_has(health_error_of("HealthCheckInterval=-5\n"), "HealthCheckInterval"));
  BOOST_CHECK(health_text_has(health_error_of("HealthCheckProgram=nhc\n"), "absolute path"));
}

BOOST_AUTO_TEST_CASE(state_words_render_in_slurms_order) {
  BOOST_CHECK_EQUAL(health_states_text(health_state::any), "ANY");
  BOOST_CHECK_EQUAL(health_states_text(health_state::any | health_state::cycle), "ANY,CYCLE");
  BOOST_CHECK_EQUAL(health_states_text(health_state::mixed | health_state::idle), "IDLE,MIXED");
  BOOST_CHECK_EQUAL(health_states_text(health_state::nondrained_idle), "NONDRAINED_IDLE");
  // CYCLE alone means every state, as Slurm reads it.
  auto cfg = parse_config(health_nodes + "HealthCheckNodeState=CYCLE\n", "test.conf", "");
  BOOST_REQUIRE(cfg);
  BOOST_CHECK_EQUAL(cfg->health.node_states, health_state::any | health_state::cycle);
}

BOOST_AUTO_TEST_CASE(which_node_states_each_word_takes) {
  using msg::node_state;
  BOOST_CHECK(health_check_applies(health_state::idle, node_state::idle));
  BOOST_CHECK(health_check_applies(health_state::idle, node_state::drained));
  BOOST_CHECK(!health_check_applies(health_state::idle, node_state::allocated));
  BOOST_CHECK(!health_check_applies(health_state::idle, node_state::mixed));
  BOOST_CHECK(health_check_applies(health_state::nondrained_idle, node_state::idle));
  BOOST_CHECK(!health_check_applies(health_state::nondrained_idle, node_state::drained));
  BOOST_CHECK(health_check_applies(health_state::alloc, node_state::allocated));
  BOOST_CHECK(health_check_applies(health_state::alloc, node_state::completing));
  BOOST_CHECK(!health_check_applies(health_state::alloc, node_state::mixed));
  BOOST_CHECK(health_check_applies(health_state::mixed, node_state::mixed));
  BOOST_CHECK(health_check_applies(health_state::mixed, node_state::draining));
  BOOST_CHECK(health_check_applies(health_state::any, node_state::draining));
  // Nodes that do not respond are never asked.
  BOOST_CHECK(!health_check_applies(health_state::any, node_state::down));
  BOOST_CHECK(!health_check_applies(health_state::any, node_state::unknown));
}

BOOST_AUTO_TEST_CASE(the_reason_is_the_first_line_of_output_or_the_status) {
  BOOST_CHECK_EQUAL(health_failure_reason("\n   disk /scratch full  \nmore\n", "exit 1"),
                    "disk /scratch full");
  BOOST_CHECK_EQUAL(health_failure_reason("", "exit 3"), "HealthCheckProgram failed: exit 3");
  BOOST_CHECK_EQUAL(health_failure_reason(" \n\t\n", "timed out after 60 s"),
                    "HealthCheckProgram failed: timed out after 60 s");
}

BOOST_AUTO_TEST_SUITE_END()

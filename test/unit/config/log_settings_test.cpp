// Slurm debug levels, debug flags, setdebugflags changes, log file name patterns, sizes and time
// formats (runtime/log_settings.hpp).

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "config/log_settings.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

template <class T>
std::string why(const shoal::expected<T>& r) {
  return r ? std::string{} : describe(r.error());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(debug_levels)

BOOST_AUTO_TEST_CASE(names_in_any_case_and_numbers_give_slurms_levels) {
  BOOST_CHECK(*parse_debug_level("quiet") == debug_level::quiet);
  BOOST_CHECK(*parse_debug_level("Info") == debug_level::info);
  BOOST_CHECK(*parse_debug_level("DEBUG2") == debug_level::debug2);
  BOOST_CHECK(*parse_debug_level("0") == debug_level::quiet);
  BOOST_CHECK(*parse_debug_level("3") == debug_level::info);
  BOOST_CHECK(*parse_debug_level("9") == debug_level::debug5);
  for (int i = 0; i <= 9; ++i) {
    auto level = static_cast<debug_level>(i);
    auto back = parse_debug_level(to_string(level));
    BOOST_REQUIRE_MESSAGE(back, why(back));
    BOOST_CHECK(*back == level);
  }
}

BOOST_AUTO_TEST_CASE(an_unknown_level_names_the_valid_ones) {
  for (const char* bad : {"loud", "10", "", "debug6", "-1"}) {
    auto r = parse_debug_level(bad);
    BOOST_REQUIRE_MESSAGE(!r, bad);
    BOOST_CHECK(r.error() == errc::invalid_config);
    BOOST_CHECK_MESSAGE(
        describe(r.error()).find("quiet, fatal, error, info, verbose, debug") != std::string::npos,
        describe(r.error()));
  }
}

BOOST_AUTO_TEST_CASE(each_v_is_one_level_more_verbose_up_to_debug5) {
  BOOST_CHECK(more_verbose(debug_level::info, 0) == debug_level::info);
  BOOST_CHECK(more_verbose(debug_level::info, 1) == debug_level::verbose);
  BOOST_CHECK(more_verbose(debug_level::info, 2) == debug_level::debug);
  BOOST_CHECK(more_verbose(debug_level::debug4, 5) == debug_level::debug5);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(debug_flags)

BOOST_AUTO_TEST_CASE(flags_parse_in_any_case_with_aliases_and_render_canonically) {
  auto r = parse_debug_flags("init, MSG,,Steps");
  BOOST_REQUIRE_MESSAGE(r, why(r));
  BOOST_CHECK_EQUAL(*r,
                    bit_of(debug_flag::init) | bit_of(debug_flag::msg) | bit_of(debug_flag::steps));
  BOOST_CHECK_EQUAL(render_debug_flags(*r), "Init,Msg,Steps");
  BOOST_CHECK_EQUAL(*parse_debug_flags("Protocol"), bit_of(debug_flag::msg));
  BOOST_CHECK_EQUAL(*parse_debug_flags("machstatus"), bit_of(debug_flag::heartbeat));
  BOOST_CHECK_EQUAL(*parse_debug_flags(""), 0u);
  BOOST_CHECK_EQUAL(render_debug_flags(0), "");
}

BOOST_AUTO_TEST_CASE(every_flag_round_trips_through_its_name) {
  for (unsigned i = 0; i < debug_flag_count; ++i) {
    auto flag = static_cast<debug_flag>(i);
    auto r = parse_debug_flags(to_string(flag));
    BOOST_REQUIRE_MESSAGE(r, why(r));
    BOOST_CHECK_EQUAL(*r, bit_of(flag));
  }
}

BOOST_AUTO_TEST_CASE(an_unknown_flag_is_named_with_the_choices) {
  auto r = parse_debug_flags("Steps,Gang");
  BOOST_REQUIRE(!r);
  auto text = describe(r.error());
  BOOST_CHECK_MESSAGE(text.find("'Gang'") != std::string::npos, text);
  BOOST_CHECK_MESSAGE(text.find("Msg (Protocol)") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(plus_adds_and_minus_removes_as_scontrol_setdebugflags) {
  auto steps = bit_of(debug_flag::steps);
  auto msg = bit_of(debug_flag::msg);
  auto r = change_debug_flags(msg, {"+Steps", "-msg"});
  BOOST_REQUIRE_MESSAGE(r, why(r));
  BOOST_CHECK_EQUAL(*r, steps);
  r = change_debug_flags(0, {"+Steps,Msg"});
  BOOST_REQUIRE_MESSAGE(r, why(r));
  BOOST_CHECK_EQUAL(*r, steps | msg);
  BOOST_CHECK_EQUAL(*change_debug_flags(steps, {"-Steps", "+Steps"}), steps);
  BOOST_CHECK_EQUAL(*change_debug_flags(0, {"-Init"}), 0u);
}

BOOST_AUTO_TEST_CASE(changes_without_a_sign_or_with_unknown_flags_are_refused) {
  for (auto words :
       std::vector<std::vector<std::string>>{{}, {"Steps"}, {"+"}, {"+Steps", "Msg"}, {"+Nope"}}) {
    auto r = change_debug_flags(0, words);
    BOOST_REQUIRE(!r);
    BOOST_CHECK(r.error() == errc::invalid_request);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(log_files)

BOOST_AUTO_TEST_CASE(percent_h_and_n_become_host_and_node) {
  BOOST_CHECK_EQUAL(expand_log_file_name("/var/log/shoald.%n.log", "lx", "node3"),
                    "/var/log/shoald.node3.log");
  BOOST_CHECK_EQUAL(expand_log_file_name("/var/log/%h/%n-%h", "lx", "n1"), "/var/log/lx/n1-lx");
  BOOST_CHECK_EQUAL(expand_log_file_name("/tmp/100%%-%x%", "h", "n"), "/tmp/100%-%x%");
  BOOST_CHECK_EQUAL(expand_log_file_name("", "h", "n"), "");
  // The controller has no node name.
  BOOST_CHECK_EQUAL(expand_log_file_name("/l/ctld-%n.log", "h", ""), "/l/ctld-.log");
}

BOOST_AUTO_TEST_CASE(sizes_take_binary_suffixes) {
  BOOST_CHECK_EQUAL(*parse_byte_size("0"), 0u);
  BOOST_CHECK_EQUAL(*parse_byte_size("4096"), 4096u);
  BOOST_CHECK_EQUAL(*parse_byte_size("512k"), 512u << 10);
  BOOST_CHECK_EQUAL(*parse_byte_size("100M"), 100u << 20);
  BOOST_CHECK_EQUAL(*parse_byte_size("2G"), uint64_t{2} << 30);
  for (const char* bad : {"", "M", "1.5M", "12X", "-1"})
    BOOST_CHECK_MESSAGE(!parse_byte_size(bad), bad);
}

BOOST_AUTO_TEST_CASE(time_formats_give_line_patterns) {
  BOOST_CHECK_EQUAL(*log_line_pattern(""), "[%Y-%m-%dT%H:%M:%S.%e] %n %l: %v");
  BOOST_CHECK_EQUAL(*log_line_pattern("iso8601"), "[%Y-%m-%dT%H:%M:%S] %n %l: %v");
  BOOST_CHECK_EQUAL(*log_line_pattern("short,thread_id"), "[%b %d %H:%M:%S] [%t] %n %l: %v");
  BOOST_CHECK(!log_line_pattern("clock"));
  BOOST_CHECK(!log_line_pattern("iso8601,rfc5424"));
}

BOOST_AUTO_TEST_SUITE_END()

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <set>
#include <string>

#include <caf/error.hpp>
#include <caf/sec.hpp>

#include "messages/caf/error.hpp"
#include "messages/errc.hpp"

using shoal::errc;

namespace {

/// The highest value in use; raise it when adding a code (the last test then fails until
/// to_string names the new value).
constexpr uint8_t last_code = 15;

}  // namespace

BOOST_AUTO_TEST_SUITE(error_codes)

BOOST_AUTO_TEST_CASE(to_string_names_every_code_distinctly) {
  std::set<std::string> names;
  for (uint8_t code = 1; code <= last_code; ++code) {
    std::string name = shoal::to_string(static_cast<errc>(code));
    BOOST_TEST_CONTEXT("code " << int{code}) {
      BOOST_TEST(!name.empty());
      BOOST_TEST(name != "unknown_error");
      BOOST_TEST(names.insert(name).second, "duplicate name " << name);
    }
  }
  BOOST_TEST(names.size() == last_code);
}

BOOST_AUTO_TEST_CASE(to_string_gives_the_documented_names) {
  BOOST_TEST(shoal::to_string(errc::invalid_config) == std::string{"invalid_config"});
  BOOST_TEST(shoal::to_string(errc::malformed_message) == std::string{"malformed_message"});
  BOOST_TEST(shoal::to_string(errc::system_error) == std::string{"system_error"});
}

BOOST_AUTO_TEST_CASE(values_outside_the_enum_are_unknown_error) {
  BOOST_TEST(shoal::to_string(static_cast<errc>(0)) == std::string{"unknown_error"});
  BOOST_TEST(shoal::to_string(static_cast<errc>(last_code + 1)) == std::string{"unknown_error"});
  BOOST_TEST(shoal::to_string(static_cast<errc>(255)) == std::string{"unknown_error"});
}

BOOST_AUTO_TEST_CASE(make_error_uses_the_shoal_category_and_the_code) {
  for (uint8_t code = 1; code <= last_code; ++code) {
    auto e = shoal::make_error(static_cast<errc>(code));
    auto t = shoal::make_error(static_cast<errc>(code), "text");
    BOOST_TEST_CONTEXT("code " << int{code}) {
      BOOST_TEST(static_cast<bool>(e));
      BOOST_TEST(e.code() == code);
      BOOST_CHECK(e.category() == shoal::error_category);
      BOOST_TEST(t.code() == code);
      BOOST_CHECK(t.category() == shoal::error_category);
      BOOST_CHECK(t == static_cast<errc>(code));
    }
  }
}

BOOST_AUTO_TEST_CASE(describe_prefers_the_attached_text) {
  for (uint8_t code = 1; code <= last_code; ++code) {
    auto c = static_cast<errc>(code);
    BOOST_TEST_CONTEXT("code " << int{code}) {
      BOOST_TEST(shoal::describe(shoal::make_error(c, "text")) == "text");
      BOOST_TEST(shoal::describe(shoal::make_error(c, "")) == "");
    }
  }
}

BOOST_AUTO_TEST_CASE(describe_without_text_is_the_code_name) {
  for (uint8_t code = 1; code <= last_code; ++code) {
    auto c = static_cast<errc>(code);
    BOOST_TEST_CONTEXT("code " << int{code}) {
      BOOST_TEST(shoal::describe(shoal::make_error(c)) == std::string{shoal::to_string(c)});
    }
  }
}

BOOST_AUTO_TEST_CASE(a_default_error_is_no_error_and_describes_itself_so) {
  shoal::error none;
  BOOST_TEST(!none);
  BOOST_TEST(shoal::describe(none) == "no error");
  shoal::error bad{errc::unknown_job, "Invalid job id specified"};
  BOOST_TEST(static_cast<bool>(bad));
  BOOST_CHECK(bad == errc::unknown_job);
  BOOST_CHECK(bad != errc::unknown_node);
  BOOST_TEST(shoal::describe(bad) == "Invalid job id specified");
  BOOST_TEST(shoal::describe(shoal::error{errc::unreachable}) == "unreachable");
}

BOOST_AUTO_TEST_CASE(expected_holds_a_value_or_an_error) {
  shoal::expected<std::string> good{std::string{"x"}};
  BOOST_TEST(static_cast<bool>(good));
  BOOST_TEST(*good == "x");
  BOOST_TEST(good->size() == 1u);
  shoal::expected<std::string> bad{shoal::error{errc::invalid_time, "bad time"}};
  BOOST_TEST(!bad);
  BOOST_CHECK(bad == errc::invalid_time);
  BOOST_TEST(shoal::describe(bad.error()) == "bad time");
}

BOOST_AUTO_TEST_CASE(errors_cross_to_caf_keeping_code_and_text) {
  for (uint8_t code = 1; code <= last_code; ++code) {
    auto c = static_cast<errc>(code);
    BOOST_TEST_CONTEXT("code " << int{code}) {
      auto with_text = shoal::to_caf(shoal::error{c, "text"});
      BOOST_TEST(with_text.code() == code);
      BOOST_CHECK(with_text.category() == shoal::error_category);
      BOOST_CHECK(with_text == c);
      BOOST_TEST(shoal::describe(with_text) == "text");
      auto bare = shoal::to_caf(shoal::error{c});
      BOOST_CHECK(bare == c);
      BOOST_TEST(shoal::describe(bare) == std::string{shoal::to_string(c)});
    }
  }
  BOOST_TEST(!shoal::to_caf(shoal::error{}));
  shoal::expected<int> failed{shoal::error{errc::unknown_job, "gone"}};
  auto as_caf = shoal::to_caf(failed);
  BOOST_REQUIRE(!as_caf);
  BOOST_CHECK(as_caf.error() == errc::unknown_job);
  BOOST_TEST(*shoal::to_caf(shoal::expected<int>{7}) == 7);
}

BOOST_AUTO_TEST_CASE(describe_handles_no_error_and_caf_errors) {
  BOOST_TEST(shoal::describe(caf::error{}) == "no error");
  BOOST_TEST(shoal::describe(caf::make_error(caf::sec::request_timeout)) == "request_timeout");
}

BOOST_AUTO_TEST_SUITE_END()

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "messages/errc.hpp"
#include "topology/hostlist.hpp"

using shoal::topology::compress_hostlist;
using shoal::topology::compress_hostlist_sorted;
using shoal::topology::expand_hostlist;
using names = std::vector<std::string>;

namespace {

names expand_ok(std::string_view expr) {
  auto result = expand_hostlist(expr);
  BOOST_REQUIRE_MESSAGE(result, "expanding '" << expr << "' failed: "
                                              << (result ? "" : shoal::describe(result.error())));
  return *result;
}

/// The text of the error expanding `expr` gives; fails the test when it succeeds.
std::string expand_error(std::string_view expr) {
  auto result = expand_hostlist(expr);
  BOOST_REQUIRE_MESSAGE(!result, "expanding '" << expr << "' should fail");
  BOOST_CHECK(result.error().category() == shoal::error_category);
  BOOST_CHECK_EQUAL(result.error().code(), static_cast<uint8_t>(shoal::errc::invalid_hostlist));
  return shoal::describe(result.error());
}

names split_commas(const std::string& text) {
  names out;
  size_t start = 0;
  for (;;) {
    auto comma = text.find(',', start);
    out.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hostlist)

// -- expansion ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(expand_passes_plain_names_through_in_order_with_duplicates) {
  BOOST_TEST(expand_ok("login,n3,n1,n3") == (names{"login", "n3", "n1", "n3"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(expand_splits_items_on_commas_and_blanks_and_skips_empty_items) {
  BOOST_TEST(expand_ok("a b,c\td\n,,e,") == (names{"a", "b", "c", "d", "e"}),
             boost::test_tools::per_element());
  BOOST_TEST(expand_ok("").empty());
  BOOST_TEST(expand_ok(" , ").empty());
}

BOOST_AUTO_TEST_CASE(expand_keeps_the_width_of_a_zero_padded_lower_bound) {
  BOOST_TEST(expand_ok("lx[01-10]") == (names{"lx01", "lx02", "lx03", "lx04", "lx05", "lx06",
                                              "lx07", "lx08", "lx09", "lx10"}),
             boost::test_tools::per_element());
  BOOST_TEST(expand_ok("n[8-10]") == (names{"n8", "n9", "n10"}), boost::test_tools::per_element());
  BOOST_TEST(expand_ok("n[098-101]") == (names{"n098", "n099", "n100", "n101"}),
             boost::test_tools::per_element());
  BOOST_TEST(expand_ok("n[98-101]") == (names{"n98", "n99", "n100", "n101"}),
             boost::test_tools::per_element());
  // As in Slurm, the width of the upper bound is ignored.
  BOOST_TEST(expand_ok("n[1-02]") == (names{"n1", "n2"}), boost::test_tools::per_element());
  BOOST_TEST(expand_ok("n[01-2]") == (names{"n01", "n02"}), boost::test_tools::per_element());
  BOOST_TEST(expand_ok("n[0-1]") == (names{"n0", "n1"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(expand_handles_lists_and_ranges_in_one_bracket) {
  BOOST_TEST(expand_ok("n[1-3,7]") == (names{"n1", "n2", "n3", "n7"}),
             boost::test_tools::per_element());
  BOOST_TEST(expand_ok("n[3,1-2]") == (names{"n3", "n1", "n2"}), boost::test_tools::per_element());
  BOOST_TEST(expand_ok("n[1,1]") == (names{"n1", "n1"}), boost::test_tools::per_element());
  BOOST_TEST(expand_ok("[1-2],a") == (names{"1", "2", "a"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(expand_varies_the_leftmost_bracket_slowest) {
  BOOST_TEST(expand_ok("rack[1-2]-n[01-02]") ==
                 (names{"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"}),
             boost::test_tools::per_element());
  BOOST_TEST(expand_ok("n[1-2][3-4]") == (names{"n13", "n14", "n23", "n24"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(expand_accepts_text_after_the_last_bracket_as_an_extension) {
  BOOST_TEST(expand_ok("n[1-3]-ib") == (names{"n1-ib", "n2-ib", "n3-ib"}),
             boost::test_tools::per_element());
  BOOST_TEST(expand_ok("r[1-2]n[1-2]x") == (names{"r1n1x", "r1n2x", "r2n1x", "r2n2x"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(expand_accepts_a_range_of_65536_names) {
  auto all = expand_ok("n[0-65535]");
  BOOST_REQUIRE_EQUAL(all.size(), 65536u);
  BOOST_TEST(all.front() == "n0");
  BOOST_TEST(all.back() == "n65535");
}

BOOST_AUTO_TEST_CASE(expand_accepts_one_million_names_in_all) {
  auto all = expand_ok("a[000-999][000-999]");
  BOOST_REQUIRE_EQUAL(all.size(), 1000000u);
  BOOST_TEST(all[1001] == "a001001");
  BOOST_TEST(all.back() == "a999999");
}

BOOST_AUTO_TEST_CASE(expand_rejects_malformed_expressions_naming_the_column) {
  struct bad {
    const char* expr;
    size_t column;
    const char* fragment;
  };
  const bad cases[] = {
      {"n[1-2", 2, "unbalanced '['"},
      {"a,n[1-2 n3", 4, "unbalanced '['"},
      {"n1-2]", 5, "unbalanced ']'"},
      {"n[1]]", 5, "unbalanced ']'"},
      {"a,n[1-[2]]", 4, "unbalanced '['"},
      {"n[]", 2, "empty brackets"},
      {"n[1-]", 5, "empty range part"},
      {"n[-1]", 3, "empty range part"},
      {"n[1,,2]", 5, "empty range part"},
      {"n[1,]", 5, "empty range part"},
      {"n[5-3]", 3, "reversed range 5-3"},
      {"lx[010-8]", 4, "reversed range"},
      {"n[a-b]", 3, "non-digit 'a'"},
      {"n[1-b]", 5, "non-digit 'b'"},
      {"n[1 ,2]", 4, "non-digit ' '"},
      {"n[1-2-3]", 6, "non-digit '-'"},
      {"n[1x]", 4, "non-digit 'x'"},
      {"x,n[0-65536]", 5, "more than 65536"},
      {"n[1234567890123456789]", 3, "longer than 18 digits"},
      {"a[0-999][0-999][0-9]", 1, "more than 1000000 names"},
      {"a[1-1000] b[1-1000][1-1000]", 11, "more than 1000000 names"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("expression '" << c.expr << "'") {
      auto text = expand_error(c.expr);
      BOOST_TEST_MESSAGE(c.expr << " -> " << text);
      auto column = "column " + std::to_string(c.column);
      BOOST_CHECK_MESSAGE(text.find(column) != std::string::npos,
                          "'" << text << "' does not name " << column);
      BOOST_CHECK_MESSAGE(text.find(c.fragment) != std::string::npos,
                          "'" << text << "' does not say '" << c.fragment << "'");
    }
  }
}

BOOST_AUTO_TEST_CASE(expand_never_crashes_on_random_text) {
  const uint32_t seed = 20240611;
  std::mt19937 rng{seed};
  const std::string alphabet = "n01239-[],, x";
  std::uniform_int_distribution<size_t> pick{0, alphabet.size() - 1};
  std::uniform_int_distribution<size_t> length{0, 24};
  size_t accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string expr;
    for (auto n = length(rng); n > 0; --n) expr += alphabet[pick(rng)];
    auto result = expand_hostlist(expr);
    if (!result) {
      BOOST_CHECK_MESSAGE(shoal::describe(result.error()).find("column ") != std::string::npos,
                          "seed " << seed << " round " << round << ": '" << expr << "'");
      continue;
    }
    ++accepted;
    for (const auto& name : *result)
      BOOST_CHECK_MESSAGE(
          !name.empty() && name.find_first_of("[], ") == std::string::npos,
          "seed " << seed << " round " << round << ": '" << expr << "' gave '" << name << "'");
  }
  BOOST_TEST_MESSAGE("accepted " << accepted << " of 20000 random expressions");
}

// -- compression --------------------------------------------------------------------------------

/// Pairs of (names, expected) taken from `scontrol show hostlist` (Slurm 22.05.8).
BOOST_AUTO_TEST_CASE(compress_matches_scontrol_show_hostlist) {
  const std::pair<const char*, const char*> cases[] = {
      {"n3,n1,n2", "n[3,1-2]"},
      {"lx01,lx02,lx03,n7", "lx[01-03],n7"},
      {"n7", "n7"},
      {"n1,n1", "n[1,1]"},
      {"n9,n10", "n[9-10]"},
      {"n09,n10", "n[09-10]"},
      {"n9,n010", "n[9,010]"},
      {"n8,n9,n10,n11", "n[8-11]"},
      {"n1,n01", "n[1,01]"},
      {"n0,n00", "n[0,00]"},
      {"foo,bar", "foo,bar"},
      {"a,a", "a,a"},
      {"foo,n1,foo", "foo,n1,foo"},
      {"n1,m1,n2", "n1,m1,n2"},
      {"n1,n2,m1,n3", "n[1-2],m1,n3"},
      {"n1,n2,n3,foo,n4,n5", "n[1-3],foo,n[4-5]"},
      {"a1b2,a1b3", "a1b[2-3]"},
      {"rack1-n01,rack1-n02", "rack1-n[01-02]"},
      {"n1-ib,n2-ib", "n1-ib,n2-ib"},
      {"n1x,n2x", "n1x,n2x"},
      {"n0,n1", "n[0-1]"},
      {"n00,n01", "n[00-01]"},
      {"n1,n3,n5", "n[1,3,5]"},
      {"n1,n2,n4,n5", "n[1-2,4-5]"},
      {"n10,n9", "n[10,9]"},
      {"n3,n2,n1", "n[3,2,1]"},
      {"n1,n2,n3,n2", "n[1-3,2]"},
      {"n1,n2,n1,n2", "n[1-2,1-2]"},
      {"n8,n9,n10,n09", "n[8-10,09]"},
      {"n1,n01,n2", "n[1,01,2]"},
      {"n09,n10,n100", "n[09-10,100]"},
      {"n099,n100,n101", "n[099-101]"},
      {"n99,n100", "n[99-100]"},
      {"n99,n0100", "n[99,0100]"},
      {"n009,n10", "n[009,10]"},
      {"123,124", "[123-124]"},
      {"1,2,a", "[1-2],a"},
      {"n4294967295,n4294967296", "n[4294967295-4294967296]"},
  };
  for (const auto& [input, expected] : cases) {
    BOOST_TEST_CONTEXT("names " << input) {
      auto list = split_commas(input);
      BOOST_TEST(compress_hostlist(list) == expected);
      BOOST_TEST(expand_ok(expected) == list, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(compress_of_no_names_is_empty) {
  BOOST_TEST(compress_hostlist({}) == "");
  BOOST_TEST(compress_hostlist_sorted({}) == "");
}

BOOST_AUTO_TEST_CASE(compress_joins_a_zero_padded_range_that_outgrows_its_width) {
  names list;
  for (int i = 9; i <= 100; ++i) list.push_back((i < 10 ? "n0" : "n") + std::to_string(i));
  BOOST_TEST(compress_hostlist(list) == "n[09-100]");
  BOOST_TEST(expand_ok("n[09-100]") == list, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(compress_keeps_names_with_overlong_digit_suffixes_plain) {
  names list{"n1234567890123456789", "n1234567890123456790"};
  BOOST_TEST(compress_hostlist(list) == "n1234567890123456789,n1234567890123456790");
}

/// Expected values from `scontrol show hostlistsorted` (Slurm 22.05.8) where they agree; the
/// second group differs on purpose: Slurm keeps duplicates there, shoal removes them.
BOOST_AUTO_TEST_CASE(compress_sorted_orders_like_scontrol_show_hostlistsorted) {
  const std::pair<const char*, const char*> cases[] = {
      {"rack10-n1,rack2-n1,rack1-n1,rack2-n2", "rack1-n1,rack2-n[1-2],rack10-n1"},
      {"b2x,b10x,b1x", "b1x,b2x,b10x"},
      {"B1,a1,A1,b1", "A1,B1,a1,b1"},
      {"r01x1,r1x2,r001x3", "r001x3,r01x1,r1x2"},
      {"x1,x,x2", "x,x[1-2]"},
      {"n10,n9,n09,n010", "n[9,09-10,010]"},
      {"n1,n01,n001,n2,n02", "n[1-2,01-02,001]"},
      {"n0010,n9,n08", "n[9,08,0010]"},
      {"10,9,a", "[9-10],a"},
      {"n3,n1,n2", "n[1-3]"},
      // Slurm: foo,m[4-5,03-04],n[1-2,2-3,9-10]
      {"n3,n1,n2,n2,m5,m04,m4,m03,foo,n10,n9", "foo,m[4-5,03-04],n[1-3,9-10]"},
      // Slurm: n[3,3-5]
      {"n5,n3,n4,n3", "n[3-5]"},
      // Slurm: x,x,x[1,1-2]
      {"x1,x,x2,x,x1", "x,x[1-2]"},
      // Slurm: a,a,a1,b,c
      {"b,a,c,a1,a", "a,a1,b,c"},
  };
  for (const auto& [input, expected] : cases) {
    BOOST_TEST_CONTEXT("names " << input) {
      BOOST_TEST(compress_hostlist_sorted(split_commas(input)) == expected);
    }
  }
}

// -- properties ---------------------------------------------------------------------------------

namespace {

/// A generated name and the key it sorts by: (prefix rank, numbered, width, value).
struct generated {
  std::string name;
  std::tuple<int, bool, size_t, uint64_t> key;
};

/// Prefixes in natural order; the plain names ("foo", "login") sort by their whole text.
const std::vector<std::pair<std::string, bool>> prefixes = {
    {"", true},  {"a1b", true},     {"foo", false},    {"login", false},   {"lx", true},
    {"n", true}, {"rack1-n", true}, {"rack2-n", true}, {"rack10-n", true},
};

std::vector<generated> random_names(std::mt19937& rng, bool sortable) {
  std::uniform_int_distribution<size_t> count_dist{0, 40};
  std::uniform_int_distribution<int> prefix_dist{0, static_cast<int>(prefixes.size()) - 1};
  std::uniform_int_distribution<uint64_t> value_dist{0, 120};
  std::uniform_int_distribution<int> percent{0, 99};
  std::vector<generated> out;
  auto n = count_dist(rng);
  while (out.size() < n) {
    auto p = prefix_dist(rng);
    const auto& [prefix, numbered] = prefixes[p];
    if (!numbered) {
      out.push_back({prefix, {p, false, 0, 0}});
      continue;
    }
    if (!sortable && percent(rng) < 10) {
      // Digits that are not a suffix: a plain name.
      out.push_back({prefix + std::to_string(value_dist(rng)) + "-ib", {}});
      continue;
    }
    // Emit a short run so that ranges form; pad some runs with zeros.
    auto value = value_dist(rng);
    auto pad = percent(rng) < 30 ? 1 + percent(rng) % 3 : 0;
    for (auto len = 1 + percent(rng) % 5; len > 0; --len, ++value) {
      auto digits = std::to_string(value);
      auto width = pad > 0 ? std::max<size_t>(digits.size(), pad + 1) : digits.size();
      digits.insert(0, width - digits.size(), '0');
      out.push_back({prefix + digits, {p, true, width, value}});
    }
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(expand_inverts_compress_on_random_names) {
  const uint32_t seed = 7713;
  std::mt19937 rng{seed};
  for (int round = 0; round < 2000; ++round) {
    names list;
    for (auto& g : random_names(rng, false)) list.push_back(std::move(g.name));
    auto expr = compress_hostlist(list);
    auto back = expand_hostlist(expr);
    BOOST_REQUIRE_MESSAGE(back, "seed " << seed << " round " << round << ": '" << expr << "'");
    BOOST_CHECK_MESSAGE(*back == list,
                        "seed " << seed << " round " << round << ": '" << expr << "'");
  }
}

BOOST_AUTO_TEST_CASE(expand_of_compress_sorted_gives_sorted_unique_names) {
  const uint32_t seed = 4242;
  std::mt19937 rng{seed};
  for (int round = 0; round < 2000; ++round) {
    auto gen = random_names(rng, true);
    names list;
    for (const auto& g : gen) list.push_back(g.name);
    std::sort(gen.begin(), gen.end(),
              [](const generated& a, const generated& b) { return a.key < b.key; });
    names expected;
    for (const auto& g : gen)
      if (expected.empty() || expected.back() != g.name) expected.push_back(g.name);
    auto expr = compress_hostlist_sorted(list);
    auto back = expand_hostlist(expr);
    BOOST_REQUIRE_MESSAGE(back, "seed " << seed << " round " << round << ": '" << expr << "'");
    BOOST_CHECK_MESSAGE(*back == expected,
                        "seed " << seed << " round " << round << ": '" << expr << "'");
    std::shuffle(list.begin(), list.end(), rng);
    BOOST_CHECK_MESSAGE(compress_hostlist_sorted(list) == expr,
                        "seed " << seed << " round " << round << ": order-dependent");
  }
}

BOOST_AUTO_TEST_SUITE_END()

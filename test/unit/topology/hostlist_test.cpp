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
  BOOST_CHECK(result.error() == shoal::errc::invalid_hostlist);
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

// -- Blue Gene/L boxes ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(expand_names_every_base_partition_of_a_box_x_outermost) {
  // The paper's example (Resource Management for Blue Gene/L, 2004).
  BOOST_TEST(expand_ok("bgl[200x311]") == (names{"bgl200", "bgl201", "bgl210", "bgl211", "bgl300",
                                                 "bgl301", "bgl310", "bgl311"}),
             boost::test_tools::per_element());
  BOOST_TEST(expand_ok("bgl[123x123]") == (names{"bgl123"}), boost::test_tools::per_element());
  BOOST_TEST(expand_ok("bgl[000x002]") == (names{"bgl000", "bgl001", "bgl002"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(expand_box_of_a_full_grid_follows_the_torus_node_index) {
  // 8 x 4 x 4 base partitions, as at LLNL: node index x * 16 + y * 4 + z.
  auto all = expand_ok("bgl[000x733]");
  BOOST_REQUIRE_EQUAL(all.size(), 128u);
  for (int x = 0; x < 8; ++x)
    for (int y = 0; y < 4; ++y)
      for (int z = 0; z < 4; ++z)
        BOOST_TEST(all[static_cast<size_t>(x * 16 + y * 4 + z)] ==
                   "bgl" + std::to_string(x) + std::to_string(y) + std::to_string(z));
}

BOOST_AUTO_TEST_CASE(expand_box_corners_are_base_36) {
  BOOST_TEST(expand_ok("bgl[08Yx09Z]") == (names{"bgl08Y", "bgl08Z", "bgl09Y", "bgl09Z"}),
             boost::test_tools::per_element());
  auto all = expand_ok("r[000xZZZ]");
  BOOST_REQUIRE_EQUAL(all.size(), 36u * 36u * 36u);
  BOOST_TEST(all[36] == "r010");
  BOOST_TEST(all.back() == "rZZZ");
}

BOOST_AUTO_TEST_CASE(expand_mixes_boxes_and_numbers_in_one_bracket) {
  // A torus prism that wraps is written as two boxes.
  BOOST_TEST(expand_ok("bgl[000x011,700x711]") == (names{"bgl000", "bgl001", "bgl010", "bgl011",
                                                         "bgl700", "bgl701", "bgl710", "bgl711"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      expand_ok("bgl[000x001,123,5-6]") == (names{"bgl000", "bgl001", "bgl123", "bgl5", "bgl6"}),
      boost::test_tools::per_element());
  BOOST_TEST(
      expand_ok("r[1-2]bgl[000x001]") == (names{"r1bgl000", "r1bgl001", "r2bgl000", "r2bgl001"}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(expand_round_trips_box_names_through_compress) {
  auto all = expand_ok("bgl[000x733]");
  BOOST_TEST(expand_ok(compress_hostlist(all)) == all, boost::test_tools::per_element());
  auto sorted = all;
  std::sort(sorted.begin(), sorted.end());
  std::reverse(all.begin(), all.end());
  BOOST_TEST(expand_ok(compress_hostlist_sorted(all)) == sorted, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(expand_rejects_malformed_boxes_naming_the_column) {
  struct bad {
    const char* expr;
    size_t column;
    const char* fragment;
  };
  const bad cases[] = {
      {"bgl[00x011]", 5, "box corner '00' is not 3 base-36 digits"},
      {"bgl[000x0111]", 9, "box corner '0111' is not 3 base-36 digits"},
      {"bgl[000x-011,700x711]", 9, "box corner '-011'"},
      {"bgl[x011]", 5, "box corner ''"},
      {"bgl[000x]", 9, "box corner ''"},
      {"bgl[0a0x111]", 6, "box corner '0a0'"},
      {"bgl[000x1x1]", 10, "box corner '1x1'"},
      {"a,bgl[311x200]", 7, "reversed box 311x200 (low corner above the high one in x)"},
      {"bgl[202x311]", 5, "in z"},
      {"bgl[000x011,020x711]", 13, "in y"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("expression '" << c.expr << "'") {
      auto text = expand_error(c.expr);
      auto column = "column " + std::to_string(c.column);
      BOOST_CHECK_MESSAGE(text.find(column) != std::string::npos,
                          "'" << text << "' does not name " << column);
      BOOST_CHECK_MESSAGE(text.find(c.fragment) != std::string::npos,
                          "'" << text << "' does not say '" << c.fragment << "'");
    }
  }
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
      {"n[1]]", 5, "unbalanced ']'"},
      {"a,n[1-[2]]", 10, "unbalanced ']'"},
      {"n[1]x[", 6, "unbalanced '['"},
      {"a[1 b[2]", 4, "separator inside a name ('[' at column 2 is not closed before it)"},
      {"n[]", 2, "empty brackets"},
      {"n[-1]", 3, "empty range part"},
      {"n[1--3]", 5, "negative number"},
      {"n[1- -3]", 6, "negative number"},
      {"n[1,,2]", 5, "empty range part"},
      {"n[1,]", 5, "empty range part"},
      {"n[5-3]", 3, "reversed range 5-3"},
      {"lx[010-8]", 4, "reversed range"},
      {"n[a-b]", 3, "non-digit 'a'"},
      {"n[1-b]", 5, "non-digit 'b'"},
      {"n[1 ,2]", 4, "non-digit ' '"},
      {"n[1-2-3]", 6, "non-digit '-'"},
      {"n[1.5]", 4, "non-digit '.'"},
      {"a[0-40000,0-40000]b[1]", 2, "bracket before the last one names more than 65536"},
      {"n[1x]", 3, "box corner '1' is not 3 base-36 digits"},
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
  const std::string alphabet = "n01239-[],, xAZ";
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
    // Brackets may stay in names, as in Slurm (`n]1`, `n[[1-3]` -> n[1 n[2 n[3); separators not.
    for (const auto& name : *result)
      BOOST_CHECK_MESSAGE(
          !name.empty() && name.find_first_of(", ") == std::string::npos,
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

BOOST_AUTO_TEST_CASE(compress_never_prints_a_range_it_cannot_read_back) {
  // Slurm prints n[0-99999] here, and then rejects it: more than 65,536 names in one range.
  auto all = expand_ok("n[0-65535],n[65536-99999]");
  BOOST_TEST(compress_hostlist(all) == "n[0-65535,65536-99999]");
  BOOST_TEST(expand_ok(compress_hostlist(all)) == all, boost::test_tools::per_element());
  auto reversed = all;
  std::reverse(reversed.begin(), reversed.end());
  BOOST_TEST(expand_ok(compress_hostlist_sorted(reversed)) == all,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(compress_keeps_names_with_overlong_digit_suffixes_plain) {
  names list{"n1234567890123456789", "n1234567890123456790"};
  BOOST_TEST(compress_hostlist(list) == "n1234567890123456789,n1234567890123456790");
}

/// Pairs of (names, expected) taken from `scontrol show hostlistsorted` (Slurm 22.05.8).
BOOST_AUTO_TEST_CASE(compress_sorted_matches_scontrol_show_hostlistsorted) {
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
      {"n3,n1,n2,n2,m5,m04,m4,m03,foo,n10,n9", "foo,m[4-5,03-04],n[1-2,2-3,9-10]"},
      {"n5,n3,n4,n3", "n[3,3-5]"},
      {"x1,x,x2,x,x1", "x,x,x[1,1-2]"},
      {"b,a,c,a1,a", "a,a,a1,b,c"},
      {"n3,n3,n4", "n[3,3-4]"},
      {"n1,n2,n3,n4,n5,n3,n4,n5,n6,n7", "n[1-3,3-4,4-5,5-7]"},
      {"n1,n2,n3,n4,n5,n2,n3", "n[1-2,2-3,3-5]"},
      {"n98,n99,n100,n046", "n[98-100,046]"},
      {"n100,n046,n98,n99", "n[98-99,046,100]"},
      {"n5,n2147483647", "n[5,2147483647]"},
  };
  for (const auto& [input, expected] : cases) {
    BOOST_TEST_CONTEXT("names " << input) {
      BOOST_TEST(compress_hostlist_sorted(split_commas(input)) == expected);
    }
  }
}

/// Where Slurm 22.05 loses or mangles names, shoal keeps them (docs/hostlist.md).
BOOST_AUTO_TEST_CASE(compress_sorted_keeps_names_slurm_loses) {
  // scontrol: n[3000000000] (its comparison wraps through a 32-bit int and n1 is dropped).
  BOOST_TEST(compress_hostlist_sorted({"n3000000000", "n1"}) == "n[1,3000000000]");
  BOOST_TEST(compress_hostlist_sorted({"n2147483648", "n0"}) == "n[0,2147483648]");
  // scontrol: n00018446744073709551615.
  BOOST_TEST(compress_hostlist_sorted({"n12345678901234567890123"}) == "n12345678901234567890123");
}

BOOST_AUTO_TEST_SUITE_END()

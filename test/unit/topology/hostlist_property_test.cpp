#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "messages/errc.hpp"
#include "topology/hostlist.hpp"

using shoal::topology::compress_hostlist;
using shoal::topology::compress_hostlist_sorted;
using shoal::topology::expand_hostlist;
using names = std::vector<std::string>;

namespace {

/// A generated name and the key Slurm sorts it by: (prefix rank, numbered, width as written,
/// value). Keys of different names differ, so sorting by key fixes the order, duplicates
/// included.
struct generated {
  std::string name;
  std::tuple<int, bool, size_t, uint64_t> key;
};

/// Prefixes in natural order; the plain names ("foo", "login") sort by their whole text.
const std::vector<std::pair<std::string, bool>> prefixes = {
    {"", true},  {"a1b", true},     {"foo", false},    {"login", false},   {"lx", true},
    {"n", true}, {"rack1-n", true}, {"rack2-n", true}, {"rack10-n", true},
};

struct options {
  /// Also emit names whose sort position the key above does not describe: `n5-ib` and Blue
  /// Gene/L names such as bgl0A3.
  bool unsortable = false;
  /// Values of 13 digits (above 2^31, where Slurm's comparison wraps) instead of 0-120 (small
  /// values make overlaps and duplicates likely).
  bool big = false;
  /// Every name of a numbered prefix prints its number with the width its range's lowest number
  /// prints with: no run crosses from 99 to 100, zero-padded widths are 3 or 4. Slurm sorts the
  /// ranges built from the input, not the names, so only then is the result the names sorted
  /// one by one (`n98,n99,n100,n046` -> `n[98-100,046]`).
  bool uniform_widths = false;
};

std::vector<generated> random_names(std::mt19937& rng, const options& opt) {
  std::uniform_int_distribution<size_t> count_dist{0, 40};
  std::uniform_int_distribution<int> prefix_dist{0, static_cast<int>(prefixes.size()) - 1};
  std::uniform_int_distribution<uint64_t> value_dist{
      opt.big ? 1000000000000ull : (opt.uniform_widths ? 10u : 0u),
      opt.big ? 3999999999999ull : (opt.uniform_widths ? 99u : 120u)};
  std::uniform_int_distribution<int> percent{0, 99};
  std::vector<generated> out;
  auto n = count_dist(rng);
  while (out.size() < n) {
    if (!out.empty() && percent(rng) < 10) {
      // Duplicates: repeat an earlier run of names.
      std::uniform_int_distribution<size_t> from{0, out.size() - 1};
      auto start = from(rng);
      auto len = std::min<size_t>(out.size() - start, 1 + static_cast<size_t>(percent(rng) % 4));
      for (size_t k = 0; k < len; ++k) out.push_back(out[start + k]);
      continue;
    }
    if (opt.unsortable && percent(rng) < 10) {
      if (percent(rng) < 50) {
        out.push_back({"n" + std::to_string(value_dist(rng)) + "-ib", {}});
      } else {
        const char* digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        std::uniform_int_distribution<int> digit{0, 35};
        out.push_back(
            {std::string{"bgl"} + digits[digit(rng)] + digits[digit(rng)] + digits[digit(rng)],
             {}});
      }
      continue;
    }
    auto p = prefix_dist(rng);
    const auto& [prefix, numbered] = prefixes[static_cast<size_t>(p)];
    if (!numbered) {
      out.push_back({prefix, {p, false, 0, 0}});
      continue;
    }
    // Emit a short run so that ranges form; pad some runs with zeros.
    auto value = value_dist(rng);
    auto pad = percent(rng) < 30 ? 1 + percent(rng) % 3 : 0;
    if (opt.uniform_widths && pad > 0) {
      pad = 2 + pad % 2;
      value %= 100;
    }
    size_t run_width = 0;
    for (auto len = 1 + percent(rng) % 5; len > 0; --len, ++value) {
      auto digits = std::to_string(value);
      auto width =
          pad > 0 ? std::max<size_t>(digits.size(), static_cast<size_t>(pad) + 1) : digits.size();
      if (run_width == 0) run_width = width;
      if (opt.uniform_widths && (width != run_width || (!opt.big && value > 99))) break;
      digits.insert(0, width - digits.size(), '0');
      out.push_back({prefix + digits, {p, true, width, value}});
    }
  }
  return out;
}

std::string join(const names& list) {
  std::string out;
  for (const auto& name : list) out += (out.empty() ? "" : ",") + name;
  return out;
}

names names_of(const std::vector<generated>& gen) {
  names out;
  for (const auto& g : gen) out.push_back(g.name);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hostlist_properties)

BOOST_AUTO_TEST_CASE(expand_inverts_compress_on_random_names) {
  const uint32_t seed = 7713;
  std::mt19937 rng{seed};
  for (int round = 0; round < 3000; ++round) {
    options opt;
    opt.unsortable = true;
    opt.big = round % 2 == 1;
    auto list = names_of(random_names(rng, opt));
    auto expr = compress_hostlist(list);
    auto back = expand_hostlist(expr);
    BOOST_REQUIRE_MESSAGE(back, "seed " << seed << " round " << round << ": '" << expr << "'");
    BOOST_CHECK_MESSAGE(*back == list,
                        "seed " << seed << " round " << round << ": '" << expr << "'");
  }
}

BOOST_AUTO_TEST_CASE(expand_of_compress_sorted_gives_the_names_sorted_with_duplicates) {
  const uint32_t seed = 4242;
  std::mt19937 rng{seed};
  for (int round = 0; round < 3000; ++round) {
    options opt;
    opt.uniform_widths = true;
    opt.big = round % 3 == 0;
    auto gen = random_names(rng, opt);
    std::shuffle(gen.begin(), gen.end(), rng);
    auto list = names_of(gen);
    std::stable_sort(gen.begin(), gen.end(),
                     [](const generated& a, const generated& b) { return a.key < b.key; });
    auto expected = names_of(gen);
    auto expr = compress_hostlist_sorted(list);
    auto back = expand_hostlist(expr);
    BOOST_REQUIRE_MESSAGE(back, "seed " << seed << " round " << round << ": '" << expr << "'");
    BOOST_CHECK_MESSAGE(*back == expected,
                        "seed " << seed << " round " << round << ": '" << expr << "'");
  }
}

BOOST_AUTO_TEST_CASE(compress_sorted_of_any_expansion_expands_to_a_permutation) {
  // Names with box-form and non-numeric suffixes too: whatever the order, no name is lost or
  // invented.
  const uint32_t seed = 1977;
  std::mt19937 rng{seed};
  for (int round = 0; round < 2000; ++round) {
    options opt;
    opt.unsortable = true;
    auto list = names_of(random_names(rng, opt));
    auto expr = compress_hostlist_sorted(list);
    auto back = expand_hostlist(expr);
    BOOST_REQUIRE_MESSAGE(back, "seed " << seed << " round " << round << ": " << join(list)
                                        << " -> '" << expr << "'");
    auto sorted_back = *back;
    std::sort(sorted_back.begin(), sorted_back.end());
    std::sort(list.begin(), list.end());
    BOOST_CHECK_MESSAGE(sorted_back == list,
                        "seed " << seed << " round " << round << ": '" << expr << "'");
  }
}

BOOST_AUTO_TEST_CASE(malformed_expressions_fail_naming_a_column_never_mangle) {
  // Valid expressions with one byte changed, dropped or duplicated: each either expands to
  // names without separators or fails with a column.
  const uint32_t seed = 31337;
  std::mt19937 rng{seed};
  const std::vector<std::string> seeds = {
      "n[1-3,7]",     "lx[01-10],login",          "rack[1-2]-n[01-04]",
      "bgl[200x311]", "bgl[000x011,700x711,123]", "n[098-101]-ib",
      "a[0-65]",      "x[1,1-2,09-10]",
  };
  const std::string bytes = "[]-,x0129AZn ";
  std::uniform_int_distribution<size_t> pick_byte{0, bytes.size() - 1};
  std::uniform_int_distribution<int> op{0, 2};
  size_t accepted = 0;
  size_t rejected = 0;
  for (int round = 0; round < 20000; ++round) {
    auto expr = seeds[static_cast<size_t>(round) % seeds.size()];
    for (int edits = 1 + round % 3; edits > 0 && !expr.empty(); --edits) {
      std::uniform_int_distribution<size_t> at{0, expr.size() - 1};
      auto pos = at(rng);
      switch (op(rng)) {
        case 0:
          expr[pos] = bytes[pick_byte(rng)];
          break;
        case 1:
          expr.erase(pos, 1);
          break;
        default:
          expr.insert(pos, 1, expr[pos]);
      }
    }
    auto result = expand_hostlist(expr);
    if (!result) {
      ++rejected;
      auto text = shoal::describe(result.error());
      BOOST_CHECK_MESSAGE(text.find("at column ") != std::string::npos,
                          "seed " << seed << " round " << round << ": '" << expr << "': " << text);
      continue;
    }
    ++accepted;
    // Brackets may stay in names, as in Slurm (`n]1`, `n[[1-3]` -> n[1 n[2 n[3); separators not.
    for (const auto& name : *result)
      BOOST_CHECK_MESSAGE(
          !name.empty() && name.find_first_of(", ") == std::string::npos,
          "seed " << seed << " round " << round << ": '" << expr << "' gave '" << name << "'");
  }
  BOOST_TEST_MESSAGE("accepted " << accepted << ", rejected " << rejected);
  BOOST_TEST(accepted > 0u);
  BOOST_TEST(rejected > 0u);
}

BOOST_AUTO_TEST_SUITE_END()

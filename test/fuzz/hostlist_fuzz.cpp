// Fuzz target for the hostlist parser: any bytes either fail to expand with an error naming a
// column, or expand to names without separators that compress and expand back (in order for
// compress_hostlist and compress_hostlist_expression, as a permutation for the sorted forms).
// Names holding a bracket (`n[[1-3]` -> n[1 .., `n]1`, as in Slurm) are not read back: like
// Slurm's, their compressed form need not parse. A violated property aborts with the input shown.
// Built as a libFuzzer binary with clang (scripts/fuzz.sh) and, with any compiler, into
// hostlist_fuzz_replay (mutation_driver.cpp), which ctest runs.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"
#include "test/fuzz/violated.hpp"
#include "topology/hostlist.hpp"

namespace {

/// Above this many names only the count is checked, so that one input stays fast.
constexpr size_t max_checked_names = 4096;

[[noreturn]] void violated(std::string_view input, const char* what, const std::string& detail) {
  shoal::fuzz::violated("hostlist", input, what, detail);
}

void check_round_trip(std::string_view input, const std::vector<std::string>& names,
                      const std::string& expr, bool in_order) {
  auto back = shoal::topology::expand_hostlist(expr);
  if (!back) violated(input, "compressed form does not expand", expr);
  if (in_order) {
    if (*back != names) violated(input, "compress_hostlist does not round-trip", expr);
    return;
  }
  auto want = names;
  want.erase(std::remove(want.begin(), want.end(), std::string{}), want.end());
  std::sort(want.begin(), want.end());
  std::sort(back->begin(), back->end());
  if (*back != want) violated(input, "compress_hostlist_sorted loses or invents names", expr);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input{reinterpret_cast<const char*>(data), size};
  auto names = shoal::topology::expand_hostlist(input);
  if (!names) {
    auto text = shoal::describe(names.error());
    if (text.find(" at column ") == std::string::npos)
      violated(input, "error without a column", text);
    return 0;
  }
  bool brackets = false;
  for (const auto& name : *names) {
    if (name.empty() || name.find_first_of(", \t\n\r") != std::string::npos)
      violated(input, "mangled name", name);
    brackets = brackets || name.find_first_of("[]") != std::string::npos;
  }
  auto own = shoal::topology::compress_hostlist_expression(input);
  auto own_sorted = shoal::topology::compress_hostlist_expression_sorted(input);
  if (!own || !own_sorted) violated(input, "expands but does not compress", std::string{input});
  if (brackets || names->size() > max_checked_names) return 0;
  check_round_trip(input, *names, shoal::topology::compress_hostlist(*names), true);
  check_round_trip(input, *names, shoal::topology::compress_hostlist_sorted(*names), false);
  check_round_trip(input, *names, *own, true);
  check_round_trip(input, *names, *own_sorted, false);
  return 0;
}

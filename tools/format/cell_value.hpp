#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace shoal::cli::cell {

/// A value to print in sacct's and sstat's tables; `set` false is Slurm's unset (NULL or
/// NO_VAL): an empty cell.
struct value {
  bool set = false;
  std::string text;
};

inline value str(std::string s) {
  return {true, std::move(s)};
}

inline value opt_str(const std::string& s) {
  return s.empty() ? value{} : value{true, s};
}

inline value num(uint64_t n) {
  return {true, std::to_string(n)};
}

}  // namespace shoal::cli::cell

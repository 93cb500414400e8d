#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::policy {

/// One license and its count: a `Licenses=fluent:30` item of the config (the cluster's total) or
/// a `-L fluent:2` item of a job (what it holds while it runs).
struct license_item {
  std::string name;
  uint32_t count = 1;

  friend bool operator==(const license_item& a, const license_item& b) {
    return a.name == b.name && a.count == b.count;
  }
  friend bool operator!=(const license_item& a, const license_item& b) { return !(a == b); }
};

/// Licenses in the order written, names unique.
using license_list = std::vector<license_item>;

/// Parses Slurm's license syntax: `NAME[:COUNT]` items separated by commas (`*` may stand for
/// `:`, as Slurm's older form), COUNT 1 when left out. A name given twice adds up (Slurm's
/// rule). "" is the empty list. Errors: errc::invalid_request "Invalid license specification"
/// (Slurm's words), e.g. for `:2`, `a:`, `a:x`, `a:0`, `a,,b`.
shoal::expected<license_list> parse_licenses(std::string_view text);

/// The list as Slurm writes it back: `fluent:2,ansys:1` (a count of 1 is written too); "" when
/// empty.
std::string licenses_text(const license_list& list);

/// Whether every license `wanted` names is one of `configured`.
bool licenses_known(const license_list& wanted, const license_list& configured);

/// Licenses in use, by name.
using license_use = std::map<std::string, uint64_t>;

/// Adds (`sign` 1) or takes away (-1) `held` from `use` (never below 0; a name reaching 0 is
/// dropped).
void count_licenses(license_use& use, const license_list& held, int sign);

/// Whether `wanted` fits in `total` with `use` already taken. A name `total` lacks never fits.
bool licenses_fit(const license_list& wanted, const license_list& total, const license_use& use);

}  // namespace shoal::policy

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

namespace shoal::topology {

/// Expands a Slurm-style hostlist expression into names, in input order, duplicates kept.
/// Accepts comma- or blank-separated items; each item may hold bracketed ranges and lists with
/// zero padding (`lx[01-06]`, `n[1-3,7]`, `rack[1-2]-n[01-04]`, expanded left part outermost as
/// Slurm does). An empty or blank expression yields no names.
/// Errors (errc::invalid_hostlist, text naming the 1-based column): unbalanced or empty
/// brackets, a reversed range, a non-numeric range bound, more than 65,536 names in one range.
caf::expected<std::vector<std::string>> expand_hostlist(std::string_view expr);

/// Compresses names into one expression, keeping input order and duplicates: consecutive names
/// that differ only in a numeric suffix of the same width join one bracketed range
/// (`lx01,lx02,lx03,n7` -> `lx[01-03],n7`), as `scontrol show hostlist` prints them.
std::string compress_hostlist(const std::vector<std::string>& names);

/// As compress_hostlist, after sorting (by prefix, then numeric suffix) and removing duplicates,
/// as `scontrol show hostlistsorted` prints them.
std::string compress_hostlist_sorted(std::vector<std::string> names);

}  // namespace shoal::topology

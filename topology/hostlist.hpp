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
///
/// Details, checked against `scontrol show hostnames` (Slurm 22.05):
/// - Items are separated by commas, blanks, tabs or newlines outside brackets; empty items are
///   skipped (`,,n1,` -> n1). Names without brackets pass through unchanged.
/// - A bracket holds a comma list of `N` or `lo-hi`. Every number of `lo-hi` is printed with at
///   least as many digits as `lo` is written with (`n[8-10]` -> n8 n9 n10, `lx[01-10]` -> lx01 ..
///   lx10, `n[09-100]` -> n09 .. n99 n100); the width of `hi` is ignored (`n[1-02]` -> n1 n2).
/// - Several brackets may follow each other or be separated by text (`n[1-2][3-4]`).
/// - Extension: text may follow the last bracket (`n[1-3]-ib` -> n1-ib n2-ib n3-ib), which Slurm
///   rejects.
/// - Also errors: an empty range part (`n[1-]`, `n[-1]`, `n[1,,2]`; Slurm reads `n[1-]` as n1),
///   a nested `[`, a number of more than 18 digits, and an expression of more than 1,000,000
///   names in all. Nothing is guessed: any error rejects the whole expression.
caf::expected<std::vector<std::string>> expand_hostlist(std::string_view expr);

/// Compresses names into one expression, keeping input order and duplicates: consecutive names
/// that differ only in a numeric suffix of the same width join one bracketed range
/// (`lx01,lx02,lx03,n7` -> `lx[01-03],n7`), as `scontrol show hostlist` prints them.
///
/// Details, checked against `scontrol show hostlist` (Slurm 22.05):
/// - A name splits into a prefix and its trailing digits (at most 18; a longer digit suffix,
///   or none, makes the whole name plain text). `n1-ib` has no trailing digits.
/// - A name extends the current range when it has the same prefix, its value is the range's
///   high + 1, and it prints the same under the range's width (the width of its first name):
///   `n9,n10` -> `n[9-10]`, `n09,n10` -> `n[09-10]`, `n099,n100` -> `n[099-100]`, but
///   `n9,n010` -> `n[9,010]`.
/// - Neighbouring ranges with the same prefix share one bracket (`n3,n1,n2` -> `n[3,1-2]`,
///   `n1,n1` -> `n[1,1]`); a lone name stays plain (`n7`); a plain name ends the group
///   (`n1,foo,n2` -> `n1,foo,n2`).
/// Precondition: names hold no blanks, commas or brackets (otherwise the result does not expand
/// back to `names`). Empty names are skipped.
std::string compress_hostlist(const std::vector<std::string>& names);

/// As compress_hostlist, after sorting (by prefix, then numeric suffix) and removing duplicates,
/// as `scontrol show hostlistsorted` prints them.
///
/// The order is Slurm's: prefixes in natural order (strnatcmp: `rack2-n` before `rack10-n`),
/// a plain name before numbered names of the same prefix (`x,x[1-2]`), then by the width of the
/// numeric suffix as written, then by value (`n1,n01,n2,n02` -> `n[1-2,01-02]`; without zero
/// padding this is plain numeric order). Unlike Slurm 22.05, which keeps duplicates
/// (`n3,n3,n4` -> `n[3,3-4]`), duplicates are removed (`n[3-4]`). And unlike Slurm, whose
/// result can depend on the input order (it sorts ranges built from the input, so
/// `n98,n99,n100,n046` gives `n[98-100,046]` but `n100,n046,n98,n99` gives `n[98-99,046,100]`),
/// the result depends only on the set of names (here always the latter).
std::string compress_hostlist_sorted(std::vector<std::string> names);

}  // namespace shoal::topology

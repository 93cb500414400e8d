#pragma once

#include <string>
#include <string_view>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::topology {

/// Expands a Slurm-style hostlist expression into names, in Slurm's order, duplicates kept.
/// Accepts comma- or blank-separated items; each item may hold bracketed ranges and lists with
/// zero padding (`lx[01-06]`, `n[1-3,7]`, `rack[1-2]-n[01-04]`), several brackets
/// (`a[1-2]b[1-2]c[1-2]`) and Blue Gene/L boxes (`bgl[200x311]`). An empty or blank expression
/// yields no names.
/// Errors (errc::invalid_hostlist, text naming the 1-based column): whatever Slurm rejects
/// (empty brackets or range parts, a reversed range, a non-numeric bound, more than 65,536 names
/// in one range, text after a ']' other than shoal's suffix), a '[' with no ']' after it, and
/// a malformed or reversed box.
///
/// Details, read from Slurm 22.05's hostlist.c and checked against `scontrol show hostnames`
/// (test/unit/topology/hostlist_slurm_table_test.cpp holds its answers):
/// - Items are separated by commas, blanks and tabs, and (shoal) newlines and carriage returns;
///   empty items are skipped (`,,n1,` -> n1). A separator between a '[' and the next ']' belongs
///   to the item (`n[1, 3]` is one item). Items without '[' pass through unchanged, ']' and all
///   (`n]1`).
/// - An item's last '[' and the first ']' after it enclose its last bracket: a comma list of
///   `lo-hi` or `lo`. The text before the first '-' is the lower bound as strtoul reads it
///   (leading blanks and a '+' allowed) and its length is the width every number of the range
///   is printed with (`n[8-10]` -> n8 n9 n10, `lx[01-10]` -> lx01 .. lx10, `n[ 1]` -> n01,
///   `n[+1-3]` -> n01 n02 n03); the width of `hi` is ignored (`n[1-02]` -> n1 n2). When an
///   upper bound follows, characters after the lower bound's digits are skipped but count in the
///   width (`n[1.5-3]` -> n001 n002 n003, as Slurm); otherwise they are an error (`n[1.5]`).
///   `lo-` is lo alone (`n[1-]` -> n1, `[1-]` -> 1); `-hi` and `lo--hi` are errors.
/// - Brackets before the last one are found from the right: the last '[' of the text before
///   with the last ']' after it. They expand with the bracket just before the last one varying
///   slowest, then the one before it, and so on, and the last bracket fastest:
///   `a[1-2]b[1-2]c[1-2]` -> a1b1c1 a1b1c2 a2b1c1 a2b1c2 a1b2c1 ... (Slurm's recursion). A '['
///   without a ']' after it stays text, with everything before it (`n[[1-3]` -> n[1 n[2 n[3).
///   Such a bracket may name at most 65,536 hosts (Slurm's MAX_PREFIX_CNT).
/// - Extension: text may follow the last bracket (`n[1-3]-ib` -> n1-ib n2-ib n3-ib), which Slurm
///   rejects; it may not hold a ']' (`n[1-3]]` is an error, as in Slurm).
/// - Deliberate differences (docs/hostlist.md): a '[' with no ']' after it is an error (Slurm
///   reads `n[1-3` as the name `n]` and `[1-3` as `1-3`); a separator outside brackets inside
///   one item is an error (Slurm reads `a[1 b[2]` as the name `a[1 b2`); a number of more than
///   18 significant digits is an error (Slurm saturates it at 2^64 - 1); an expression of more
///   than 1,000,000 names in all is an error. Nothing is guessed: any error rejects the whole
///   expression.
///
/// Boxes, as Slurm's 3-D hostlist (Blue Gene/L paper, 2004; Slurm's hostlist.c with 3
/// dimensions, which Debian's scontrol is not built with): a bracket element holding an `x` is a
/// box `LLLxHHH` naming every base partition from the low corner to the high one. A corner is
/// one base-36 digit (0-9, then A-Z) per dimension x, y, z. Expansion runs x outermost, then y,
/// then z, so a full grid comes out in node-index order (topology/torus.hpp): `bgl[200x311]` ->
/// bgl200 bgl201 bgl210 bgl211 bgl300 bgl301 bgl310 bgl311. Boxes and numbers mix in one
/// bracket (`bgl[000x011,700x711]`, `bgl[000x011,123]`; a number is a 1-D number as above).
/// Errors: a corner that is not exactly 3 base-36 digits, a low corner above the high one in
/// any dimension.
shoal::expected<std::vector<std::string>> expand_hostlist(std::string_view expr);

/// Compresses names into one expression, keeping input order and duplicates: consecutive names
/// that differ only in a numeric suffix of the same width join one bracketed range
/// (`lx01,lx02,lx03,n7` -> `lx[01-03],n7`), as `scontrol show hostlist` prints them.
///
/// Details, checked against `scontrol show hostlist` (Slurm 22.05):
/// - A name splits into a prefix and its trailing digits (at most 18 significant ones; a longer
///   digit suffix, or none, makes the whole name plain text). `n1-ib` has no trailing digits.
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

/// The names as `scontrol show hostlistsorted` prints them (Slurm 22.05, byte for byte): the
/// ranges compress_hostlist builds are sorted, overlapping ranges are split so that every
/// shared number becomes its own entry, and ranges that continue each other are joined
/// (Slurm's hostlist_sort, hostlist_coalesce and hostlist_collapse, reproduced step by step).
///
/// The order is Slurm's: prefixes in natural order (strnatcmp: `rack2-n` before `rack10-n`),
/// a plain name before numbered names of the same prefix (`x,x[1-2]`), then numbered ranges by
/// the width their lowest number prints with, then by that number (`n1,n01,n2,n02` ->
/// `n[1-2,01-02]`; without zero padding this is plain numeric order); equal ranges keep their
/// input order. Like Slurm, duplicates are kept (`n3,n3,n4` -> `n[3,3-4]`, `n[1-5],n[3-7]` ->
/// `n[1-3,3-4,4-5,5-7]`), and the result can depend on the input order, since the ranges sorted
/// are those built from the input (`n98,n99,n100,n046` -> `n[98-100,046]` but
/// `n100,n046,n98,n99` -> `n[98-99,046,100]`); expanding the result always gives the names
/// sorted, duplicates included.
///
/// Deliberate differences, where Slurm loses or mangles names (docs/hostlist.md): Slurm
/// compares numbers through a 32-bit int, so with numbers of 2^31 or more it can drop names
/// (`n3000000000,n1` -> `n[3000000000]`); shoal compares them correctly (`n[1,3000000000]`).
/// When splitting overlaps leaves ranges out of order, Slurm frees one it still reads and loses
/// names (`n7,n8,n9,n10,n11,n8,n9,n10,n11,n03` -> `n[7-8,8-9,9-10,10-11,11]`); shoal leaves
/// that pair unsplit (`n[7-8,8-9,9-10,10-11,11,03]`). Suffixes of more than
/// 18 digits stay part of a plain name (Slurm overflows them: n12345678901234567890123 ->
/// n00018446744073709551615). Names that differ only in white space other than the separators
/// (strnatcmp skips it) keep their own prefixes.
std::string compress_hostlist_sorted(const std::vector<std::string>& names);

/// An expression as `scontrol show hostlist` prints it (Slurm 22.05, byte for byte): unlike
/// compress_hostlist(expand_hostlist(expr)), each prefix of an item keeps the numbers of its
/// last bracket as one range, as Slurm's hostlist holds them, so digits before a bracket stay
/// in the prefix (`n1[0-3]` -> `n1[0-3]`, `n[1-2][3-4]` -> `n1[3-4],n2[3-4]`, where the names
/// compress to `n[10-13]` and `n[13-14,23-24]`). Plain names, and shoal's suffixes and boxes,
/// are pushed name by name as in compress_hostlist. Errors as expand_hostlist.
shoal::expected<std::string> compress_hostlist_expression(std::string_view expr);

/// An expression as `scontrol show hostlistsorted` prints it: the ranges of
/// compress_hostlist_expression sorted as compress_hostlist_sorted sorts them
/// (`n1[0-3],n14` -> `n14,n1[0-3]`: prefix n before prefix n1). Errors as expand_hostlist.
shoal::expected<std::string> compress_hostlist_expression_sorted(std::string_view expr);

}  // namespace shoal::topology

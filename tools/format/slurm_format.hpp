#pragma once

// Slurm's output format strings, as squeue and sinfo read them (Slurm 22.05, src/squeue/opts.c
// and src/sinfo/opts.c): `-o "%.18i %.9P %j"` (a letter per field) and `-O "JobID,Name:20"` (a
// long name per field). Pure parsing and cell layout; squeue_format and sinfo_format give the
// letters and names their meaning.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace shoal::cli {

/// One piece of a parsed format.
struct slurm_item {
  enum class kind : uint8_t {
    text,     ///< literal text before the first field: `suffix` holds it
    field,    ///< a field named by `name`
    invalid,  ///< a field the command does not know: prints `suffix` on every line, header too
  };
  kind what = kind::text;
  /// The field: its letter (-o) or its long name in lower case (-O).
  std::string name;
  /// 0: as wide as the value; N > 0: padded to N (and cut to N where the field cuts, always
  /// when left-justified); N < 0 (-O's `name:-N`): the value and one blank.
  int width = 0;
  bool right = false;  ///< right-justified: `%.N` (-o) or `name:.N` (-O)
  /// Printed after the field: the text up to the next `%` (-o), or after the width (-O).
  std::string suffix;
};

/// The errors a format gave, one line each, in Slurm's words (without the command's prefix).
using slurm_format_errors = std::vector<std::string>;

/// True when `format` is Slurm's letter format: it holds a `%`. An -o without one names
/// shoal's own fields (`JobId,State`).
bool is_slurm_letter_format(std::string_view format);

/// Parses a letter format as Slurm's parse_format does: text before the first `%` is a text
/// item; the text is then split at each run of `%`s, and each piece is `[.][width]letter` and
/// a suffix (the rest of the piece). A letter `known` rejects makes an invalid item whose
/// suffix is `%` and the piece, and one error line `<what> format specification: <letter>`
/// (`what`: squeue's "Invalid job", sinfo's "Invalid node"). `%all` (any case) stands for
/// every letter a-z then A-Z joined by `|` (with `sinfo_all`, a blank after each capital, as
/// sinfo builds it); unknown letters are then left out without a word.
std::vector<slurm_item> parse_slurm_format(std::string_view format,
                                           const std::function<bool(char)>& known,
                                           const std::string& what, slurm_format_errors& errors,
                                           bool sinfo_all = false);

/// Parses a long format (-O) as Slurm's parse_long_format does: comma-separated items, empty
/// ones skipped, each `name[:[.][width][suffix]]`; without a `:` the width is 20,
/// left-justified. A name `known` rejects (compared in lower case) gives the error line
/// `Invalid job format specification: <name>`; with `keep_invalid` (squeue) it also leaves an
/// invalid item printing its suffix, without (sinfo) nothing.
std::vector<slurm_item> parse_slurm_long_format(
    std::string_view format, const std::function<bool(const std::string&)>& known,
    bool keep_invalid, slurm_format_errors& errors);

/// `text` laid out as Slurm's _print_str lays out a field: width 0 as it is; right-justified,
/// padded on the left to `width` and, with `cut`, cut to its first `width` characters;
/// left-justified, always cut to `width` then padded on the right; a negative width, the text
/// and one blank. Counted in bytes, as printf counts them.
std::string slurm_cell(std::string_view text, int width, bool right, bool cut);

/// Slurm's _print_secs: "M:SS", "H:MM:SS" or "D-HH:MM:SS"; with `check_range`, "INVALID" for a
/// negative time or one over 365 days (squeue does the check, sinfo does not).
std::string slurm_seconds(int64_t seconds, bool check_range);

/// Slurm's secs2time_str (scontrol's RunTime and TimeLimit, sacct's times): "HH:MM:SS" or
/// "D-HH:MM:SS"; "INVALID" for a negative time.
std::string slurm_time_string(int64_t seconds);

/// Slurm's convert_num_unit with CONVERT_NUM_UNIT_EXACT from unit `unit` (0 none, 1 K, 2 M,
/// ...): divides by 1024 while the value is at least 1024 and a multiple of 512, then prints it
/// with the unit's letter ("4096" M -> "4G", "1536" -> "1.50K", 0 -> "0"). Under
/// no_unit_conversion, the value as it is, with its unit's letter ("4096M").
std::string slurm_number_unit(double value, int unit);

/// Slurm's convert_num_unit with a unit asked for (sacct --units): `value` in unit `unit` moved
/// to `target` (same numbering), printed whole when it is, else with two decimals, and the
/// target's letter: 2048 M in G is "2G", 2000 M in G "1.95G".
std::string slurm_number_in_unit(double value, int unit, int target);

/// squeue's and sinfo's --noconvert (CONVERT_NUM_UNIT_NO in their params.convert_flags): set
/// once while the command line is read, for the whole listing.
bool& no_unit_conversion();

/// sacct's and sstat's -e/--helpformat: the field names four to a line, each in 19 columns.
void print_field_names(const std::vector<std::string>& names);

}  // namespace shoal::cli

#pragma once

// Private helpers of the config parser (runtime/config.cpp, runtime/config_render.cpp): the
// line syntax and small value conversions. Not part of the shoal::config API.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shoal::config::config_syntax {

/// One `Key=Value` pair of a config line.
struct pair {
  std::string key;    ///< as written (for messages)
  std::string lower;  ///< lower-cased, for matching
  std::string value;  ///< blanks trimmed, double quotes removed; may be empty
};

/// The pairs of one line, or `error` (without the "file:line: " prefix) when the syntax is wrong.
/// A line without pairs (blank, or only a comment) gives no pairs and no error.
struct line_result {
  std::vector<pair> pairs;
  std::string error;
};

/// Splits one line (no newline) into pairs. `#` outside double quotes starts a comment. Blanks
/// around `=` are allowed. After `=` and at least one blank, an end of line or `Ident=` means
/// the value is empty (`Partition= ` and `Partition= Name=x`).
line_result split_line(std::string_view line);

/// The largest values of the integer widths config values are stored in, for parse_unsigned.
constexpr uint64_t max_u32 = 0xFFFF'FFFFu;
constexpr uint64_t max_u64 = ~uint64_t{0};

/// True for space, tab, CR, VT and FF.
bool is_blank(char c);

/// ASCII lower/upper case copies.
std::string to_lower(std::string_view text);
std::string to_upper(std::string_view text);

/// Slurm's booleans: YES, TRUE or 1 and NO, FALSE or 0, any case; nullopt for anything else.
std::optional<bool> parse_yes_no(std::string_view text);

/// A non-negative decimal integer no larger than `max`; nullopt for anything else (signs,
/// blanks, empty text, overflow).
std::optional<uint64_t> parse_unsigned(std::string_view text, uint64_t max);

/// A non-negative decimal number such as "1", "1.5" or ".5"; nullopt for anything else.
std::optional<double> parse_decimal(std::string_view text);

/// Milliseconds as seconds the way HeartBeatInterval= takes them: "300", "1.5", "0.25".
std::string format_ms_as_seconds(int64_t ms);

/// A decimal with up to 15 significant digits and no trailing zeros: "1.5", "863.8", "2",
/// "0.00001"; never an exponent, which parse_decimal (as Slurm's parser) does not read.
std::string format_decimal(double value);

/// `value`, double-quoted when it is empty or holds a blank, `#`, `=` or `"` (a `"` inside is
/// dropped, as the parser has no escape for it).
std::string quote_if_needed(const std::string& value);

}  // namespace shoal::config::config_syntax

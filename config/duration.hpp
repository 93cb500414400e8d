#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include "messages/errc.hpp"

namespace shoal::config {

/// A time limit meaning "no limit".
constexpr int64_t unlimited = -1;

/// Parses a Slurm time limit into seconds: "minutes", "minutes:seconds",
/// "hours:minutes:seconds", "days-hours", "days-hours:minutes", "days-hours:minutes:seconds",
/// or "UNLIMITED"/"INFINITE"/"-1" (case-insensitive) for `unlimited`. "0" is 0.
/// Error: errc::invalid_time with a text naming the input and the accepted forms.
shoal::expected<int64_t> parse_time_limit(std::string_view text);

/// Formats seconds as Slurm prints a time limit or elapsed time: "M:SS" under an hour,
/// "H:MM:SS" under a day, "D-HH:MM:SS" beyond; `unlimited` (or any negative) as "UNLIMITED".
std::string format_duration(int64_t seconds);

/// Parses an interval in seconds that may be fractional ("30", "0.5", "1.5") into milliseconds.
/// Error: errc::invalid_time for negative, empty or non-numeric text.
shoal::expected<int64_t> parse_seconds_as_ms(std::string_view text);

}  // namespace shoal::config

#pragma once

#include <cstdint>
#include <string_view>
#include "messages/errc.hpp"

namespace shoal::config {

/// Parses sbatch's --begin TIME into Unix seconds, in the local time zone, relative to `now`:
/// - `now[+COUNT[seconds|minutes|hours|days|weeks]]` (also `-`; units may be abbreviated to
///   their first letters; no unit: seconds),
/// - `today`, `tomorrow`, `midnight`, `noon`, `fika` (15:00), `teatime` (16:00): the next such
///   time (`midnight` and `tomorrow` are 00:00 of the next day; `today` is 00:00 today),
/// - `HH:MM[:SS]` with an optional `AM`/`PM`: today, or tomorrow when that time has passed,
/// - `YYYY-MM-DD[THH:MM[:SS]]`, `MM/DD[/YY]`, `MMDD[YY]`, optionally followed by `-HH:MM[:SS]`
///   (the `MM/DD` forms without a year mean the next such date).
/// Error: errc::invalid_time naming the text and the accepted forms.
shoal::expected<int64_t> parse_begin_time(std::string_view text, int64_t now);

}  // namespace shoal::config

#pragma once

// `shoal control create reservation KEY=VALUE ...`, `update ReservationName=R KEY=VALUE ...`,
// `delete ReservationName=R` and `show reservation [R]` (scontrol's reservation commands; the
// controller reads the words, cluster/reservation.hpp).

#include <string>
#include <vector>

#include "tools/cli/session.hpp"

namespace shoal::cli {

/// Whether `word` is ReservationName=... (scontrol's key, abbreviated to at least "res").
bool names_reservation(const std::string& word);

/// create (words after `create reservation`), update or delete; prints what scontrol prints
/// and returns the exit code (1 with Slurm's words on a refusal).
int edit_reservation(session& s, const std::string& action, const std::vector<std::string>& words);

/// scontrol show reservation [NAME], one record a line with `one_line`.
int show_reservations(session& s, const std::string& name, bool one_line);

/// sinfo -T: "RESV_NAME STATE START_TIME END_TIME DURATION NODELIST", a line a reservation
/// (the name column as wide as the longest name, at least 9), or "No reservations in the
/// system". The exit code.
int print_sinfo_reservations(session& s, bool no_header);

/// One reservation as Slurm 22.05's scontrol shows it (its lines, a blank line after).
std::string render_reservation(const msg::reservation_info& r);

}  // namespace shoal::cli

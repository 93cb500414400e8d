#pragma once

// sshare's output (Slurm 22.05, src/sshare/process.c and src/common/print_fields.c) for the
// rows policy::compute_shares makes: its field table and widths, `-o/--format`, the default
// columns (Account User RawShares NormShares RawUsage EffectvUsage FairShare), the account tree
// indented one blank a level, `-n`, `-p`, `-P`, and which rows `-a`, `-u`, `-A` keep. Pure.

#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"
#include "policy/fairshare.hpp"

namespace shoal::cli {

struct sshare_options {
  bool no_header = false;             ///< -n
  int parsable = 0;                   ///< 0 columns; 1 -p; 2 -P
  bool all_users = false;             ///< -a: every user's line
  std::vector<std::string> users;     ///< -u (empty with -a; else the caller)
  std::vector<std::string> accounts;  ///< -A: these accounts' lines (and their users')
  std::vector<std::string> format;    ///< -o items, NAME%W for a width; empty: the default
};

/// What sshare prints for `rows` (in compute_shares's order). Account lines are always shown
/// (within -A's accounts when given); a user's line when -a, or the user is among `users`.
/// Error: errc::invalid_request `Invalid field requested: "X"`.
shoal::expected<std::string> render_sshare(const std::vector<policy::share_row>& rows,
                                           const sshare_options& opt);

}  // namespace shoal::cli

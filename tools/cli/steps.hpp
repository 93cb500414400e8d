#pragma once

// `shoal queue -s` (squeue -s/--steps) and `shoal control show steps` (scontrol show step): the
// running steps the controller hears from the job actors (ClientOp steps).

#include <string>

#include "tools/cli/session.hpp"

namespace shoal::cli {

/// What squeue -s was asked, the format already picked (letters or long names, as squeue reads
/// -o, -O and SQUEUE_FORMAT/SQUEUE_FORMAT2).
struct step_queue_request {
  std::string steps;        ///< --steps=LIST; empty: every step
  std::string jobs;         ///< -j: job ids (12, 10_3)
  std::string partitions;   ///< -p
  std::string users;        ///< -u, resolved to names (comma list); empty: everyone's
  bool no_users = false;    ///< -u named no known user: no step matches
  std::string letters;      ///< -o (a % format); empty with long_format empty: squeue's default
  std::string long_format;  ///< -O
  std::string sort;         ///< -S in squeue's letters
  bool no_header = false;
  bool long_list = false;  ///< -l: the date first (steps keep their format, as in squeue)
};

/// Lists the steps as squeue -s; returns the exit code (1 for a bad --steps list, as squeue).
int run_step_queue(const step_queue_request& q, const std::string& conf);

/// scontrol show step [ID] (ID: 12, 12.0, 12.batch, 10_3, 10_3.1) on an open session; every
/// record on one line with `one_line`. Returns the exit code: 1 (and scontrol's words) for a
/// step not found or a job unknown.
int show_steps(session& s, const std::string& id, bool one_line);

}  // namespace shoal::cli

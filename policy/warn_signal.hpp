#pragma once

// `--signal=[{R|B}:]SIG[@TIME]` (sbatch, srun, salloc): the signal a job gets TIME seconds before
// its time limit, parsed as Slurm 22.05's get_signal_opts parses it (src/common/proc_args.c).

#include <cstdint>
#include <string>
#include "messages/errc.hpp"

namespace shoal::policy {

/// A parsed --signal.
struct warn_signal {
  int32_t signo = 0;         ///< the signal
  uint32_t time_s = 60;      ///< seconds before the time limit; 0: never sent (as in Slurm)
  bool batch_only = false;   ///< B: the batch shell only (otherwise every step but it)
  bool reservation = false;  ///< R: (Slurm: may overlap a reservation's MaxStartDelay)
};

/// Parses `text` as Slurm does: an optional `R`, then (batch only, as sbatch is the only command
/// that knows B) an optional `B` and `R` again, in any case; an optional `:`; the signal as a
/// number or a name with or without SIG (HUP INT QUIT ABRT KILL ALRM TERM USR1 USR2 URG CONT
/// STOP TSTP TTIN TTOU XCPU, any case); then `@TIME` in seconds, 0 to 65535 (default 60).
/// Error: errc::invalid_request "Invalid --signal specification" (Slurm's words) for anything
/// else, a signal outside 1..65535 and `B:` outside batch.
shoal::expected<warn_signal> parse_warn_signal(const std::string& text, bool batch);

/// The signal number of `name` as Slurm's sig_name2num reads it (a number, or a name from the
/// list above with or without SIG, any case, surrounding blanks allowed); 0 when unknown.
int32_t signal_number(const std::string& name);

}  // namespace shoal::policy

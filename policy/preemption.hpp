#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shoal::policy {

/// What happens to a job another one preempts (slurm.conf PreemptMode, Slurm 22.05's words).
enum class preempt_mode : uint8_t {
  off,      ///< OFF: never preempted
  cancel,   ///< CANCEL: its tasks are killed; it ends PREEMPTED
  requeue,  ///< REQUEUE: its tasks are killed; it is queued again (PENDING)
  suspend,  ///< SUSPEND (with GANG): its tasks are stopped and its CPUs lent to the preemptor
            ///< until they are free again, when it resumes
};

/// "OFF", "CANCEL", "REQUEUE", "SUSPEND".
const char* to_string(preempt_mode m);

/// OFF, CANCEL, REQUEUE, SUSPEND (any case); nullopt for anything else. GANG is the caller's.
std::optional<preempt_mode> parse_preempt_mode(std::string_view word);

}  // namespace shoal::policy

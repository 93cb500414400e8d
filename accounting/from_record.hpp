#pragma once

// A job's record, as the controller keeps it (msg::job_record), turned into what the accounting
// store keeps: one job row and a row for each step that ended (JobRecord.doneSteps).

#include <string>
#include <vector>

#include "accounting/rows.hpp"
#include "messages/types.hpp"

namespace shoal::accounting {

/// The store's step id for a step of ours: the batch script's step is Slurm's "batch".
uint32_t store_step_id(uint32_t step_id);

/// A step's final state as sacct shows it: COMPLETED, FAILED, CANCELLED (ended by a signal
/// while its job was cancelled), OUT_OF_MEMORY.
std::string step_state(const msg::step_record& step, const msg::job_info& job);

/// The job and its ended steps as rows of `cluster`.
job_record rows_of(const msg::job_record& rec, const std::string& cluster);

}  // namespace shoal::accounting

#pragma once

// The accounting store's rows and queries as the wire carries them between sacct and the
// controller (messages/shoal.capnp: AccountingQuery, AccountedJob).

#include "accounting/rows.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::accounting {

/// sacct's request as the store takes it. Error: errc::invalid_request for a bad job id.
expected<job_query> from_wire(const msg::accounting_query& q);

/// A stored job and its steps as sacct receives them: the job as a listing view (its state
/// parsed back, ntasks the CPUs it asked for).
msg::accounted_job to_wire(const job_record& rec);

}  // namespace shoal::accounting

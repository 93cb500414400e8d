#pragma once

// The accounting writer: finished jobs go from the controller to the accounting store
// (accounting/job_store.hpp, AccountingStorageType), so that sacct still finds them once the
// controller forgot them (MinJobAge). A detached actor: a slow or stopped database blocks only
// this thread, never scheduling or submission. Nothing is lost while the store is away: the
// records wait here and are written on its return, and the controller forgets a job only once
// it heard that the job was stored (after a restart or a takeover it sends every finished job
// it recovered again; writes are idempotent).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include "accounting/job_store.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

using accounting_writer_actor = caf::typed_actor<
    /// A job that ended (its final record, with the steps that ended): written with the next
    /// batch; the same job sent again replaces what waits.
    caf::reacts_to<msg::account_atom, msg::job_record>,
    /// sacct's query (messages/shoal.capnp's AccountingQuery), answered from the store on the
    /// writer's thread, between two batches. errc::unreachable while the store cannot be
    /// opened or fails; errc::invalid_request for a bad job id.
    caf::replies_to<msg::account_atom,
                    msg::accounting_query>::with<std::vector<msg::accounted_job>>,
    /// sacctmgr list/show: every cluster, account, user, association and QOS of the store.
    /// errc::unreachable while the store cannot be opened or fails.
    caf::replies_to<msg::acctmgr_atom>::with<msg::association_data>,
    /// sacctmgr add/modify/delete (the front door let only admins through): applied to what the
    /// store holds and written in one transaction; answers sacctmgr's report. The owner then
    /// hears the new associations. errc::invalid_request with sacctmgr's words for an edit
    /// that cannot be made (nothing changes), errc::unreachable as above.
    caf::replies_to<msg::acctmgr_atom, msg::acctmgr_edit>::with<std::string>>;

struct accounting_writer_setup {
  /// Opens the store (again, after it failed): called on the writer's own thread.
  std::function<shoal::expected<std::unique_ptr<accounting::job_store>>()> open;
  std::string cluster;  ///< ClusterName=, the rows' cluster
  /// Hears `(msg::stored_atom, std::vector<uint64_t> job_ids)` after each batch is durable, and
  /// `(msg::assocs_atom, msg::association_data)`: the store's associations once it is open and
  /// after each sacctmgr change.
  caf::actor owner;
  /// The controller's address and port, recorded as the cluster's ControlHost and ControlPort
  /// (the cluster, with its root account, is added to the store on first open).
  std::string control_host;
  uint32_t control_port = 0;
  size_t batch_size = 1000;  ///< jobs a write takes at most
  /// Where the writer reports how it keeps up (null: nowhere): shoal_accounting_waiting_jobs,
  /// shoal_accounting_stored_jobs_total, shoal_accounting_store_failures_total.
  metrics::registry* meters = nullptr;
};

/// Spawns the writer (detached).
accounting_writer_actor spawn_accounting_writer(caf::actor_system& sys,
                                                accounting_writer_setup setup);

}  // namespace shoal::actors

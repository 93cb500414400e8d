#pragma once

#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include "actors/in_process_types.hpp"
#include "actors/state_keeper.hpp"
#include "actors/topology_actor.hpp"
#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// Owns the pending queue (jobs and the pending tasks of arrays), recent outcomes and priorities:
/// the queue's order. Runs the pure policy (policy/: priority, dependencies, eligibility) once
/// per burst of events and every few seconds while jobs pend, and sends each pass to the
/// topology actor in one message (pass_order), which places it and records the allocation;
/// with its answer the scheduler starts jobs. At most one pass is out at a time.
/// It sends a job actor (start_atom, nodes, node actors, cpus per node, nodelist, devices) and
/// (view_atom, reason, priority) when either changes; the controller (arraytask_atom, array,
/// index, task job id, nodes, node actors, cpus, nodelist, devices) to start an array task and
/// (view_atom, array, reason, folded pending tasks) when an array's pending line changes (""
/// folded: none left). Each pass's time (the topology actor's placement included) goes to
/// shoal_scheduler_cycle_seconds (and the last/max gauges), the queue length it saw to
/// shoal_scheduler_queue_jobs, in `meters` (null: not metered).
using scheduler_actor = caf::typed_actor<
    /// (id, request, workload, who, submit time): `request` is validated, with partition, node
    /// count and time limit resolved by the controller, which also parsed its --array and
    /// --dependency (workload). `who` is the job actor, or for an array the controller, which
    /// then gets each start. The submit time (Unix seconds, the job's own) starts its age.
    caf::reacts_to<msg::enqueue_atom, uint64_t, msg::job_request, policy::workload_ptr, caf::actor,
                   int64_t>,
    /// Drop a pending job, or all pending tasks of an array.
    caf::reacts_to<msg::cancel_atom, uint64_t>,
    /// (array, lo, hi): drop the pending tasks lo..hi; answers how many were removed.
    caf::replies_to<msg::cancel_atom, uint64_t, uint32_t, uint32_t>::with<uint64_t>,
    /// (id, request, workload, nodes, CPUs held on each (empty: whole nodes), start time, array,
    /// index, devices held (gres_held::node: position in `nodes`)): a job recovered from saved
    /// state holds these nodes, devices and its workload's licenses (array 0: not an array task).
    caf::reacts_to<msg::adopt_atom, uint64_t, msg::job_request, policy::workload_ptr,
                   std::vector<std::string>, std::vector<uint32_t>, int64_t, uint64_t, uint32_t,
                   std::vector<msg::gres_held>>,
    /// A started job gave its nodes back without ending (requeue).
    caf::reacts_to<msg::release_atom, uint64_t>,
    /// A job suspended for a preemptor (PreemptMode=SUSPEND) lends its CPUs; runs a pass.
    caf::reacts_to<msg::lent_atom, uint64_t>,
    /// (id, ok, start time): a job ended; frees its nodes, feeds dependencies.
    caf::reacts_to<msg::ended_atom, uint64_t, bool, int64_t>,
    /// (array, index): takes pending task `index` out of the array to pend as a job of its own,
    /// so that `scontrol update` changes it alone (Slurm splits it off); answers its job id.
    /// The task's actor queues it next, with the array's hold. errc::invalid_request when the
    /// task no longer pends in the array.
    caf::replies_to<msg::update_atom, uint64_t, uint32_t>::with<uint64_t>,
    /// (id, request, workload): `scontrol update` changed a pending job (checked as a
    /// submission is): it queues with the new request, keeping its hold, its top rank and its
    /// submit time (its age), and a pass runs. Nothing for a job no longer queued.
    caf::reacts_to<msg::update_atom, uint64_t, msg::job_request, policy::workload_ptr>,
    /// (op, id, uid, admin): hold, uhold, release, top on a pending job or array.
    caf::replies_to<msg::jobctl_atom, std::string, uint64_t, uint32_t, bool>::with<caf::ok_atom>,
    /// Reasons, expected starts and priority factors of every pending job.
    caf::replies_to<msg::pending_atom>::with<std::vector<msg::pending_detail>>,
    /// Nodes became usable (from the topology actor): runs a pass.
    caf::reacts_to<msg::schedule_atom>,
    /// The partitions changed (`shoal control update partitionname=`): every partition as it is
    /// now, at its slot; runs a pass.
    caf::reacts_to<msg::parts_atom, partition_table>,
    /// (the file, the new nodes' actors in its order): a reconfigure's nodes, once the
    /// controller applied them; the partition table follows.
    caf::reacts_to<msg::reconfig_atom, config_ptr, std::vector<caf::actor>>,
    /// (id, request, workload): when and where this job would start alone against what runs
    /// now (--test-only, Slurm's will_run); queues and starts nothing. errc::unsatisfiable with
    /// the pending reason when no start is found (the running jobs have no time limits, or it
    /// never fits).
    caf::replies_to<msg::willrun_atom, uint64_t, msg::job_request,
                    policy::workload_ptr>::with<msg::start_estimate>,
    /// The accounting store's associations (the controller's copy, after each change): the
    /// fair-share tree and QOS priorities the priorities read from now on.
    caf::reacts_to<msg::assocs_atom, msg::association_data>,
    /// sshare: this cluster's associations with their shares, decayed usage and fair-share
    /// factors, in sshare's order (empty without associations).
    caf::replies_to<msg::shares_atom>::with<std::vector<msg::share_info>>>;

/// `node_actors` in the config's order; `topology` places the passes (spawn_topology). The
/// scheduler owns the fair-share usage (CPU-seconds charged to each user and account when a job
/// it started ends): it saves it through `keeper` (null: nowhere) under fairshare_key after each
/// charge and every PriorityCalcPeriod, and starts from `saved`, what a previous controller
/// saved.
scheduler_actor spawn_scheduler(caf::actor_system& sys, const config::cluster_config& cfg,
                                std::vector<caf::actor> node_actors, caf::actor controller,
                                topology_actor topology, metrics::registry* meters,
                                state_keeper_actor keeper = {},
                                std::optional<msg::usage_record> saved = std::nullopt);

/// A job or array recovered from saved state while held: `self` holds it again in `scheduler`,
/// as the pending reason it was saved with says (JobHeldUser: the user's hold, JobHeldAdmin: an
/// admin's); any other reason does nothing. Holds come back from that reason, not from the
/// submission's -H, which a release may have undone since.
template <class Self>
void hold_again(Self* self, const scheduler_actor& scheduler, uint64_t id,
                const std::string& reason) {
  if (reason != "JobHeldUser" && reason != "JobHeldAdmin") return;
  bool admin = reason == "JobHeldAdmin";
  self->request(scheduler, caf::infinite, msg::jobctl_atom_v, std::string{admin ? "hold" : "uhold"},
                id, uint32_t{0}, admin)
      .then([](caf::ok_atom) {}, [](caf::error&) {});
}

}  // namespace shoal::actors

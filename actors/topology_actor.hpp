#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/typed_actor.hpp>

#include "actors/in_process_types.hpp"
#include "cluster/allocation_map.hpp"
#include "cluster/reservation.hpp"
#include "config/config.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"
#include "policy/gres.hpp"
#include "policy/scheduling_pass.hpp"

namespace shoal::actors {

/// What a job asks of placement beyond its counts, in node names and device names: the
/// topology actor resolves it against the cluster once, when the job queues. Sent only for jobs
/// that have any (most have none), and for every job on a torus.
struct placement_needs {
  std::string nodelist;  ///< -w
  std::string exclude;   ///< -x
  policy::gres_list gres;
  std::optional<policy::feature_constraint> constraint;  ///< -C, as the controller parsed it
  msg::job_shape shape;                                  ///< torus only
  uint32_t node_count = 0;  ///< torus only: the nodes the job's prism holds
  std::string reservation;  ///< --reservation
};

/// The reservations as the controller holds them (scontrol create reservation), shared
/// read-only.
using reservation_table = std::shared_ptr<const std::vector<cluster::reservation>>;

/// One scheduling pass as the scheduler orders it: its queue's kept candidate list, in ascending
/// id order, where the entries with task_count > 0 are the jobs offered (policy::pass_plan), which
/// of them are arrays, and the time of the pass. The list is the scheduler's, shared read-only:
/// a job's `request.required`, `excluded`, `gres`, `torus` and `features` are the topology actor's
/// to fill,
/// on its own copy.
struct pass_order {
  std::shared_ptr<const std::vector<policy::pending_job>> candidates;
  std::vector<uint64_t> arrays;
  int64_t now = 0;
  /// PreemptType=preempt/qos: each QOS's preemption rules (pending_job::qos numbering); null:
  /// none known.
  std::shared_ptr<const std::vector<policy::qos_preemption>> qos;
  /// AccountingStorageEnforce=limits: the group limits the candidates count against; null: none.
  std::shared_ptr<const policy::usage_limits> limits;
};

/// Where one start of a pass goes, as the job's actor is told.
struct start_site {
  std::vector<size_t> nodes;  ///< config indices (the order of the node actors)
  std::vector<std::string> names;
  std::vector<uint32_t> cpus;
  std::vector<msg::gres_held> devices;  ///< gres_held::node: position in `nodes`
  std::string nodelist;                 ///< as listings show it
};

/// A pass's decisions, with the site of each start (parallel to result.started).
struct placed_pass {
  policy::pass_result result;
  std::vector<start_site> sites;
};

/// A job recovered from saved state, holding these nodes again.
struct held_nodes {
  std::vector<std::string> names;
  std::vector<uint32_t> cpus;  ///< per node; empty: whole nodes
  uint64_t mem_per_node_mb = 0;
  uint64_t mem_per_cpu_mb = 0;
  int64_t end = policy::forever;
  std::vector<msg::gres_held> devices;  ///< gres_held::node: position in `names`
  policy::license_list licenses;        ///< -L: held until `end`
  /// What preemption weighs (policy::running_job): its partition (index; SIZE_MAX: none the
  /// config has), its priority and its start.
  size_t partition = SIZE_MAX;
  int64_t priority = 0;
  int64_t start = 0;
  uint32_t qos = 0;  ///< preempt/qos: its QOS (pending_job::qos numbering)
};

using pass_order_ptr = std::shared_ptr<pass_order>;
using placed_pass_ptr = std::shared_ptr<placed_pass>;

/// Owns the allocation map: every node's usable state and resources, which job holds which
/// nodes, CPUs and devices (the cluster's one record of it), and what each queued job asks of
/// placement. Places a whole pass per message (best fit, consecutive, torus prisms) for the
/// scheduler, which owns the queue's order. Node views come from the controller; when a node
/// becomes idle it tells the scheduler (schedule_atom) so a pass runs.
using topology_actor = caf::typed_actor<
    /// (order): one pass over the order's candidates at its time; records the starts. Starts of
    /// arrays are held under the array's id until arraytask_atom names their tasks.
    caf::replies_to<msg::schedule_atom, pass_order_ptr>::with<placed_pass_ptr>,
    /// (array, task ids): the tasks that took the array's starts of the last pass, in order;
    /// 0: that start did not happen.
    caf::reacts_to<msg::arraytask_atom, uint64_t, std::vector<uint64_t>>,
    /// (id, needs): a queued job's node and device requests.
    caf::reacts_to<msg::enqueue_atom, uint64_t, placement_needs>,
    /// A job no longer queues (it started, or was cancelled): its requests are forgotten.
    caf::reacts_to<msg::cancel_atom, uint64_t>,
    /// A job's nodes are free again (it ended, was requeued, or never started).
    caf::reacts_to<msg::release_atom, uint64_t>,
    /// The job is suspended for a preemptor: passes lend its CPUs (policy::running_job::lent)
    /// until one resumes it (placed_pass's result.resumed), when it holds them again.
    caf::reacts_to<msg::lent_atom, uint64_t>,
    /// (id, nodes): a recovered job holds these nodes.
    caf::reacts_to<msg::adopt_atom, uint64_t, held_nodes>,
    /// A node's latest view.
    caf::reacts_to<msg::view_atom, msg::node_info>,
    /// The partitions as they are now, each at its slot.
    caf::reacts_to<msg::parts_atom, partition_table>,
    /// A reconfigure's nodes (the controller's, once it applied them): new ones are added last,
    /// removed ones retired (cluster::allocation_map::take_nodes).
    caf::reacts_to<msg::reconfig_atom, config_ptr>,
    /// The reservations as they are now: a pass keeps other jobs off their nodes and puts
    /// their own jobs there.
    caf::reacts_to<msg::resv_atom, reservation_table>,
    /// The scheduler, to tell when nodes free up.
    caf::reacts_to<msg::register_atom, caf::actor>,
    /// What `shoal map` draws.
    caf::replies_to<msg::map_atom>::with<msg::topology_view>,
    /// (job, needs): when and where the job would start alone against what runs now.
    caf::replies_to<msg::willrun_atom, policy::pending_job,
                    placement_needs>::with<cluster::start_estimate>>;

/// `meters` (null: not metered) gets the actor's message and handler-time series.
topology_actor spawn_topology(caf::actor_system& sys, const config::cluster_config& cfg,
                              metrics::registry* meters);

}  // namespace shoal::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::placement_needs)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::pass_order_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::placed_pass_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::held_nodes)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::reservation_table)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::cluster::start_estimate)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::policy::pending_job)

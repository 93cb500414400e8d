#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include "actors/in_process_types.hpp"
#include "actors/node.hpp"
#include "actors/state_keeper.hpp"
#include "config/config.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"

namespace shoal::actors {

/// A job placed on nodes, as it waits for them and as ResumeProgram's file describes it.
struct power_job {
  uint64_t job_id = 0;
  std::vector<std::string> nodes;
  std::string features;  ///< --constraint
  std::string partition;
  std::string oversubscribe;  ///< squeue's words: OK, NO, USER
};

/// Power saving and cloud nodes (the Cloud Scheduling Guide; docs/power.md): owns every node's
/// power state (on, POWERED_DOWN ~, POWERING_UP #, POWERING_DOWN %, and the POWER_DOWN ! request)
/// and runs SuspendProgram, ResumeProgram and ResumeFailProgram, batched per interval, limited by
/// SuspendRate and ResumeRate, each killed after its timeout, none waited on by any actor. Tells
/// each node actor its power state (power_atom) and, when a resume misses ResumeTimeout or a node
/// reboots unasked, sets it DOWN (nodedown_atom with the reason). Saves each node's power state
/// (key power/NAME) so a restart or a takeover neither resumes a node twice nor forgets one.
using power_actor = caf::typed_actor<
    /// Every node view (the controller passes them on): jobs, state, partitions, LastBusyTime.
    caf::reacts_to<msg::view_atom, msg::node_info>,
    /// A job placed on these nodes waits for them: the answer comes at once when every one is
    /// powered up; otherwise those powered down are resumed and it comes once each registered.
    /// It is the job's SLURM_NODE_ALIASES (name:addr:host of its CLOUD nodes, comma-separated;
    /// "" for none). errc::unreachable naming the node when one missed ResumeTimeout (it is DOWN
    /// by then); errc::invalid_request when the same job asked again meanwhile (requeued).
    caf::replies_to<msg::ready_atom, power_job>::with<std::string>,
    /// (node, previous boot time, boot time, hostname, daemon): the node's daemon registered
    /// (Unix seconds; a previous 0: not known). With cloud_reg_addrs a CLOUD node takes the
    /// address its daemon connected from and its hostname.
    caf::reacts_to<msg::register_atom, std::string, int64_t, int64_t, std::string, caf::actor>,
    /// (node, word): `shoal control update nodename=X state=WORD` for POWER_DOWN, POWER_UP,
    /// POWER_DOWN_ASAP (the node actor drains it), POWER_DOWN_FORCE (its jobs end) and RESUME (a
    /// node POWERING_DOWN is powered down now). errc::invalid_request for another word.
    caf::replies_to<msg::power_atom, std::string, std::string>::with<caf::ok_atom>,
    /// The partitions changed: SuspendTime, timeouts and PowerDownOnIdle per node.
    caf::reacts_to<msg::parts_atom, partition_table>>;

/// What the power actor starts from.
struct power_setup {
  config::cluster_config cfg;
  std::unordered_map<std::string, node_actor> nodes;
  state_keeper_actor keeper;  ///< null: power states are not saved
  /// The saved power records (key power/NAME -> encoded msg::power_record).
  std::unordered_map<std::string, msg::power_record> saved;
  metrics::registry* meters = nullptr;
};

/// Whether `cfg` needs a power actor: SuspendProgram and ResumeProgram set, and a node that power
/// saving manages (its SuspendTime is not INFINITE) or a CLOUD node. `why_not` gets the reason
/// when power saving is configured but cannot run (a program missing).
bool power_saving_wanted(const config::cluster_config& cfg, std::string& why_not);

/// The key a node's power record is saved under.
std::string power_key(const std::string& node);

power_actor spawn_power(caf::actor_system& sys, power_setup setup);

}  // namespace shoal::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::power_job)

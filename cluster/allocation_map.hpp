#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/config.hpp"
#include "messages/types.hpp"
#include "policy/gres.hpp"
#include "policy/scheduling_pass.hpp"
#include "topology/torus.hpp"

namespace shoal::cluster {

/// A pass's decisions (policy::schedule's result) and the nodelist of every started job as
/// listings show it (the box form on a torus, a compressed hostlist otherwise).
struct placement {
  policy::pass_result result;
  std::unordered_map<uint64_t, std::string> nodelists;
};

/// When and where a job would start (--test-only), or why it would not.
struct start_estimate {
  bool found = false;
  int64_t start = 0;  ///< Unix seconds
  policy::allocation alloc;
  std::string nodelist;  ///< as listings would show it
  std::string reason;    ///< !found: the pass's pending reason
};

/// Which job holds which nodes, for every select type (linear, consecutive, cons_tres,
/// torus3d): the one record of the cluster's allocation. A plain value owned by the scheduler
/// actor (no messages, no clock): node usability comes from node_changed, placements from
/// place, ends from release.
class allocation_map {
 public:
  explicit allocation_map(const config::cluster_config& cfg);
  // The torus picker refers back to the map: it stays where it was made.
  allocation_map(const allocation_map&) = delete;
  allocation_map& operator=(const allocation_map&) = delete;

  // -- nodes --

  /// A node's latest state and resources (0: keep the configured value). Returns true when the
  /// node just became idle, i.e. a pass may now place more.
  bool node_changed(const std::string& name, msg::node_state state, uint32_t cpus,
                    uint64_t memory_mb);

  /// A reconfigure's nodes (the file's, in its order): a name not known is added last (a GRES
  /// kind no node had is left out: the controller refuses such a node), a known one missing
  /// from `nodes` is retired (never placed on again; its index is not reused, as the
  /// scheduler's node list keeps its place). Settings of known nodes are left as they are.
  void take_nodes(const std::vector<config::node_config>& nodes);

  /// The config index of `name`, if it is a node of the cluster.
  std::optional<size_t> index_of(const std::string& name) const;

  const std::string& name_of(size_t node) const { return names_[node]; }

  /// The configured (or reported) CPUs and memory of a node.
  const policy::node_capacity& capacity_of(size_t node) const { return capacity_[node]; }

  /// True on a 3-D torus (select/torus3d).
  bool torus() const { return torus_; }

  // -- partitions --

  /// Partition `slot` (the scheduler's index of it) takes `part`'s state, limits and members;
  /// a slot past the end is added. Null closes the slot (a deleted partition: nothing is
  /// placed in it again). Placements made already stand.
  void set_partition(size_t slot, const config::partition_config* part);
  /// The reservations the next passes keep their nodes for (their windows as of the pass).
  void set_reservations(std::vector<policy::reserved_nodes> reservations) {
    config_.reservations = std::move(reservations);
  }
  /// PreemptType=preempt/qos: what each QOS says of preemption (the scheduler's numbering).
  void set_qos_rules(std::shared_ptr<const std::vector<policy::qos_preemption>> rules) {
    config_.qos = std::move(rules);
  }
  /// AccountingStorageEnforce=limits: the group limits of the next pass (null: none).
  void set_limits(std::shared_ptr<const policy::usage_limits> limits) {
    config_.limits = std::move(limits);
  }

  // -- generic resources --

  /// What a job's --gres (JobRequest.gres, canonical) needs on each node, in the kinds of this
  /// cluster: `gpu:2` takes any type of gpu, `gpu:tesla:2` that type only. A name no node has
  /// gives a need no node meets (the controller refuses such jobs before they queue).
  std::vector<policy::gres_need> gres_needs(const policy::gres_list& gres) const;

  // -- features --

  /// A job's -C/--constraint against every node's Features= (policy::resolve_constraint): the
  /// request's `features`.
  std::shared_ptr<const std::vector<policy::feature_choice>> feature_choices(
      const policy::feature_constraint& constraint) const;

  /// The devices `devices` (positions in the node's device list) as the job holds them: per
  /// GRES name, the indices among the node's devices of that name. `node` of each entry is 0.
  std::vector<msg::gres_held> held_of(size_t node, const std::vector<uint32_t>& devices) const;

  /// The reverse of held_of for a recovered job: positions in the node's device list (indices
  /// the node no longer has are dropped), and the devices of each kind they make.
  std::pair<std::vector<uint32_t>, std::vector<uint32_t>> devices_of(
      size_t node, const std::vector<msg::gres_held>& held) const;

  // -- placement --

  /// Runs one pass over `candidates` (eligible pending jobs) given what runs now, and records
  /// the starts. Starts of the jobs in `arrays` are held under the array's id until `assign`
  /// names the task that took each.
  placement place(const std::vector<policy::pending_job>& candidates,
                  const std::vector<uint64_t>& arrays,
                  const std::vector<policy::running_job>& running, int64_t now);

  /// When `job` alone would start given what runs now (Slurm's will_run: pending jobs are not
  /// counted): now if it fits, else the earliest start the backfill's reservation finds as the
  /// running jobs end at their time limits. Records nothing.
  start_estimate will_run(const policy::pending_job& job,
                          const std::vector<policy::running_job>& running, int64_t now) const;

  /// The task ids an array's starts of the last pass got, in the order of
  /// pass_result::started; 0: that start did not happen (its nodes stay free).
  void assign(uint64_t array, const std::vector<uint64_t>& tasks);

  /// The job's nodes are free again (it ended, was requeued, or never started).
  void release(uint64_t job) { running_.erase(job); }

  /// What `shoal map` draws: grid dims, every node's state and holder, every allocation.
  msg::topology_view view() const;

 private:
  /// A job holding nodes, as the map shows it.
  struct holding {
    std::vector<size_t> nodes;  ///< config indices
    std::string nodelist;
    std::optional<topology::torus_allocation> prism;
    std::optional<topology::torus_request> request;
  };

  void add_node(const config::node_config& n);
  std::vector<policy::node_capacity> usable_nodes(
      const std::vector<policy::running_job>& running) const;
  holding hold_of(const policy::allocation& alloc,
                  const std::optional<topology::torus_request>& request) const;
  policy::node_picker torus_picker() const;
  /// Picks which devices each start of `result` takes (the lowest free positions of each
  /// kind it was given), given what `running` holds.
  void pick_devices(policy::pass_result& result,
                    const std::vector<policy::running_job>& running) const;

  std::vector<std::string> names_;  ///< config order
  std::unordered_map<std::string, size_t> index_;
  std::vector<policy::node_capacity> capacity_;
  /// Generic resources: each configured (name, type), and per node the kind of each device in
  /// its order (config::node_config::gres, expanded).
  std::vector<std::pair<std::string, std::string>> gres_kinds_;
  std::vector<std::vector<uint32_t>> device_kinds_;
  std::vector<std::vector<std::string>> features_;  ///< per node: Features=
  std::vector<msg::node_state> states_;
  std::vector<policy::partition_info> partitions_;
  /// PreemptMode=: the mode of partitions without their own
  policy::preempt_mode default_preempt_ = policy::preempt_mode::off;
  policy::pass_config config_;
  std::string select_name_;
  std::map<uint64_t, holding> running_;
  /// Starts of job arrays in the last pass, in decision order, until their task ids arrive.
  std::map<uint64_t, std::deque<holding>> array_starts_;
  // -- torus3d only --
  bool torus_ = false;
  config::torus_grid grid_;
  std::vector<size_t> grid_of_;    ///< config index -> grid index
  std::vector<size_t> config_of_;  ///< grid index -> config index
};

/// The torus request a job's shape and node count make (pure). Geometry, rotate and connection
/// type are taken as given (resolve_submission validated them); conn_type "" is torus.
topology::torus_request torus_request_of(const msg::job_shape& shape, uint32_t node_count);

}  // namespace shoal::cluster

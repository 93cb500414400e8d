#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::interconnect {

/// What a job step asks of the interconnect (Switch Manager, 2001): where and how wide it runs.
struct step_request {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  std::vector<std::string> nodes;  ///< the step's nodes, in the order of their node_index
  uint32_t tasks_per_node = 1;
  uint32_t cpus_per_task = 1;
};

/// A step as the controller knows it: (job id, step id).
using step_key = std::pair<uint64_t, uint32_t>;

/// The controller's half of an interconnect plugin (SwitchType=). `allocate` turns a step
/// request into opaque data that travels with the launch request to every node of the step,
/// where the node half (interconnect/switch_node.hpp) applies it before exec and releases it at
/// the step's end; `release` frees what allocate took. shoalctld builds one instance from the
/// config by name (no self-registering globals) and every job actor calls it for each of its
/// steps, from whichever scheduler thread runs the job: a plugin guards its state itself.
///
/// A plugin whose state must outlive the controller (a counter that may never repeat, resources
/// held by running steps) hands each new state to the sink the controller set (`set_state_sink`)
/// from inside the call that changed it, while still holding its lock, so that the saved states
/// arrive in the order they were made. The controller saves what it gets (the job that
/// allocated waits for it to be durable before the step launches) and, after a restart or a
/// takeover, hands the last saved state back through `restore_state` before any job runs.
class switch_manager {
 public:
  /// Receives the plugin's state to save; called with the plugin's lock held, so it must not
  /// call back into the plugin.
  using state_sink = std::function<void(std::vector<uint8_t>)>;

  virtual ~switch_manager() = default;

  /// The plugin's config name, e.g. "none".
  virtual std::string name() const = 0;

  /// Reserves interconnect resources for a step. Errors: errc::unsatisfiable when exhausted,
  /// errc::invalid_request when the step cannot use this interconnect (a node it does not know).
  virtual shoal::expected<std::vector<uint8_t>> allocate(const step_request& req) = 0;

  /// Frees the resources of a step; does nothing for an unknown step.
  virtual void release(uint64_t job_id, uint32_t step_id) = 0;

  /// Goes on from the state last handed to the sink before a restart or a takeover. Steps not in
  /// `live` ended while no controller ran: what they held is free again. Errors:
  /// errc::malformed_message for bytes this plugin did not write (the plugin then starts anew).
  virtual shoal::error restore_state(const std::vector<uint8_t>& saved,
                                     const std::set<step_key>& live) {
    (void)saved;
    (void)live;
    return {};
  }

  /// Where new states go (once, before the first allocate); none set: nothing is saved.
  void set_state_sink(state_sink sink) {
    std::lock_guard<std::mutex> lock{sink_mutex_};
    sink_ = std::move(sink);
  }

 protected:
  /// Hands `state` to the sink, if any. Call it with the plugin's own lock held.
  void publish_state(std::vector<uint8_t> state) {
    std::lock_guard<std::mutex> lock{sink_mutex_};
    if (sink_) sink_(std::move(state));
  }

 private:
  std::mutex sink_mutex_;
  state_sink sink_;
};

/// Builds the plugin named `name` ("none" or "switch/none", "elan" or "switch/elan", as Slurm
/// spells them) from its SwitchParameters= (`parameters`, comma-separated key=value; each plugin
/// reads its own keys). Error: errc::invalid_config for an unknown name, an unknown or bad
/// parameter, or a file the plugin needs that cannot be read (the text names file:line).
shoal::expected<std::unique_ptr<switch_manager>> make_switch_manager(
    std::string_view name, std::string_view parameters = {});

/// Whether the plugin named `name` wants a job's nodes consecutive (its collective operations
/// are fastest on a contiguous range of network ids): switch/elan does.
bool prefers_consecutive_nodes(std::string_view name);

}  // namespace shoal::interconnect

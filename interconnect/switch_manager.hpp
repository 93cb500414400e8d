#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::interconnect {

/// What a job step asks of the interconnect (Switch Manager, 2001): where and how wide it runs.
struct step_request {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  std::vector<std::string> nodes;
  uint32_t tasks_per_node = 1;
  uint32_t cpus_per_task = 1;
};

/// An interconnect plugin. `allocate` turns a step request into opaque data that travels with
/// the launch request to every node of the step; `release` frees what allocate took. shoalctld
/// builds one instance from the config by name (no self-registering globals) and every job actor
/// calls it for each of its steps, from whichever scheduler thread runs the job: a plugin that
/// keeps state guards it itself (`none` keeps none).
class switch_manager {
 public:
  virtual ~switch_manager() = default;

  /// The plugin's config name, e.g. "none".
  virtual std::string name() const = 0;

  /// Reserves interconnect resources for a step. Errors: errc::unsatisfiable when exhausted.
  virtual shoal::expected<std::vector<uint8_t>> allocate(const step_request& req) = 0;

  /// Frees the resources of a step; does nothing for an unknown step.
  virtual void release(uint64_t job_id, uint32_t step_id) = 0;
};

/// Builds the plugin named `name` ("none", or "switch/none" as Slurm spells it).
/// Error: errc::invalid_config for an unknown name.
shoal::expected<std::unique_ptr<switch_manager>> make_switch_manager(std::string_view name);

}  // namespace shoal::interconnect

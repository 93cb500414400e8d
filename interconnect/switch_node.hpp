#pragma once

// The node's half of an interconnect plugin: what shoal-stepd does with a step's switch data
// (launch_request.switch_data, made by the controller's switch_manager) before the tasks exec,
// and at the step's end. The data names its plugin by its first bytes, so the node needs no
// SwitchType of its own and nothing between the two halves reads it.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::interconnect {

/// The step as one node runs it.
struct node_step {
  uint64_t job_id = 0;
  uint32_t step_id = 0;
  std::string node_name;
  uint32_t node_index = 0;  ///< this node's place in the step (launch_request.node_index)
  uint32_t uid = 0;         ///< the job's owner, who must be able to read the file
  uint32_t gid = 0;
  std::string dir;  ///< where the step's switch file goes (switch_dir)
};

/// What a plugin grants a step's tasks on a node: NAME=VALUE settings, each set in every task's
/// environment and written as one line of the step's switch file.
using switch_settings = std::vector<std::pair<std::string, std::string>>;

/// A plugin's node half. `apply` runs in shoal-stepd before any task of the step starts, as
/// root when the daemons run as root (a plugin that programs an adapter does it here); `release`
/// runs once the step's tasks ended.
class switch_node_agent {
 public:
  virtual ~switch_node_agent() = default;
  /// The plugin's name, as SHOAL_SWITCH_TYPE gives it to the tasks.
  virtual std::string name() const = 0;
  /// Whether `data` is this plugin's.
  virtual bool owns(const std::vector<uint8_t>& data) const = 0;
  virtual shoal::expected<switch_settings> apply(const node_step& step,
                                                 const std::vector<uint8_t>& data) = 0;
  virtual void release(const node_step& step, const std::vector<uint8_t>& data) = 0;
};

/// What apply_switch_data did: the variables to add to every task's environment (the plugin's
/// settings plus SHOAL_SWITCH_TYPE and SHOAL_SWITCH_FILE), and the file's path.
struct node_grant {
  std::vector<std::pair<std::string, std::string>> env;
  std::string file;
};

/// The directory for the switch files of the node whose spool directory (the one holding its
/// steps' sockets) is `spool_dir`: `<spool_dir>.switch`, a sibling, mode 0711, since the spool
/// directory itself (0700) is closed to the job's user.
std::string switch_dir(const std::string& spool_dir);
/// `<dir>/job<J>.step<S>`.
std::string switch_file_path(const node_step& step);

/// Applies a step's switch data on this node: finds the plugin it belongs to, lets it apply,
/// and writes its settings to the step's switch file (mode 0400, owned by the job's user).
/// Empty data (switch/none) grants nothing and writes nothing. Errors: errc::malformed_message
/// for data no plugin of this build owns; the plugin's own; errc::system_error for the file.
shoal::expected<node_grant> apply_switch_data(const node_step& step,
                                              const std::vector<uint8_t>& data);

/// Undoes apply_switch_data at the step's end: the plugin's release, then the file is removed.
void release_switch_data(const node_step& step, const std::vector<uint8_t>& data);

/// The environment variables switch/elan sets (and its file's lines), for one node of a step:
/// SHOAL_ELAN_PROGRAM, SHOAL_ELAN_NODE_ID, SHOAL_ELAN_NODE_IDS, SHOAL_ELAN_RAILS and one
/// SHOAL_ELAN_CAP<r> per rail, `KEY:LOWID-HIGHID:LOWCTX-HIGHCTX` (docs/interconnect.md).
std::unique_ptr<switch_node_agent> make_elan_node_agent();

}  // namespace shoal::interconnect

#pragma once

// The chaos test's cluster: a primary and a backup shoalctld (as test/integration/
// controller_pair.hpp configures them), two front-end shoald serving the simulated nodes with two
// collectors each (as faults_together_test.cpp), and one shoald of a real node that runs its
// jobs. Every daemon can be killed and started again; its logs stay in the scratch directory.

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bench/chaos/plan.hpp"
#include "bench/chaos/processes.hpp"
#include "config/config.hpp"
#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::chaos {

class chaos_cluster {
 public:
  /// Writes the config into a new scratch directory and starts the five daemons (not waiting for
  /// them). `sim_nodes` (at least 4) simulated nodes node1..N in two front ends, collectors
  /// spread two on each; `auth_config` goes into the config as is (AuthType= and AuthInfo=).
  /// `bin_dir` holds shoalctld, shoald and shoal. Error: errc::system_error, errc::invalid_config.
  static shoal::expected<std::unique_ptr<chaos_cluster>> launch(unsigned sim_nodes,
                                                                const std::string& auth_config,
                                                                const std::string& bin_dir);
  /// Stops every daemon and the steps left running; removes the directory unless kept.
  ~chaos_cluster();
  chaos_cluster(const chaos_cluster&) = delete;
  chaos_cluster& operator=(const chaos_cluster&) = delete;

  // -- daemons --

  daemon_process& daemon(victim v) { return *daemons_[static_cast<size_t>(v)]; }
  /// The nodes daemon `v` serves; empty for a controller.
  const std::vector<std::string>& nodes_of(victim v) const {
    return served_[static_cast<size_t>(v)];
  }
  /// Every node: the simulated ones, then the real one.
  const std::vector<std::string>& all_nodes() const { return all_nodes_; }
  const std::vector<std::string>& collectors() const { return collectors_; }
  static constexpr const char* real_node_name = "real1";

  // -- asking --

  /// `shoal ARGS` on this cluster's config, from the scratch directory.
  command_result shoal(const std::vector<std::string>& args,
                       std::chrono::milliseconds timeout = std::chrono::seconds{30}) const;

  /// One look through the controllers' front doors, with the requests `shoal control ping` and
  /// `shoal info` send: does each line answer, is it in control, and the nodes as the (first)
  /// one in control lists them. Takes at most a few seconds.
  struct look {
    std::array<bool, 2> answers{};
    std::array<bool, 2> in_control{};
    bool nodes_listed = false;
    std::vector<msg::node_info> nodes;
  };
  look look_now() const;

  // -- the scratch directory --

  const std::string& directory() const { return dir_; }
  const std::string& conf_path() const { return conf_path_; }
  /// Where the real node's jobs leave their markers.
  std::string marker_dir() const { return dir_ + "/markers"; }
  std::string script_dir() const { return dir_ + "/scripts"; }
  void keep() { keep_ = true; }

 private:
  chaos_cluster() = default;

  std::string dir_;
  std::string conf_path_;
  std::string shoal_bin_;
  config::cluster_config conf_;
  std::array<std::unique_ptr<daemon_process>, victim_count> daemons_;
  std::array<std::vector<std::string>, victim_count> served_;
  std::vector<std::string> all_nodes_;
  std::vector<std::string> collectors_;
  bool keep_ = false;
};

}  // namespace shoal::chaos

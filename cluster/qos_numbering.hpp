#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "messages/types.hpp"
#include "policy/scheduling_pass.hpp"

namespace shoal::cluster {

/// PreemptType=preempt/qos: the QOS by the numbers the scheduling pass knows them by
/// (policy::pending_job::qos, running_job::qos: 1 + an index), and what each says of
/// preemption. Numbers only grow, so a running job's number stays its QOS's whatever the
/// accounting store's QOS become.
class qos_numbering {
 public:
  /// The number of QOS `name` (a new one for a name not seen before); 0 for an empty name.
  uint32_t number(const std::string& name);

  /// The accounting store's QOS (sacctmgr's), which the rules are made from.
  void set_table(std::vector<msg::qos_info> qos);

  /// Every number's rules (index = number - 1), made again only after a change; a QOS the
  /// store does not have preempts nothing and is preempted with the cluster's PreemptMode.
  std::shared_ptr<const std::vector<policy::qos_preemption>> rules();

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> numbers_;
  std::vector<msg::qos_info> table_;
  std::shared_ptr<const std::vector<policy::qos_preemption>> rules_;
};

}  // namespace shoal::cluster

#include "cluster/qos_numbering.hpp"

#include <algorithm>
#include <functional>
#include <utility>

#include "policy/preemption.hpp"

namespace shoal::cluster {

uint32_t qos_numbering::number(const std::string& name) {
  if (name.empty()) return 0;
  auto [at, added] = numbers_.emplace(name, static_cast<uint32_t>(names_.size() + 1));
  if (added) {
    names_.push_back(name);
    rules_.reset();
  }
  return at->second;
}

void qos_numbering::set_table(std::vector<msg::qos_info> qos) {
  table_ = std::move(qos);
  rules_.reset();
}

std::shared_ptr<const std::vector<policy::qos_preemption>> qos_numbering::rules() {
  if (rules_) return rules_;
  for (const auto& q : table_) {
    number(q.name);
    for (const auto& p : q.preempt) number(p);
  }
  auto made = std::make_shared<std::vector<policy::qos_preemption>>(names_.size());
  for (const auto& q : table_) {
    auto& r = (*made)[numbers_.at(q.name) - 1];
    for (const auto& p : q.preempt) r.preempts.push_back(numbers_.at(p));
    std::sort(r.preempts.begin(), r.preempts.end());
    if (!q.preempt_mode.empty()) r.mode = policy::parse_preempt_mode(q.preempt_mode);
    r.grace_time = q.grace_time_s;
    r.priority = q.priority;
  }
  // Ranks: longest chain of preemptions below each QOS; a cycle (a preempts b preempts a) is cut
  // where it closes.
  std::vector<int> state(made->size(), 0);  // 0 new, 1 on the path, 2 done
  std::function<uint32_t(size_t)> rank_of = [&](size_t i) -> uint32_t {
    if (state[i] == 1) return 0;
    if (state[i] == 2) return (*made)[i].rank;
    state[i] = 1;
    uint32_t rank = 0;
    for (auto p : (*made)[i].preempts) rank = std::max(rank, rank_of(p - 1) + 1);
    state[i] = 2;
    return (*made)[i].rank = rank;
  };
  for (size_t i = 0; i < made->size(); ++i) rank_of(i);
  rules_ = std::move(made);
  return rules_;
}

}  // namespace shoal::cluster

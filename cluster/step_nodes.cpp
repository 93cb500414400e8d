#include "cluster/step_nodes.hpp"

#include <algorithm>

#include "topology/hostlist.hpp"

namespace shoal::cluster {

namespace {

shoal::error unavailable(const std::string& why) {
  return shoal::error(errc::unsatisfiable, "Requested node configuration is not available: " + why);
}

}  // namespace

shoal::expected<std::vector<size_t>> pick_step_nodes(const std::vector<std::string>& job_nodes,
                                                     uint32_t count, bool count_given,
                                                     std::string_view required,
                                                     std::string_view excluded) {
  std::vector<std::string> wanted, left_out;
  if (!required.empty()) {
    auto names = topology::expand_hostlist(required);
    if (!names) return std::move(names.error());
    wanted = std::move(*names);
  }
  if (!excluded.empty()) {
    auto names = topology::expand_hostlist(excluded);
    if (!names) return std::move(names.error());
    left_out = std::move(*names);
  }
  auto named = [](const std::vector<std::string>& list, const std::string& node) {
    return std::find(list.begin(), list.end(), node) != list.end();
  };
  auto job_list = topology::compress_hostlist(job_nodes);
  std::vector<bool> picked(job_nodes.size(), false);
  size_t taken = 0;
  for (const auto& name : wanted) {
    auto at = std::find(job_nodes.begin(), job_nodes.end(), name);
    if (at == job_nodes.end())
      return unavailable("step's --nodelist names " + name + ", not one of the job's nodes (" +
                         job_list + ")");
    if (named(left_out, name))
      return unavailable("step's --nodelist and --exclude both name " + name);
    auto index = static_cast<size_t>(at - job_nodes.begin());
    if (!picked[index]) ++taken;
    picked[index] = true;
  }
  size_t usable = 0;
  for (const auto& node : job_nodes) usable += named(left_out, node) ? 0 : 1;
  size_t want = count;
  if (!count_given) want = wanted.empty() ? std::min<size_t>(count, usable) : taken;
  want = std::max(want, taken);
  if (want > usable)
    return unavailable("step needs " + std::to_string(want) + " nodes, the job has " +
                       std::to_string(usable) + (left_out.empty() ? "" : " outside --exclude") +
                       " (" + job_list + ")");
  for (size_t i = 0; i < job_nodes.size() && taken < want; ++i) {
    if (picked[i] || named(left_out, job_nodes[i])) continue;
    picked[i] = true;
    ++taken;
  }
  std::vector<size_t> out;
  for (size_t i = 0; i < picked.size(); ++i)
    if (picked[i]) out.push_back(i);
  return out;
}

}  // namespace shoal::cluster

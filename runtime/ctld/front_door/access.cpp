#include "runtime/ctld/front_door/access.hpp"

#include <algorithm>

namespace shoal::runtime::door {

bool is_admin(const door_state& st, uint32_t uid) {
  return uid == 0 || std::find(st.setup.admin_uids.begin(), st.setup.admin_uids.end(), uid) !=
                         st.setup.admin_uids.end();
}

bool may_see(const door_state& st, uint32_t uid, const msg::job_info& job) {
  return !st.setup.private_jobs || job.uid == uid || is_admin(st, uid);
}

bool is_administration(op o) {
  return o == op::node_update || o == op::partition_edit || o == op::set_debug ||
         o == op::debug_flags;
}

void hide_others(msg::topology_view& view, const std::set<uint64_t>& visible) {
  for (auto& node : view.nodes)
    if (node.job_id != 0 && visible.count(node.job_id) == 0) node.job_id = 0;
  auto& allocs = view.allocations;
  allocs.erase(
      std::remove_if(allocs.begin(), allocs.end(),
                     [&](const msg::map_allocation& a) { return visible.count(a.job_id) == 0; }),
      allocs.end());
}

}  // namespace shoal::runtime::door

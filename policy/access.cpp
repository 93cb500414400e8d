#include "policy/access.hpp"

#include <algorithm>

namespace shoal::policy {

namespace {

bool listed(const std::vector<uint32_t>& uids, uint32_t uid) {
  return std::find(uids.begin(), uids.end(), uid) != uids.end();
}

}  // namespace

bool is_daemon_user(const access_rules& rules, uint32_t uid) {
  return uid == 0 || listed(rules.daemon_users, uid);
}

bool is_admin(const access_rules& rules, uint32_t uid) {
  return is_daemon_user(rules, uid) || listed(rules.admins, uid);
}

bool may(const access_rules& rules, uint32_t uid, operation op, uint32_t owner) {
  bool owns = owner != no_owner && uid == owner;
  switch (op) {
    case operation::view_job:
      return !rules.private_jobs || owns || is_admin(rules, uid);
    case operation::act_on_job:
    case operation::update_job:
      return owns || is_admin(rules, uid);
    case operation::hold_as_admin:
    case operation::administer:
    case operation::update_job_as_admin:
    case operation::edit_reservation:
    case operation::suspend_job:
      return is_admin(rules, uid);
    case operation::reset_statistics:
    case operation::fetch_identity:
      return is_daemon_user(rules, uid);
  }
  return false;
}

}  // namespace shoal::policy

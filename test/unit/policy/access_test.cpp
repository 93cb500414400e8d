#include <boost/test/unit_test.hpp>

#include <string>

#include "policy/access.hpp"

using namespace shoal::policy;

namespace {

constexpr uint32_t root = 0;
constexpr uint32_t slurm_user = 500;  // the controller's user or SlurmUser
constexpr uint32_t admin = 600;       // AdminUsers
constexpr uint32_t owner = 1000;
constexpr uint32_t other = 2000;

access_rules rules(bool private_jobs) {
  access_rules r;
  r.daemon_users = {slurm_user};
  r.admins = {admin};
  r.private_jobs = private_jobs;
  return r;
}

/// One row of the table: who, doing what, on whose job, under PrivateData=jobs or not.
struct row {
  uint32_t uid;
  operation op;
  uint32_t job_owner;
  bool private_jobs;
  bool allowed;
};

std::string name_of(uint32_t uid) {
  switch (uid) {
    case root:
      return "root";
    case slurm_user:
      return "SlurmUser";
    case admin:
      return "AdminUsers member";
    case owner:
      return "owner";
    default:
      return "other user";
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(access_policy)

// Every user x operation x owner, with and without PrivateData=jobs. An AdminUsers member is an
// admin at every check (the front door, the controller and the job actor used to disagree).
BOOST_AUTO_TEST_CASE(the_table_of_user_operation_and_owner) {
  const row table[] = {
      // Seeing a job: everyone, unless PrivateData=jobs.
      {root, operation::view_job, owner, false, true},
      {other, operation::view_job, owner, false, true},
      {root, operation::view_job, owner, true, true},
      {slurm_user, operation::view_job, owner, true, true},
      {admin, operation::view_job, owner, true, true},
      {owner, operation::view_job, owner, true, true},
      {other, operation::view_job, owner, true, false},
      // Acting on a job: its owner and the admins.
      {root, operation::act_on_job, owner, false, true},
      {slurm_user, operation::act_on_job, owner, false, true},
      {admin, operation::act_on_job, owner, false, true},
      {owner, operation::act_on_job, owner, false, true},
      {other, operation::act_on_job, owner, false, false},
      {other, operation::act_on_job, no_owner, false, false},
      // An admin hold: admins only, the owner included.
      {root, operation::hold_as_admin, owner, false, true},
      {admin, operation::hold_as_admin, owner, false, true},
      {owner, operation::hold_as_admin, owner, false, false},
      {other, operation::hold_as_admin, owner, false, false},
      // Administration: admins only.
      {root, operation::administer, no_owner, false, true},
      {slurm_user, operation::administer, no_owner, false, true},
      {admin, operation::administer, no_owner, false, true},
      {owner, operation::administer, no_owner, false, false},
      {other, operation::administer, no_owner, false, false},
      // Statistics' reset and the cluster identity: root and the daemon users, not AdminUsers.
      {root, operation::reset_statistics, no_owner, false, true},
      {slurm_user, operation::reset_statistics, no_owner, false, true},
      {admin, operation::reset_statistics, no_owner, false, false},
      {other, operation::reset_statistics, no_owner, false, false},
      {root, operation::fetch_identity, no_owner, false, true},
      {slurm_user, operation::fetch_identity, no_owner, false, true},
      {admin, operation::fetch_identity, no_owner, false, false},
      {other, operation::fetch_identity, no_owner, false, false},
      // scontrol update JobId=: the owner and the admins; what only operators may change
      // (raise a time limit, Priority=, a negative Nice=): admins only, the owner included.
      {root, operation::update_job, owner, false, true},
      {admin, operation::update_job, owner, false, true},
      {owner, operation::update_job, owner, false, true},
      {other, operation::update_job, owner, false, false},
      {owner, operation::update_job, owner, true, true},
      {other, operation::update_job, owner, true, false},
      {root, operation::update_job_as_admin, owner, false, true},
      {slurm_user, operation::update_job_as_admin, owner, false, true},
      {admin, operation::update_job_as_admin, owner, false, true},
      {owner, operation::update_job_as_admin, owner, false, false},
      {other, operation::update_job_as_admin, owner, false, false},
      // scontrol create|update|delete reservation: the admins only.
      {root, operation::edit_reservation, no_owner, false, true},
      {slurm_user, operation::edit_reservation, no_owner, false, true},
      {admin, operation::edit_reservation, no_owner, false, true},
      {other, operation::edit_reservation, no_owner, false, false},
  };
  for (const auto& r : table) {
    BOOST_TEST_CONTEXT(name_of(r.uid) << " op " << static_cast<int>(r.op) << " on "
                                      << (r.job_owner == no_owner ? "nothing" : "a job")
                                      << (r.private_jobs ? " (PrivateData=jobs)" : "")) {
      BOOST_TEST(may(rules(r.private_jobs), r.uid, r.op, r.job_owner) == r.allowed);
    }
  }
}

BOOST_AUTO_TEST_CASE(root_is_an_admin_with_no_rules_at_all) {
  access_rules none;
  BOOST_TEST(is_admin(none, root));
  BOOST_TEST(is_daemon_user(none, root));
  BOOST_TEST(!is_admin(none, owner));
  BOOST_TEST(may(none, owner, operation::act_on_job, owner));
  BOOST_TEST(!may(none, other, operation::act_on_job, owner));
}

BOOST_AUTO_TEST_SUITE_END()

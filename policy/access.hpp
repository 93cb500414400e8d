#pragma once

#include <cstdint>
#include <vector>

namespace shoal::policy {

/// Who may do what, decided here and nowhere else: the front door, the controller and every job
/// actor ask the same rules, so a user who passes one check passes the next.
///
/// The ranks, as Slurm's: root (uid 0); the daemon users (the user shoalctld runs as and
/// SlurmUser), who are Slurm's "SlurmUser"; the AdminUsers, Slurm's operators and admins; a
/// job's owner; anyone else.
struct access_rules {
  /// The user shoalctld runs as and SlurmUser's uid (root is implied).
  std::vector<uint32_t> daemon_users;
  /// AdminUsers' uids (root and the daemon users are admins too).
  std::vector<uint32_t> admins;
  /// PrivateData=jobs: a job's details are its owner's and the admins' to see.
  bool private_jobs = false;
};

/// What a request does, as far as who may do it is concerned.
enum class operation {
  view_job,          ///< list or show a job (hidden from others under PrivateData=jobs)
  act_on_job,        ///< cancel, signal, requeue, hold/release, attach, step, end an allocation
  hold_as_admin,     ///< a hold only an admin may release (Slurm's admin hold, priority 0)
  administer,        ///< node and partition updates, debug levels and flags, reconfigure
  reset_statistics,  ///< `sdiag --reset`: root and the daemon users (Slurm's SlurmUser)
  fetch_identity,    ///< the cluster's TLS identity: root and the daemon users only
  update_job,        ///< `scontrol update JobId=`: the job's owner and the admins
  /// What only Slurm's operators may ask of an update: raise a running job's time limit (or a
  /// queued one's past its partition's MaxTime), set Priority=, set a negative Nice=.
  update_job_as_admin,
  /// `scontrol create|update|delete reservation`: the admins (Slurm's operators may not either)
  edit_reservation,
  /// `scontrol suspend|resume`: the admins (Slurm's operators and administrators)
  suspend_job,
};

/// A uid that owns nothing: for operations on no particular job.
constexpr uint32_t no_owner = UINT32_MAX;

/// Root, a daemon user or an AdminUsers member.
bool is_admin(const access_rules& rules, uint32_t uid);

/// Root or a daemon user.
bool is_daemon_user(const access_rules& rules, uint32_t uid);

/// Whether `uid` may do `op` on something `owner` owns (no_owner: nothing in particular).
bool may(const access_rules& rules, uint32_t uid, operation op, uint32_t owner = no_owner);

}  // namespace shoal::policy

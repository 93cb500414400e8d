#include "runtime/bootstrap/daemon_auth.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "config/log.hpp"
#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "runtime/bootstrap/munge.hpp"
#include "runtime/bootstrap/sha256.hpp"

namespace shoal::runtime {

namespace {

std::string digest_of(const std::vector<char>& bytes) {
  return sha256_hex({bytes.data(), bytes.size()});
}

std::string launch_payload(const msg::launch_request& unsigned_req) {
  return "shoal-launch sha256=" + digest_of(msg::encode(unsigned_req));
}

std::string signal_payload(uint64_t job, uint32_t step, int32_t signo) {
  return "shoal-signal job=" + std::to_string(job) + " step=" + std::to_string(step) +
         " signal=" + std::to_string(signo);
}

std::string registration_payload(const msg::machine_status& unsigned_status,
                                 const msg::node_report& report) {
  return "shoal-node-registration sha256=" + digest_of(msg::encode(unsigned_status)) +
         " report-sha256=" + digest_of(msg::encode(report));
}

shoal::error seal(const config::auth_settings& auth, const std::string& payload,
                  std::string& credential) {
  if (!auth.munge) return {};
  auto cred = make_munge_credential(auth.munge_socket, payload);
  if (!cred) return std::move(cred.error());
  credential = std::move(*cred);
  return {};
}

/// `credential` (already taken off its message) was made by one of `trusted` for `payload`.
shoal::error check(const config::auth_settings& auth, const std::vector<uint32_t>& trusted,
                   const std::string& credential, const std::string& payload, const char* what) {
  if (!auth.munge) return {};
  auto who = decode_munge_credential(auth.munge_socket, credential);
  if (!who) return std::move(who.error());
  if (std::find(trusted.begin(), trusted.end(), who->uid) == trusted.end())
    return shoal::error(errc::authentication_failed,
                        "Protocol authentication error (" + std::string{what} + " signed by uid " +
                            std::to_string(who->uid) +
                            ", who is neither root, SlurmUser nor the daemon's own user)");
  if (who->payload != payload)
    return shoal::error(errc::authentication_failed,
                        "Protocol authentication error (the credential was made for another " +
                            std::string{what} + ")");
  return {};
}

}  // namespace

std::vector<uint32_t> daemon_uids(const config::cluster_config& cfg) {
  std::vector<uint32_t> uids{0, static_cast<uint32_t>(::getuid())};
  if (!cfg.slurm_user.empty())
    if (auto* pw = ::getpwnam(cfg.slurm_user.c_str()); pw != nullptr)
      uids.push_back(static_cast<uint32_t>(pw->pw_uid));
  return uids;
}

policy::access_rules access_rules_of(const config::cluster_config& cfg) {
  policy::access_rules rules;
  rules.daemon_users = daemon_uids(cfg);
  if (!cfg.slurm_user.empty() && ::getpwnam(cfg.slurm_user.c_str()) == nullptr)
    config::log().warn("SlurmUser names '{}', who is no user on this host: ignored",
                       cfg.slurm_user);
  for (const auto& name : cfg.admin_users) {
    if (auto* pw = ::getpwnam(name.c_str()); pw != nullptr)
      rules.admins.push_back(static_cast<uint32_t>(pw->pw_uid));
    else
      config::log().warn("AdminUsers names '{}', who is no user on this host: ignored", name);
  }
  rules.private_jobs = cfg.private_jobs;
  return rules;
}

shoal::error sign_launch(const config::auth_settings& auth, msg::launch_request& req) {
  req.credential.clear();
  return seal(auth, launch_payload(req), req.credential);
}

shoal::error verify_launch(const config::auth_settings& auth, const std::vector<uint32_t>& trusted,
                           msg::launch_request& req) {
  auto credential = std::move(req.credential);
  req.credential.clear();
  return check(auth, trusted, credential, launch_payload(req), "launch");
}

shoal::expected<std::string> sign_signal(const config::auth_settings& auth, uint64_t job,
                                         uint32_t step, int32_t signo) {
  std::string credential;
  if (auto err = seal(auth, signal_payload(job, step, signo), credential)) return err;
  return credential;
}

shoal::error verify_signal(const config::auth_settings& auth, const std::vector<uint32_t>& trusted,
                           uint64_t job, uint32_t step, int32_t signo,
                           const std::string& credential) {
  return check(auth, trusted, credential, signal_payload(job, step, signo), "signal");
}

shoal::error sign_registration(const config::auth_settings& auth, msg::machine_status& status,
                               const msg::node_report& report) {
  status.credential.clear();
  return seal(auth, registration_payload(status, report), status.credential);
}

shoal::error verify_registration(const config::auth_settings& auth,
                                 const std::vector<uint32_t>& trusted, msg::machine_status& status,
                                 const msg::node_report& report) {
  auto credential = std::move(status.credential);
  status.credential.clear();
  return check(auth, trusted, credential, registration_payload(status, report), "registration");
}

}  // namespace shoal::runtime

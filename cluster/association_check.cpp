#include "cluster/association_check.hpp"

#include "accounting/associations.hpp"
#include "cluster/limit_rules.hpp"

namespace shoal::cluster {

shoal::expected<msg::job_request> check_association(const config::cluster_config& cfg,
                                                    const msg::association_data* assocs,
                                                    msg::job_request req) {
  if (assocs && req.workload.account.empty())
    req.workload.account = accounting::default_account_of(*assocs, req.user);
  if (!cfg.accounting.enforce_associations) return req;
  if (!assocs)
    return error{errc::unreachable,
                 cfg.accounting.type == config::accounting_storage::none
                     ? "AccountingStorageEnforce needs an accounting store "
                       "(AccountingStorageType is accounting_storage/none)"
                     : "the associations are not loaded from the accounting store yet "
                       "(AccountingStorageEnforce): try again"};
  const auto* assoc = req.workload.account.empty()
                          ? nullptr
                          : accounting::find_association(*assocs, cfg.cluster_name, req.user,
                                                         req.workload.account, req.partition);
  if (!assoc) return error{errc::invalid_request, invalid_account_text};
  if (cfg.accounting.enforce_limits && req.time_limit_s <= 0) {
    // Slurm gives a job that names no time limit its MaxWall (acct_policy_validate).
    auto qos = !req.workload.qos.empty()     ? req.workload.qos
               : !assoc->default_qos.empty() ? assoc->default_qos
                                             : std::string{"normal"};
    if (auto wall = max_wall_of(*assocs, cfg.cluster_name, req.user, req.workload.account,
                                req.partition, qos))
      req.time_limit_s = *wall;
  }
  return req;
}

}  // namespace shoal::cluster

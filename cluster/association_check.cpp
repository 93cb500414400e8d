#include "cluster/association_check.hpp"

#include "accounting/associations.hpp"

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
  if (req.workload.account.empty() ||
      !accounting::find_association(*assocs, cfg.cluster_name, req.user, req.workload.account,
                                    req.partition))
    return error{errc::invalid_request, invalid_account_text};
  return req;
}

}  // namespace shoal::cluster

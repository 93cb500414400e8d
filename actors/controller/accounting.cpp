#include "actors/controller/controller_state.hpp"

namespace shoal::actors::ctl {

caf::result<std::vector<msg::accounted_job>> query_accounting(controller_self self,
                                                              msg::accounting_query query) {
  // accounting_storage/none: nothing was kept, so nothing is found.
  if (!self->state.accounting) return std::vector<msg::accounted_job>{};
  return self->delegate(self->state.accounting, msg::account_atom_v, std::move(query));
}

namespace {

caf::error no_store() {
  return make_error(errc::unreachable,
                    "there is no accounting store (AccountingStorageType=accounting_storage/none)");
}

}  // namespace

caf::result<msg::association_data> list_associations(controller_self self) {
  if (!self->state.accounting) return no_store();
  return self->delegate(self->state.accounting, msg::acctmgr_atom_v);
}

caf::result<std::string> edit_associations(controller_self self, msg::acctmgr_edit edit) {
  if (!self->state.accounting) return no_store();
  return self->delegate(self->state.accounting, msg::acctmgr_atom_v, std::move(edit));
}

void adopt_associations(controller_self self, msg::association_data data) {
  // The scheduler's fair-share tree and QOS priorities follow the same copy.
  self->send(self->state.scheduler, msg::assocs_atom_v, data);
  self->state.associations = std::make_shared<const msg::association_data>(std::move(data));
}

caf::result<std::vector<msg::share_info>> list_shares(controller_self self) {
  return self->delegate(self->state.scheduler, msg::shares_atom_v);
}

}  // namespace shoal::actors::ctl

#include "actors/controller/controller_state.hpp"

namespace shoal::actors::ctl {

caf::result<std::vector<msg::accounted_job>> query_accounting(controller_self self,
                                                              msg::accounting_query query) {
  if (!self->state.accounting)
    return make_error(errc::unreachable,
                      "no accounting store (AccountingStorageType=accounting_storage/none)");
  return self->delegate(self->state.accounting, msg::account_atom_v, std::move(query));
}

}  // namespace shoal::actors::ctl

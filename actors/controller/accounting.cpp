#include "actors/controller/controller_state.hpp"

namespace shoal::actors::ctl {

caf::result<std::vector<msg::accounted_job>> query_accounting(controller_self self,
                                                              msg::accounting_query query) {
  // accounting_storage/none: nothing was kept, so nothing is found.
  if (!self->state.accounting) return std::vector<msg::accounted_job>{};
  return self->delegate(self->state.accounting, msg::account_atom_v, std::move(query));
}

}  // namespace shoal::actors::ctl

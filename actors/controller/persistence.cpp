#include "actors/controller/controller_state.hpp"

#include "config/log.hpp"

namespace shoal::actors::ctl {

/// Hands one record to the state keeper (null value: forget the key).
void persist(controller_self self, std::string key, state::value_ptr value) {
  if (self->state.keeper)
    self->send(self->state.keeper, msg::persist_atom_v, std::move(key), std::move(value));
}

void save_next_job_id(controller_self self) {
  msg::controller_record rec;
  rec.next_job_id = self->state.next_job_id;
  persist(self, controller_key, encoded(rec));
}

/// Sends every request and answers ok once all answered ok and everything handed to the keeper so
/// far (the controller's own records the answers brought, such as an array's held line) is durable;
/// else the first error.
caf::result<caf::ok_atom> all_ok(controller_self self,
                                 std::vector<std::pair<caf::actor, caf::message>> requests) {
  auto rp = self->make_response_promise<caf::ok_atom>();
  auto remaining = std::make_shared<size_t>(requests.size());
  auto failed = std::make_shared<bool>(false);
  for (auto& [to, m] : requests) {
    self->request(to, std::chrono::seconds{self->state.cfg.message_timeout_s}, std::move(m))
        .then(
            [self, rp, remaining, failed](caf::ok_atom) mutable {
              if (--*remaining > 0 || *failed) return;
              auto& keeper = self->state.keeper;
              if (!keeper) {
                rp.deliver(caf::ok_atom::value);
                return;
              }
              self->request(keeper, caf::infinite, msg::sync_atom_v)
                  .then([rp](caf::ok_atom) mutable { rp.deliver(caf::ok_atom::value); },
                        [rp](caf::error& err) mutable {
                          rp.deliver(
                              make_error(errc::system_error,
                                         "the controller cannot save its state: " + describe(err)));
                        });
            },
            [rp, failed](caf::error& err) mutable {
              if (!*failed) {
                *failed = true;
                rp.deliver(std::move(err));
              }
            });
  }
  return rp;
}

}  // namespace shoal::actors::ctl

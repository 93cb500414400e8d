#include "runtime/bootstrap/system_setup.hpp"

#include <algorithm>
#include <thread>

#include <caf/io/middleman.hpp>

#include "messages/caf/type_ids.hpp"
#include "messages/errc.hpp"

namespace shoal::runtime {

void configure_actor_system(caf::actor_system_config& cfg, unsigned max_threads) {
  cfg.add_message_types<caf::id_block::shoal>();
  cfg.load<caf::io::middleman>();
  cfg.add_error_category(error_category,
                         [](uint8_t code, caf::atom_value, const caf::message& ctx) -> std::string {
                           if (ctx.size() == 1 && ctx.match_element<std::string>(0))
                             return ctx.get_as<std::string>(0);
                           return to_string(static_cast<errc>(code));
                         });
  cfg.set("scheduler.max-threads", max_threads);
  // A shared queue leaves idle daemons at ~0% CPU (work stealing polls: ~1.5% of a core each).
  cfg.set("scheduler.policy", caf::atom("sharing"));
}

unsigned daemon_worker_threads() {
  return std::clamp(std::thread::hardware_concurrency() / 4, 1u, 4u);
}

}  // namespace shoal::runtime

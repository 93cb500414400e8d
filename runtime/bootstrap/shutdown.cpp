#include "runtime/bootstrap/shutdown.hpp"

#include <csignal>
#include <thread>

#include <caf/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"

namespace shoal::runtime {

int run_until_shutdown(caf::actor_system& sys, const caf::actor& main_actor,
                       std::function<void()> on_hangup) {
  caf::scoped_actor self{sys};
  self->monitor(main_actor);
  // The watcher lives until the process exits; it turns a signal into an exit message, or a
  // hangup into a reconfigure, which reads a file and so belongs on this thread, not an actor.
  std::thread{[main_actor, on_hangup = std::move(on_hangup)] {
    auto set = shutdown_signals();
    int signo = 0;
    while (sigwait(&set, &signo) == 0) {
      if (signo == SIGHUP && on_hangup) {
        config::log().info("reconfigure signal={}", strsignal(signo));
        on_hangup();
        continue;
      }
      config::log().info("shutdown signal={}", strsignal(signo));
      caf::anon_send_exit(main_actor, caf::exit_reason::user_shutdown);
      return;
    }
  }}.detach();
  int code = 0;
  self->receive([&](const caf::down_msg& dm) {
    if (!dm.reason || dm.reason == caf::exit_reason::user_shutdown) return;
    // Not told to stop: say why where an admin logging errors only sees it.
    config::log().error("stopping: {}", describe(dm.reason));
    code = 1;
  });
  return code;
}

}  // namespace shoal::runtime

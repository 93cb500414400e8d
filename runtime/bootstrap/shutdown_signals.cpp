// The signal mask half of shutdown.hpp, in an object of its own: the CLI uses it and must not
// link run_until_shutdown's logging.
#include <csignal>

#include "runtime/bootstrap/shutdown.hpp"

namespace shoal::runtime {

sigset_t shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

void block_shutdown_signals() {
  auto set = shutdown_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace shoal::runtime

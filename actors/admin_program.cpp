#include "actors/admin_program.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/blocking_actor.hpp>

#include "config/log.hpp"

extern char** environ;

namespace shoal::actors {

namespace {

/// "exit 3", "signal 9".
std::string status_text(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

/// Writes `text` to a new private file under $TMPDIR (else /tmp): its path, or "" (logged).
std::string write_temp_file(const std::string& label, const std::string& text) {
  const char* tmp = ::getenv("TMPDIR");
  // mkstemp turns the template's trailing Xs into a unique suffix.
  std::string path = std::string{tmp && *tmp ? tmp : "/tmp"} + "/shoal-program-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) {
    config::log().error("{}'s file could not be made path={} error=\"{}\"", label, path,
                        std::strerror(errno));
    return "";
  }
  const char* at = text.data();
  auto left = text.size();
  while (left > 0) {
    auto n = ::write(fd, at, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    left -= static_cast<size_t>(n);
    at += n;
  }
  ::close(fd);
  if (left > 0) config::log().error("{}'s file is short path={}", label, path);
  return path;
}

/// Starts the program and waits for it, at most its timeout.
void run_and_wait(const admin_program& p) {
  std::vector<char*> argv;
  for (auto& a : p.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : p.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, 2, "/dev/null", O_WRONLY, 0);
  // Its own process group, so that a timeout kills what it started too.
  posix_spawnattr_t attrs;
  posix_spawnattr_init(&attrs);
  posix_spawnattr_setflags(&attrs, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attrs, 0);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &files, &attrs, argv.data(), envp.data());
  posix_spawnattr_destroy(&attrs);
  posix_spawn_file_actions_destroy(&files);
  if (rc != 0) {
    config::log().error("{} could not start prog={} error=\"{}\"", p.label, p.argv[0],
                        std::strerror(rc));
    return;
  }
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + p.timeout;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      config::log().error("{} killed after its timeout of {} s prog={}", p.label, p.timeout.count(),
                          p.argv[0]);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    config::log().error("{} failed prog={} {}", p.label, p.argv[0], status_text(status));
  else
    SHOAL_DEBUG(power, "{} done prog={}", p.label, p.argv[0]);
}

}  // namespace

void run_admin_program(caf::actor_system& sys, admin_program program) {
  // The program goes as a spawn argument, not a capture: CAF 0.17 dereferences its null argument
  // tuple when a function actor takes none (UBSan: reference binding to null pointer).
  sys.spawn<caf::detached>(
      [](caf::blocking_actor*, admin_program p) {
        std::string file;
        if (!p.file_text.empty()) {
          file = write_temp_file(p.label, p.file_text);
          for (auto& name : p.file_env) p.env.push_back(name + "=" + file);
        }
        run_and_wait(p);
        if (!file.empty()) ::unlink(file.c_str());
      },
      std::move(program));
}

std::vector<std::string> inherited_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
  return out;
}

}  // namespace shoal::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(shoal::actors::admin_program)

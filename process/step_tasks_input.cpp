// step_tasks' side of the client's standard input: what each input task still has to be
// written, and when the sender hears that its chunks were taken. Beside step_tasks.cpp, which
// starts and watches the tasks.

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "process/step_tasks.hpp"

namespace shoal::process {

namespace {

/// Input is reported taken while no input task has this much of it left to write, so a sender
/// that waits for that never makes a task's backlog grow much past it.
constexpr size_t input_low_water = 64 * 1024;

}  // namespace

void step_tasks::add_input(const msg::task_input& in) {
  ++inputs_owed_;
  for (auto& t : tasks_) {
    if (!t.takes_input) continue;
    if (t.terminal && in.rows > 0 && in.cols > 0 && t.out.fd >= 0) {
      winsize size{};
      size.ws_row = in.rows;
      size.ws_col = in.cols;
      ::ioctl(t.out.fd, TIOCSWINSZ, &size);  // the kernel tells the task with SIGWINCH
    }
    bool wanted = t.in_fd >= 0 || (launching_ && t.pid < 0 && !aborted_);
    if (!wanted || t.in_ended) continue;
    t.in_pending += in.data;
    t.in_ended = in.eof;
    if (t.in_fd >= 0) write_input(t);
  }
  settle_input();
}

/// Writes what the pipe takes now; closes the task's stdin once its input ended and is written,
/// or when the task will read no more (EPIPE: it exited or closed its stdin).
void step_tasks::write_input(task_state& t) {
  while (!t.in_pending.empty()) {
    auto n = ::write(t.in_fd, t.in_pending.data(), t.in_pending.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) {
      t.in_pending.clear();
      t.in_ended = true;
      break;
    }
    t.in_pending.erase(0, static_cast<size_t>(n));
  }
  if (t.in_ended) close_fd(t.in_fd);
}

/// Reports the input chunks taken once no input task has much of them left to write.
void step_tasks::settle_input() {
  if (inputs_owed_ == 0 || host_ == nullptr) return;
  for (auto& t : tasks_)
    if (t.in_pending.size() >= input_low_water) return;
  auto taken = inputs_owed_;
  inputs_owed_ = 0;
  host_->on_input_taken(taken);
}

}  // namespace shoal::process

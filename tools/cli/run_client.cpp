#include "tools/cli/run_client.hpp"

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "messages/errc.hpp"
#include "messages/front_door.hpp"
#include "runtime/bootstrap/shutdown.hpp"

namespace shoal::cli {

namespace {

using clock = std::chrono::steady_clock;

/// How long after its end a job's nodes may still report their tasks.
constexpr auto last_reports = std::chrono::seconds{1};
/// Standard input goes out in chunks of at most this many bytes...
constexpr size_t input_chunk = 64 * 1024;
/// ...with at most this many unanswered at a time, which bounds what waits anywhere on its way.
constexpr int input_window = 4;

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    auto n = ::write(fd, data, size);
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void note(const std::string& text) {
  // srun's notes start with its name ("srun: error: ..."), shoal run's with "shoal".
  auto line = program_name() + ": " + text + "\n";
  write_all(2, line.data(), line.size());
}

/// srun's "srun: ..." lines (-v).
void say(const std::string& text) {
  auto line = "srun: " + text + "\n";
  write_all(2, line.data(), line.size());
}

/// "0-1,3" for ranks 0 1 3.
std::string rank_ranges(std::vector<uint32_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

class run_waiter {
 public:
  run_waiter(session& s, msg::job_request req, run_options how)
      : s_(s), req_(std::move(req)), how_(how) {
    is_step_ = req_.job_id != 0;
    const auto& io = req_.io;
    input_open_ = !req_.batch && io.input_file.empty() && !io.input.empty() && io.input != "none";
  }

  ~run_waiter() {
    if (raw_terminal_) ::tcsetattr(0, TCSAFLUSH, &saved_terminal_);
  }
  run_waiter(const run_waiter&) = delete;
  run_waiter& operator=(const run_waiter&) = delete;

  int wait() {
    auto signals = runtime::shutdown_signals();
    if (req_.io.pty) {
      // The window's size changes reach the task's terminal; read here like the others.
      sigaddset(&signals, SIGWINCH);
      sigset_t winch;
      sigemptyset(&winch);
      sigaddset(&winch, SIGWINCH);
      ::pthread_sigmask(SIG_BLOCK, &winch, nullptr);
      enter_raw_mode();
    }
    signal_fd_ = ::signalfd(-1, &signals, SFD_CLOEXEC);
    auto run = msg::make_client_request(msg::client_op::run);
    run.submission = req_;
    auto stream = open_stream(s_, run, false);
    if (!stream) return failed(describe(stream.error()));
    conn_ = std::move(*stream);
    run_request_ = std::move(run);
    if (how_.immediate > 0) give_up_ = clock::now() + std::chrono::seconds{how_.immediate};
    for (;;) {
      if (done_) return code_;
      // Input waits for the submission's answer: only then does the door know this
      // connection's run (and its relay) to pass it to.
      bool want_input =
          input_open_ && job_id_ != 0 && !attaching_ && !lost_at_ && in_flight_ < input_window;
      pollfd fds[3] = {{conn_.fd(), POLLIN, 0}, {signal_fd_, POLLIN, 0}, {0, POLLIN, 0}};
      if (signal_fd_ < 0) fds[1].fd = -1;  // poll skips negative descriptors
      if (!want_input) fds[2].fd = -1;
      int timeout = -1;
      if (finish_by_) {
        auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(*finish_by_ - clock::now());
        timeout = static_cast<int>(std::max<int64_t>(0, left.count()));
      }
      if (give_up_ && !allocated_) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*give_up_ - clock::now());
        if (left.count() <= 0) return not_granted_in_time();
        timeout = timeout < 0 ? static_cast<int>(left.count())
                              : std::min<int>(timeout, static_cast<int>(left.count()));
      }
      int n = ::poll(fds, 3, timeout);
      if (n < 0 && errno != EINTR) return failed(std::string{"poll: "} + std::strerror(errno));
      if (finish_by_ && clock::now() >= *finish_by_) return code_;
      if (n > 0 && signal_fd_ >= 0 && fds[1].revents != 0) on_signal();
      if (n > 0 && want_input && fds[2].revents != 0) forward_input();
      if (n > 0 && fds[0].revents != 0) {
        auto frame = conn_.receive(msg::frame_patience);
        if (!frame) {
          if (!on_connection_lost()) return code_;
          continue;
        }
        on_frame(*frame);
      }
    }
  }

 private:
  int failed(const std::string& why) {
    size_t start = 0;
    for (;;) {
      auto end = why.find('\n', start);
      note("error: " + why.substr(start, end == std::string::npos ? end : end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    done_ = true;
    code_ = 1;
    return code_;
  }

  void finish(int code) {
    done_ = true;
    code_ = code;
  }

  void maybe_finish() {
    if (ended_ && nodes_reported_ >= nodes_expected_) finish(code_);
  }

  // -- what the connection brings --------------------------------------------------------------

  void on_frame(msg::client_reply& frame) {
    switch (static_cast<msg::client_stream>(frame.stream)) {
      case msg::client_stream::reply:
        return on_reply(frame);
      case msg::client_stream::output:
        return print_output(frame.output);
      case msg::client_stream::step_exit:
        return on_step_exit(frame.exited);
      case msg::client_stream::event:
        return on_event(frame.event);
    }
  }

  void on_reply(msg::client_reply& reply) {
    // After the submission's answer, the replies on this connection answer input, in order.
    if (job_id_ != 0 && !attaching_ && in_flight_ > 0) {
      --in_flight_;
      if (reply.error_code != 0 && input_open_) {
        note("error: standard input not forwarded: " + reply.error_text);
        input_open_ = false;
      }
      return;
    }
    if (reply.error_code != 0) {
      auto code = static_cast<errc>(reply.error_code);
      // The line tried first was not (or no longer) in control: find the one that is.
      if (code == errc::not_in_control && job_id_ == 0 && !attaching_) {
        auto stream = open_stream(s_, run_request_, true);
        if (!stream) return (void)failed(describe(stream.error()));
        conn_ = std::move(*stream);
        return;
      }
      if (attaching_ && code != errc::unknown_job && code != errc::permission_denied &&
          code != errc::authentication_failed) {
        conn_ = runtime::front_door_client{};  // try again in a moment
        return (void)on_connection_lost();
      }
      // A new job refused at submission: srun's words for it.
      if (job_id_ == 0 && !is_step_ && !attaching_)
        return (void)failed(before_last_line("Unable to allocate resources: ", reply.error_text));
      return (void)failed(reply.error_text);
    }
    if (reply.jobs.empty()) return;
    const auto& info = reply.jobs.front();
    if (!attaching_) {
      job_id_ = info.job_id;
      if (is_step_) step_id_ = info.step_count;  // a step's reply names the step it started
      if (how_.verbose > 0)
        say(is_step_ ? "launching StepId=" + step_label()
                     : "jobid " + std::to_string(job_id_) + ": submitted");
      return;
    }
    attaching_ = false;
    lost_at_.reset();
    note("reattached to " + what_runs() + " after the controller restarted");
    if (!msg::is_finished(info.state)) return;
    if (is_step_) {
      // The job ended while no controller could tell us: its steps ended with it.
      note("error: job " + std::to_string(info.job_id) + " ended (" + msg::to_string(info.state) +
           ") while the controller was away; step " + step_label() + "'s exit code is unknown");
      return finish(1);
    }
    int code = info.exit_code;
    if (info.state != msg::job_state::completed && code == 0) code = 1;
    if (info.state != msg::job_state::completed && info.state != msg::job_state::failed)
      note("error: job " + std::to_string(info.job_id) + " ended: " + msg::to_string(info.state));
    finish(code);
  }

  void print_output(const msg::task_output& out) {
    int fd = out.stream == msg::stream_kind::err ? 2 : 1;
    if (!req_.label) return write_all(fd, out.data.data(), out.data.size());
    // Under -l every line starts with its rank, as srun -l prints it.
    auto prefix = std::to_string(out.rank) + ": ";
    auto& mid = mid_line_[{out.rank, fd}];
    std::string text;
    for (char c : out.data) {
      if (!mid) text += prefix;
      text += c;
      mid = c != '\n';
    }
    write_all(fd, text.data(), text.size());
  }

  void on_step_exit(const msg::step_exit& ex) {
    ++nodes_reported_;
    if (how_.verbose > 0) report_exit(ex);
    if (!ex.launch_error.empty() && !req_.batch)
      note("error: " + ex.node_name + ": " + ex.launch_error);
    for (auto& t : ex.tasks)
      if (t.signal != 0)
        note("error: " + ex.node_name + ": task " + std::to_string(t.rank) + ": " +
             strsignal(t.signal));
    maybe_finish();
  }

  void on_event(const msg::job_event& ev) {
    auto id = std::to_string(ev.job_id);
    if (ev.kind == "queued") {
      queued_ = true;
      queued_reason_ = ev.text;
      // -I alone: slurmctld refuses at once, and srun never says it waits.
      if (how_.immediate != 1) note("job " + id + " queued and waiting for resources");
    } else if (ev.kind == "allocated") {
      allocated_ = true;
      if (queued_) note("job " + id + " has been allocated resources");
      if (how_.verbose > 0)
        say("jobid " + id + ": nodes(" + std::to_string(ev.node_count) + ")" +
            (ev.nodelist.empty() ? std::string{} : ":`" + ev.nodelist + "'"));
    } else if (ev.kind == "message") {
      note(ev.text);
    } else if (ev.kind == "ended") {
      if (!is_step_ && ev.job_id != job_id_ && job_id_ != 0) return;
      ended_ = true;
      code_ = ev.exit_code;
      // A job that did not complete never reports success, even when no task ran to say so.
      if (!is_step_ && ev.state != msg::job_state::completed && code_ == 0) code_ = 1;
      nodes_expected_ = ev.node_count;
      auto state = ev.state;
      if (!is_step_ && state != msg::job_state::completed && state != msg::job_state::failed)
        note("error: job " + id + " ended: " + msg::to_string(state));
      if (!ev.text.empty() && is_step_)
        note("error: step " + id + "." + std::to_string(ev.step_id) + ": " + ev.text);
      else if (state == msg::job_state::failed && ev.text != msg::to_string(state) &&
               !ev.text.empty())
        note("error: " + ev.text);
      // Output from a node that never reports (it failed) must not hold us forever.
      finish_by_ = clock::now() + last_reports;
      maybe_finish();
    }
  }

  /// srun -v's lines for a node's tasks ending.
  void report_exit(const msg::step_exit& ex) {
    auto step = std::to_string(ex.job_id) + "." + msg::step_label(ex.step_id);
    std::map<std::string, std::vector<uint32_t>> by_outcome;
    int status = 0;
    for (auto& t : ex.tasks) {
      status = std::max(status, t.signal != 0 ? t.signal : t.exit_code << 8);
      by_outcome[t.signal != 0 ? std::string{"Killed by signal "} + std::to_string(t.signal)
                 : t.exit_code ? "Exited with exit code " + std::to_string(t.exit_code)
                               : std::string{"Completed"}]
          .push_back(t.rank);
    }
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%04x", status);
    say("Received task exit notification for " + std::to_string(ex.tasks.size()) + " task" +
        (ex.tasks.size() == 1 ? "" : "s") + " of StepId=" + step + " (status=" + hex + ").");
    for (auto& [outcome, ranks] : by_outcome)
      say(ex.node_name + ": task" + (ranks.size() == 1 ? " " : "s ") + rank_ranges(ranks) + ": " +
          outcome);
  }

  // -- standard input --------------------------------------------------------------------------

  void forward_input() {
    std::string data(input_chunk, '\0');
    auto n = ::read(0, data.data(), data.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    auto chunk = msg::make_client_request(msg::client_op::input);
    chunk.input.job_id = job_id_;
    chunk.input.step_id = step_id_;
    if (n > 0) {
      data.resize(static_cast<size_t>(n));
      chunk.input.data = std::move(data);
    } else {
      // The end (or a stdin that cannot be read): the tasks see their stdin close.
      chunk.input.eof = true;
      input_open_ = false;
    }
    if (how_.verbose > 1)
      say(chunk.input.eof ? "debug: end of input"
                          : "debug: " + std::to_string(n) + " bytes of input to the step");
    send_input(chunk);
  }

  void send_input(const msg::client_request& chunk) {
    if (auto err = conn_.send(chunk, msg::frame_patience)) {
      input_open_ = false;  // the connection's loss shows when it is read next
      return;
    }
    ++in_flight_;
  }

  void enter_raw_mode() {
    if (::isatty(0) == 0 || ::tcgetattr(0, &saved_terminal_) != 0) return;
    termios raw = saved_terminal_;
    ::cfmakeraw(&raw);
    if (::tcsetattr(0, TCSAFLUSH, &raw) == 0) raw_terminal_ = true;
  }

  void on_window_change() {
    winsize size{};
    if (::ioctl(0, TIOCGWINSZ, &size) != 0 || job_id_ == 0 || attaching_ || lost_at_) return;
    auto chunk = msg::make_client_request(msg::client_op::input);
    chunk.input.job_id = job_id_;
    chunk.input.step_id = step_id_;
    chunk.input.rows = size.ws_row;
    chunk.input.cols = size.ws_col;
    send_input(chunk);
  }

  /// "job 12", or "step 12.0" for a step inside a job.
  std::string what_runs() const {
    return is_step_ ? "step " + step_label() : "job " + std::to_string(job_id_);
  }

  std::string step_label() const {
    return std::to_string(job_id_) + "." + msg::step_label(step_id_);
  }

  /// Returns false when the wait is over (code_ set).
  bool on_connection_lost() {
    if (ended_) {
      finish(code_);
      return false;
    }
    // Not answered yet: whether a job (or step) exists is unknown, and sending the request
    // again could start a second step.
    if (job_id_ == 0) {
      failed("lost the connection to the controller");
      return false;
    }
    // What the tasks had not read yet went with the connection; the rest cannot follow it.
    input_open_ = false;
    in_flight_ = 0;
    if (!lost_at_) {
      lost_at_ = clock::now();
      note("lost the connection to the controller; " + what_runs() +
           " keeps running, waiting for the controller to return");
    }
    for (;;) {
      if (clock::now() - *lost_at_ > job_client_patience) {
        failed("the controller did not come back within " + job_client_patience_text() +
               "; giving up on " + what_runs() + " (it may still run: see shoal queue)");
        return false;
      }
      auto attach = msg::make_client_request(msg::client_op::attach);
      attach.job_id = job_id_;
      if (is_step_) attach.step_id = step_id_;
      auto stream = open_stream(s_, attach, true);
      if (stream) {
        conn_ = std::move(*stream);
        attaching_ = true;
        return true;
      }
      ::sleep(1);
    }
  }

  // -- signals ---------------------------------------------------------------------------------

  void on_signal() {
    signalfd_siginfo info{};
    if (::read(signal_fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) return;
    auto signo = static_cast<int32_t>(info.ssi_signo);
    if (signo == SIGWINCH) return on_window_change();
    auto now = clock::now();
    if (signo == SIGINT && how_.quit_on_interrupt) return cancel();
    if (signo == SIGINT && last_interrupt_ && now - *last_interrupt_ < std::chrono::seconds{1})
      return cancel();
    if (signo == SIGINT) {
      last_interrupt_ = now;
      if (!how_.disable_status) note("interrupt (one more within 1 sec to abort)");
    }
    if (job_id_ == 0) return;
    // No tasks yet: an interrupt withdraws the request (srun revokes the allocation).
    if (!allocated_ && !is_step_) return cancel();
    auto sig = msg::make_client_request(msg::client_op::signal);
    sig.job_id = is_step_ ? req_.job_id : job_id_;
    sig.signo = signo;
    if (auto reply = call(s_, sig); !reply) note("error: " + describe(reply.error()));
  }

  /// -I: the allocation did not come in time. The job is given back (a job still pending ends),
  /// and srun says why: slurmctld's words for -I alone, the timeout's (ETIMEDOUT) for -I<SECS>.
  int not_granted_in_time() {
    if (job_id_ != 0) cancel_quietly();
    note("error: Unable to allocate resources: " + (how_.immediate == 1
                                                        ? immediate_refusal(queued_reason_)
                                                        : std::string{"Connection timed out"}));
    return 1;
  }

  void cancel_quietly() {
    auto req = msg::make_client_request(msg::client_op::cancel);
    req.target = std::to_string(job_id_);
    req.uid = static_cast<uint32_t>(::getuid());
    if (auto reply = call(s_, req); !reply) note("error: " + describe(reply.error()));
  }

  void cancel() {
    if (job_id_ == 0) return;
    note("cancelling job " + std::to_string(job_id_));
    cancel_quietly();
  }

  session& s_;
  msg::job_request req_;
  run_options how_;
  bool input_open_ = false;  ///< stdin still goes to the step
  int in_flight_ = 0;        ///< input chunks sent and not yet answered
  bool raw_terminal_ = false;
  termios saved_terminal_{};
  msg::client_request run_request_;
  runtime::front_door_client conn_;
  int signal_fd_ = -1;
  uint64_t job_id_ = 0;   ///< the job, or for a step the job it runs in
  uint32_t step_id_ = 0;  ///< a step: its id in the job
  bool is_step_ = false;
  bool queued_ = false;
  bool allocated_ = false;
  bool ended_ = false;
  bool done_ = false;
  bool attaching_ = false;
  uint32_t nodes_expected_ = 0;
  uint32_t nodes_reported_ = 0;
  int code_ = 0;
  std::map<std::pair<int32_t, int>, bool> mid_line_;  ///< (rank, fd) -> last chunk lacked '\n'
  std::optional<clock::time_point> finish_by_;
  std::optional<clock::time_point> lost_at_;
  std::optional<clock::time_point> last_interrupt_;
  std::optional<clock::time_point> give_up_;  ///< -I: when a job not yet allocated is given back
  std::string queued_reason_;                 ///< why the scheduler keeps it waiting
};

}  // namespace

int run_and_wait(session& s, msg::job_request req, run_options how) {
  run_waiter waiter{s, std::move(req), how};
  return waiter.wait();
}

}  // namespace shoal::cli

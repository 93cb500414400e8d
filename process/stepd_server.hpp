#pragma once

// shoal-stepd's heart: one job step's tasks (step_tasks) plus the unix socket shoald talks to it
// through. Lives in its own process, detached from shoald, so a step outlives a restart (or a
// kill -9) of the node daemon; see actors/shepherd.hpp for the whole story.

#include <poll.h>
#include <sys/types.h>

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "process/mpi_server.hpp"
#include "process/step_tasks.hpp"
#include "process/stepd_exchange.hpp"
#include "process/stepd_wire.hpp"

namespace shoal::process {

/// What a step daemon needs besides its setup.
struct stepd_options {
  msg::stepd_setup setup;
  task_env_settings env;  ///< what the node adds to every task's environment
  /// Output held for shoald beyond this many bytes stops the reading of the tasks' pipes (the
  /// tasks then block on a full pipe rather than lose output).
  size_t max_buffered = 4u << 20;
};

/// The socket side of a step daemon. The protocol (process/stepd_wire.hpp): every connection
/// starts with a hello. The first connection to attach is the one the step reports to: it
/// gets the output not yet delivered, in order, then, once the tasks ended, the step_exit. A
/// connection that never attaches (a probe: a scan, a duplicate check) only gets the hello; one
/// that attaches while another reports takes over when that one closes (a new shoald, once the
/// old one's connection is gone). Frames in, from any connection: signal (to every task's
/// process group), kill (SIGKILL all), input (for the input tasks, each answered with an
/// input_taken frame to the reporting connection once written); from the reporting one: ack (of the
/// exit: the socket is removed and run() returns). SIGTERM or SIGINT to the process kill the tasks
/// and end it without waiting for an ack; so does, once the tasks ended, finding its socket file
/// gone (checked every 10 s: nobody could reach it any more).
class stepd_server final : public step_host {
 public:
  /// Listens on `opt.setup.socket_path`, first removing a stale socket there (one nobody
  /// accepts on). Errors: errc::invalid_request when a live process listens there already (the
  /// same step runs twice), errc::system_error naming the call and the path otherwise.
  static shoal::expected<std::unique_ptr<stepd_server>> listen(stepd_options opt);

  ~stepd_server() override;

  /// Runs the step, then serves connections until one acknowledges the step's exit (or a
  /// SIGTERM came); removes the socket and returns the exit.
  msg::step_exit run();

  // -- step_host --
  void on_output(msg::task_output out) override;
  bool output_paused() const override;
  void add_fds(std::vector<pollfd>& fds) override;
  void handle_fds(const pollfd* fds, size_t count) override;
  void on_input_taken(size_t count) override;

 private:
  stepd_server(stepd_options opt, int listen_fd, int signal_fd);

  /// One connected shoald (or a probe).
  struct connection {
    int fd = -1;
    frame_reader reader;
    std::string hello;      ///< the rest of its hello, written before anything else
    bool attached = false;  ///< asked for the step's output and exit
  };

  void accept_client();
  void drop(size_t index, const char* why);
  void read_from(size_t index);
  void on_frame(size_t index, const msg::stepd_frame& frame);
  /// The index of the connection the step reports to (the first to attach, until it goes);
  /// conns_.size() when none.
  size_t reporter() const;
  void flush();
  bool wants_write(size_t index) const;
  void on_termination_signal();
  /// The socket file is still the one we bound (not removed, not replaced).
  bool socket_still_ours() const;
  std::string hello_frame() const;

  /// With --mpi=pmi2|pmix: the step's all-gather, its scratch directory and its PMI server
  /// (the server fails the step's launch when it cannot start).
  void start_pmi_server();
  void queue_frame(const msg::stepd_frame& frame);

  stepd_options opt_;
  step_tasks tasks_;
  std::unique_ptr<stepd_exchange> exchange_;
  std::string scratch_dir_;  ///< removed with its contents when the step daemon ends
  std::unique_ptr<mpi_server> pmi_;
  size_t own_fds_ = 0;  ///< how many descriptors add_fds put first (listener, signals, clients)
  int listen_fd_ = -1;
  int signal_fd_ = -1;  ///< SIGTERM/SIGINT, read through signalfd
  /// In order of arrival.
  std::vector<connection> conns_;
  int reporter_fd_ = -1;            ///< the connection the step reports to; -1: none attached
  std::deque<std::string> outbox_;  ///< output frames not yet written whole
  size_t front_written_ = 0;        ///< bytes of outbox_.front() written to the reporter
  size_t outbox_bytes_ = 0;
  std::string exit_frame_;   ///< empty until the tasks ended
  size_t exit_written_ = 0;  ///< bytes of exit_frame_ written to the reporter
  dev_t socket_dev_ = 0;     ///< identity of the socket file we bound
  ino_t socket_ino_ = 0;
  bool acked_ = false;
  bool terminating_ = false;
};

}  // namespace shoal::process

#include "process/stepd_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "config/log.hpp"
#include "messages/errc.hpp"
#include "process/task_launch.hpp"

namespace shoal::process {

namespace {

shoal::error system_error(const std::string& call, const std::string& path, int err) {
  return shoal::error(errc::system_error, call + "(" + path + "): " + errno_text(err));
}

/// A blocking connect to a socket path: 0, or the errno.
int probe_listener(const sockaddr_un& addr) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  int err = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 ? 0 : errno;
  ::close(fd);
  return err;
}

/// Once the step ended, how often an unacknowledged daemon checks its socket is still there.
constexpr std::chrono::seconds reachability_check{10};

std::vector<topology::core_info> to_cores(const std::vector<msg::stepd_core>& in) {
  std::vector<topology::core_info> out;
  out.reserve(in.size());
  for (auto& c : in) out.push_back(topology::core_info{c.socket, c.numa_node, c.pus});
  return out;
}

/// The step's use on this node, as StepExit carries it; `req` is the step's launch here.
msg::step_usage to_wire(const usage_figures& u, const std::string& node,
                        const msg::launch_request& req) {
  msg::step_usage out;
  out.user_cpu_us = u.user_cpu_us;
  out.system_cpu_us = u.system_cpu_us;
  out.max_rss_bytes = u.max_rss_bytes;
  out.max_rss_node = node;
  out.max_rss_task = u.max_rss_rank;
  out.ave_rss_bytes = u.ave_rss_bytes;
  out.max_vsize_bytes = u.max_vsize_bytes;
  out.max_vsize_node = node;
  out.read_bytes = u.read_bytes;
  out.written_bytes = u.written_bytes;
  out.samples = u.sample_count;
  // CPU is measured per node, not per task: a node's tasks share its figure evenly.
  out.tasks = req.batch ? 1 : static_cast<uint32_t>(req.ranks.size());
  if (out.tasks != 0) {
    out.min_cpu_us = (u.user_cpu_us + u.system_cpu_us) / out.tasks;
    out.min_cpu_node = node;
    out.min_cpu_task = req.batch || req.ranks.empty() ? 0 : static_cast<int32_t>(req.ranks.front());
  }
  return out;
}

}  // namespace

shoal::expected<std::unique_ptr<stepd_server>> stepd_server::listen(stepd_options opt) {
  const auto& path = opt.setup.socket_path;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    return shoal::error(errc::system_error,
                        "step socket path of " + std::to_string(path.size()) + " bytes (at most " +
                            std::to_string(sizeof addr.sun_path - 1) + "): " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return system_error("socket", path, errno);
  auto bind_once = [&] {
    return ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 ? 0 : errno;
  };
  int err = bind_once();
  if (err == EADDRINUSE) {
    // A socket file left by a step daemon that died; unless somebody still accepts on it. The
    // one that ran this step before a requeue may still be on its way out (it reported the
    // step's end, then tears down): give it a few seconds to close before refusing.
    int probe = probe_listener(addr);
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (probe == 0 && std::chrono::steady_clock::now() < give_up) {
      ::usleep(50'000);
      probe = probe_listener(addr);
    }
    if (probe == 0) {
      ::close(fd);
      return shoal::error(errc::invalid_request,
                          "job " + std::to_string(opt.setup.request.job_id) + " step " +
                              msg::step_label(opt.setup.request.step_id) +
                              " already runs here (a shoal-stepd listens on " + path + ")");
    }
    ::unlink(path.c_str());
    err = bind_once();
  }
  if (err != 0) {
    ::close(fd);
    return system_error("bind", path, err);
  }
  if (::listen(fd, 8) != 0) {
    err = errno;
    ::close(fd);
    ::unlink(path.c_str());
    return system_error("listen", path, err);
  }
  // SIGTERM and SIGINT arrive as readable data, in the poll loop like everything else.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  ::sigprocmask(SIG_BLOCK, &mask, nullptr);
  int sfd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) {
    err = errno;
    ::close(fd);
    ::unlink(path.c_str());
    return system_error("signalfd", path, err);
  }
  return std::unique_ptr<stepd_server>{new stepd_server(std::move(opt), fd, sfd)};
}

stepd_server::stepd_server(stepd_options opt, int listen_fd, int signal_fd)
    : opt_(std::move(opt)),
      tasks_(opt_.setup.request, opt_.setup.node_name, to_cores(opt_.setup.cores), opt_.env),
      listen_fd_(listen_fd),
      signal_fd_(signal_fd) {
  tasks_.use_task_scripts({opt_.setup.task_prolog, opt_.setup.task_epilog,
                           std::chrono::seconds{opt_.setup.script_timeout_s}});
  start_pmi_server();
  struct stat st {};
  if (::stat(opt_.setup.socket_path.c_str(), &st) == 0) {
    socket_dev_ = st.st_dev;
    socket_ino_ = st.st_ino;
  }
}

void stepd_server::start_pmi_server() {
  const auto& req = tasks_.request();
  if (req.batch || !wants_pmi_server(req.io.mpi)) return;
  // Written by the next flush, as input_taken frames are: a join may be sent from inside a read.
  exchange_ = std::make_unique<stepd_exchange>(
      req, [this](const msg::stepd_frame& frame) { queue_frame(frame); });
  // A directory of the step's own for the server's sockets, where the ranks (the step's user)
  // can reach them: the spool directory is root's alone. mkdtemp fills in the XXXXXX.
  std::string tmpl = "/tmp/shoal-pmi.job" + std::to_string(req.job_id) + ".step" +
                     msg::step_label(req.step_id) + ".XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr)
    return tasks_.refuse("mkdtemp(" + tmpl + "): " + errno_text(errno));
  scratch_dir_ = tmpl;
  if (::geteuid() == 0 && req.uid != 0 && ::chown(scratch_dir_.c_str(), req.uid, req.gid) != 0)
    return tasks_.refuse("chown(" + scratch_dir_ + "): " + errno_text(errno));
  mpi_step step;
  step.request = &req;
  step.node_name = tasks_.node_name();
  step.exchange = exchange_.get();
  step.scratch_dir = scratch_dir_;
  step.report = [this](uint32_t rank, const std::string& text) { tasks_.report(rank, text); };
  step.abort = [this](uint32_t rank, const std::string& why) { tasks_.abort(rank, why); };
  step.spread_abort = [this](const std::string& why) { exchange_->announce_abort(why); };
  auto server = make_mpi_server(std::move(step));
  if (!server) return tasks_.refuse("--mpi=" + req.io.mpi + ": " + describe(server.error()));
  pmi_ = std::move(*server);
  tasks_.use_mpi(pmi_.get());
}

bool stepd_server::socket_still_ours() const {
  struct stat st {};
  return ::stat(opt_.setup.socket_path.c_str(), &st) == 0 && st.st_dev == socket_dev_ &&
         st.st_ino == socket_ino_;
}

stepd_server::~stepd_server() {
  pmi_.reset();
  if (!scratch_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(scratch_dir_, ignored);
  }
  for (auto& c : conns_) close_fd(c.fd);
  close_fd(signal_fd_);
  if (listen_fd_ >= 0) {
    close_fd(listen_fd_);
    ::unlink(opt_.setup.socket_path.c_str());
  }
}

msg::step_exit stepd_server::run() {
  auto done = tasks_.run(*this);
  done.usage = to_wire(tasks_.final_usage(), done.node_name, tasks_.request());
  auto frame = make_frame(frame_kind::exit);
  frame.exit = done;
  exit_frame_ = encode_frame(frame);
  exit_written_ = 0;
  flush();
  std::vector<pollfd> fds;
  while (!acked_ && !terminating_) {
    fds.clear();
    add_fds(fds);
    if (::poll(fds.data(), fds.size(), static_cast<int>(reachability_check.count())) > 0) {
      handle_fds(fds.data(), fds.size());
    } else if (!socket_still_ours()) {
      // Someone removed the spool directory (or put another socket in our place): no shoald
      // can ever reach us again to take the exit.
      config::log().warn("stepd unreachable, exiting without a report job={} step={} socket={}",
                         tasks_.request().job_id, msg::step_label(tasks_.request().step_id),
                         opt_.setup.socket_path);
      close_fd(listen_fd_);
      return done;
    }
  }
  // Nothing is left to tell: the socket goes first, so no new shoald connects to a dying step.
  ::unlink(opt_.setup.socket_path.c_str());
  close_fd(listen_fd_);
  for (auto& c : conns_) close_fd(c.fd);
  conns_.clear();
  return done;
}

// -- step_host ----------------------------------------------------------------

void stepd_server::on_output(msg::task_output out) {
  auto frame = make_frame(frame_kind::output);
  frame.output = std::move(out);
  queue_frame(frame);
  flush();
}

void stepd_server::queue_frame(const msg::stepd_frame& frame) {
  outbox_.push_back(encode_frame(frame));
  outbox_bytes_ += outbox_.back().size();
}

void stepd_server::on_input_taken(size_t count) {
  // In line with the output: small, and bounded by what the sender may have outstanding.
  auto frame = encode_frame(make_frame(frame_kind::input_taken));
  for (size_t i = 0; i < count; ++i) {
    outbox_.push_back(frame);
    outbox_bytes_ += frame.size();
  }
  // Written by the next flush: this may run inside read_from, where a write that fails would drop
  // the connection being read.
}

bool stepd_server::output_paused() const {
  return outbox_bytes_ >= opt_.max_buffered;
}

void stepd_server::add_fds(std::vector<pollfd>& fds) {
  fds.push_back(pollfd{listen_fd_, POLLIN, 0});
  fds.push_back(pollfd{signal_fd_, POLLIN, 0});
  for (size_t i = 0; i < conns_.size(); ++i)
    fds.push_back(
        pollfd{conns_[i].fd, static_cast<short>(POLLIN | (wants_write(i) ? POLLOUT : 0)), 0});
  own_fds_ = 2 + conns_.size();
  if (exchange_) fds.push_back(pollfd{exchange_->wake_fd(), POLLIN, 0});
  if (pmi_) pmi_->add_fds(fds);
}

void stepd_server::handle_fds(const pollfd* fds, size_t count) {
  auto own = std::min(count, own_fds_);
  if (exchange_ && own < count) {
    if (fds[own].revents != 0) exchange_->deliver();
    if (pmi_) pmi_->handle_fds(fds + own + 1, count - own - 1);
  }
  // The same order as add_fds. Connections may go while we serve them: find each by its fd.
  for (size_t k = 2; k < own; ++k) {
    if (fds[k].revents == 0) continue;
    auto it = std::find_if(conns_.begin(), conns_.end(),
                           [&](const connection& c) { return c.fd == fds[k].fd; });
    if (it == conns_.end()) continue;
    auto index = static_cast<size_t>(it - conns_.begin());
    if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) read_from(index);
  }
  flush();
  if (own > 1 && fds[1].revents != 0) on_termination_signal();
  if (own > 0 && fds[0].revents != 0) accept_client();
}

// -- connections --------------------------------------------------------------

void stepd_server::accept_client() {
  int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) return;  // EAGAIN, or a client that gave up already
  connection c;
  c.fd = fd;
  c.hello = hello_frame();
  conns_.push_back(std::move(c));
  SHOAL_DEBUG(steps, "stepd client connected job={} step={} connections={}",
              tasks_.request().job_id, msg::step_label(tasks_.request().step_id), conns_.size());
  flush();
}

size_t stepd_server::reporter() const {
  for (size_t i = 0; i < conns_.size(); ++i)
    if (conns_[i].fd == reporter_fd_) return i;
  return conns_.size();
}

void stepd_server::drop(size_t index, const char* why) {
  SHOAL_DEBUG(steps, "stepd client gone job={} step={} why=\"{}\"", tasks_.request().job_id,
              msg::step_label(tasks_.request().step_id), why);
  bool was_reporting = conns_[index].fd == reporter_fd_;
  close_fd(conns_[index].fd);
  conns_.erase(conns_.begin() + static_cast<std::ptrdiff_t>(index));
  if (!was_reporting) return;
  // The next attached connection, in order of arrival, reports from now on. What the gone one
  // got of the first frame is lost with it: that frame goes out whole.
  reporter_fd_ = -1;
  for (auto& c : conns_)
    if (c.attached) {
      reporter_fd_ = c.fd;
      break;
    }
  front_written_ = 0;
  exit_written_ = 0;
}

void stepd_server::read_from(size_t index) {
  char buf[4096];
  for (;;) {
    auto n = ::read(conns_[index].fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) return drop(index, n == 0 ? "closed" : "read failed");
    conns_[index].reader.feed(buf, static_cast<size_t>(n));
    for (;;) {
      msg::stepd_frame frame;
      auto got = conns_[index].reader.next(frame);
      if (!got) {
        config::log().warn("stepd dropped a client job={} step={}: {}", tasks_.request().job_id,
                           msg::step_label(tasks_.request().step_id), shoal::describe(got.error()));
        return drop(index, "malformed frame");
      }
      if (!*got) break;
      on_frame(index, frame);
    }
  }
}

void stepd_server::on_frame(size_t index, const msg::stepd_frame& frame) {
  switch (kind_of(frame)) {
    case frame_kind::attach:
      conns_[index].attached = true;
      if (reporter_fd_ < 0) {
        // Nobody reports: it does, from the first frame not yet written whole.
        reporter_fd_ = conns_[index].fd;
        front_written_ = 0;
        exit_written_ = 0;
      }
      break;
    case frame_kind::signal:
      SHOAL_DEBUG(steps, "stepd signal job={} step={} signal={}", tasks_.request().job_id,
                  msg::step_label(tasks_.request().step_id), frame.signo);
      tasks_.signal(frame.signo);
      break;
    case frame_kind::kill:
      tasks_.kill_all();
      break;
    case frame_kind::input:
      // Once the tasks ended nobody reads it: taken at once, so the sender is not held up.
      if (exit_frame_.empty())
        tasks_.add_input(frame.input);
      else
        on_input_taken(1);
      break;
    case frame_kind::exchange_result:
      if (exchange_) exchange_->on_result(frame.exchange);
      break;
    case frame_kind::usage_request:
      // Once the tasks ended, the exit frame carries the final figures instead.
      if (exit_frame_.empty()) {
        tasks_.sample_usage_now();
        auto reply = make_frame(frame_kind::usage);
        reply.usage = to_wire(tasks_.usage(), tasks_.node_name(), tasks_.request());
        queue_frame(reply);
      }
      break;
    case frame_kind::ack:
      // Only the connection that got the exit can have seen it.
      if (index == reporter() && !exit_frame_.empty() && exit_written_ == exit_frame_.size())
        acked_ = true;
      break;
    default:
      break;  // stepd's own kinds, or a newer peer's: nothing to do
  }
}

bool stepd_server::wants_write(size_t index) const {
  if (!conns_[index].hello.empty()) return true;
  if (index != reporter()) return false;
  return !outbox_.empty() || (!exit_frame_.empty() && exit_written_ < exit_frame_.size());
}

/// Writes what the sockets take now: each connection's hello, then, to the reporter, the output
/// and the exit in order.
void stepd_server::flush() {
  // false when the connection's socket is full or the connection is gone (`dropped` set).
  auto write_some = [&](size_t index, const std::string& bytes, size_t& written, bool& dropped) {
    while (written < bytes.size()) {
      auto n = ::send(conns_[index].fd, bytes.data() + written, bytes.size() - written,
                      MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
      if (n < 0) {
        drop(index, "write failed");
        dropped = true;
        return false;
      }
      written += static_cast<size_t>(n);
    }
    return true;
  };
  for (size_t i = 0; i < conns_.size();) {
    bool dropped = false;
    auto& hello = conns_[i].hello;
    if (!hello.empty()) {
      size_t written = 0;
      write_some(i, hello, written, dropped);
      if (dropped) continue;  // conns_[i] is the next connection now
      hello.erase(0, written);
    }
    ++i;
  }
  auto to = reporter();
  if (to == conns_.size() || !conns_[to].hello.empty()) return;
  bool dropped = false;
  while (!outbox_.empty()) {
    if (!write_some(to, outbox_.front(), front_written_, dropped)) {
      // A dropped reporter hands over to the next attached connection.
      if (dropped) flush();
      return;
    }
    outbox_bytes_ -= outbox_.front().size();
    outbox_.pop_front();
    front_written_ = 0;
  }
  if (!exit_frame_.empty() && !write_some(to, exit_frame_, exit_written_, dropped) && dropped)
    flush();
}

void stepd_server::on_termination_signal() {
  signalfd_siginfo info{};
  while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    config::log().info("stepd terminated job={} step={} signal={}", tasks_.request().job_id,
                       msg::step_label(tasks_.request().step_id), info.ssi_signo);
    terminating_ = true;
    tasks_.kill_all();
  }
}

std::string stepd_server::hello_frame() const {
  auto frame = make_frame(frame_kind::hello);
  frame.hello.request = tasks_.request();
  frame.hello.tasks_running = exit_frame_.empty();
  frame.hello.pid = static_cast<int32_t>(::getpid());
  frame.hello.node_name = tasks_.node_name();
  return encode_frame(frame);
}

}  // namespace shoal::process

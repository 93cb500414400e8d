#include "test/integration/harness.hpp"

#include "runtime/bootstrap/temp_dir.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <httplib.h>
#include <boost/test/results_collector.hpp>

#include "messages/caf/error.hpp"
#include "metrics/text_parser.hpp"

extern char** environ;

namespace shoal::test {

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

[[noreturn]] void fail_setup(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

/// The environment a child gets: ours without SHOAL_*, then `extra` (later entries win).
std::vector<std::string> child_environment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "SHOAL_", 6) != 0) env.emplace_back(*e);
  for (auto& [key, value] : extra) {
    auto prefix = key + "=";
    env.erase(std::remove_if(env.begin(), env.end(),
                             [&](const std::string& entry) { return entry.rfind(prefix, 0) == 0; }),
              env.end());
    env.push_back(prefix + value);
  }
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (auto& s : items) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int decode_status(int status) {
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

/// Appends what is readable on `fd` to `sink`; closes `fd` at end of stream.
void drain(int& fd, std::string& sink) {
  char buf[4096];
  auto n = ::read(fd, buf, sizeof buf);
  if (n > 0)
    sink.append(buf, static_cast<size_t>(n));
  else if (n == 0 || (errno != EINTR && errno != EAGAIN))
    close_fd(fd);
}

/// A polling command: a hung one must not use up the caller's whole wait.
command_options poll_options() {
  command_options opt;
  opt.timeout = 20s;
  return opt;
}

/// The last `count` lines of a file, for a failed test's report.
std::string tail_of(const std::string& path, size_t count) {
  auto all = lines_of(read_file(path));
  std::string out;
  for (size_t i = all.size() > count ? all.size() - count : 0; i < all.size(); ++i)
    out += "    " + all[i] + "\n";
  return out;
}

}  // namespace

// -- processes ------------------------------------------------------------------------------------

std::string command_result::describe() const {
  std::ostringstream s;
  s << "exit=" << exit_code << (timed_out ? " (timed out)" : "") << " after " << elapsed.count()
    << " s\n--- stdout ---\n"
    << out << "--- stderr ---\n"
    << err;
  return s.str();
}

child_process::child_process(const std::vector<std::string>& argv, const command_options& opt) {
  // Writing to a child that already exited must not kill the test.
  std::signal(SIGPIPE, SIG_IGN);
  int in[2];
  int out[2];
  int err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) fail_setup("pipe");
  if (::pipe2(out, O_CLOEXEC) != 0) fail_setup("pipe");
  if (::pipe2(err, O_CLOEXEC) != 0) fail_setup("pipe");
  // Everything the child needs is built before fork: after it, only exec-safe calls.
  auto args = argv;
  auto arg_ptrs = c_strings(args);
  auto env = child_environment(opt.env);
  auto env_ptrs = c_strings(env);
  input_ = opt.input.value_or("");
  bool has_input = opt.input.has_value();
  start_ = clock_type::now();
  deadline_ = start_ + opt.timeout;
  pid_ = ::fork();
  if (pid_ < 0) fail_setup("fork");
  if (pid_ == 0) {
    ::setpgid(0, 0);
    if (has_input) {
      ::dup2(in[0], 0);
    } else {
      int devnull = ::open("/dev/null", O_RDONLY);
      ::dup2(devnull, 0);
    }
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    if (!opt.cwd.empty() && ::chdir(opt.cwd.c_str()) != 0) {
      dprintf(2, "chdir %s: %s\n", opt.cwd.c_str(), std::strerror(errno));
      ::_exit(127);
    }
    ::signal(SIGPIPE, SIG_DFL);
    // A bare name is looked up in this process's PATH.
    ::execvpe(arg_ptrs[0], arg_ptrs.data(), env_ptrs.data());
    dprintf(2, "exec %s: %s\n", arg_ptrs[0], std::strerror(errno));
    ::_exit(127);
  }
  // Also from here, so a kill of the group right after fork cannot miss the child.
  ::setpgid(pid_, pid_);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  in_fd_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  if (!has_input) close_fd(in_fd_);
  if (in_fd_ >= 0) ::fcntl(in_fd_, F_SETFL, O_NONBLOCK);
}

child_process::~child_process() {
  if (!reaped_ && pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close_fd(in_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
}

command_result child_process::finish() {
  command_result r;
  if (in_fd_ >= 0 && input_.empty()) close_fd(in_fd_);
  size_t written = 0;
  while (out_fd_ >= 0 || err_fd_ >= 0) {
    auto left = std::chrono::duration_cast<millis>(deadline_ - clock_type::now()).count();
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    int* owners[3];
    auto watch = [&](int& fd, short events) {
      if (fd < 0) return;
      fds[n] = {fd, events, 0};
      owners[n++] = &fd;
    };
    watch(out_fd_, POLLIN);
    watch(err_fd_, POLLIN);
    watch(in_fd_, POLLOUT);
    if (::poll(fds, n, static_cast<int>(std::min<long long>(left, 200))) < 0 && errno != EINTR)
      break;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      int& fd = *owners[i];
      if (&fd == &in_fd_) {
        auto k = ::write(fd, input_.data() + written, input_.size() - written);
        if (k > 0) written += static_cast<size_t>(k);
        if (k < 0 && errno != EAGAIN && errno != EINTR) close_fd(in_fd_);
        if (written == input_.size()) close_fd(in_fd_);
      } else {
        drain(fd, &fd == &out_fd_ ? r.out : r.err);
      }
    }
  }
  close_fd(in_fd_);
  // The streams closed (or time ran out); wait for the exit within what is left of the deadline.
  int status = 0;
  while (!r.timed_out) {
    auto got = ::waitpid(pid_, &status, WNOHANG);
    if (got == pid_) {
      reaped_ = true;
      r.exit_code = decode_status(status);
      break;
    }
    if (got < 0 && errno != EINTR) break;
    if (clock_type::now() >= deadline_) {
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(5ms);
  }
  if (r.timed_out) {
    ::kill(-pid_, SIGKILL);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    r.exit_code = -1;
    // Keep what it printed before it hung; the pipes may hold a little more.
    for (int* fd : {&out_fd_, &err_fd_}) {
      if (*fd < 0) continue;
      ::fcntl(*fd, F_SETFL, O_NONBLOCK);
      for (int i = 0; i < 64 && *fd >= 0; ++i) drain(*fd, fd == &out_fd_ ? r.out : r.err);
    }
  }
  close_fd(out_fd_);
  close_fd(err_fd_);
  r.elapsed = clock_type::now() - start_;
  return r;
}

command_result run_command(const std::vector<std::string>& argv, const command_options& opt) {
  return child_process{argv, opt}.finish();
}

bool wait_until(const std::function<bool()>& pred, millis timeout) {
  auto deadline = clock_type::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (clock_type::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
}

// -- files and ports ------------------------------------------------------------------------------

std::string bin_path(const std::string& name) {
  return std::string{SHOAL_BIN_DIR} + "/" + name;
}

std::string data_path(const std::string& relative) {
  return std::string{SHOAL_TEST_DATA} + "/" + relative;
}

scratch_dir::scratch_dir() {
  auto dir = shoal::runtime::make_temp_dir("shoal-it");
  if (!dir) fail_setup("mkdtemp");
  path_ = std::move(*dir);
}

scratch_dir::~scratch_dir() {
  std::error_code ec;
  if (!keep_) fs::remove_all(path_, ec);
}

std::string write_file(const std::string& path, const std::string& text, bool executable) {
  {
    std::ofstream out{path, std::ios::trunc};
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
  }
  if (executable)
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  return path;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string local_hostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string read_file(const std::string& path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> allreduce_lines(int ranks) {
  std::vector<std::string> lines;
  int sum = ranks * (ranks - 1) / 2;
  for (int rank = 0; rank < ranks; ++rank)
    lines.push_back("rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " sum " +
                    std::to_string(sum));
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in{text};
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

std::string test_auth_config() {
  const char* socket = std::getenv("SHOAL_TEST_MUNGE_SOCKET");
  if (socket == nullptr || *socket == '\0') return "";
  return std::string{"AuthType=auth/munge\nAuthInfo=socket="} + socket + "\n";
}

uint16_t free_port() {
  auto port = shoal::runtime::free_loopback_port();
  if (!port) fail_setup("bind");
  return *port;
}

bool current_test_passed() {
  auto id = boost::unit_test::framework::current_test_case().p_id;
  return boost::unit_test::results_collector.results(id).passed();
}

daemon_process::daemon_process(const std::vector<std::string>& argv, const std::string& log) {
  auto args = argv;
  auto arg_ptrs = c_strings(args);
  auto env = child_environment({});
  auto env_ptrs = c_strings(env);
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail_setup("open " + log);
  auto parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) fail_setup("fork");
  if (pid_ == 0) {
    ::setpgid(0, 0);
    // Dies with the test even when the test crashes.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execve(arg_ptrs[0], arg_ptrs.data(), env_ptrs.data());
    dprintf(2, "exec %s: %s\n", arg_ptrs[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(fd);
}

daemon_process::~daemon_process() {
  if (reaped_ || pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  auto deadline = clock_type::now() + 5s;
  int status = 0;
  for (;;) {
    auto got = ::waitpid(pid_, &status, WNOHANG);
    if (got == pid_ || (got < 0 && errno != EINTR)) return;
    if (clock_type::now() >= deadline) break;
    std::this_thread::sleep_for(10ms);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
}

bool daemon_process::running() {
  if (reaped_) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) reaped_ = true;
  return !reaped_;
}

void daemon_process::kill_now() {
  if (reaped_ || pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
}

// -- CLI answers ----------------------------------------------------------------------------------

nlohmann::json parse_json(const std::string& text) {
  return nlohmann::json::parse(text, nullptr, false);
}

uint64_t submitted_job_id(const std::string& out) {
  static const std::string prefix = "Submitted batch job ";
  auto at = out.find(prefix);
  if (at == std::string::npos) return 0;
  return std::strtoull(out.c_str() + at + prefix.size(), nullptr, 10);
}

command_result run_shoal(const std::string& conf, const std::vector<std::string>& args,
                         command_options opt) {
  std::vector<std::string> argv{bin_path("shoal")};
  argv.insert(argv.end(), args.begin(), args.end());
  opt.env.insert(opt.env.begin(), {"SHOAL_CONF", conf});
  return run_command(argv, opt);
}

std::optional<double> metric_value(uint16_t port, const std::string& name) {
  httplib::Client client{"127.0.0.1", port};
  client.set_connection_timeout(5);
  client.set_read_timeout(10);
  auto res = client.Get("/metrics");
  if (!res || res->status != 200) return std::nullopt;
  auto parsed = shoal::metrics::parse_text(res->body);
  if (!parsed) return std::nullopt;
  return parsed->value(name, {});
}

size_t count_lines_with(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (auto& line : lines_of(text)) n += line.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

// -- fixtures -------------------------------------------------------------------------------------

simulated_cluster_fixture::simulated_cluster_fixture(unsigned nodes, unsigned front_ends,
                                                     const std::string& extra_config) {
  if (auto err = cluster.launch_simulated(nodes, front_ends, test_auth_config() + extra_config)) {
    cluster.tear_down(true);
    throw std::runtime_error("cannot launch: " + shoal::describe(err));
  }
  if (auto err = cluster.wait_until_ready(60)) {
    auto dir = cluster.directory();
    cluster.tear_down(true);
    throw std::runtime_error("the simulated cluster did not come up; logs in " + dir);
  }
}

simulated_cluster_fixture::~simulated_cluster_fixture() {
  if (current_test_passed()) return;
  std::cerr << "integration: simulated cluster kept in " << cluster.directory() << "\n";
  cluster.tear_down(true);
}

cluster_fixture::cluster_fixture(unsigned nodes, const std::string& extra_config,
                                 const std::string& node_keys) {
  if (auto err = cluster.launch(nodes, test_auth_config() + extra_config, node_keys)) {
    cluster.tear_down(true);
    throw std::runtime_error("cannot launch the cluster: " + shoal::describe(err));
  }
  conf = cluster.config_path();
  if (auto err = cluster.wait_until_ready(60)) {
    auto dir = cluster.directory();
    cluster.tear_down(true);
    throw std::runtime_error("the cluster did not come up within 60 s; logs in " + dir);
  }
}

cluster_fixture::~cluster_fixture() {
  if (current_test_passed()) return;
  // Keep the evidence: the daemons' logs and the commands' working directory.
  auto dir = cluster.directory();
  cluster.tear_down(true);
  scratch.keep();
  std::cerr << "integration: test failed; cluster files kept in " << dir << ", scratch in "
            << scratch.path() << "\n  shoalctld.log (tail):\n"
            << tail_of(dir + "/shoalctld.log", 15);
}

command_result cluster_fixture::run_cli(const std::vector<std::string>& args, command_options opt) {
  return start_cli(args, std::move(opt))->finish();
}

command_result cluster_fixture::run_as(const passwd* pw, const std::vector<std::string>& args,
                                       const std::string& program) {
  auto cluster_dir = std::filesystem::path{conf}.parent_path();
  ::chmod(cluster_dir.c_str(), 0755);
  ::chmod(conf.c_str(), 0644);
  std::vector<std::string> argv{"setpriv", "--reuid=" + std::to_string(pw->pw_uid),
                                "--regid=" + std::to_string(pw->pw_gid), "--init-groups",
                                bin_path(program)};
  argv.insert(argv.end(), args.begin(), args.end());
  command_options opt;
  opt.cwd = "/";
  opt.env = {{"SHOAL_CONF", conf}};
  return run_command(argv, opt);
}

std::unique_ptr<child_process> cluster_fixture::start_cli(const std::vector<std::string>& args,
                                                          command_options opt) {
  std::vector<std::string> argv{bin_path("shoal")};
  argv.insert(argv.end(), args.begin(), args.end());
  opt.env.insert(opt.env.begin(), {"SHOAL_CONF", conf});
  if (opt.cwd.empty()) opt.cwd = scratch.path();
  return std::make_unique<child_process>(argv, opt);
}

uint64_t cluster_fixture::submit_script(const std::string& name, const std::string& script,
                                        const std::vector<std::string>& options) {
  write_file(scratch.file(name), script, true);
  std::vector<std::string> args{"batch"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back(name);
  auto r = run_cli(args);
  auto id = submitted_job_id(r.out);
  BOOST_CHECK_MESSAGE(r.exit_code == 0 && id != 0, "shoal batch failed: " << r.describe());
  return id;
}

nlohmann::json cluster_fixture::jobs() {
  auto r = run_cli({"queue", "-t", "all", "--json"}, poll_options());
  auto doc = parse_json(r.out);
  if (r.exit_code != 0 || !doc.is_object() || !doc["jobs"].is_array())
    return nlohmann::json::array();
  return doc["jobs"];
}

nlohmann::json cluster_fixture::nodes() {
  auto r = run_cli({"info", "-N", "--json"}, poll_options());
  auto doc = parse_json(r.out);
  if (r.exit_code != 0 || !doc.is_object() || !doc["nodes"].is_array())
    return nlohmann::json::array();
  return doc["nodes"];
}

nlohmann::json job_record(const std::string& conf, uint64_t id) {
  auto doc = parse_json(run_shoal(conf, {"queue", "-t", "all", "--json"}).out);
  if (doc.is_object())
    for (auto& j : doc["jobs"])
      if (j.value("job_id", uint64_t{0}) == id) return j;
  return nullptr;
}

nlohmann::json cluster_fixture::job(uint64_t id) {
  for (auto& j : jobs())
    if (j.value("job_id", uint64_t{0}) == id) return j;
  return nullptr;
}

nlohmann::json cluster_fixture::node(const std::string& name) {
  for (auto& n : nodes())
    if (n.value("name", "") == name) return n;
  return nullptr;
}

std::string cluster_fixture::job_state(uint64_t id) {
  auto j = job(id);
  return j.is_object() ? j.value("state", "") : "";
}

std::string cluster_fixture::node_state(const std::string& name) {
  auto n = node(name);
  return n.is_object() ? n.value("state", "") : "";
}

bool cluster_fixture::wait_job_state(uint64_t id, const std::string& state, millis timeout) {
  std::string last;
  bool ok = wait_until(
      [&] {
        last = job_state(id);
        return last == state;
      },
      timeout);
  if (!ok) BOOST_TEST_MESSAGE("job " << id << " is " << last << ", not " << state);
  return ok;
}

void cluster_fixture::kill_and_restart_node(unsigned index,
                                            const std::vector<std::string>& extra_args) {
  cluster.signal_node(index, SIGKILL);
  // restart_node reaps the killed one first, so the new one never races it for its port.
  auto err = cluster.restart_node(index, extra_args);
  BOOST_REQUIRE_MESSAGE(!err, "restarting shoald " << index << ": " << shoal::describe(err));
}

bool cluster_fixture::wait_node_state(const std::string& name, const std::string& state,
                                      millis timeout) {
  std::string last;
  bool ok = wait_until(
      [&] {
        last = node_state(name);
        return last == state;
      },
      timeout);
  if (!ok) BOOST_TEST_MESSAGE("node " << name << " is " << last << ", not " << state);
  return ok;
}

gpu_files::gpu_files() {
  auto made = shoal::runtime::make_temp_dir("shoal-gpus");
  if (!made)
    throw std::runtime_error("cannot make the GPU files' directory: " +
                             shoal::describe(made.error()));
  dir = *made;
  for (const char* name : {"nvidia0", "nvidia1"}) std::ofstream{dir + "/" + name} << "";
  std::ofstream{dir + "/gres.conf"} << "# the test's two GPUs per node\n"
                                    << "Name=gpu File=" << dir << "/nvidia[0-1]\n";
}

gpu_files::~gpu_files() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

std::string gpu_files::config() const {
  return "SelectType=select/cons_tres\nGresTypes=gpu\nGresConf=" + dir + "/gres.conf\n";
}

command_result run_slurm(cluster_fixture& c, const std::string& name,
                         const std::vector<std::string>& args, std::optional<std::string> input) {
  std::vector<std::string> argv{bin_path("slurm-names/" + name)};
  argv.insert(argv.end(), args.begin(), args.end());
  command_options opt;
  opt.env = {{"SHOAL_CONF", c.conf}};
  opt.cwd = c.scratch.path();
  opt.input = std::move(input);
  return run_command(argv, opt);
}

const passwd* ensure_user(const char* name) {
  if (auto* pw = ::getpwnam(name); pw != nullptr) return pw;
  auto r = run_command({"useradd", "--system", "--no-create-home", "--shell", "/bin/sh", name});
  if (r.exit_code != 0 && r.exit_code != 9) {  // 9: it exists (another test made it meanwhile)
    BOOST_TEST_MESSAGE("useradd failed: " << r.describe());
    return nullptr;
  }
  return ::getpwnam(name);
}

}  // namespace shoal::test

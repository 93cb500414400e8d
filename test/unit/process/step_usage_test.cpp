// A step's resource use from real child processes: CPU that live processes used and that exited
// ones left behind, memory peaks sampled and missed, bytes written; the parsers of the /proc and
// cgroup files against fixed text; and step_tasks sampling a step it runs.

#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "process/memory_guard.hpp"
#include "process/node_usage.hpp"
#include "process/step_tasks.hpp"
#include "process/step_usage.hpp"

using namespace shoal;
using namespace shoal::process;
using namespace std::chrono_literals;

namespace {

constexpr uint64_t mb = 1'000'000;

/// Burns CPU in user mode until this process used `seconds` of it. The clock is a system call
/// (no vDSO for CPU clocks): read rarely, so the time is nearly all user time.
void burn_cpu(double seconds) {
  volatile uint64_t sink = 0;
  timespec ts{};
  do {
    for (uint64_t i = 0; i < 2'000'000; ++i) sink = sink + i;
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  } while (static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9 < seconds);
}

/// A forked child in a process group of its own, as step_tasks starts a task. It runs `body`,
/// then (when `wait_after`) writes a byte to say it is ready and waits to be killed.
struct task_child {
  pid_t pid = -1;
  int ready_fd = -1;

  task_child(const std::function<void()>& body, bool wait_after) {
    int pipe_fds[2];
    BOOST_REQUIRE(::pipe(pipe_fds) == 0);
    pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      ::close(pipe_fds[0]);
      body();
      if (!wait_after) ::_exit(0);
      char byte = 1;
      if (::write(pipe_fds[1], &byte, 1) != 1) ::_exit(1);
      for (;;) ::pause();
    }
    ::setpgid(pid, pid);
    ::close(pipe_fds[1]);
    ready_fd = pipe_fds[0];
  }

  ~task_child() {
    if (pid > 0) {
      ::killpg(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    ::close(ready_fd);
  }

  /// True once the child wrote its byte.
  bool ready() const {
    char byte = 0;
    return ::read(ready_fd, &byte, 1) == 1;
  }

  /// Kills the child's group (when it waits) and reaps the child, as step_tasks does.
  rusage reap(bool kill_first) {
    if (kill_first) ::killpg(pid, SIGKILL);
    rusage used{};
    int status = 0;
    while (::wait4(pid, &status, 0, &used) < 0 && errno == EINTR) {
    }
    pid = -1;
    return used;
  }
};

/// Touches `bytes` of fresh heap memory, so it is resident.
void touch_memory(size_t bytes) {
  auto* block = static_cast<char*>(std::malloc(bytes));
  if (block == nullptr) ::_exit(2);
  std::memset(block, 0x5a, bytes);
  // Kept past the memset, so the compiler cannot drop the block.
  if (block[bytes / 2] != 0x5a) ::_exit(3);
}

/// Precondition: this process may make a memory cgroup (v2 or v1) below its own.
boost::test_tools::assertion_result memory_cgroup_writable(boost::unit_test::test_unit_id) {
  auto root = find_memory_cgroup_root();
  boost::test_tools::assertion_result ok{root.kind != memory_enforcement::sampling};
  ok.message() << "no memory cgroup this process may write: " << to_string(root.kind);
  return ok;
}

bool proc_io_readable() {
  return ::access("/proc/self/io", R_OK) == 0;
}

/// A host that takes the step's output and serves nothing else.
struct quiet_host : step_host {
  std::string out;
  void on_output(msg::task_output chunk) override { out += chunk.data; }
  bool output_paused() const override { return false; }
  void add_fds(std::vector<pollfd>&) override {}
  void handle_fds(const pollfd*, size_t) override {}
  void on_input_taken(size_t) override {}
};

}  // namespace

BOOST_AUTO_TEST_SUITE(step_usage_tests)

// -- real processes --

BOOST_AUTO_TEST_CASE(a_reaped_cpu_burner_counts_its_cpu_from_wait4) {
  step_usage_sampler sampler;
  task_child burner{[] { burn_cpu(2.0); }, false};
  sampler.add_task(burner.pid, 3);
  sampler.sample(std::chrono::steady_clock::now());
  sampler.add_reaped(3, burner.reap(false));
  auto figures = sampler.final_figures();
  BOOST_TEST(figures.user_cpu_us >= 1'500'000u);
  BOOST_TEST(figures.user_cpu_us <= 2'500'000u);
  BOOST_TEST(figures.system_cpu_us < 500'000u);
}

BOOST_AUTO_TEST_CASE(cpu_of_live_processes_and_of_exited_children_counts_once) {
  // The leader burns half a second and reaps a child that burned half a second, then waits.
  task_child leader{[] {
                      burn_cpu(0.5);
                      pid_t child = ::fork();
                      if (child == 0) {
                        burn_cpu(0.5);
                        ::_exit(0);
                      }
                      ::waitpid(child, nullptr, 0);
                    },
                    true};
  step_usage_sampler sampler;
  sampler.add_task(leader.pid, 0);
  BOOST_REQUIRE(leader.ready());
  sampler.sample(std::chrono::steady_clock::now());
  // From /proc: the leader's own time and what its reaped child left it (cutime).
  BOOST_TEST(sampler.figures().user_cpu_us >= 800'000u);
  sampler.add_reaped(0, leader.reap(true));
  auto figures = sampler.final_figures();
  BOOST_TEST(figures.user_cpu_us >= 800'000u);
  // The leader's time is not counted twice (once from /proc, once from wait4).
  BOOST_TEST(figures.user_cpu_us < 1'500'000u);
}

BOOST_AUTO_TEST_CASE(a_sampled_memory_peak_names_its_task) {
  task_child small{[] { touch_memory(10 * mb); }, true};
  task_child big{[] { touch_memory(200 * mb); }, true};
  step_usage_sampler sampler;
  sampler.add_task(small.pid, 0);
  sampler.add_task(big.pid, 1);
  BOOST_REQUIRE(small.ready());
  BOOST_REQUIRE(big.ready());
  sampler.sample(std::chrono::steady_clock::now());
  auto live = sampler.figures();
  BOOST_TEST(live.max_rss_bytes >= 210 * mb - 10 * mb);
  BOOST_TEST(live.current_rss_bytes == live.max_rss_bytes);
  BOOST_TEST(live.max_rss_rank == 1);
  BOOST_TEST(live.sample_count == 1u);
  BOOST_TEST(live.ave_rss_bytes == live.max_rss_bytes);
  BOOST_TEST(live.max_vsize_bytes >= live.max_rss_bytes);
  sampler.add_reaped(0, small.reap(true));
  sampler.add_reaped(1, big.reap(true));
  auto done = sampler.final_figures();
  BOOST_TEST(done.max_rss_bytes >= live.max_rss_bytes);
  BOOST_TEST(done.current_rss_bytes == 0u);
  // The last sample found nothing running: it is not part of the average.
  BOOST_TEST(done.sample_count == 1u);
  BOOST_TEST(done.ave_rss_bytes == live.ave_rss_bytes);
}

BOOST_AUTO_TEST_CASE(a_memory_peak_between_samples_counts_from_wait4) {
  task_child hog{[] { touch_memory(200 * mb); }, false};
  step_usage_sampler sampler;
  sampler.add_task(hog.pid, 5);
  sampler.add_reaped(5, hog.reap(false));
  auto figures = sampler.final_figures();
  BOOST_TEST(figures.max_rss_bytes >= 190 * mb);
  BOOST_TEST(figures.max_rss_rank == 5);
  BOOST_TEST(figures.sample_count == 0u);
}

BOOST_AUTO_TEST_CASE(the_cgroup_counts_what_no_sample_or_wait4_saw,
                     *boost::unit_test::precondition(memory_cgroup_writable)) {
  auto root = find_memory_cgroup_root();
  memory_guard guard{root, "shoal_usage_test_" + std::to_string(::getpid()), 1024};
  BOOST_REQUIRE_MESSAGE(guard.problem().empty(), guard.problem());
  bool v2 = guard.how() == memory_enforcement::cgroup_v2;
  int procs_fd = guard.procs_fd();
  // Joins the cgroup, holds 100 MB and burns CPU, and is gone before any sample.
  task_child hog{[procs_fd] {
                   if (::write(procs_fd, "0", 1) != 1) ::_exit(5);
                   touch_memory(100 * mb);
                   burn_cpu(0.5);
                 },
                 false};
  step_usage_sampler sampler;
  sampler.add_task(hog.pid, 0);
  sampler.use_cgroup(guard.cgroup_dir(), v2);
  hog.reap(false);  // as if reaped elsewhere: its rusage is not given
  auto figures = sampler.final_figures();
  BOOST_TEST_MESSAGE("cgroup " << to_string(guard.how()) << " max_rss=" << figures.max_rss_bytes
                               << " user_cpu_us=" << figures.user_cpu_us);
  BOOST_TEST(figures.max_rss_bytes >= 95 * mb);
  BOOST_TEST(figures.max_rss_rank == -1);
  // A v1 memory cgroup has no CPU figures.
  if (v2) BOOST_TEST(figures.user_cpu_us >= 400'000u);
}

BOOST_AUTO_TEST_CASE(bytes_written_and_synced_are_counted) {
  if (!proc_io_readable()) {
    BOOST_TEST_MESSAGE("/proc/self/io is not readable here: written bytes not checked");
    return;
  }
  char dir[] = "/tmp/shoal-usage-test-XXXXXX";
  BOOST_REQUIRE(::mkdtemp(dir) != nullptr);
  std::string path = std::string{dir} + "/data";
  task_child writer{[&] {
                      int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
                      std::vector<char> block(mb, 'w');
                      for (int i = 0; i < 10; ++i)
                        if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(mb))
                          ::_exit(4);
                      ::fsync(fd);
                      ::close(fd);
                    },
                    true};
  step_usage_sampler sampler;
  sampler.add_task(writer.pid, 0);
  BOOST_REQUIRE(writer.ready());
  sampler.sample(std::chrono::steady_clock::now());
  BOOST_TEST(sampler.figures().written_bytes >= 10 * mb);
  sampler.add_reaped(0, writer.reap(true));
  BOOST_TEST(sampler.final_figures().written_bytes >= 10 * mb);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

BOOST_AUTO_TEST_CASE(samples_are_due_at_once_then_every_interval) {
  step_usage_sampler sampler{250ms};
  auto now = std::chrono::steady_clock::now();
  BOOST_TEST((sampler.next_sample_at() <= now));
  sampler.sample(now);
  BOOST_TEST((sampler.next_sample_at() == now + 250ms));
  // A step with no process found leaves every figure at 0.
  BOOST_TEST(sampler.figures().sample_count == 0u);
  BOOST_TEST(sampler.figures().max_rss_rank == -1);
}

BOOST_AUTO_TEST_CASE(step_tasks_samples_the_step_it_runs) {
  msg::launch_request req;
  req.job_id = 77;
  req.step_id = 0;
  req.uid = ::geteuid();
  req.gid = ::getegid();
  // The shell holds 30 MB in a variable for a second; head and tr use CPU it reaps.
  req.argv = {"/bin/sh", "-c", "x=$(head -c 30000000 /dev/zero | tr '\\0' a); sleep 1; echo done"};
  req.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp"};
  req.cwd = "/tmp";
  req.nodelist = "n1";
  req.node_count = 1;
  req.ntasks = 1;
  req.ranks = {0};
  step_tasks tasks{req, "n1", {}, task_env_settings{}};
  tasks.sample_usage_every(100ms);
  quiet_host host;
  auto done = tasks.run(host);
  BOOST_REQUIRE_EQUAL(done.tasks.size(), 1u);
  BOOST_TEST(done.tasks[0].exit_code == 0);
  BOOST_TEST(host.out == "done\n");
  auto figures = tasks.final_usage();
  BOOST_TEST(figures.max_rss_bytes >= 25 * mb);
  BOOST_TEST(figures.max_rss_rank == 0);
  BOOST_TEST(figures.user_cpu_us + figures.system_cpu_us > 0u);
  // At least the one at the start and one during the second of sleep.
  BOOST_TEST(figures.sample_count >= 2u);
}

// -- parsing --

BOOST_AUTO_TEST_CASE(proc_stat_is_read_after_an_awkward_command_name) {
  std::string text =
      "4242 (a) b (c) R 1 4200 4200 0 -1 4194560 100 0 0 0 250 40 7 3 20 0 1 0 12345 "
      "10485760 2560 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  auto fields = parse_proc_stat(text);
  BOOST_REQUIRE(fields.has_value());
  BOOST_TEST(fields->process_group == 4200);
  BOOST_TEST(fields->user_ticks == 250u);
  BOOST_TEST(fields->system_ticks == 40u);
  BOOST_TEST(fields->children_user_ticks == 7u);
  BOOST_TEST(fields->children_system_ticks == 3u);
  BOOST_TEST(!parse_proc_stat("4242 (cut short) R 1 4200").has_value());
  BOOST_TEST(!parse_proc_stat("").has_value());
}

BOOST_AUTO_TEST_CASE(proc_status_and_io_give_bytes) {
  std::string status =
      "Name:\tsh\nVmPeak:\t  20000 kB\nVmSize:\t  18000 kB\nVmLck:\t       0 kB\n"
      "VmHWM:\t   9000 kB\nVmRSS:\t   8000 kB\nRssAnon:\t  7000 kB\n";
  auto s = parse_proc_status(status);
  BOOST_TEST(s.peak_vsize_bytes == 20000u * 1024);
  BOOST_TEST(s.vsize_bytes == 18000u * 1024);
  BOOST_TEST(s.peak_rss_bytes == 9000u * 1024);
  BOOST_TEST(s.rss_bytes == 8000u * 1024);
  // A zombie has no memory lines.
  BOOST_TEST(parse_proc_status("Name:\tsh\nState:\tZ (zombie)\n").rss_bytes == 0u);
  std::string io =
      "rchar: 100\nwchar: 200\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\nwrite_bytes: 8192\n"
      "cancelled_write_bytes: 512\n";
  auto i = parse_proc_io(io);
  BOOST_TEST(i.read_bytes == 4096u);
  BOOST_TEST(i.written_bytes == 8192u);
  BOOST_TEST(parse_proc_io("").written_bytes == 0u);
}

BOOST_AUTO_TEST_CASE(cgroup_v2_cpu_and_io_stat_are_parsed) {
  auto cpu = parse_cgroup_cpu_stat(
      "usage_usec 3000\nuser_usec 2000\nsystem_usec 1000\nnr_periods 0\nnr_throttled 0\n");
  BOOST_REQUIRE(cpu.has_value());
  BOOST_TEST(cpu->user_us == 2000u);
  BOOST_TEST(cpu->system_us == 1000u);
  BOOST_TEST(!parse_cgroup_cpu_stat("usage_usec 3000\n").has_value());
  auto io = parse_cgroup_io_stat(
      "8:0 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0\n"
      "253:1 rbytes=800 wbytes=200 rios=1 wios=1 dbytes=0 dios=0\n");
  BOOST_TEST(io.read_bytes == 1460000u);
  BOOST_TEST(io.written_bytes == 314773704u);
  BOOST_TEST(parse_cgroup_io_stat("").read_bytes == 0u);
}

BOOST_AUTO_TEST_CASE(node_cpu_load_and_memory_are_parsed) {
  auto cpu = parse_node_cpu_times(
      "cpu  6823 454 722 2506 12 3 5 2 0 0\ncpu0 3397 215 354 1288 4 0 4 1 0 0\n", 100);
  BOOST_REQUIRE(cpu.has_value());
  BOOST_TEST(cpu->user_ms == (6823u + 454u) * 10);
  BOOST_TEST(cpu->system_ms == (722u + 3u + 5u) * 10);
  BOOST_TEST(cpu->idle_ms == (2506u + 12u) * 10);
  BOOST_TEST(!parse_node_cpu_times("cpu0 1 2 3\n", 100).has_value());
  BOOST_TEST(!parse_node_cpu_times("cpu  1 2 3\n", 100).has_value());

  auto load = parse_node_load("0.13 0.66 1.28 1/84 4986\n");
  BOOST_REQUIRE(load.has_value());
  BOOST_TEST(load->one_minute == 0.13);
  BOOST_TEST(load->five_minutes == 0.66);
  BOOST_TEST(load->fifteen_minutes == 1.28);
  BOOST_TEST(!parse_node_load("garbage").has_value());

  auto memory = parse_node_memory(
      "MemTotal:       24684092 kB\nMemFree:        18368288 kB\nMemAvailable:   24074516 kB\n");
  BOOST_REQUIRE(memory.has_value());
  BOOST_TEST(memory->total_bytes == 24684092ull * 1024);
  BOOST_TEST(memory->available_bytes == 24074516ull * 1024);
  BOOST_TEST(!parse_node_memory("MemTotal: 1 kB\nMemFree: 1 kB\n").has_value());
}

BOOST_AUTO_TEST_CASE(this_node_has_figures) {
  auto node = read_node_usage();
  BOOST_TEST(node.cpu.user_ms + node.cpu.system_ms + node.cpu.idle_ms > 0u);
  BOOST_TEST(node.memory.total_bytes > 0u);
  BOOST_TEST(node.memory.available_bytes <= node.memory.total_bytes);
}

BOOST_AUTO_TEST_SUITE_END()

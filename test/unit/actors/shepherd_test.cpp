#include <boost/test/unit_test.hpp>

#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>

#include "actors/shepherd.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "process/task_launch.hpp"
#include "runtime/bootstrap/temp_dir.hpp"
#include "test/preconditions.hpp"
#include "topology/cpu_binding.hpp"
#include "topology/machine_probe.hpp"

namespace fs = std::filesystem;
namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using namespace shoal;

namespace {

// Shorter than the tests' `sleep 30`: a step that waited for its sleep never reports in time,
// so `got_exit` alone shows it ended early (no wall-clock assertion needed).
constexpr auto patience = 10s;

struct config : caf::actor_system_config {
  config() { add_message_types<caf::id_block::shoal>(); }
};

/// What the sink and the job saw of one step.
struct step_run {
  std::vector<msg::task_output> outputs;
  bool got_exit = false;
  msg::step_exit exit;
  bool job_got_exit = false;
  msg::step_exit job_exit;
  bool shepherd_down = false;
  size_t output_after_exit = 0;

  /// Everything `rank` wrote on `stream`, in arrival order.
  std::string text(int32_t rank, msg::stream_kind stream = msg::stream_kind::out) const {
    std::string all;
    for (auto& o : outputs)
      if (o.rank == rank && o.stream == stream) all += o.data;
    return all;
  }
};

struct fixture {
  config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor sink{sys};
  caf::scoped_actor job{sys};
  fs::path tmp;

  fixture() {
    auto dir = runtime::make_temp_dir("shoal-shepherd");
    BOOST_REQUIRE(dir);
    tmp = *dir;
  }

  ~fixture() {
    std::error_code ec;
    fs::remove_all(tmp, ec);
  }

  msg::launch_request request(std::vector<std::string> argv, std::vector<uint32_t> ranks = {0}) {
    msg::launch_request req;
    req.job_id = 42;
    req.step_id = 7;
    req.uid = ::geteuid();
    req.gid = ::getegid();
    req.argv = std::move(argv);
    req.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + tmp.string()};
    req.cwd = tmp.string();
    req.nodelist = "n[1-2]";
    req.node_index = 1;
    req.node_count = 2;
    req.ntasks = static_cast<uint32_t>(ranks.size());
    req.ranks = std::move(ranks);
    return req;
  }

  /// Node "n2", its step sockets in the test's directory, shoal-stepd from beside the test.
  actors::shepherd_setup where(std::vector<topology::core_info> cores = {}) {
    actors::shepherd_setup setup;
    setup.node_name = "n2";
    setup.spool_dir = tmp.string();
    setup.cores = std::move(cores);
    return setup;
  }

  actors::shepherd_actor spawn(msg::launch_request req) {
    return actors::spawn_shepherd(sys, std::move(req), caf::actor{sink}, caf::actor{job}, where());
  }

  /// Waits for the step's end at the sink and the job, then for the shepherd to quit.
  step_run finish(const actors::shepherd_actor& shepherd) {
    step_run run;
    job->monitor(shepherd);
    bool done = false;
    while (!done) {
      sink->receive([&](msg::task_output& o) { run.outputs.push_back(std::move(o)); },
                    [&](msg::step_exit& e) {
                      run.got_exit = true;
                      run.exit = std::move(e);
                      done = true;
                    },
                    caf::after(patience) >> [&] { done = true; });
    }
    job->receive(
        [&](msg::step_exit& e) {
          run.job_got_exit = true;
          run.job_exit = std::move(e);
        },
        caf::after(patience) >> [] {});
    job->receive([&](caf::down_msg&) { run.shepherd_down = true; }, caf::after(patience) >> [] {});
    // The shepherd is gone: anything still queued at the sink came after step_exit.
    bool more = true;
    while (more) {
      sink->receive([&](msg::task_output&) { ++run.output_after_exit; },
                    caf::others >> [](caf::message_view&) -> caf::result<caf::message> {
                      return caf::message{};
                    },
                    caf::after(0s) >> [&] { more = false; });
    }
    return run;
  }

  step_run run(msg::launch_request req) {
    auto shepherd = spawn(std::move(req));
    return finish(shepherd);
  }

  std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

/// A core of one hardware thread, host CPU `pu`: the tests below state core tables by hand, so
/// that what a task is bound to follows from the table and not from this machine's layout.
topology::core_info core_of(unsigned pu) {
  topology::core_info core;
  core.pus = {pu};
  return core;
}

/// The mask srun's verbose line prints for the one CPU `cpu` ("0x1" for CPU 0, "0x20" for 5).
std::string one_cpu_mask(unsigned cpu) {
  return std::string{"0x"} + "1248"[cpu % 4] + std::string(cpu / 4, '0');
}

/// This process's own "Cpus_allowed_list:\t..." line, newline included, as the kernel prints
/// it: what an unconfined task inherits.
std::string own_allowed_line() {
  std::ifstream status{"/proc/self/status"};
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Cpus_allowed_list:", 0) == 0) return line + "\n";
  return "<no Cpus_allowed_list in /proc/self/status>";
}

std::map<std::string, std::string> parse_env(const std::string& text) {
  std::map<std::string, std::string> vars;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq != std::string::npos) vars[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return vars;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(shepherd, fixture)

BOOST_AUTO_TEST_CASE(tasks_see_their_rank_and_output_arrives_before_step_exit) {
  auto req = request(
      {"sh", "-c", "echo rank=$SHOAL_PROCID local=$SHOAL_LOCALID ntasks=$SHOAL_NTASKS"}, {2, 3});
  req.ntasks = 4;
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.shepherd_down);
  BOOST_TEST(r.output_after_exit == 0u);
  BOOST_TEST(r.text(2) == "rank=2 local=0 ntasks=4\n");
  BOOST_TEST(r.text(3) == "rank=3 local=1 ntasks=4\n");
  for (auto& o : r.outputs) {
    BOOST_TEST(o.job_id == 42u);
    BOOST_TEST(o.step_id == 7u);
    BOOST_TEST(o.node_name == "n2");
  }
  BOOST_TEST(r.exit.job_id == 42u);
  BOOST_TEST(r.exit.step_id == 7u);
  BOOST_TEST(r.exit.node_name == "n2");
  BOOST_TEST(r.exit.launch_error == "");
  BOOST_REQUIRE(r.exit.tasks.size() == 2u);
  BOOST_TEST(r.exit.tasks[0].rank == 2u);
  BOOST_TEST(r.exit.tasks[1].rank == 3u);
  for (auto& t : r.exit.tasks) {
    BOOST_TEST(t.exit_code == 0);
    BOOST_TEST(t.signal == 0);
  }
  BOOST_REQUIRE(r.job_got_exit);
  BOOST_TEST(r.job_exit.tasks.size() == 2u);
}

BOOST_AUTO_TEST_CASE(exit_codes_propagate) {
  auto r = run(request({"sh", "-c", "exit $((SHOAL_PROCID + 3))"}, {0, 1}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_REQUIRE(r.exit.tasks.size() == 2u);
  BOOST_TEST(r.exit.tasks[0].exit_code == 3);
  BOOST_TEST(r.exit.tasks[1].exit_code == 4);
  BOOST_TEST(r.exit.tasks[0].signal == 0);
}

BOOST_AUTO_TEST_CASE(a_signalled_task_reports_its_signal) {
  auto r = run(request({"sh", "-c", "kill -9 $$"}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_REQUIRE(r.exit.tasks.size() == 1u);
  BOOST_TEST(r.exit.tasks[0].exit_code == 0);
  BOOST_TEST(r.exit.tasks[0].signal == 9);
  BOOST_TEST(msg::shell_exit_code(r.exit.tasks[0]) == 137);
}

BOOST_AUTO_TEST_CASE(stderr_arrives_as_the_err_stream) {
  auto r = run(request({"sh", "-c", "echo oops >&2; echo fine"}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.text(0, msg::stream_kind::err) == "oops\n");
  BOOST_TEST(r.text(0, msg::stream_kind::out) == "fine\n");
}

BOOST_AUTO_TEST_CASE(a_missing_executable_is_a_launch_error_with_code_127) {
  auto r = run(request({"shoal-no-such-program"}, {0, 1}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "execvp(shoal-no-such-program): No such file or directory");
  BOOST_REQUIRE(r.exit.tasks.size() == 2u);
  for (auto& t : r.exit.tasks) {
    BOOST_TEST(t.exit_code == 127);
    BOOST_TEST(t.signal == 0);
  }
  BOOST_TEST(r.outputs.empty());
  BOOST_REQUIRE(r.job_got_exit);
  BOOST_TEST(r.job_exit.launch_error == r.exit.launch_error);
}

BOOST_AUTO_TEST_CASE(a_missing_path_is_reported_by_the_child_with_code_127) {
  auto path = (tmp / "nothing-here").string();
  auto r = run(request({path}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "execvp(" + path + "): No such file or directory");
  BOOST_REQUIRE(r.exit.tasks.size() == 1u);
  BOOST_TEST(r.exit.tasks[0].exit_code == 127);
}

BOOST_AUTO_TEST_CASE(a_file_that_is_not_executable_yields_126) {
  auto path = tmp / "not-executable";
  std::ofstream(path) << "echo hi\n";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  auto r = run(request({path.string()}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "execvp(" + path.string() + "): Permission denied");
  BOOST_REQUIRE(r.exit.tasks.size() == 1u);
  BOOST_TEST(r.exit.tasks[0].exit_code == 126);
}

BOOST_AUTO_TEST_CASE(a_script_without_header_runs_under_sh) {
  auto path = tmp / "plain-script";
  std::ofstream(path) << "echo plain $1\n";
  fs::permissions(path, fs::perms::owner_all);
  auto r = run(request({path.string(), "arg"}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  BOOST_TEST(r.text(0) == "plain arg\n");
}

BOOST_AUTO_TEST_CASE(signal_atom_ends_a_running_step_quickly) {
  auto shepherd = spawn(request({"sleep", "30"}, {0, 1}));
  // Unknown messages must not disturb it (the typed handle refuses them at compile time; a
  // peer holding a dynamic handle can still send one).
  caf::anon_send(caf::actor_cast<caf::actor>(shepherd), std::string{"unexpected"});
  caf::anon_send(shepherd, msg::signal_atom_v, int32_t{SIGTERM});
  auto r = finish(shepherd);
  BOOST_REQUIRE(r.got_exit);
  BOOST_REQUIRE(r.exit.tasks.size() == 2u);
  for (auto& t : r.exit.tasks) {
    BOOST_TEST(t.exit_code == 0);
    BOOST_TEST(t.signal == SIGTERM);
  }
}

BOOST_AUTO_TEST_CASE(shutdown_of_the_shepherd_kills_its_tasks) {
  auto shepherd = spawn(request({"sleep", "30"}));
  caf::anon_send_exit(shepherd, caf::exit_reason::user_shutdown);
  auto r = finish(shepherd);
  BOOST_REQUIRE(r.got_exit);
  BOOST_REQUIRE(r.exit.tasks.size() == 1u);
  BOOST_TEST(r.exit.tasks[0].signal == SIGKILL);
}

BOOST_AUTO_TEST_CASE(descendants_holding_the_pipes_do_not_keep_the_step_alive) {
  auto r = run(request({"sh", "-c", "sleep 30 & echo $!"}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.tasks[0].exit_code == 0);
  // The leftover sleep was killed with the step: it is gone or a zombie awaiting its reaper.
  auto pid = std::stoi(r.text(0));
  auto dead = [pid] {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    auto close = line.rfind(')');
    return close != std::string::npos && line.compare(close, 3, ") Z") == 0;
  };
  auto deadline = std::chrono::steady_clock::now() + patience;
  while (!dead() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  BOOST_TEST(dead());
}

BOOST_AUTO_TEST_CASE(batch_step_writes_its_output_file_and_sends_no_output) {
  auto req = request({"first", "second"});
  req.step_id = msg::batch_step_id;
  req.batch = true;
  req.ranks.clear();
  req.script = "#!/bin/sh\necho out $SHOAL_JOB_ID $SHOAL_STEP_ID $1 $2\necho err >&2\nexit 5\n";
  req.stdout_path = (tmp / "job.out").string();
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.outputs.empty());
  BOOST_TEST(r.exit.launch_error == "");
  BOOST_REQUIRE(r.exit.tasks.size() == 1u);
  BOOST_TEST(r.exit.tasks[0].rank == 0u);
  BOOST_TEST(r.exit.tasks[0].exit_code == 5);
  BOOST_TEST(read_file(tmp / "job.out") == "out 42 batch first second\nerr\n");
  BOOST_REQUIRE(r.job_got_exit);
}

BOOST_AUTO_TEST_CASE(batch_script_lives_in_memory_and_cannot_rewrite_itself) {
  auto req = request({});
  req.step_id = msg::batch_step_id;
  req.batch = true;
  // $0 is /dev/fd/N; appending to it must fail since the memfd is sealed.
  req.script =
      "#!/bin/sh\ncase \"$0\" in /dev/fd/*) echo in-memory;; esac\n"
      "if echo x >> \"$0\" 2>/dev/null; then echo writable; else echo sealed; fi\n";
  req.stdout_path = (tmp / "job.out").string();
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  BOOST_TEST(r.exit.tasks[0].exit_code == 0);
  BOOST_TEST(read_file(tmp / "job.out") == "in-memory\nsealed\n");
  // Nothing but the output file was written.
  size_t files = 0;
  for (auto& entry : fs::recursive_directory_iterator{tmp}) files += entry.is_regular_file();
  BOOST_TEST(files == 1u);
}

BOOST_AUTO_TEST_CASE(batch_script_with_a_missing_interpreter_names_it) {
  auto req = request({});
  req.step_id = msg::batch_step_id;
  req.batch = true;
  req.script = "#!/no/such/interpreter -x\necho hi\n";
  req.stdout_path = (tmp / "job.out").string();
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error ==
             "execvp(batch script #!/no/such/interpreter -x): No such file or directory");
  BOOST_TEST(r.exit.tasks[0].exit_code == 127);
}

BOOST_AUTO_TEST_CASE(batch_script_without_shebang_runs_under_sh_with_separate_stderr) {
  auto req = request({});
  req.step_id = msg::batch_step_id;
  req.batch = true;
  req.script = "echo to-out\necho to-err >&2\n";
  req.stdout_path = (tmp / "o.txt").string();
  req.stderr_path = (tmp / "e.txt").string();
  std::ofstream(tmp / "o.txt") << "previous\n";
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  BOOST_TEST(r.exit.tasks[0].exit_code == 0);
  BOOST_TEST(read_file(tmp / "o.txt") == "previous\nto-out\n");
  BOOST_TEST(read_file(tmp / "e.txt") == "to-err\n");
}

BOOST_AUTO_TEST_CASE(batch_output_file_that_cannot_be_opened_is_a_launch_error) {
  auto req = request({});
  req.batch = true;
  req.script = "#!/bin/sh\necho hi\n";
  req.stdout_path = (tmp / "missing-dir" / "o.txt").string();
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "open(" + req.stdout_path + "): No such file or directory");
  BOOST_TEST(r.exit.tasks[0].exit_code == 127);
}

BOOST_AUTO_TEST_CASE(environment_has_shoal_variables_and_the_callers) {
  auto req = request({"env"}, {5});
  req.env.push_back("FOO=bar baz");
  req.env.push_back("SHOAL_JOB_ID=1");
  req.ntasks = 8;
  req.cpus_per_task = 2;
  req.job_name = "demo";
  req.partition = "debug";
  req.job_nodelist = "n[1-4]";
  req.job_node_count = 4;
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  auto vars = parse_env(r.text(5));
  BOOST_TEST(vars["FOO"] == "bar baz");
  BOOST_TEST(vars["HOME"] == tmp.string());
  BOOST_TEST(vars["SHOAL_JOB_ID"] == "42");
  BOOST_TEST(vars["SHOAL_STEP_ID"] == "7");
  BOOST_TEST(vars["SHOAL_PROCID"] == "5");
  BOOST_TEST(vars["SHOAL_NTASKS"] == "8");
  BOOST_TEST(vars["SHOAL_NODEID"] == "1");
  BOOST_TEST(vars["SHOAL_LOCALID"] == "0");
  BOOST_TEST(vars["SHOAL_NNODES"] == "2");
  BOOST_TEST(vars["SHOAL_JOB_NODELIST"] == "n[1-4]");
  BOOST_TEST(vars["SHOAL_STEP_NODELIST"] == "n[1-2]");
  BOOST_TEST(vars["SHOAL_SUBMIT_DIR"] == tmp.string());
  BOOST_TEST(vars["SHOAL_CPUS_PER_TASK"] == "2");
  BOOST_TEST(vars["SHOAL_JOB_NAME"] == "demo");
  BOOST_TEST(vars["SHOAL_JOB_PARTITION"] == "debug");
  BOOST_TEST(vars["SHOAL_JOB_NUM_NODES"] == "4");
  BOOST_TEST(vars["SHOAL_NODENAME"] == "n2");
}

BOOST_AUTO_TEST_CASE(large_output_arrives_complete_and_in_order) {
  auto r = run(request({"seq", "1", "100000"}));
  BOOST_REQUIRE(r.got_exit);
  std::string expected;
  for (int i = 1; i <= 100000; ++i) expected += std::to_string(i) + "\n";
  auto got = r.text(0);
  BOOST_TEST(got.size() == expected.size());
  BOOST_TEST((got == expected));
  // Chunks are cut at line ends where they can be, but a partial line left waiting longer than
  // the partial-line delay is sent as it is (interactive output), which a loaded machine can
  // cause in the middle of `seq`: only the size is a rule for every chunk.
  for (auto& o : r.outputs) BOOST_TEST(o.data.size() <= 65536u);
  BOOST_TEST(r.outputs.back().data.back() == '\n');
}

BOOST_AUTO_TEST_CASE(a_long_line_is_cut_into_64_KiB_chunks) {
  auto r = run(request({"sh", "-c", "head -c 200000 /dev/zero | tr '\\000' a"}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST((r.text(0) == std::string(200000, 'a')));
  for (auto& o : r.outputs) BOOST_TEST(o.data.size() <= 65536u);
}

BOOST_AUTO_TEST_CASE(a_partial_line_is_sent_before_its_newline_arrives) {
  // The 1 s pause is 20 times the flush delay: "abc" goes out alone, long before "def".
  auto r = run(request({"sh", "-c", "printf abc; sleep 1; printf 'def\\n'"}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_REQUIRE(r.outputs.size() == 2u);
  BOOST_TEST(r.outputs[0].data == "abc");
  BOOST_TEST(r.outputs[1].data == "def\n");
}

BOOST_AUTO_TEST_CASE(cwd_is_honoured) {
  fs::create_directory(tmp / "work");
  auto req = request({"pwd"});
  req.cwd = (tmp / "work").string();
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.text(0) == (tmp / "work").string() + "\n");
}

BOOST_AUTO_TEST_CASE(a_missing_cwd_falls_back_to_home) {
  auto req = request({"pwd"});
  req.cwd = (tmp / "gone").string();
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  BOOST_TEST(r.text(0) == tmp.string() + "\n");
}

BOOST_AUTO_TEST_CASE(no_descriptor_of_the_daemon_leaks_into_tasks) {
  // Only 0, 1, 2 and the fd ls itself opens for /proc/self/fd remain.
  auto r = run(request({"sh", "-c", "ls /proc/$$/fd"}));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.text(0) == "0\n1\n2\n");
}

BOOST_AUTO_TEST_CASE(tasks_run_as_the_requested_user,
                     *utf::precondition(test::needs_root{"to start tasks as another user"})) {
  auto req = request({"id", "-u"});
  req.user = "nobody";
  req.uid = 65534;
  req.gid = 65534;
  req.cwd = "/";
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  BOOST_TEST(r.text(0) == "65534\n");
}

BOOST_AUTO_TEST_CASE(batch_runs_as_the_requested_user,
                     *utf::precondition(test::needs_root{"to start a batch script as another "
                                                         "user"})) {
  fs::create_directory(tmp / "out");
  fs::permissions(tmp / "out", fs::perms::all);
  fs::permissions(tmp, fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
  auto req = request({});
  req.batch = true;
  req.user = "nobody";
  req.uid = 65534;
  req.gid = 65534;
  req.cwd = (tmp / "out").string();
  req.script = "#!/bin/sh\nid -u\n";
  req.stdout_path = (tmp / "out" / "o.txt").string();
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  BOOST_TEST(read_file(tmp / "out" / "o.txt") == "65534\n");
  struct stat st;
  BOOST_REQUIRE(::stat((tmp / "out" / "o.txt").c_str(), &st) == 0);
  BOOST_TEST(st.st_uid == 65534u);
}

BOOST_AUTO_TEST_CASE(without_a_sink_only_the_job_hears_of_the_end) {
  auto shepherd = actors::spawn_shepherd(sys, request({"sh", "-c", "echo x; exit 2"}), caf::actor{},
                                         caf::actor{job}, where());
  job->monitor(shepherd);
  bool got_exit = false;
  job->receive(
      [&](msg::step_exit& e) {
        got_exit = true;
        BOOST_REQUIRE(e.tasks.size() == 1u);
        BOOST_TEST(e.tasks[0].exit_code == 2);
      },
      caf::after(patience) >> [] {});
  BOOST_TEST(got_exit);
  bool down = false;
  job->receive([&](caf::down_msg&) { down = true; }, caf::after(patience) >> [] {});
  BOOST_TEST(down);
}

BOOST_AUTO_TEST_CASE(a_sink_that_is_also_the_job_gets_one_step_exit) {
  auto shepherd =
      actors::spawn_shepherd(sys, request({"true"}), caf::actor{sink}, caf::actor{sink}, where());
  sink->monitor(shepherd);
  int exits = 0;
  bool down = false;
  while (!down) {
    sink->receive([&](msg::step_exit&) { ++exits; }, [&](caf::down_msg&) { down = true; },
                  caf::after(patience) >> [&] { down = true; });
  }
  // Everything the shepherd sent precedes its down_msg.
  BOOST_TEST(exits == 1);
}

BOOST_AUTO_TEST_CASE(cpu_bind_binds_each_task_and_reports_it_verbosely,
                     *utf::precondition(test::needs_cpus{2, "to bind two tasks apart"})) {
  // The node's cores listed against host CPU order: its first core is host CPU `b`, its second
  // `a`. With `cores`, task 0 takes the first core and task 1 the second.
  auto allowed = test::allowed_cpus();
  unsigned a = allowed[0], b = allowed[1];
  auto req = request({"sh", "-c", "grep Cpus_allowed_list /proc/self/status; echo $SHOAL_CPU_BIND"},
                     {0, 1});
  req.cpu_bind = "verbose,cores";
  auto shepherd = actors::spawn_shepherd(sys, req, caf::actor{sink}, caf::actor{job},
                                         where({core_of(b), core_of(a)}));
  auto r = finish(shepherd);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  const unsigned bound[] = {b, a};  // by rank
  for (uint32_t rank = 0; rank < 2; ++rank) {
    auto out = r.text(static_cast<int32_t>(rank));
    BOOST_TEST(
        out.find("Cpus_allowed_list:\t" + std::to_string(bound[rank]) + "\n") != std::string::npos,
        out);
    BOOST_TEST(out.find("quiet") == std::string::npos);
    BOOST_TEST(out.find("verbose,mask_cpu:0x") != std::string::npos, out);
    auto err = r.text(static_cast<int32_t>(rank), msg::stream_kind::err);
    auto head =
        "cpu-bind=MASK - n2, task  " + std::to_string(rank) + "  " + std::to_string(rank) + " [";
    BOOST_TEST(err.rfind(head, 0) == 0u, err);
    BOOST_TEST(err.find("]: mask " + one_cpu_mask(bound[rank]) + " set\n") != std::string::npos,
               err);
  }
}

BOOST_AUTO_TEST_CASE(a_cpu_bind_the_node_cannot_honour_starts_no_task) {
  auto facts = topology::probe_machine();
  BOOST_REQUIRE(facts);
  auto marker = tmp / "started";
  auto req = request({"touch", marker.string()}, {0, 1});
  req.cpu_bind = "quiet,map_cpu:4095";
  auto shepherd =
      actors::spawn_shepherd(sys, req, caf::actor{sink}, caf::actor{job}, where(facts->cores));
  auto r = finish(shepherd);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error.find("--cpu-bind=map_cpu: CPU 4095 is not one of this "
                                      "node's CPUs") == 0u,
             r.exit.launch_error);
  BOOST_REQUIRE_EQUAL(r.exit.tasks.size(), 2u);
  for (auto& t : r.exit.tasks) BOOST_TEST(t.exit_code == 1);
  BOOST_TEST(!fs::exists(marker));
  // No core table (a daemon that could not probe): binding is refused with the fix. Another
  // step: the first one's shoal-stepd may still be removing its socket, and a second stepd for
  // the same step is refused ("already runs here"), as it must be.
  req.cpu_bind = "quiet,cores";
  req.step_id += 1;
  auto r2 = run(req);
  BOOST_TEST(r2.exit.launch_error.find("use --cpu-bind=none") != std::string::npos,
             r2.exit.launch_error);
}

BOOST_AUTO_TEST_CASE(a_cpu_the_kernel_refuses_fails_the_launch_with_code_1) {
  // A core table naming a CPU this machine lacks gets past the plan; sched_setaffinity refuses.
  topology::core_info ghost;
  ghost.pus = {4000};
  auto req = request({"true"});
  req.cpu_bind = "verbose,cores";
  auto shepherd =
      actors::spawn_shepherd(sys, req, caf::actor{sink}, caf::actor{job}, where({ghost}));
  auto r = finish(shepherd);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "sched_setaffinity(CPUs 4000): Invalid argument");
  BOOST_REQUIRE_EQUAL(r.exit.tasks.size(), 1u);
  BOOST_TEST(r.exit.tasks[0].exit_code == 1);
}

BOOST_AUTO_TEST_CASE(a_launch_that_fails_its_check_runs_nothing_and_says_why) {
  auto marker = tmp / "ran";
  auto req = request({"touch", marker.string()}, {0, 1});
  auto setup = where();
  setup.check_launch = [](msg::launch_request& r) -> shoal::error {
    r.credential.clear();
    return shoal::error(errc::authentication_failed, "Protocol authentication error (forged)");
  };
  auto r = finish(actors::spawn_shepherd(sys, req, caf::actor{sink}, caf::actor{job}, setup));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error ==
             "launch refused by node n2: Protocol authentication error (forged)");
  BOOST_REQUIRE(r.exit.tasks.size() == 2u);
  for (auto& t : r.exit.tasks) BOOST_TEST(t.exit_code != 0);
  BOOST_TEST(!fs::exists(marker));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(task_launch)

BOOST_AUTO_TEST_CASE(cpu_bind_variables_follow_slurms) {
  auto parsed = topology::parse_cpu_bind("cores");
  BOOST_REQUIRE(parsed);
  std::vector<std::string> env;
  process::set_cpu_bind_env(env, *parsed, {{0}, {1}}, 8);
  auto value = [&](const std::string& key) {
    auto p = process::find_env(env, key);
    return p != nullptr ? p->substr(key.size() + 1) : std::string{"<unset>"};
  };
  BOOST_TEST(value("SHOAL_CPU_BIND") == "quiet,mask_cpu:0x01,0x02");
  BOOST_TEST(value("SHOAL_CPU_BIND_TYPE") == "mask_cpu:");
  BOOST_TEST(value("SHOAL_CPU_BIND_LIST") == "0x01,0x02");
  BOOST_TEST(value("SHOAL_CPU_BIND_VERBOSE") == "quiet");
  auto map = topology::parse_cpu_bind("verbose,map_cpu:3,1");
  BOOST_REQUIRE(map);
  process::set_cpu_bind_env(env, *map, {{3}, {1}}, 4);
  BOOST_TEST(value("SHOAL_CPU_BIND") == "verbose,map_cpu:3,1");
  BOOST_TEST(value("SHOAL_CPU_BIND_LIST") == "3,1");
  auto none = topology::parse_cpu_bind("none");
  BOOST_REQUIRE(none);
  process::set_cpu_bind_env(env, *none, {}, 4);
  BOOST_TEST(value("SHOAL_CPU_BIND") == "quiet,none");
  BOOST_TEST(value("SHOAL_CPU_BIND_LIST") == "");
}

BOOST_AUTO_TEST_CASE(current_affinity_matches_the_kernel) {
  cpu_set_t set;
  CPU_ZERO(&set);
  BOOST_REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  auto cpus = process::current_affinity();
  BOOST_TEST(cpus.size() == static_cast<size_t>(CPU_COUNT(&set)));
  for (auto cpu : cpus) BOOST_TEST(CPU_ISSET(cpu, &set));
}

BOOST_AUTO_TEST_CASE(set_env_replaces_the_first_entry_and_drops_duplicates) {
  std::vector<std::string> env{"A=1", "AB=2", "A=3"};
  process::set_env(env, "A", "9");
  BOOST_TEST((env == std::vector<std::string>{"A=9", "AB=2"}));
  process::set_env(env, "C", "");
  BOOST_TEST((env == std::vector<std::string>{"A=9", "AB=2", "C="}));
  BOOST_REQUIRE(process::find_env(env, "AB") != nullptr);
  BOOST_TEST(*process::find_env(env, "AB") == "AB=2");
  BOOST_TEST(process::find_env(env, "B") == nullptr);
}

BOOST_AUTO_TEST_CASE(task_env_overrides_the_callers_shoal_variables) {
  msg::launch_request req;
  req.job_id = 9;
  req.step_id = msg::batch_step_id;
  req.batch = true;
  req.env = {"SHOAL_JOB_ID=1", "KEEP=yes", "SHOAL_CONF=/old"};
  req.nodelist = "a[1-2]";
  req.node_count = 2;
  process::task_env_settings settings;
  settings.shoal_conf = "/etc/shoal/shoal.conf";
  auto env = process::build_task_env(req, 0, 0, "a1", settings);
  auto value = [&](const std::string& key) {
    auto p = process::find_env(env, key);
    return p != nullptr ? p->substr(key.size() + 1) : std::string{"<unset>"};
  };
  BOOST_TEST(value("SHOAL_JOB_ID") == "9");
  BOOST_TEST(value("KEEP") == "yes");
  BOOST_TEST(value("SHOAL_STEP_ID") == "batch");
  BOOST_TEST(value("SHOAL_CONF") == "/etc/shoal/shoal.conf");
  // Without a job nodelist the step's stands in.
  BOOST_TEST(value("SHOAL_JOB_NODELIST") == "a[1-2]");
  BOOST_TEST(value("SHOAL_JOB_NUM_NODES") == "2");
  BOOST_TEST(value("SHOAL_NODENAME") == "a1");
  auto without_conf = process::build_task_env(req, 0, 0, "a1", process::task_env_settings{});
  BOOST_TEST(*process::find_env(without_conf, "SHOAL_CONF") == "SHOAL_CONF=/old");
}

BOOST_AUTO_TEST_CASE(resolve_program_searches_path_like_execvp) {
  auto sh = process::resolve_program("sh", "/nonexistent:/usr/bin:/bin", "/");
  BOOST_TEST(sh.error == 0);
  BOOST_TEST(sh.path.substr(sh.path.size() - 3) == "/sh");
  auto missing = process::resolve_program("shoal-no-such-program", "/usr/bin:/bin", "/");
  BOOST_TEST(missing.error == ENOENT);
  BOOST_TEST(missing.path.empty());
  auto slash = process::resolve_program("./x", "/usr/bin", "/");
  BOOST_TEST(slash.error == 0);
  BOOST_TEST(slash.path == "./x");
  BOOST_TEST(process::resolve_program("", "/usr/bin", "/").error == ENOENT);
}

BOOST_AUTO_TEST_CASE(resolve_program_reports_a_found_but_unexecutable_file) {
  auto made = runtime::make_temp_dir("shoal-resolve");
  BOOST_REQUIRE(made);
  fs::path dir{*made};
  std::ofstream(dir / "prog") << "x\n";
  fs::permissions(dir / "prog", fs::perms::owner_read);
  auto r = process::resolve_program("prog", "bin-missing:" + dir.string(), "/");
  BOOST_TEST(r.error == EACCES);
  // A relative entry is taken against the base directory.
  fs::permissions(dir / "prog", fs::perms::owner_all);
  auto rel = process::resolve_program("prog", "sub-missing:.", dir.string());
  BOOST_TEST(rel.error == 0);
  BOOST_TEST(rel.path == dir.string() + "/./prog");
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(exit_codes_for_launch_failures_follow_the_shell) {
  using process::launch_failure;
  using process::launch_stage;
  BOOST_TEST(process::exit_code_for(launch_failure{launch_stage::exec, ENOENT}) == 127);
  BOOST_TEST(process::exit_code_for(launch_failure{launch_stage::exec, EACCES}) == 126);
  BOOST_TEST(process::exit_code_for(launch_failure{launch_stage::exec, ENOEXEC}) == 126);
  BOOST_TEST(process::exit_code_for(launch_failure{launch_stage::open_out, EACCES}) == 127);
  BOOST_TEST(process::exit_code_for(launch_failure{launch_stage::affinity, EINVAL}) == 1);
  process::task_spec spec;
  spec.stdout_path = "/x/out";
  BOOST_TEST(process::describe(launch_failure{launch_stage::open_out, ENOENT}, spec, "p") ==
             "open(/x/out): No such file or directory");
  BOOST_TEST(process::describe(launch_failure{launch_stage::exec, ENOENT}, spec, "p") ==
             "execvp(p): No such file or directory");
}

BOOST_AUTO_TEST_CASE(make_dirs_creates_missing_parents) {
  auto made = runtime::make_temp_dir("shoal-mkdirs");
  BOOST_REQUIRE(made);
  fs::path dir{*made};
  BOOST_TEST(process::make_dirs((dir / "a" / "b" / "c").string()) == 0);
  BOOST_TEST(fs::is_directory(dir / "a" / "b" / "c"));
  BOOST_TEST(process::make_dirs((dir / "a" / "b" / "c").string() + "/") == 0);
  std::ofstream(dir / "file") << "x";
  BOOST_TEST(process::make_dirs((dir / "file").string()) == ENOTDIR);
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(job_confinement)

// The node numbers its CPUs by its core table (its cores in order, each core's threads in
// order), not as the host does. Each table here lists two host CPUs, `a` < `b`, the other way
// round: node CPU 0 is host CPU `b`, node CPU 1 is host CPU `a`.

BOOST_FIXTURE_TEST_CASE(tasks_run_only_on_the_cpus_their_job_holds, fixture,
                        *utf::precondition(test::needs_cpus{2,
                                                            "to confine a job to one of them"})) {
  auto allowed = test::allowed_cpus();
  unsigned a = allowed[0], b = allowed[1];
  auto req = request({"sh", "-c", "grep Cpus_allowed_list /proc/self/status"}, {0, 1});
  req.job_cpus = {1};
  auto r = finish(actors::spawn_shepherd(sys, req, caf::actor{sink}, caf::actor{job},
                                         where({core_of(b), core_of(a)})));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  auto want = "Cpus_allowed_list:\t" + std::to_string(a) + "\n";
  for (int32_t rank = 0; rank < 2; ++rank) BOOST_TEST(r.text(rank) == want);
}

BOOST_FIXTURE_TEST_CASE(cpu_bind_plans_within_the_jobs_cpus, fixture,
                        *utf::precondition(test::needs_cpus{2,
                                                            "to confine a job to one of them"})) {
  auto allowed = test::allowed_cpus();
  unsigned a = allowed[0], b = allowed[1];
  // Two tasks, one core each, on a job that holds one core: both share it; the node's other
  // core (which a plan over the whole node would give task 1) is not the job's.
  auto req = request({"sh", "-c", "grep Cpus_allowed_list /proc/self/status"}, {0, 1});
  req.job_cpus = {0};
  req.cpu_bind = "quiet,cores";
  auto r = finish(actors::spawn_shepherd(sys, req, caf::actor{sink}, caf::actor{job},
                                         where({core_of(b), core_of(a)})));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  auto want = "Cpus_allowed_list:\t" + std::to_string(b) + "\n";
  for (int32_t rank = 0; rank < 2; ++rank) BOOST_TEST(r.text(rank) == want);
}

BOOST_FIXTURE_TEST_CASE(cpus_beyond_the_host_leave_tasks_unconfined, fixture) {
  // A node of one CPU whose job holds CPUs 0 and 7: 7 is not there to confine to.
  auto req = request({"sh", "-c", "grep Cpus_allowed_list /proc/self/status"});
  req.job_cpus = {0, 7};
  auto r = finish(actors::spawn_shepherd(sys, req, caf::actor{sink}, caf::actor{job},
                                         where({core_of(test::allowed_cpus()[0])})));
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.launch_error == "");
  BOOST_TEST(r.text(0) == own_allowed_line());
}

BOOST_FIXTURE_TEST_CASE(a_step_over_its_memory_limit_is_killed_and_says_so, fixture) {
  // The shell holds ~100 MB in a variable, then waits: killed by the kernel inside a memory
  // cgroup, or by the shepherd's sampling where there is none.
  auto req = request(
      {"sh", "-c", "x=$(head -c 100000000 /dev/zero | tr '\\0' a); sleep 30; echo survived"});
  req.mem_limit_mb = 20;
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(r.exit.out_of_memory);
  BOOST_TEST(r.text(0).find("survived") == std::string::npos);
  BOOST_REQUIRE(r.exit.tasks.size() == 1u);
  BOOST_TEST(msg::shell_exit_code(r.exit.tasks[0]) != 0);
}

BOOST_FIXTURE_TEST_CASE(a_step_within_its_memory_limit_runs_as_usual, fixture) {
  auto req = request({"sh", "-c", "x=$(head -c 1000000 /dev/zero | tr '\\0' a); echo fine"});
  req.mem_limit_mb = 200;
  auto r = run(req);
  BOOST_REQUIRE(r.got_exit);
  BOOST_TEST(!r.exit.out_of_memory);
  BOOST_TEST(r.text(0) == "fine\n");
  BOOST_TEST(r.exit.tasks[0].exit_code == 0);
}

BOOST_AUTO_TEST_SUITE_END()

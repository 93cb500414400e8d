// `shoal run`: task placement, labels, the task environment and the exit code.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

BOOST_FIXTURE_TEST_SUITE(shoal_run, two_nodes)

BOOST_AUTO_TEST_CASE(block_distribution_labels_each_rank_once) {
  auto r = run_cli(
      {"run", "-N2", "-n4", "-l", "sh", "-c", "echo rank $SHOAL_PROCID node $SHOAL_NODEID"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  std::sort(lines.begin(), lines.end());
  // Block distribution: ranks 0 and 1 on the first node, 2 and 3 on the second.
  std::vector<std::string> expected{"0: rank 0 node 0", "1: rank 1 node 0", "2: rank 2 node 1",
                                    "3: rank 3 node 1"};
  BOOST_TEST(lines == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(tasks_see_the_job_environment_and_the_callers_variables) {
  command_options opt;
  opt.env.push_back({"IT_CALLER_VARIABLE", "passed through"});
  auto r = run_cli({"run", "-N2", "-n2", "sh", "-c",
                    "echo \"job=$SHOAL_JOB_ID ntasks=$SHOAL_NTASKS nodes=$SHOAL_JOB_NODELIST "
                    "dir=$SHOAL_SUBMIT_DIR mine=$IT_CALLER_VARIABLE\""},
                   opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto all = jobs();
  BOOST_REQUIRE_EQUAL(all.size(), 1u);
  auto id = all[0].value("job_id", uint64_t{0});
  auto dir = std::filesystem::canonical(scratch.path()).string();
  auto expected =
      "job=" + std::to_string(id) + " ntasks=2 nodes=node[1-2] dir=" + dir + " mine=passed through";
  auto lines = lines_of(r.out);
  BOOST_TEST(lines == std::vector<std::string>(2, expected), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(exit_code_is_the_highest_task_exit_code) {
  auto r = run_cli({"run", "-n3", "sh", "-c", "exit $SHOAL_PROCID"});
  BOOST_CHECK_MESSAGE(r.exit_code == 2, r.describe());
}

BOOST_AUTO_TEST_CASE(a_signalled_task_gives_128_plus_the_signal) {
  auto r = run_cli({"run", "-n1", "sh", "-c", "kill -9 $$"});
  BOOST_CHECK_MESSAGE(r.exit_code == 128 + 9, r.describe());
}

BOOST_AUTO_TEST_CASE(standard_input_reaches_task_zero_and_its_end_ends_cat) {
  command_options opt;
  opt.input = "hi\nthere\n";
  auto r = run_cli({"run", "-N2", "-n2", "-l", "-u", "cat"}, opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  // Task 1 reads /dev/null; task 0 gets every byte, then the end (else cat would never exit).
  BOOST_TEST(r.out == "0: hi\n0: there\n");
}

BOOST_AUTO_TEST_CASE(input_all_gives_every_task_the_input_and_none_gives_none) {
  command_options opt;
  opt.input = "word\n";
  auto r = run_cli({"run", "-N2", "-n4", "-l", "-i", "all", "cat"}, opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  std::sort(lines.begin(), lines.end());
  std::vector<std::string> expected{"0: word", "1: word", "2: word", "3: word"};
  BOOST_TEST(lines == expected, boost::test_tools::per_element());
  r = run_cli({"run", "-n2", "-i", "1", "-l", "cat"}, opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_TEST(r.out == "1: word\n");
  r = run_cli({"run", "-n1", "--input=none", "cat"}, opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_TEST(r.out == "");
}

BOOST_AUTO_TEST_CASE(a_large_input_arrives_whole_through_a_slow_reader) {
  // 4 MiB through a task that reads slowly at first: the client must wait, not pile it up, and
  // every byte must arrive in order.
  std::string data;
  for (int i = 0; data.size() < (4u << 20); ++i) data += std::to_string(i) + "\n";
  command_options opt;
  opt.input = data;
  auto r = run_cli({"run", "-n1", "sh", "-c", "sleep 0.5; cksum"}, opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto local = write_file(scratch.file("input.txt"), data);
  auto expected = shoal::test::run_command({"sh", "-c", "cksum < " + local});
  BOOST_TEST(r.out == expected.out);
}

BOOST_AUTO_TEST_CASE(input_from_a_file_pattern_per_task) {
  write_file(scratch.file("in.0"), "zero\n");
  write_file(scratch.file("in.1"), "one\n");
  auto r = run_cli({"run", "-n2", "-l", "-i", scratch.file("in.%t"), "cat"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  std::sort(lines.begin(), lines.end());
  std::vector<std::string> expected{"0: zero", "1: one"};
  BOOST_TEST(lines == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(output_to_a_file_pattern_per_task_with_stderr_beside_it) {
  auto pattern = scratch.file("out.%t.%N");
  auto command = std::vector<std::string>{
      "run", "-N2", "-n4", "-o", pattern, "sh", "-c", "echo out $SHOAL_PROCID; echo err >&2"};
  auto r = run_cli(command);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.out.empty(), r.describe());
  // Again: each file is truncated first (Slurm's default open mode), not appended to.
  r = run_cli(command);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  for (int rank = 0; rank < 4; ++rank) {
    auto node = rank < 2 ? "node1" : "node2";
    auto text = read_file(scratch.file("out." + std::to_string(rank) + "." + node));
    BOOST_TEST(text == "out " + std::to_string(rank) + "\nerr\n");
  }
}

BOOST_AUTO_TEST_CASE(error_alone_to_a_file_while_stdout_streams_back_and_append_keeps_both_runs) {
  auto pattern = scratch.file("err.%n");
  for (int i = 0; i < 2; ++i) {
    auto r = run_cli({"run", "-N2", "-n2", "-l", "-e", pattern, "--open-mode=append", "sh", "-c",
                      "echo out $SHOAL_PROCID; echo err $SHOAL_PROCID >&2"});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
    auto lines = lines_of(r.out);
    std::sort(lines.begin(), lines.end());
    std::vector<std::string> expected{"0: out 0", "1: out 1"};
    BOOST_TEST(lines == expected, boost::test_tools::per_element());
    BOOST_CHECK_MESSAGE(r.err.find("err") == std::string::npos, r.describe());
  }
  BOOST_TEST(read_file(scratch.file("err.0")) == "err 0\nerr 0\n");
  BOOST_TEST(read_file(scratch.file("err.1")) == "err 1\nerr 1\n");
}

BOOST_AUTO_TEST_CASE(a_chdir_to_a_missing_directory_fails_the_step) {
  auto r = run_cli({"run", "-n1", "-D", "/nonexistent/shoal-dir", "pwd"});
  BOOST_CHECK_MESSAGE(r.exit_code != 0, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("/nonexistent/shoal-dir") != std::string::npos, r.describe());
  BOOST_CHECK_MESSAGE(r.out.empty(), r.describe());
}

BOOST_AUTO_TEST_CASE(multi_prog_gives_each_task_its_line) {
  auto conf = write_file(scratch.file("multi.conf"),
                         "# a comment\n"
                         "0      echo first %t\n"
                         "1-2    echo 'range of' %t offset %o\n"
                         "*      echo rest %t\n");
  auto r = run_cli({"run", "-N2", "-n4", "-l", "--multi-prog", conf});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto lines = lines_of(r.out);
  std::sort(lines.begin(), lines.end());
  std::vector<std::string> expected{"0: first 0", "1: range of 1 offset 0",
                                    "2: range of 2 offset 1", "3: rest 3"};
  BOOST_TEST(lines == expected, boost::test_tools::per_element());
  auto bad = write_file(scratch.file("bad.conf"), "0 echo only zero\n");
  r = run_cli({"run", "-n2", "--multi-prog", bad});
  BOOST_CHECK_MESSAGE(r.exit_code == 2, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("task 1") != std::string::npos, r.describe());
}

BOOST_AUTO_TEST_CASE(kill_on_bad_exit_ends_the_other_tasks_at_once) {
  auto r = run_cli({"run", "-N2", "-n2", "-K", "sh", "-c",
                    "if [ $SHOAL_PROCID = 1 ]; then exit 3; fi; sleep 30"});
  BOOST_CHECK_MESSAGE(r.exit_code != 0, r.describe());
  BOOST_CHECK_MESSAGE(r.elapsed < std::chrono::seconds{15}, r.describe());
}

BOOST_AUTO_TEST_CASE(verbose_tells_what_srun_does_and_other_options_are_accepted) {
  auto r = run_cli({"run", "-v", "-O", "--no-kill", "-n1", "true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_CHECK_MESSAGE(r.err.find("srun: defined options") != std::string::npos, r.describe());
  BOOST_CHECK_MESSAGE(
      r.err.find("srun: Received task exit notification for 1 task") != std::string::npos,
      r.describe());
}

BOOST_AUTO_TEST_CASE(pty_gives_task_zero_a_terminal_driven_through_tmux) {
  if (shoal::test::run_command({"tmux", "-V"}).exit_code != 0) {
    BOOST_WARN_MESSAGE(false, "skipped: tmux is not installed (scripts/install-deps.sh adds it)");
    return;
  }
  auto socket = scratch.file("tmux.sock");
  auto tmux = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"tmux", "-S", socket});
    return shoal::test::run_command(args);
  };
  auto exit_file = scratch.file("exit");
  auto command = "cd " + scratch.path() + " && env SHOAL_CONF=" + conf + " PS1='pty> ' " +
                 bin_path("shoal") + " run --pty bash --norc --noprofile -i; echo $? > " +
                 exit_file + "; sleep 60";
  auto started = tmux({"new-session", "-d", "-x", "100", "-y", "30", command});
  BOOST_REQUIRE_MESSAGE(started.exit_code == 0, started.describe());
  struct killer {
    std::function<void()> f;
    ~killer() { f(); }
  } end{[&] { tmux({"kill-server"}); }};
  tmux({"set", "-g", "status", "off"});
  auto screen = [&] { return tmux({"capture-pane", "-p"}).out; };
  auto shows = [&](const std::string& text) {
    return wait_until([&] { return screen().find(text) != std::string::npos; }, 20s);
  };
  BOOST_REQUIRE_MESSAGE(shows("pty>"), screen());  // capture-pane drops trailing blanks
  tmux({"send-keys", "stty size", "Enter"});
  auto size = tmux({"display", "-p", "#{pane_height} #{pane_width}"}).out;
  size.erase(size.find_last_not_of('\n') + 1);
  BOOST_CHECK_MESSAGE(shows("\n" + size + "\n"), "size " + size + " screen:\n" + screen());
  tmux({"send-keys", "sleep 100; echo not-interrupted", "Enter"});
  std::this_thread::sleep_for(500ms);
  tmux({"send-keys", "C-c"});
  tmux({"send-keys", "echo after-ctrl-c", "Enter"});
  BOOST_CHECK_MESSAGE(shows("\nafter-ctrl-c"), screen());
  // Ctrl-C ended the sleep and the rest of its line (the echo typed shows, its output does not).
  BOOST_CHECK_MESSAGE(screen().find("\nnot-interrupted") == std::string::npos, screen());
  tmux({"send-keys", "exit 3", "Enter"});
  BOOST_REQUIRE_MESSAGE(wait_until([&] { return !read_file(exit_file).empty(); }, 20s), screen());
  BOOST_TEST(read_file(exit_file) == "3\n");
}

BOOST_AUTO_TEST_SUITE_END()

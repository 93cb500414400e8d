// --ntasks-per-core and --ntasks-per-socket (how many tasks a node takes under them, as Slurm
// 22.05's cons_tres counts), and salloc's own options (--no-shell, -I, --bell, -K) with their
// getopt-style optional values.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "messages/errc.hpp"
#include "tools/cli/job_options.hpp"

using namespace shoal::cli;

namespace {

using words = std::vector<std::string>;

/// `args` parsed as `shoal alloc` parses them (after main's normalize_optional_values).
struct alloc_parse {
  CLI::App app{"test"};
  job_options opts;
  words rest;

  explicit alloc_parse(words args) {
    add_job_options(app, opts, false, true);
    app.prefix_command();
    normalize_optional_values(app, args, 0);
    words reversed(args.rbegin(), args.rend());
    app.parse(reversed);
    rest = app.remaining();
  }
};

job_options run_options(const words& args) {
  CLI::App app{"test"};
  job_options opts;
  add_job_options(app, opts, false);
  words reversed(args.rbegin(), args.rend());
  app.parse(reversed);
  return opts;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(task_density_options)

BOOST_AUTO_TEST_CASE(density_values_are_checked_as_slurm_checks_counts) {
  auto d = parse_task_density(run_options({"--ntasks-per-core=2", "--ntasks-per-socket", "3"}));
  BOOST_REQUIRE(d);
  BOOST_TEST(d->per_core == 2u);
  BOOST_TEST(d->per_socket == 3u);
  auto none = parse_task_density(run_options({}));
  BOOST_REQUIRE(none);
  BOOST_TEST((none->per_core == 0u && none->per_socket == 0u));
  auto zero = parse_task_density(run_options({"--ntasks-per-core=0"}));
  BOOST_REQUIRE(!zero);
  BOOST_TEST(shoal::describe(zero.error()) == "Invalid numeric value \"0\" for --ntasks-per-core.");
  auto word = parse_task_density(run_options({"--ntasks-per-socket=two"}));
  BOOST_REQUIRE(!word);
  BOOST_TEST(shoal::describe(word.error()) ==
             "Invalid numeric value \"two\" for --ntasks-per-socket.");
}

BOOST_AUTO_TEST_CASE(the_job_environment_carries_the_density_as_sbatch_sets_it) {
  auto req =
      build_request(run_options({"--ntasks-per-core=1", "--ntasks-per-socket=4"}), {"true"}, true);
  BOOST_REQUIRE(req);
  auto has = [&](const std::string& entry) {
    return std::find(req->env.begin(), req->env.end(), entry) != req->env.end();
  };
  BOOST_TEST(has("SLURM_NTASKS_PER_CORE=1"));
  BOOST_TEST(has("SLURM_NTASKS_PER_SOCKET=4"));
}

BOOST_AUTO_TEST_CASE(a_layout_that_does_not_add_up_is_one_socket_of_cores) {
  auto s = consistent_shape(8, 2, 2, 2);
  BOOST_TEST((s.sockets == 2u && s.cores_per_socket == 2u && s.threads_per_core == 2u));
  auto odd = consistent_shape(6, 2, 2, 2);
  BOOST_TEST((odd.sockets == 1u && odd.cores_per_socket == 6u && odd.threads_per_core == 1u));
  auto unknown = consistent_shape(4, 0, 0, 0);
  BOOST_TEST((unknown.sockets == 1u && unknown.cores_per_socket == 4u));
}

BOOST_AUTO_TEST_CASE(tasks_per_node_follow_cons_tres) {
  // 2 sockets x 4 cores x 2 threads = 16 CPUs.
  node_shape node{16, 2, 4, 2};
  auto limit = [&](uint32_t core, uint32_t socket, uint32_t cpt) {
    return tasks_per_node_limit(node, task_density{core, socket}, cpt);
  };
  BOOST_TEST(limit(0, 0, 1) == 16u);  // every thread
  BOOST_TEST(limit(1, 0, 1) == 8u);   // one task a core
  BOOST_TEST(limit(2, 0, 1) == 16u);  // two a core: both threads
  BOOST_TEST(limit(3, 0, 1) == 16u);  // more than threads: the threads bound it
  BOOST_TEST(limit(0, 3, 1) == 6u);   // three a socket
  BOOST_TEST(limit(1, 3, 1) == 6u);   // both: the tighter
  BOOST_TEST(limit(1, 0, 2) == 8u);   // a task of 2 CPUs takes a whole core
  BOOST_TEST(limit(1, 0, 3) == 5u);   // 3-CPU tasks: 2 usable a core, 16 a node
  BOOST_TEST(limit(0, 1, 4) == 2u);   // one 4-CPU task a socket
  // A one-thread node: a core takes one task whatever --ntasks-per-core says.
  BOOST_TEST(tasks_per_node_limit(node_shape{4, 1, 4, 1}, task_density{2, 0}, 1) == 4u);
  // Nothing fits: tasks wider than a socket's usable CPUs.
  BOOST_TEST(tasks_per_node_limit(node_shape{2, 1, 2, 1}, task_density{1, 0}, 4) == 0u);
}

BOOST_AUTO_TEST_CASE(salloc_optional_values_are_only_attached) {
  alloc_parse bare{{"-I", "-N", "2", "sleep", "10"}};
  BOOST_TEST(bare.opts.immediate == 1);
  BOOST_TEST(bare.opts.nodes == "2");
  BOOST_TEST(bare.rest == (words{"sleep", "10"}), "rest");
  alloc_parse attached{{"-I60", "-KINT", "--no-shell", "--bell"}};
  BOOST_TEST(attached.opts.immediate == 60);
  BOOST_TEST(attached.opts.kill_command == "INT");
  BOOST_TEST(attached.opts.no_shell);
  BOOST_TEST(attached.opts.bell);
  BOOST_TEST(attached.rest.empty());
  alloc_parse longs{{"--immediate=5", "--kill-command", "--no-bell", "true"}};
  BOOST_TEST(longs.opts.immediate == 5);
  BOOST_TEST(longs.opts.kill_command == "TERM");
  BOOST_TEST(longs.opts.no_bell);
  BOOST_TEST(longs.rest == (words{"true"}), "rest");
  // The command's own words are left alone.
  alloc_parse command{{"-J", "x", "cc", "-I60", "-Kfoo"}};
  BOOST_TEST(command.opts.immediate == 0);
  BOOST_TEST(command.rest == (words{"cc", "-I60", "-Kfoo"}), "rest");
}

BOOST_AUTO_TEST_SUITE_END()

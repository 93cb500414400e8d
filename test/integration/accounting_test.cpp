// The accounting store (docs/accounting.md): a finished job and its steps outlive MinJobAge in
// the SQLite store the controller keeps by default, with what each step used as its nodes
// measured it (seed 001's job shepherd).

#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <httplib.h>

#include "accounting/job_store.hpp"
#include "metrics/text_parser.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;
using namespace std::chrono_literals;

namespace {

/// Burns two seconds of its own CPU time, however long that takes on a busy machine.
constexpr const char* burner_source =
    "#include <time.h>\n"
    "int main(void) {\n"
    "  struct timespec t;\n"
    "  do {\n"
    "    for (volatile int i = 0; i < 1000000; ++i) {\n"
    "    }\n"
    "    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);\n"
    "  } while (t.tv_sec < 2);\n"
    "  return 0;\n"
    "}\n";

/// Touches 200 MB, then holds it for a second.
constexpr const char* toucher_source =
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <unistd.h>\n"
    "int main(void) {\n"
    "  size_t size = 200u << 20;\n"
    "  char* p = malloc(size);\n"
    "  if (!p) return 1;\n"
    "  memset(p, 1, size);\n"
    "  sleep(1);\n"
    "  return p[size / 2] == 1 ? 0 : 2;\n"
    "}\n";

struct short_min_job_age : cluster_fixture {
  short_min_job_age() : cluster_fixture(2, "MinJobAge=2\n") {}

  /// Compiles `source` into the scratch directory as `name`, unoptimized (an optimizer may drop a
  /// buffer nothing reads back); false after a failed check.
  bool build(const std::string& name, const char* source) {
    write_file(scratch.file(name + ".c"), source);
    auto cc = run_command({"cc", "-O0", "-o", scratch.file(name), scratch.file(name + ".c")});
    BOOST_CHECK_MESSAGE(cc.exit_code == 0, cc.describe());
    return cc.exit_code == 0;
  }

  /// Waits until the controller forgot `id` (MinJobAge, once stored).
  bool forgotten(uint64_t id) {
    return wait_until([&] { return job(id).is_null(); }, 60s);
  }

  /// The store's record of job `id`, read as sacct would.
  std::optional<shoal::accounting::job_record> stored(uint64_t id) {
    auto store = shoal::accounting::open_sqlite_store(cluster.directory() + "/state/accounting.db");
    BOOST_REQUIRE_MESSAGE(store, (store ? "" : describe(store.error())));
    shoal::accounting::job_query q;
    q.jobs.push_back({static_cast<uint32_t>(id), -1});
    auto found = (*store)->query(q);
    BOOST_REQUIRE_MESSAGE(found, (found ? "" : describe(found.error())));
    if (found->empty()) return std::nullopt;
    return found->front();
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(accounting_store, short_min_job_age)

BOOST_AUTO_TEST_CASE(a_finished_job_is_forgotten_after_min_job_age_while_nothing_lists_jobs) {
  // The controller's own tick forgets it: nothing here lists jobs (a listing purges too), only
  // /metrics is read, whose shoal_jobs gauge counts the finished jobs still held.
  auto completed_held = [&]() -> double {
    httplib::Client client{"127.0.0.1", cluster.metrics_port()};
    auto res = client.Get("/metrics");
    if (!res || res->status != 200) return -1;
    auto parsed = shoal::metrics::parse_text(res->body);
    if (!parsed) return -1;
    return parsed->value("shoal_jobs", {{"state", "COMPLETED"}}).value_or(-1);
  };
  auto r = run_cli({"run", "true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(wait_until([&] { return completed_held() == 1; }, 30s));
  BOOST_TEST(wait_until([&] { return completed_held() == 0; }, 30s), completed_held());
  BOOST_TEST(stored(1).has_value());
}

BOOST_AUTO_TEST_CASE(a_finished_job_outlives_min_job_age_in_the_store_with_its_cpu_time) {
  BOOST_REQUIRE(build("burn", burner_source));
  auto r = run_cli({"run", "-J", "burner", "./burn"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(forgotten(1));
  auto rec = stored(1);
  BOOST_REQUIRE_MESSAGE(rec.has_value(), "job 1 is not in the store");
  BOOST_CHECK_EQUAL(rec->job.name, "burner");
  BOOST_CHECK_EQUAL(rec->job.state, "COMPLETED");
  BOOST_CHECK_EQUAL(rec->job.nodelist, "node1");
  BOOST_REQUIRE_EQUAL(rec->steps.size(), 1u);
  const auto& step = rec->steps.front();
  BOOST_CHECK_EQUAL(step.step_id, 0u);
  BOOST_CHECK_EQUAL(step.state, "COMPLETED");
  BOOST_CHECK_EQUAL(step.ntasks, 1u);
  // TotalCPU: user and system time together, as sacct adds them.
  auto total_s = static_cast<double>(step.user_cpu_us + step.system_cpu_us) / 1e6;
  BOOST_CHECK_MESSAGE(total_s >= 1.5 && total_s <= 2.5, "TotalCPU " << total_s << " s");
  BOOST_CHECK(step.end_time >= step.start_time && step.start_time > 0);
}

BOOST_AUTO_TEST_CASE(a_step_touching_200_mb_has_a_max_rss_of_at_least_190_mb_on_its_node) {
  BOOST_REQUIRE(build("touch", toucher_source));
  auto r = run_cli({"run", "-N2", "-n2", "./touch"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(forgotten(1));
  auto rec = stored(1);
  BOOST_REQUIRE_MESSAGE(rec.has_value(), "job 1 is not in the store");
  BOOST_REQUIRE_EQUAL(rec->steps.size(), 1u);
  const auto& step = rec->steps.front();
  BOOST_CHECK_EQUAL(step.node_count, 2u);
  BOOST_CHECK_MESSAGE(step.max_rss_bytes >= (190u << 20), "MaxRSS " << step.max_rss_bytes);
  BOOST_CHECK(step.max_rss_node == "node1" || step.max_rss_node == "node2");
}

BOOST_AUTO_TEST_CASE(a_batch_job_keeps_its_batch_step_and_its_srun_steps_across_a_restart) {
  auto id = submit_script("steps.sh", "#!/bin/sh\nshoal run true\nshoal run -n2 false\nexit 0\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 60s));
  // A kill -9 before the job is forgotten: the restarted controller writes it again (the same
  // rows: writes are idempotent) and forgets it only once stored.
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE(!cluster.restart_controller());
  BOOST_REQUIRE(forgotten(id));
  auto rec = stored(id);
  BOOST_REQUIRE_MESSAGE(rec.has_value(), "the batch job is not in the store");
  BOOST_CHECK_EQUAL(rec->job.state, "COMPLETED");
  std::vector<std::string> steps;
  for (auto& s : rec->steps)
    steps.push_back(shoal::accounting::step_id_text(std::to_string(id), s.step_id) + " " + s.state);
  std::vector<std::string> expected{std::to_string(id) + ".batch COMPLETED",
                                    std::to_string(id) + ".0 COMPLETED",
                                    std::to_string(id) + ".1 FAILED"};
  BOOST_TEST(steps == expected, boost::test_tools::per_element());
  // Slurm's DerivedExitCode: the highest exit code of any step.
  BOOST_CHECK_EQUAL(rec->job.derived_exit_code, 1);
}

BOOST_AUTO_TEST_CASE(sacct_lists_a_forgotten_job_and_its_step_with_what_the_step_used) {
  BOOST_REQUIRE(build("burn", burner_source));
  auto r = run_cli({"run", "-J", "burner", "./burn"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(forgotten(1));
  auto acct = run_cli(
      {"acct", "-j", "1", "-P", "-o", "JobID,JobName,State,ExitCode,NodeList,NTasks,TotalCPU"});
  BOOST_REQUIRE_MESSAGE(acct.exit_code == 0, acct.describe());
  auto lines = lines_of(acct.out);
  BOOST_REQUIRE_MESSAGE(lines.size() == 3, acct.describe());
  BOOST_CHECK_EQUAL(lines[0], "JobID|JobName|State|ExitCode|NodeList|NTasks|TotalCPU");
  BOOST_CHECK_EQUAL(lines[1].substr(0, lines[1].rfind('|')), "1|burner|COMPLETED|0:0|node1|");
  BOOST_CHECK_EQUAL(lines[2].substr(0, lines[2].rfind('|')), "1.0|burner|COMPLETED|0:0|node1|1");
  // TotalCPU as sacct prints a short one: MM:SS.mmm, or 00:MM:SS when the milliseconds are 0.
  auto cpu = lines[2].substr(lines[2].rfind('|') + 1);
  BOOST_REQUIRE_MESSAGE((cpu.size() == 9 && cpu[5] == '.') || (cpu.size() == 8 && cpu[5] == ':'),
                        cpu);
  double seconds = cpu.find('.') != std::string::npos
                       ? std::stoi(cpu.substr(0, 2)) * 60 + std::stod(cpu.substr(3))
                       : std::stoi(cpu.substr(3, 2)) * 60 + std::stoi(cpu.substr(6, 2));
  BOOST_CHECK_MESSAGE(seconds >= 1.5 && seconds <= 2.5, cpu);
}

BOOST_AUTO_TEST_CASE(open_ondemands_sacct_line_reads_a_job_from_the_store) {
  BOOST_REQUIRE(build("touch", toucher_source));
  auto r = run_cli({"run", "-J", "toucher", "./touch"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  BOOST_REQUIRE(forgotten(1));
  // ood_core's Slurm adapter (lib/ood_core/job/adapters/slurm.rb, the accounting fields it asks).
  auto acct = run_cli({"acct", "-P", "--delimiter", "\x1F", "-j", "1", "-o",
                       "User,Group,JobId,JobName,Elapsed,ReqMem,AllocCPUS,ReqCPUS,Timelimit,"
                       "State,TotalCPU,MaxRSS,Partition,Submit,Start,End,ReqTRES"});
  BOOST_REQUIRE_MESSAGE(acct.exit_code == 0, acct.describe());
  auto lines = lines_of(acct.out);
  BOOST_REQUIRE_MESSAGE(lines.size() == 3, acct.describe());
  auto fields = [](const std::string& line) {
    std::vector<std::string> out;
    size_t pos = 0;
    for (auto at = line.find("\x1F"); at != std::string::npos; at = line.find("\x1F", pos)) {
      out.push_back(line.substr(pos, at - pos));
      pos = at + 1;
    }
    out.push_back(line.substr(pos));
    return out;
  };
  auto job = fields(lines[1]);
  auto step = fields(lines[2]);
  BOOST_REQUIRE_EQUAL(job.size(), 17u);
  BOOST_REQUIRE_EQUAL(step.size(), 17u);
  BOOST_CHECK_EQUAL(job[2], "1");
  BOOST_CHECK_EQUAL(job[3], "toucher");
  BOOST_CHECK_EQUAL(job[9], "COMPLETED");
  BOOST_CHECK_MESSAGE(job[16].rfind("cpu=1", 0) == 0, job[16]);
  BOOST_CHECK_EQUAL(step[2], "1.0");
  // MaxRSS of the step: at least 190 MB, in sacct's units (K, M or G).
  auto rss = step[11];
  BOOST_REQUIRE_MESSAGE(!rss.empty(), lines[2]);
  double amount = std::stod(rss);
  double mb = rss.back() == 'G' ? amount * 1024 : rss.back() == 'M' ? amount : amount / 1024;
  BOOST_CHECK_MESSAGE(mb >= 190, rss);
  // --noconvert: in bytes, as the store keeps it.
  auto raw = run_cli({"acct", "-j", "1", "-n", "-P", "--noconvert", "-o", "JobID,MaxRSS"});
  BOOST_REQUIRE_MESSAGE(raw.exit_code == 0, raw.describe());
  auto raw_lines = lines_of(raw.out);
  BOOST_REQUIRE_EQUAL(raw_lines.size(), 2u);
  auto bytes = raw_lines[1].substr(raw_lines[1].find('|') + 1);
  BOOST_REQUIRE_MESSAGE(
      !bytes.empty() && bytes.find_first_not_of("0123456789") == std::string::npos, raw_lines[1]);
  BOOST_CHECK_GE(std::stoull(bytes), 190ull << 20);
}

BOOST_AUTO_TEST_CASE(sacct_selects_by_account_and_by_node_before_and_after_the_store) {
  auto first = run_cli({"run", "-w", "node1", "-A", "physics", "true"});
  BOOST_REQUIRE_MESSAGE(first.exit_code == 0, first.describe());
  auto second = run_cli({"run", "-w", "node2", "-A", "chemistry", "true"});
  BOOST_REQUIRE_MESSAGE(second.exit_code == 0, second.describe());
  auto ids = [&](const std::vector<std::string>& selection) {
    std::vector<std::string> args{"acct", "-X", "-n", "-P", "-o", "JobID"};
    args.insert(args.end(), selection.begin(), selection.end());
    auto r = run_cli(args);
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    return lines_of(r.out);
  };
  using lines = std::vector<std::string>;
  // While the controller still holds them, and once only the store does.
  for (int pass = 0; pass < 2; ++pass) {
    BOOST_TEST(ids({"-N", "node2"}) == lines{"2"}, boost::test_tools::per_element());
    BOOST_TEST(ids({"-N", "node[1-2]"}) == (lines{"1", "2"}), boost::test_tools::per_element());
    BOOST_TEST(ids({"-A", "physics"}) == lines{"1"}, boost::test_tools::per_element());
    BOOST_TEST(ids({"-A", "biology"}).empty());
    if (pass == 0) BOOST_REQUIRE(forgotten(1) && forgotten(2));
  }
  auto bad = run_cli({"acct", "-N", "node[1-"});
  BOOST_CHECK_MESSAGE(bad.exit_code == 1, bad.describe());
}

BOOST_AUTO_TEST_CASE(every_step_of_a_job_of_many_steps_reaches_the_store) {
  // Steps are stored while the job runs (and leave its record): none may be lost on the way.
  auto id = submit_script("many.sh",
                          "#!/bin/sh\ni=0\nwhile [ $i -lt 25 ]; do shoal run true; i=$((i+1)); "
                          "done\n");
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 120s));
  BOOST_REQUIRE(forgotten(id));
  auto rec = stored(id);
  BOOST_REQUIRE_MESSAGE(rec.has_value(), "the job is not in the store");
  std::vector<std::string> steps;
  for (auto& s : rec->steps)
    steps.push_back(shoal::accounting::step_id_text(std::to_string(id), s.step_id));
  std::vector<std::string> expected{std::to_string(id) + ".batch"};
  for (int i = 0; i < 25; ++i) expected.push_back(std::to_string(id) + "." + std::to_string(i));
  BOOST_TEST(steps == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

struct without_a_store : cluster_fixture {
  without_a_store()
      : cluster_fixture(1, "AccountingStorageType=accounting_storage/none\nMinJobAge=2\n") {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(accounting_none, without_a_store)

BOOST_AUTO_TEST_CASE(sacct_lists_what_the_controller_holds_quietly_and_a_job_goes_at_min_job_age) {
  auto r = run_cli({"run", "-J", "quiet", "true"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto acct = run_cli({"acct", "-j", "1", "-n", "-P", "-o", "JobID,JobName,State"});
  BOOST_REQUIRE_MESSAGE(acct.exit_code == 0, acct.describe());
  BOOST_CHECK_EQUAL(acct.out, "1|quiet|COMPLETED\n");
  BOOST_CHECK_MESSAGE(acct.err.empty(), acct.err);
  // Nothing keeps it: MinJobAge after its end the controller forgets it, as Slurm's does.
  BOOST_CHECK(wait_until([&] { return job(1).is_null(); }, 60s));
  auto gone = run_cli({"acct", "-j", "1", "-n", "-P", "-o", "JobID"});
  BOOST_CHECK_MESSAGE(gone.exit_code == 0 && gone.out.empty(), gone.describe());
}

BOOST_AUTO_TEST_SUITE_END()

// Fair-share against a real cluster (issue 35): two users in two accounts with equal shares, made
// with `sacctmgr`; one of them runs jobs and is charged their CPU-seconds; then both queue equal
// jobs behind a job that fills the node, and the one with less usage starts first. sshare shows
// the usage and the factors, sprio the FAIRSHARE column, and the usage outlives a kill -9 of the
// controller (the scheduler saves it in StateSaveLocation). Needs root, to create the second
// user and run the CLI as it.

#include <boost/test/unit_test.hpp>

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;
using namespace std::chrono_literals;

namespace {

const char* const other_user = "shoal-it-user";

/// Only the fair-share factor weighs: equal jobs differ in nothing else, and age (a few seconds
/// against PriorityMaxAge) would round to 0 anyway.
struct fair_share_node : cluster_fixture {
  fair_share_node()
      : cluster_fixture(1,
                        "PriorityWeightFairshare=10000\nPriorityWeightAge=0\n"
                        "PriorityWeightJobSize=0\nPriorityWeightPartition=0\n") {}
};

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in{line};
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// One user line of `sshare -a -P -o Account,User,RawUsage,FairShare`.
struct share_line {
  std::string account;
  long long raw_usage = -1;
  double fairshare = -1;
};

/// The user lines of sshare -a, by user; empty when sshare fails.
std::map<std::string, share_line> shares(cluster_fixture& c) {
  std::map<std::string, share_line> out;
  auto r = run_slurm(c, "sshare", {"-a", "-n", "-P", "-o", "Account,User,RawUsage,FairShare"});
  if (r.exit_code != 0) return out;
  for (auto& line : lines_of(r.out)) {
    std::vector<std::string> cells;
    size_t pos = 0;
    while (true) {
      auto bar = line.find('|', pos);
      cells.push_back(line.substr(pos, bar - pos));
      if (bar == std::string::npos) break;
      pos = bar + 1;
    }
    if (cells.size() != 4 || cells[1].empty()) continue;
    share_line s;
    s.account = cells[0].substr(cells[0].find_first_not_of(' '));
    s.raw_usage = std::atoll(cells[2].c_str());
    s.fairshare = std::atof(cells[3].c_str());
    out[cells[1]] = s;
  }
  return out;
}

/// Polls sshare until root's usage in acct_a is above `above`; its line then.
share_line wait_usage_above(cluster_fixture& c, long long above) {
  share_line last;
  wait_until(
      [&] {
        auto all = shares(c);
        auto it = all.find("root");
        if (it == all.end() || it->second.account != "acct_a") return false;
        last = it->second;
        return last.raw_usage > above;
      },
      30s);
  return last;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(fair_share, fair_share_node)

BOOST_AUTO_TEST_CASE(the_user_with_less_usage_starts_first_and_usage_outlives_a_restart,
                     *boost::unit_test::precondition(needs_root{
                         "to create a second user and run the CLI as it"})) {
  const passwd* pw = ensure_user(other_user);
  BOOST_REQUIRE_MESSAGE(pw != nullptr, "no test user");
  for (auto words :
       std::vector<std::vector<std::string>>{{"-i", "add", "account", "acct_a", "fairshare=10"},
                                             {"-i", "add", "account", "acct_b", "fairshare=10"},
                                             {"-i", "add", "user", "root", "account=acct_a"},
                                             {"-i", "add", "user", other_user, "account=acct_b"}}) {
    auto r = run_slurm(*this, "sacctmgr", words);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  }
  // Both start even: no usage, and the same factor.
  BOOST_REQUIRE(wait_until([&] { return shares(*this).count(other_user) == 1; }, 30s));
  auto even = shares(*this);
  BOOST_REQUIRE(even.count("root") == 1);
  BOOST_TEST(even["root"].raw_usage == 0);
  BOOST_TEST(even[other_user].raw_usage == 0);
  BOOST_TEST(even["root"].fairshare == even[other_user].fairshare);

  // User A (root, in acct_a) runs a job: its CPUs x elapsed seconds are charged when it ends.
  auto ran = run_cli({"run", "-A", "acct_a", "--exclusive", "sleep", "2"});
  BOOST_REQUIRE_MESSAGE(ran.exit_code == 0, ran.describe());
  auto used = wait_usage_above(*this, 0);
  BOOST_REQUIRE_MESSAGE(used.raw_usage > 0, "root's usage never showed in sshare");
  auto after = shares(*this);
  BOOST_TEST(after[other_user].raw_usage == 0);
  BOOST_TEST(after["root"].fairshare < after[other_user].fairshare);

  // A job fills the node; A's and B's equal jobs queue behind it, A's first (so its lower id
  // would win a tie).
  auto blocker = submit_script("block.sh", "#!/bin/sh\nsleep 300\n",
                               {"-A", "acct_a", "--exclusive", "-o", "/dev/null"});
  BOOST_REQUIRE(blocker != 0);
  BOOST_REQUIRE(wait_job_state(blocker, "RUNNING", 30s));
  auto a_job = submit_script("a.sh", "#!/bin/sh\nsleep 2\n",
                             {"-A", "acct_a", "--exclusive", "-o", "/dev/null"});
  BOOST_REQUIRE(a_job != 0);
  ::chmod(scratch.path().c_str(), 0711);
  auto script = write_file(scratch.file("b.sh"), "#!/bin/sh\nsleep 2\n", true);
  ::chmod(script.c_str(), 0755);
  auto b_submit = run_as(pw, {"batch", "--exclusive", "-o", "/dev/null", script});
  BOOST_REQUIRE_MESSAGE(b_submit.exit_code == 0, b_submit.describe());
  auto b_job = submitted_job_id(b_submit.out);
  BOOST_REQUIRE(b_job > a_job);
  BOOST_TEST(job(b_job).value("account", "") == "acct_b");  // B's default account

  // sprio shows the FAIRSHARE column (PriorityWeightFairshare is set), B's the larger.
  std::map<uint64_t, long long> fairshare_of;
  bool both = wait_until(
      [&] {
        auto prio = run_slurm(*this, "sprio", {});
        auto lines = lines_of(prio.out);
        if (prio.exit_code != 0 || lines.empty()) return false;
        if (lines[0].find("FAIRSHARE") == std::string::npos) return false;
        // JOBID PARTITION USER PRIORITY AGE FAIRSHARE ...
        fairshare_of.clear();
        for (size_t i = 1; i < lines.size(); ++i) {
          auto words = split_words(lines[i]);
          if (words.size() >= 6) fairshare_of[std::stoull(words[0])] = std::stoll(words[5]);
        }
        return fairshare_of.count(a_job) == 1 && fairshare_of.count(b_job) == 1 &&
               fairshare_of[b_job] > 0;
      },
      30s);
  BOOST_REQUIRE_MESSAGE(both, run_slurm(*this, "sprio", {}).describe());
  BOOST_TEST(fairshare_of[b_job] > fairshare_of[a_job]);

  // The node frees: B's job, with no usage, starts before A's older one; A's starts once B's
  // has ended (each holds the whole node).
  auto cancel = run_cli({"cancel", std::to_string(blocker)});
  BOOST_REQUIRE_MESSAGE(cancel.exit_code == 0, cancel.describe());
  BOOST_REQUIRE(wait_job_state(b_job, "COMPLETED", 60s));
  BOOST_REQUIRE(wait_job_state(a_job, "COMPLETED", 60s));
  auto b_end = job(b_job).value("end_time", int64_t{0});
  auto a_start = job(a_job).value("start_time", int64_t{0});
  BOOST_TEST(b_end > 0);
  BOOST_TEST(a_start >= b_end, "A's job started at " << a_start << ", B's ended at " << b_end);

  // The usage outlives a kill -9 of the controller. A held submission is answered only once
  // the saved state is durable, the ledger the scheduler saved before it included.
  auto before = wait_usage_above(*this, used.raw_usage);
  BOOST_REQUIRE(before.raw_usage > used.raw_usage);
  BOOST_REQUIRE(submit_script("held.sh", "#!/bin/sh\ntrue\n", {"-H", "-o", "/dev/null"}) != 0);
  cluster.signal_controller(SIGKILL);
  BOOST_REQUIRE(!cluster.restart_controller());
  share_line again;
  BOOST_REQUIRE(wait_until(
      [&] {
        auto all = shares(*this);
        if (all.count("root") == 0) return false;
        again = all["root"];
        return true;
      },
      30s));
  // Decayed by seconds of a 7-day half-life: the same whole CPU-seconds, or one less.
  BOOST_TEST(again.raw_usage >= before.raw_usage - 1);
  BOOST_TEST(again.raw_usage <= before.raw_usage);
  BOOST_TEST(again.fairshare < shares(*this)[other_user].fairshare);
}

BOOST_AUTO_TEST_SUITE_END()

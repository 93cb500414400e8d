// A job submitted by another user runs as that user: shoald (root here) starts its tasks with
// the submitter's uid, gid and groups, in the submitter's working directory. Needs root, to
// create the user and to run the CLI as it; without root the cases are skipped, with the reason.

#include <boost/test/unit_test.hpp>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "messages/caf/error.hpp"
#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;

namespace {

const char* const test_user = "shoal-it-user";
const char* const other_user = "shoal-it-other";

/// `args` for the CLI run as the user `pw` (setpriv, as root).
std::vector<std::string> as_user(const passwd* pw, std::vector<std::string> args) {
  std::vector<std::string> argv{"setpriv", "--reuid=" + std::to_string(pw->pw_uid),
                                "--regid=" + std::to_string(pw->pw_gid), "--init-groups",
                                bin_path("shoal")};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

/// One node, jobs private to their owners (PrivateData=jobs).
struct private_one_node : cluster_fixture {
  private_one_node() : cluster_fixture(1, "PrivateData=jobs\n") {}
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(run_as_user, one_node)

BOOST_AUTO_TEST_CASE(a_job_runs_as_its_submitter_who_may_not_drain_a_node,
                     *boost::unit_test::precondition(needs_root{
                         "to create a test user and run the CLI as it"})) {
  const passwd* pw = ensure_user(test_user);
  BOOST_REQUIRE_MESSAGE(pw != nullptr, "no test user");
  const auto uid = pw->pw_uid;
  const auto gid = pw->pw_gid;
  // The user reads the cluster's config; its job writes to a directory of its own.
  auto cluster_dir = std::filesystem::path{conf}.parent_path();
  ::chmod(cluster_dir.c_str(), 0755);
  ::chmod(conf.c_str(), 0644);
  ::chmod(scratch.path().c_str(), 0711);
  auto work = scratch.file("user-work");
  std::filesystem::create_directory(work);
  BOOST_REQUIRE(::chown(work.c_str(), uid, gid) == 0);
  auto script = write_file(work + "/whoami.sh", "#!/bin/sh\nid -u\nid -g\npwd\n", true);
  command_options opt;
  opt.cwd = work;
  opt.env = {{"SHOAL_CONF", conf}};
  auto r = run_command(as_user(pw, {"batch", "-o", work + "/out.txt", script}), opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 30s));
  auto lines = lines_of(read_file(work + "/out.txt"));
  BOOST_REQUIRE_MESSAGE(lines.size() >= 3, read_file(work + "/out.txt"));
  BOOST_TEST(lines[0] == std::to_string(uid));
  BOOST_TEST(lines[1] == std::to_string(gid));
  BOOST_TEST(lines[2] == work);
  // The listing names the submitter.
  BOOST_TEST(job(id).value("user", "") == test_user);
  // The user may not drain a node (one error line, exit 1); root may.
  auto drain = run_command(
      as_user(pw, {"control", "update", "nodename=node1", "state=drain", "reason=mine"}), opt);
  BOOST_CHECK_MESSAGE(drain.exit_code == 1, drain.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(drain.err, "error: Access/permission denied") == 1,
                      drain.describe());
  BOOST_TEST(node_state("node1") == "IDLE");
  // Nor change, create or delete a partition.
  for (auto words : std::vector<std::vector<std::string>>{
           {"control", "update", "partitionname=debug", "state=down"},
           {"control", "create", "partitionname=mine", "nodes=node1"},
           {"control", "delete", "partitionname=debug"}}) {
    auto refused = run_command(as_user(pw, words), opt);
    BOOST_CHECK_MESSAGE(refused.exit_code == 1, refused.describe());
    BOOST_CHECK_MESSAGE(count_lines_with(refused.err, "error: Access/permission denied") == 1,
                        refused.describe());
  }
  auto debug = run_cli({"control", "show", "partition", "debug"});
  BOOST_TEST(debug.out.find("State=UP") != std::string::npos, debug.describe());
  auto by_root = run_cli({"control", "update", "nodename=node1", "state=drain", "reason=root's"});
  BOOST_CHECK_MESSAGE(by_root.exit_code == 0, by_root.describe());
  BOOST_CHECK(wait_node_state("node1", "DRAINED", 10s));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(users_and_their_jobs, private_one_node)

BOOST_AUTO_TEST_CASE(a_user_may_not_cancel_or_see_another_users_job_and_root_may,
                     *boost::unit_test::precondition(needs_root{
                         "to create two test users and run the CLI as them"})) {
  const passwd* owner = ensure_user(test_user);
  BOOST_REQUIRE(owner != nullptr);
  const auto owner_uid = owner->pw_uid;
  const auto owner_gid = owner->pw_gid;
  const passwd* other = ensure_user(other_user);
  BOOST_REQUIRE(other != nullptr);
  passwd owner_entry = *owner;  // getpwnam's buffer is shared: keep the owner's numbers
  owner_entry.pw_uid = owner_uid;
  owner_entry.pw_gid = owner_gid;
  auto cluster_dir = std::filesystem::path{conf}.parent_path();
  ::chmod(cluster_dir.c_str(), 0755);
  ::chmod(conf.c_str(), 0644);
  ::chmod(scratch.path().c_str(), 0711);
  auto work = scratch.file("owner-work");
  std::filesystem::create_directory(work);
  BOOST_REQUIRE(::chown(work.c_str(), owner_uid, owner_gid) == 0);
  ::chmod(work.c_str(), 0755);
  auto script = write_file(work + "/long.sh", "#!/bin/sh\nsleep 300\n", true);
  command_options opt;
  opt.cwd = work;
  opt.env = {{"SHOAL_CONF", conf}};
  auto r = run_command(as_user(&owner_entry, {"batch", "-o", work + "/out.txt", script}), opt);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.describe());
  auto id = submitted_job_id(r.out);
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_job_state(id, "RUNNING", 30s));
  // The other user neither sees the job (PrivateData=jobs) nor may cancel it.
  auto listed = run_command(as_user(other, {"queue", "--noheader", "-o", "JobId"}), opt);
  BOOST_CHECK_MESSAGE(listed.exit_code == 0, listed.describe());
  BOOST_CHECK_MESSAGE(listed.out.find(std::to_string(id)) == std::string::npos, listed.describe());
  auto cancel = run_command(as_user(other, {"cancel", std::to_string(id)}), opt);
  BOOST_CHECK_MESSAGE(cancel.exit_code == 1, cancel.describe());
  BOOST_CHECK_MESSAGE(count_lines_with(cancel.err, "Access/permission denied") == 1,
                      cancel.describe());
  BOOST_TEST(job(id).value("state", "") == "RUNNING");
  // A second job waits behind the first: neither shows in the other user's priorities or map.
  auto queued =
      run_command(as_user(&owner_entry, {"batch", "-o", work + "/out2.txt", script}), opt);
  BOOST_REQUIRE_MESSAGE(queued.exit_code == 0, queued.describe());
  auto pending_id = submitted_job_id(queued.out);
  BOOST_REQUIRE(wait_job_state(pending_id, "PENDING", 30s));
  auto prio_of = [&](const passwd* who) {
    return run_command(as_user(who, {"queue", "--priority", "--noheader"}), opt);
  };
  auto others_prio = prio_of(other);
  BOOST_CHECK_MESSAGE(others_prio.exit_code == 0, others_prio.describe());
  BOOST_CHECK_MESSAGE(others_prio.out.find(std::to_string(pending_id)) == std::string::npos,
                      others_prio.describe());
  auto owners_prio = prio_of(&owner_entry);
  BOOST_CHECK_MESSAGE(owners_prio.out.find(std::to_string(pending_id)) != std::string::npos,
                      owners_prio.describe());
  auto jobs_on_map = [&](const passwd* who) {
    std::set<uint64_t> ids;
    auto r = run_command(as_user(who, {"map", "--json"}), opt);
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    auto doc = parse_json(r.out);
    for (auto& n : doc.value("nodes", nlohmann::json::array()))
      ids.insert(n.value("job_id", uint64_t{0}));
    for (auto& j : doc.value("jobs", nlohmann::json::array()))
      ids.insert(j.value("job_id", uint64_t{0}));
    return ids;
  };
  BOOST_CHECK(jobs_on_map(other).count(id) == 0);
  BOOST_CHECK(jobs_on_map(&owner_entry).count(id) == 1);
  // The owner sees it; root sees it and may cancel it.
  auto own = run_command(as_user(&owner_entry, {"queue", "--noheader", "-o", "JobId"}), opt);
  BOOST_CHECK_MESSAGE(own.out.find(std::to_string(id)) != std::string::npos, own.describe());
  auto by_root = run_cli({"cancel", std::to_string(id)});
  BOOST_CHECK_MESSAGE(by_root.exit_code == 0, by_root.describe());
  BOOST_CHECK(wait_job_state(id, "CANCELLED", 30s));
  BOOST_CHECK(run_cli({"cancel", std::to_string(pending_id)}).exit_code == 0);
}

BOOST_AUTO_TEST_SUITE_END()

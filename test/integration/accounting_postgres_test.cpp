// accounting_storage/postgres against a real PostgreSQL server the test starts (Debian's
// postgresql, accounting/private_postgres.hpp): jobs that end while the server is stopped wait in
// the controller, which forgets none of them, and all reach the store once it is back.

#include <boost/test/unit_test.hpp>

#include <httplib.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "accounting/job_store.hpp"
#include "accounting/private_postgres.hpp"
#include "test/integration/harness.hpp"
#include "test/preconditions.hpp"

using namespace shoal::test;
using namespace std::chrono_literals;

namespace {

/// The server, started before the cluster whose config names it.
struct postgres_server {
  postgres_server() {
    char tmpl[] = "/tmp/shoal-it-pg-XXXXXX";  // mkdtemp fills in the XXXXXX
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir = tmpl;
    auto started = shoal::accounting::private_postgres::start(dir);
    if (!started) throw std::runtime_error(describe(started.error()));
    server.emplace(std::move(*started));
  }
  ~postgres_server() {
    server.reset();
    std::system(("rm -rf " + dir).c_str());
  }
  std::string config() const {
    auto s = server->settings("acct");
    return "AccountingStorageType=accounting_storage/postgres\nAccountingStorageHost=" + s.host +
           "\nAccountingStoragePort=" + std::to_string(s.port) +
           "\nAccountingStorageUser=" + s.user + "\nAccountingStorageLoc=acct\nMinJobAge=2\n";
  }
  std::string dir;
  std::optional<shoal::accounting::private_postgres> server;
};

struct cluster_on_postgres : postgres_server, cluster_fixture {
  cluster_on_postgres() : postgres_server(), cluster_fixture(2, config()) {}

  /// The ids the store holds.
  std::vector<uint64_t> stored_ids() {
    auto store = shoal::accounting::open_postgres_store(server->settings("acct"));
    BOOST_REQUIRE_MESSAGE(store, (store ? "" : describe(store.error())));
    auto found = (*store)->query({});
    BOOST_REQUIRE_MESSAGE(found, (found ? "" : describe(found.error())));
    std::vector<uint64_t> ids;
    for (auto& rec : *found) ids.push_back(rec.job.job_id);
    return ids;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(accounting_postgres, cluster_on_postgres,
                         *boost::unit_test::precondition(needs_postgres{}))

BOOST_AUTO_TEST_CASE(jobs_that_end_while_the_database_is_stopped_are_stored_once_it_is_back) {
  std::vector<uint64_t> ids;
  auto submit = [&] {
    auto id = submit_script("job.sh", "#!/bin/sh\ntrue\n");
    BOOST_REQUIRE(id != 0);
    ids.push_back(id);
  };
  for (int i = 0; i < 3; ++i) submit();
  for (auto id : ids) BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 60s));

  BOOST_REQUIRE(!server->stop());
  for (int i = 0; i < 5; ++i) submit();
  for (auto id : ids) BOOST_REQUIRE(wait_job_state(id, "COMPLETED", 60s));
  // Submission and scheduling went on; the jobs that ended meanwhile are not stored, so the
  // controller keeps them past MinJobAge (2 s).
  std::this_thread::sleep_for(4s);
  for (size_t i = 3; i < ids.size(); ++i)
    BOOST_CHECK_MESSAGE(!job(ids[i]).is_null(), "job " << ids[i] << " was forgotten unstored");

  BOOST_REQUIRE(!server->restart());
  // The writer retries (1 s, doubling): every job reaches the store, then leaves the controller.
  for (auto id : ids)
    BOOST_CHECK_MESSAGE(wait_until([&] { return job(id).is_null(); }, 90s),
                        "job " << id << " never left the controller");
  auto stored = stored_ids();
  BOOST_TEST(stored == ids, boost::test_tools::per_element());
  // Operators see it in /metrics: the failures, the jobs written, none left waiting.
  httplib::Client client{"127.0.0.1", cluster.metrics_port()};
  auto res = client.Get("/metrics");
  BOOST_REQUIRE_MESSAGE(res && res->status == 200, "no /metrics from shoalctld");
  const auto& metrics = res->body;
  BOOST_CHECK_MESSAGE(contains(metrics, "shoal_accounting_waiting_jobs 0\n"), metrics);
  BOOST_CHECK_MESSAGE(contains(metrics, "shoal_accounting_stored_jobs_total"), metrics);
  BOOST_CHECK_MESSAGE(contains(metrics, "shoal_accounting_store_failures_total") &&
                          !contains(metrics, "shoal_accounting_store_failures_total 0\n"),
                      metrics);
  auto log = read_file(cluster.directory() + "/shoalctld.log");
  BOOST_CHECK(contains(log, "accounting store write failed") ||
              contains(log, "accounting store not opened"));
  BOOST_CHECK(contains(log, "accounting store writing again"));
}

BOOST_AUTO_TEST_SUITE_END()

// The PostgreSQL store (accounting_storage/postgres) against a real server the tests start
// (accounting/private_postgres.hpp): every behaviour of behaviours.hpp, then what only a server
// has: creating the database, and losing and regaining the connection.

#include <boost/test/unit_test.hpp>

#include "test/unit/accounting/behaviours.hpp"

namespace {

using namespace shoal;
using namespace shoal::accounting;
using namespace shoal::test::behaviour;

}  // namespace

BOOST_AUTO_TEST_SUITE(postgres, *boost::unit_test::precondition(shoal::test::needs_postgres{}))

#define SHOAL_POSTGRES_CASE(name)      \
  BOOST_AUTO_TEST_CASE(name) {         \
    shoal::test::postgres_env env;     \
    shoal::test::behaviour::name(env); \
  }
SHOAL_STORE_BEHAVIOURS(SHOAL_POSTGRES_CASE)
#undef SHOAL_POSTGRES_CASE

BOOST_AUTO_TEST_CASE(a_missing_database_is_created_only_when_allowed) {
  auto settings =
      shoal::test::shared_postgres::get().settings(shoal::test::shared_postgres::fresh_database());
  settings.create_database = false;
  auto refused = open_postgres_store(settings);
  BOOST_REQUIRE(!refused);
  BOOST_TEST((refused.error() == errc::system_error));
  auto text = describe(refused.error());
  BOOST_TEST(text.find("does not exist") != std::string::npos, text);
  settings.create_database = true;
  auto store = open_postgres_store(settings);
  BOOST_REQUIRE_MESSAGE(store, shoal::test::why(store));
  BOOST_TEST((*store)->describe() ==
             "postgres:127.0.0.1:" + std::to_string(settings.port) + "/" + settings.database);
}

BOOST_AUTO_TEST_CASE(a_stopped_server_fails_writes_and_a_restarted_one_takes_them) {
  shoal::test::temp_dir dir{"shoal-pg-restart"};
  auto server = private_postgres::start(dir.path.string());
  BOOST_REQUIRE_MESSAGE(server, shoal::test::why(server));
  auto store = open_postgres_store(server->settings("acct"));
  BOOST_REQUIRE_MESSAGE(store, shoal::test::why(store));
  write_ok(**store, {job(1, 100, 200)});

  BOOST_REQUIRE(!server->stop());
  auto err = (*store)->write({job(2, 100, 200)}, {});
  BOOST_TEST_REQUIRE(bool(err));
  BOOST_TEST((err == errc::system_error));
  BOOST_TEST_MESSAGE("write while stopped: " << describe(err));
  BOOST_TEST(!(*store)->query({}));
  // Again while it is down: the store tries to connect and fails the same way.
  BOOST_TEST(bool((*store)->write({job(2, 100, 200)}, {})));

  BOOST_REQUIRE(!server->restart());
  write_ok(**store, {job(2, 100, 200)});
  BOOST_TEST(labels(query_ok(**store, {})) == (std::vector<std::string>{"c1/1@100", "c1/2@100"}));

  // A restart while the store is idle costs no failed call: its first statement reconnects.
  BOOST_REQUIRE(!server->stop());
  BOOST_REQUIRE(!server->restart());
  write_ok(**store, {job(3, 100, 200)});
  BOOST_TEST(query_ok(**store, {}).size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()

// The SQLite store (accounting_storage/sqlite) in a private temp dir: every behaviour of
// behaviours.hpp, then what only a file has.

#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include "test/unit/accounting/behaviours.hpp"

namespace {

using namespace shoal;
using namespace shoal::accounting;
using namespace shoal::test::behaviour;

}  // namespace

BOOST_AUTO_TEST_SUITE(sqlite)

#define SHOAL_SQLITE_CASE(name)        \
  BOOST_AUTO_TEST_CASE(name) {         \
    shoal::test::sqlite_env env;       \
    shoal::test::behaviour::name(env); \
  }
SHOAL_STORE_BEHAVIOURS(SHOAL_SQLITE_CASE)
#undef SHOAL_SQLITE_CASE

BOOST_AUTO_TEST_CASE(the_file_is_in_wal_mode_with_its_folder_created) {
  shoal::test::temp_dir dir{"shoal-acct"};
  auto path = (dir.path / "a" / "b" / "jobs.db").string();
  auto store = open_sqlite_store(path);
  BOOST_REQUIRE(store);
  BOOST_TEST((*store)->describe() == "sqlite:" + path);
  write_ok(**store, {full_job()});
  // WAL keeps its log beside the database while a connection is open.
  struct stat st;
  BOOST_TEST(::stat((path + "-wal").c_str(), &st) == 0);
}

BOOST_AUTO_TEST_CASE(a_file_that_cannot_be_created_is_an_error_value) {
  shoal::test::temp_dir dir{"shoal-acct"};
  auto blocker = dir.path / "file";
  { std::ofstream{blocker} << "x"; }
  auto store = open_sqlite_store((blocker / "jobs.db").string());
  BOOST_REQUIRE(!store);
  BOOST_TEST((store.error() == errc::system_error));
  BOOST_TEST(describe(store.error()).find(blocker.string()) != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

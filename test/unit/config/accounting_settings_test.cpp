// AccountingStorage* keys (config/accounting_settings.hpp, docs/accounting.md).

#include <boost/test/unit_test.hpp>

#include <string>

#include "config/config.hpp"
#include "messages/errc.hpp"

using namespace shoal;
using namespace shoal::config;

namespace {

const std::string nodes = "NodeName=n1 CPUs=1\nPartitionName=debug Nodes=n1 Default=YES\n";

cluster_config parse_ok(const std::string& text) {
  auto cfg = parse_config(nodes + text, "test.conf", "");
  if (!cfg) BOOST_FAIL("unexpected error: " << describe(cfg.error()));
  return std::move(*cfg);
}

std::string parse_error(const std::string& text) {
  auto cfg = parse_config(nodes + text, "test.conf", "");
  if (cfg) BOOST_FAIL("expected an error for:\n" << text);
  return describe(cfg.error());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(accounting_settings)

BOOST_AUTO_TEST_CASE(sqlite_beside_the_saved_state_is_the_default) {
  auto cfg = parse_ok("StateSaveLocation=/var/spool/shoal\n");
  BOOST_CHECK(cfg.accounting.type == accounting_storage::sqlite);
  BOOST_CHECK_EQUAL(sqlite_path(cfg.accounting, "/var/spool/shoal"),
                    "/var/spool/shoal/accounting.db");
  auto shown = render_config(cfg);
  auto line = shown.substr(shown.find("AccountingStorageType"));
  line = line.substr(0, line.find('\n'));
  BOOST_CHECK_MESSAGE(line.find("= accounting_storage/sqlite") != std::string::npos, line);
}

BOOST_AUTO_TEST_CASE(postgres_takes_slurms_host_port_user_and_password_keys) {
  auto cfg = parse_ok(
      "AccountingStorageType=accounting_storage/postgres\nAccountingStorageHost=db1\n"
      "AccountingStoragePort=5433\nAccountingStorageUser=shoal\nAccountingStoragePass=secret\n"
      "AccountingStorageLoc=acct\n");
  BOOST_CHECK(cfg.accounting.type == accounting_storage::postgres);
  BOOST_CHECK_EQUAL(cfg.accounting.host, "db1");
  BOOST_CHECK_EQUAL(cfg.accounting.port, 5433);
  BOOST_CHECK_EQUAL(cfg.accounting.user, "shoal");
  BOOST_CHECK_EQUAL(cfg.accounting.password, "secret");
  BOOST_CHECK_EQUAL(cfg.accounting.location, "acct");
  // The password never shows in `show config`.
  BOOST_CHECK_EQUAL(render_config(cfg).find("secret"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(enforce_takes_slurms_words) {
  auto plain = parse_ok("");
  BOOST_CHECK(!plain.accounting.enforce_associations);
  BOOST_CHECK(render_config(plain).find("AccountingStorageEnforce = none") != std::string::npos);
  auto cfg = parse_ok("AccountingStorageEnforce=limits,QOS,nojobs\n");
  BOOST_CHECK(cfg.accounting.enforce_associations);  // implied
  BOOST_CHECK(cfg.accounting.enforce_limits);
  BOOST_CHECK(cfg.accounting.enforce_qos);
  BOOST_CHECK(render_config(cfg).find("AccountingStorageEnforce = associations,limits,qos") !=
              std::string::npos);
  auto bad = parse_error("AccountingStorageEnforce=associations,everything\n");
  BOOST_CHECK_MESSAGE(bad.find("test.conf:3:") == 0, bad);
}

BOOST_AUTO_TEST_CASE(none_turns_the_store_off) {
  auto cfg = parse_ok("AccountingStorageType=accounting_storage/none\n");
  BOOST_CHECK(cfg.accounting.type == accounting_storage::none);
}

BOOST_AUTO_TEST_CASE(slurmdbd_and_bad_values_are_refused_at_their_line) {
  auto dbd = parse_error("AccountingStorageType=accounting_storage/slurmdbd\n");
  BOOST_CHECK_MESSAGE(dbd.find("test.conf:3") != std::string::npos, dbd);
  BOOST_CHECK_MESSAGE(dbd.find("shoal has no slurmdbd") != std::string::npos, dbd);
  auto port = parse_error("AccountingStoragePort=70000\n");
  BOOST_CHECK_MESSAGE(port.find("a port number") != std::string::npos, port);
}

BOOST_AUTO_TEST_SUITE_END()

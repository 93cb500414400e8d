// sshare's output (tools/format/sshare_format.hpp) against Slurm 22.05's forms: process.c's
// default columns and widths, the indented account tree, print_fields.c's "%f" doubles.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "tools/format/sshare_format.hpp"

using namespace shoal;
using namespace shoal::cli;

namespace {

std::vector<policy::share_row> rows() {
  std::vector<policy::share_input> tree = {
      {"root", "", "", 1},          {"physics", "", "root", 1},
      {"chem", "", "root", 1},      {"physics", "heavy", "physics", 1},
      {"chem", "light", "chem", 1}, {"chem", "idle", "chem", 1}};
  return policy::compute_shares(tree, {{{"heavy", "physics"}, 300.0}, {{"light", "chem"}, 100.0}});
}

std::string render(sshare_options opt) {
  auto out = render_sshare(rows(), opt);
  BOOST_REQUIRE_MESSAGE(out, (out ? "" : out.error().text()));
  return *out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sshare_format)

BOOST_AUTO_TEST_CASE(every_user_parsable) {
  sshare_options opt;
  opt.parsable = 2;
  opt.all_users = true;
  BOOST_TEST(render(opt) ==
             "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
             "root|||1.000000|400|1.000000|\n"
             " chem||1|0.500000|100|0.250000|0.707107\n"
             "  chem|idle|1|0.250000|0|0.125000|0.707107\n"
             "  chem|light|1|0.250000|100|0.250000|0.500000\n"
             " physics||1|0.500000|300|0.750000|0.353553\n"
             "  physics|heavy|1|0.500000|300|0.750000|0.353553\n");
}

BOOST_AUTO_TEST_CASE(the_caller_alone_without_a_and_prometheus_fields) {
  sshare_options opt;
  opt.parsable = 2;
  opt.no_header = true;
  opt.users = {"light"};
  opt.format = {"account", "fairshare"};
  BOOST_TEST(render(opt) == "root|\n chem|0.707107\n  chem|0.500000\n physics|0.353553\n");
  opt.accounts = {"chem"};
  BOOST_TEST(render(opt) == " chem|0.707107\n  chem|0.500000\n");
}

BOOST_AUTO_TEST_CASE(columns_as_sshare_pads_them) {
  sshare_options opt;
  opt.users = {"heavy"};
  auto out = render(opt);
  BOOST_TEST(out.find("             Account") == std::string::npos);  // left-justified
  BOOST_TEST(out.rfind("Account                    User  RawShares  NormShares    RawUsage "
                       " EffectvUsage  FairShare \n",
                       0) == 0u,
             out);
  BOOST_TEST(out.find("\n  physics                 heavy          1    0.500000         300 "
                      "     0.750000   0.353553 \n") != std::string::npos,
             out);
  sshare_options bad;
  bad.format = {"bogus"};
  auto r = render_sshare(rows(), bad);
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().text() == "Invalid field requested: \"bogus\"");
}

BOOST_AUTO_TEST_SUITE_END()

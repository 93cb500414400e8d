// sprio's table (`shoal queue --priority`, tools/format/priorities.cpp): the FAIRSHARE and QOS
// columns only when their weights are set, as Slurm 22.05's sprio adds them.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "tools/format/listing.hpp"

using namespace shoal;
using namespace shoal::cli;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    out.push_back(text.substr(pos, nl - pos));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

struct two_jobs {
  std::vector<msg::job_info> jobs;
  std::vector<msg::pending_detail> details;
  two_jobs() {
    for (uint64_t id : {4, 5}) {
      msg::job_info j;
      j.job_id = id;
      j.partition = "debug";
      j.user = id == 4 ? "alice" : "bob";
      jobs.push_back(j);
      msg::pending_detail d;
      d.job_id = id;
      d.fairshare_factor = id == 4 ? 2500 : 10000;
      d.qos_factor = 100;
      d.priority = d.fairshare_factor + d.qos_factor;
      d.reason = "Priority";
      details.push_back(d);
    }
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(sprio_columns, two_jobs)

BOOST_AUTO_TEST_CASE(without_their_weights_fairshare_and_qos_are_left_out) {
  auto out = lines(render_priorities(jobs, details, false));
  BOOST_REQUIRE(out.size() >= 3u);
  BOOST_TEST(out[0].find("FAIRSHARE") == std::string::npos);
  BOOST_TEST(out[0].find("QOS") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(with_their_weights_they_follow_age_and_partition) {
  priority_columns shown;
  shown.fairshare = true;
  shown.qos = true;
  auto out = lines(render_priorities(jobs, details, false, shown));
  BOOST_REQUIRE(out.size() >= 3u);
  auto head = out[0];
  BOOST_TEST(head.find("AGE") < head.find("FAIRSHARE"));
  BOOST_TEST(head.find("FAIRSHARE") < head.find("JOBSIZE"));
  BOOST_TEST(head.rfind("PARTITION") < head.find("QOS"));
  BOOST_TEST(head.find("QOS") < head.find("NICE"));
  // Highest priority first: bob's job, with the larger fair-share factor.
  BOOST_TEST(out[1].find("bob") != std::string::npos);
  BOOST_TEST(out[1].find("10000") != std::string::npos);
  BOOST_TEST(out[2].find("2500") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

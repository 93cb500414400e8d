#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "cluster/reservation.hpp"

using namespace shoal;
using namespace shoal::cluster;

namespace {

const std::vector<std::string> reservation_test_cluster{"n1", "n2", "n3", "n4"};

reservation_words words_of(const std::vector<std::string>& settings, int64_t now = 1000) {
  auto w = read_reservation_words(settings, now);
  BOOST_REQUIRE_MESSAGE(w, (w ? "" : w.error().text()));
  return *w;
}

reservation created(const std::vector<std::string>& settings, int64_t now = 1000) {
  auto r = new_reservation(words_of(settings, now), reservation_test_cluster, "root_1");
  BOOST_REQUIRE_MESSAGE(r, (r ? "" : r.error().text()));
  return *r;
}

std::string refusal_of(const std::vector<std::string>& settings) {
  auto w = read_reservation_words(settings, 1000);
  if (!w) return w.error().text();
  auto r = new_reservation(*w, reservation_test_cluster, "root_1");
  return r ? "" : r.error().text();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reservations)

BOOST_AUTO_TEST_CASE(keys_are_slurms_words_in_any_case) {
  auto r = created({"reservationname=maint", "STARTTIME=now+60", "duration=2", "nodes=n[2-3]",
                    "users=root,alice", "flags=maint,IGNORE_JOBS", "partitionname=debug",
                    "Accounts=physics"});
  BOOST_TEST(r.name == "maint");
  BOOST_TEST(r.start == 1060);
  BOOST_TEST(r.end == 1060 + 120);
  BOOST_TEST((r.nodes == std::vector<std::string>{"n2", "n3"}));
  BOOST_TEST((r.users == std::vector<std::string>{"root", "alice"}));
  BOOST_TEST((r.accounts == std::vector<std::string>{"physics"}));
  BOOST_TEST(r.partition == "debug");
  BOOST_TEST(flags_text(r.flags) == "MAINT,IGNORE_JOBS,SPEC_NODES");
}

BOOST_AUTO_TEST_CASE(durations_and_end_times) {
  BOOST_TEST(created({"starttime=now", "duration=1-00:00:00", "nodecnt=2", "users=a"}).end ==
             1000 + 86400);
  BOOST_TEST(created({"starttime=now", "duration=UNLIMITED", "nodes=ALL", "users=a"}).end ==
             policy::forever);
  BOOST_TEST(created({"starttime=now", "endtime=now+1hour", "nodes=n1", "users=a"}).end ==
             1000 + 3600);
  auto counted = created({"starttime=now", "duration=5", "nodecnt=2", "accounts=x"});
  BOOST_TEST(counted.node_count == 2u);
  BOOST_TEST(counted.nodes.empty());
  BOOST_TEST(created({"starttime=now", "duration=5", "nodes=all", "users=a"}).nodes.size() == 4u);
}

BOOST_AUTO_TEST_CASE(refusals_are_scontrols) {
  BOOST_TEST(refusal_of({"duration=5", "nodes=n1", "users=a"}) ==
             "A start time must be given.  No reservation created.");
  BOOST_TEST(refusal_of({"starttime=now", "nodes=n1", "users=a"}) ==
             "An end time or duration must be given.  No reservation created.");
  BOOST_TEST(refusal_of({"starttime=now", "duration=5", "nodes=n1"}) ==
             "Either Users/Groups and/or Accounts must be specified.  No reservation created.");
  BOOST_TEST(refusal_of({"starttime=now", "duration=5", "users=a"}).find("Nodes, NodeCnt") !=
             std::string::npos);
  BOOST_TEST(refusal_of({"colour=blue"}) == "Unknown parameter colour=blue.");
  BOOST_TEST(refusal_of({"starttime=soon"}) == "Invalid start time starttime=soon.");
  BOOST_TEST(refusal_of({"nodecnt=0"}) == "\"0\" is not a valid node count");
  BOOST_TEST(refusal_of({"users=a", "users=b"}) == "Parameter users specified more than once");
  BOOST_TEST(refusal_of({"starttime=now", "duration=5", "nodes=n9", "users=a"}) ==
             "Invalid node name specified");
  BOOST_TEST(refusal_of({"flags=sometimes"}).find("Error parsing flags") == 0u);
}

BOOST_AUTO_TEST_CASE(an_update_keeps_the_duration_when_the_start_moves) {
  auto r = created({"starttime=now", "duration=10", "nodes=n1", "users=a"});
  auto moved = updated_reservation(r, words_of({"starttime=now+1hour"}), reservation_test_cluster);
  BOOST_REQUIRE(moved);
  BOOST_TEST(moved->start == 1000 + 3600);
  BOOST_TEST(moved->end == 1000 + 3600 + 600);
  auto grown =
      updated_reservation(r, words_of({"nodes=n[1-2]", "users=b"}), reservation_test_cluster);
  BOOST_REQUIRE(grown);
  BOOST_TEST(grown->nodes.size() == 2u);
  BOOST_TEST((grown->users == std::vector<std::string>{"b"}));
}

BOOST_AUTO_TEST_CASE(daily_and_weekly_move_forward_once_ended) {
  auto r = created({"starttime=now", "duration=60", "nodes=n1", "users=a", "flags=DAILY"});
  BOOST_TEST(is_active(r, 1000));
  BOOST_TEST(!is_active(r, 1000 + 3600));
  auto next = current_window(r, 1000 + 3600);
  BOOST_TEST(next.start == 1000 + 86400);
  BOOST_TEST(is_active(r, 1000 + 86400 + 10));
  auto w = created({"starttime=now", "duration=60", "nodes=n1", "users=a", "flags=WEEKLY"});
  BOOST_TEST(current_window(w, 1000 + 3600).start == 1000 + 7 * 86400);
  auto once = created({"starttime=now", "duration=60", "nodes=n1", "users=a"});
  BOOST_TEST(current_window(once, 1000 + 3600).start == 1000);
}

BOOST_AUTO_TEST_CASE(overlap_needs_shared_nodes_and_time) {
  auto a = created({"starttime=now", "duration=60", "nodes=n[1-2]", "users=a"});
  auto b = created({"starttime=now+30minutes", "duration=60", "nodes=n2", "users=a"});
  auto later = created({"starttime=now+2hours", "duration=60", "nodes=n2", "users=a"});
  auto elsewhere = created({"starttime=now", "duration=60", "nodes=n3", "users=a"});
  BOOST_TEST(overlaps(a, b, 1000));
  BOOST_TEST(!overlaps(a, later, 1000));
  BOOST_TEST(!overlaps(a, elsewhere, 1000));
  auto daily = created({"starttime=now", "duration=60", "nodes=n2", "users=a", "flags=DAILY"});
  auto tomorrow = created({"starttime=now+1day", "duration=10", "nodes=n2", "users=a"});
  BOOST_TEST(overlaps(daily, tomorrow, 1000));
}

BOOST_AUTO_TEST_CASE(busy_nodes_are_those_whose_jobs_run_past_the_start) {
  auto r = created({"starttime=now+60", "duration=60", "nodes=n[1-2]", "users=a"});
  BOOST_TEST(nodes_busy(r, {{"n1", 1000 + 120}}, 1000));
  BOOST_TEST(!nodes_busy(r, {{"n1", 1000 + 30}}, 1000));
  BOOST_TEST(!nodes_busy(r, {{"n3", 1000 + 120}}, 1000));
}

BOOST_AUTO_TEST_CASE(a_count_picks_free_unreserved_nodes_in_order) {
  auto r = created({"starttime=now", "duration=60", "nodecnt=2", "users=a"});
  auto held = created({"reservationname=h", "starttime=now", "duration=60", "nodes=n2", "users=a"});
  auto picked = pick_nodes(r, 2, reservation_test_cluster, {{"n1", policy::forever}}, {held}, 1000);
  BOOST_TEST((picked == std::vector<std::string>{"n3", "n4"}));
  BOOST_TEST(pick_nodes(r, 4, reservation_test_cluster, {}, {held}, 1000).empty());
  r.flags.overlap = true;
  BOOST_TEST(pick_nodes(r, 4, reservation_test_cluster, {}, {held}, 1000).size() == 4u);
}

BOOST_AUTO_TEST_CASE(members_are_its_users_and_accounts) {
  auto r = created({"starttime=now", "duration=60", "nodes=n1", "users=alice", "accounts=physics"});
  BOOST_TEST(may_use(r, "alice", ""));
  BOOST_TEST(may_use(r, "bob", "physics"));
  BOOST_TEST(!may_use(r, "bob", "chemistry"));
  BOOST_TEST(!may_use(r, "bob", ""));
}

BOOST_AUTO_TEST_CASE(the_saved_record_gives_the_reservation_back) {
  auto r = created({"reservationname=w", "starttime=now", "duration=UNLIMITED", "nodes=n[1-3]",
                    "users=a,b", "accounts=x", "flags=FLEX,OVERLAP", "partitionname=p"});
  auto info = info_of(r, 1000);
  BOOST_TEST(info.nodes == "n[1-3]");
  BOOST_TEST(info.end_time == 0);
  BOOST_TEST(info.active);
  BOOST_TEST(info.flags == "FLEX,OVERLAP,SPEC_NODES");
  auto back = reservation_of(info);
  BOOST_TEST(back.name == "w");
  BOOST_TEST(back.end == policy::forever);
  BOOST_TEST(back.nodes == r.nodes);
  BOOST_TEST(back.users == r.users);
  BOOST_TEST(back.accounts == r.accounts);
  BOOST_TEST(flags_text(back.flags) == flags_text(r.flags));
  BOOST_TEST(back.partition == "p");
}

BOOST_AUTO_TEST_SUITE_END()

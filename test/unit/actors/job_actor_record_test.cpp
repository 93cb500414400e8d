// What the job actor saves (its record with the state keeper): everything a restarted controller
// needs while the job lives, and, once it ended, no environment or script, which nothing reads
// again (the record stays until MinJobAge, and a restart only lists and accounts it).

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/job.hpp"
#include "actors/saved_state.hpp"
#include "messages/caf/type_ids.hpp"
#include "test/unit/actors/job_actor_fixture.hpp"

using namespace shoal;

namespace {

struct recorded_job : test::job_actor_testing::job_fixture {
  test::job_actor_testing::inbox keeper_box = test::make_inbox<caf::message>();

  actors::job_setup saving_setup() {
    auto s = setup();
    s.req.env = {"HOME=/home/alice", "PATH=/usr/bin:/bin", "LONG=" + std::string(2000, 'x')};
    s.req.batch = true;
    s.req.script = "#!/bin/sh\ntrue\n";
    s.keeper = caf::actor_cast<actors::state_keeper_actor>(
        keep(sys.spawn(test::job_actor_testing::recorder, keeper_box)));
    return s;
  }

  /// The last record the keeper got for job 7.
  msg::job_record last_record() const {
    msg::job_record out;
    for (auto& m : *keeper_box)
      if (m.match_elements<msg::persist_atom, std::string, state::value_ptr>() &&
          m.get_as<std::string>(1) == actors::job_key(7))
        if (auto rec = actors::decoded<msg::job_record>(m.get_as<state::value_ptr>(2)))
          out = std::move(*rec);
    return out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_actor_record, recorded_job)

BOOST_AUTO_TEST_CASE(a_finished_jobs_record_drops_its_environment_and_script) {
  spawn(saving_setup());
  place();
  auto running = last_record();
  BOOST_TEST(running.request.env.size() == 3u);
  BOOST_TEST(running.request.script == "#!/bin/sh\ntrue\n");
  report(0, 0, 0, msg::batch_step_id);
  BOOST_TEST(state() == "COMPLETED");
  auto ended = last_record();
  BOOST_TEST(msg::to_string(ended.info.state) == std::string{"COMPLETED"});
  BOOST_TEST(ended.request.env.empty());
  BOOST_TEST(ended.request.script.empty());
  // What listings and accounting read is all there.
  BOOST_TEST(ended.info.job_id == 7u);
  BOOST_TEST(ended.request.uid == running.request.uid);
  BOOST_TEST(ended.nodes == running.nodes);
}

BOOST_AUTO_TEST_SUITE_END()

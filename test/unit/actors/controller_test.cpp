// The controller actor in-process, without node daemons: what it decides on its own.

#include <boost/test/unit_test.hpp>

#include <thread>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include "actors/controller/controller.hpp"
#include "actors/job.hpp"
#include "actors/saved_state.hpp"
#include "actors/state_keeper.hpp"
#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "policy/job_lifecycle.hpp"
#include "runtime/bootstrap/temp_dir.hpp"
#include "state/load.hpp"
#include "test/unit/actors/coordinated.hpp"

namespace {

using namespace shoal;

struct controller_fixture {
  controller_fixture() {
    cfg.add_message_types<caf::id_block::shoal>();
    sys = std::make_unique<caf::actor_system>(cfg);
    auto conf = config::parse_config(config::default_config_text(2, 6917), "<embedded>", "/");
    BOOST_REQUIRE(conf);
    controller = caf::actor_cast<caf::actor>(actors::spawn_controller(*sys, *conf));
  }

  ~controller_fixture() {
    // Pending jobs are not linked to the controller: end them, then the controller.
    caf::scoped_actor self{*sys};
    for (auto id : submitted)
      self->request(controller, std::chrono::seconds{5}, msg::cancel_atom_v, id, int32_t{0},
                    uint32_t{0})
          .receive([](caf::ok_atom) {}, [](caf::error&) {});
    caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
  }

  caf::expected<msg::job_info> submit(const std::string& token) {
    msg::job_request req;
    req.user = "alice";
    req.uid = 1000;
    req.argv = {"true"};
    req.cwd = "/tmp";
    req.submit_token = token;
    caf::scoped_actor self{*sys};
    caf::expected<msg::job_info> out{caf::error{}};
    self->request(controller, std::chrono::seconds{5}, msg::submit_atom_v, req, caf::actor{})
        .receive([&](msg::job_info& info) { out = std::move(info); },
                 [&](caf::error& err) { out = std::move(err); });
    if (out) submitted.push_back(out->job_id);
    return out;
  }

  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor controller;
  std::vector<uint64_t> submitted;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(controller, controller_fixture)

BOOST_AUTO_TEST_CASE(a_controller_answers_a_ping_as_in_control_and_acknowledges_a_handover) {
  BOOST_REQUIRE(submit("host:1:7"));
  caf::scoped_actor self{*sys};
  bool in_control = false;
  self->request(controller, std::chrono::seconds{5}, caf::ping_atom::value)
      .receive([&](const msg::controller_status& s) { in_control = s.in_control && !s.reclaiming; },
               [](caf::error& err) { BOOST_FAIL("ping: " << caf::to_string(err)); });
  BOOST_CHECK(in_control);
  bool handed_over = false;
  self->request(controller, std::chrono::seconds{5}, msg::handover_atom_v)
      .receive([&](caf::ok_atom) { handed_over = true; },
               [](caf::error& err) { BOOST_FAIL("handover: " << caf::to_string(err)); });
  BOOST_CHECK(handed_over);
  // The job actors stopped with the handover; the controller itself still answers.
  self->request(controller, std::chrono::seconds{5}, caf::ping_atom::value)
      .receive([](const msg::controller_status&) {},
               [](caf::error& err) { BOOST_FAIL("ping after handover: " << caf::to_string(err)); });
  submitted.clear();
}

BOOST_AUTO_TEST_CASE(a_finished_job_leaves_the_default_listing_and_stays_in_the_full_one) {
  std::vector<uint64_t> ids;
  for (auto token : {"f1", "f2", "f3"}) {
    auto info = submit(token);
    BOOST_REQUIRE(info);
    ids.push_back(info->job_id);
  }
  caf::scoped_actor self{*sys};
  auto list = [&](bool include_finished) {
    std::vector<uint64_t> out;
    self->request(controller, std::chrono::seconds{5}, msg::jobs_atom_v, include_finished)
        .receive(
            [&](std::vector<msg::job_info>& jobs) {
              for (auto& j : jobs) out.push_back(j.job_id);
            },
            [](caf::error& err) { BOOST_FAIL("jobs: " << to_string(err)); });
    return out;
  };
  BOOST_TEST(list(false) == ids);
  self->request(controller, std::chrono::seconds{5}, msg::cancel_atom_v, ids[1], int32_t{0},
                uint32_t{0})
      .receive([](caf::ok_atom) {}, [](caf::error& err) { BOOST_FAIL(to_string(err)); });
  // The job's actor tells the controller its new state on its own: wait for it (bounded).
  std::vector<uint64_t> others{ids[0], ids[2]};
  for (int i = 0; i < 500 && list(false) != others; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  BOOST_TEST(list(false) == others);
  BOOST_TEST(list(false) == others);  // asked again, once the listing has dropped it
  BOOST_TEST(list(true) == ids);
}

BOOST_AUTO_TEST_CASE(a_retried_submission_returns_the_first_job) {
  auto first = submit("host:1:42");
  auto again = submit("host:1:42");
  BOOST_REQUIRE(first);
  BOOST_REQUIRE(again);
  BOOST_TEST(first->job_id == again->job_id);
}

BOOST_AUTO_TEST_CASE(a_submission_retried_across_a_restart_returns_the_recovered_job) {
  // A held job saved by an earlier controller, with the token its client sent.
  actors::job_setup setup;
  setup.id = 7;
  setup.req.user = "alice";
  setup.req.uid = 1000;
  setup.req.argv = {"true"};
  setup.req.cwd = "/tmp";
  setup.req.partition = "debug";
  setup.req.min_nodes = 1;
  setup.req.workload.hold = true;
  setup.req.submit_token = "host:1:99";
  msg::job_record rec;
  rec.request = setup.req;
  rec.info = actors::initial_job_info(setup);
  rec.life_state = static_cast<uint32_t>(policy::initial_lifecycle(true).state);
  rec.life_reason = rec.info.reason;
  actors::controller_recovery recovery;
  recovery.saved.emplace(actors::job_key(7), actors::encoded(rec));
  auto conf = config::parse_config(config::default_config_text(2, 6917), "<embedded>", "/");
  BOOST_REQUIRE(conf);
  caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
  controller = caf::actor_cast<caf::actor>(
      actors::spawn_controller(*sys, *conf, nullptr, nullptr, std::move(recovery)));
  auto again = submit("host:1:99");
  BOOST_REQUIRE(again);
  BOOST_TEST(again->job_id == 7u);
  auto fresh = submit("host:1:100");
  BOOST_REQUIRE(fresh);
  BOOST_TEST(fresh->job_id == 8u);
  submitted = {7, 8};
}

BOOST_AUTO_TEST_CASE(different_tokens_make_different_jobs) {
  auto a = submit("host:1:1");
  auto b = submit("host:1:2");
  auto c = submit("");
  auto d = submit("");
  BOOST_REQUIRE(a && b && c && d);
  BOOST_TEST(a->job_id != b->job_id);
  BOOST_TEST(c->job_id != d->job_id);
}

BOOST_AUTO_TEST_CASE(a_bad_request_is_answered_with_an_error_and_the_controller_keeps_serving) {
  msg::job_request req;
  req.partition = "nope";
  req.argv = {"true"};
  caf::scoped_actor self{*sys};
  bool refused = false;
  self->request(controller, std::chrono::seconds{5}, msg::submit_atom_v, req, caf::actor{})
      .receive(
          [](msg::job_info&) {},
          [&](caf::error& err) {
            refused = true;
            BOOST_TEST(describe(err).find("invalid partition name 'nope'") != std::string::npos);
          });
  BOOST_TEST(refused);
  BOOST_TEST(static_cast<bool>(submit("after:1")));
}

BOOST_AUTO_TEST_CASE(a_step_exit_for_an_unknown_job_is_dropped_and_the_controller_keeps_serving) {
  // What a node actor relays when a restarted shoald adopted a step of a job long gone.
  msg::step_exit ex;
  ex.job_id = 999'999;
  ex.step_id = 0;
  ex.node_name = "node1";
  ex.tasks = {{0, 0, 0}};
  caf::anon_send(controller, ex);
  BOOST_TEST(static_cast<bool>(submit("after:2")));
}

BOOST_AUTO_TEST_CASE(a_hold_or_release_is_on_disk_when_the_client_hears_ok) {
  // A controller saving to a real directory; each ok is checked against what load() finds.
  auto dir = runtime::make_temp_dir("shoal-hold-durable");
  BOOST_REQUIRE(dir);
  actors::state_keeper_settings keep;
  keep.locations = {*dir};
  actors::controller_recovery recovery;
  auto keeper = actors::spawn_state_keeper(*sys, keep, {});
  recovery.keeper = keeper;
  auto conf = config::parse_config(config::default_config_text(2, 6917), "<embedded>", "/");
  BOOST_REQUIRE(conf);
  caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
  controller = caf::actor_cast<caf::actor>(
      actors::spawn_controller(*sys, *conf, nullptr, nullptr, std::move(recovery)));
  auto job = submit("host:1:hold");  // stays pending: no node daemon ever registers
  BOOST_REQUIRE(job);
  auto saved_reason = [&] {
    auto loaded = state::load({*dir});
    BOOST_REQUIRE(loaded);
    auto rec = actors::decoded<msg::job_record>(loaded->records[actors::job_key(job->job_id)]);
    BOOST_REQUIRE(rec);
    return rec->info.reason;
  };
  auto control = [&](const std::string& op) {
    msg::job_control ctl;
    ctl.op = op;
    ctl.jobs = {std::to_string(job->job_id)};
    ctl.uid = 1000;
    caf::scoped_actor self{*sys};
    bool ok = false;
    self->request(controller, std::chrono::seconds{5}, msg::jobctl_atom_v, ctl)
        .receive([&](caf::ok_atom) { ok = true; },
                 [&](caf::error& err) { BOOST_FAIL(op << ": " << caf::to_string(err)); });
    BOOST_REQUIRE(ok);
  };
  control("hold");
  BOOST_TEST(saved_reason() == "JobHeldUser");
  control("release");
  auto released = saved_reason();
  BOOST_TEST(released != "JobHeldUser");
  BOOST_TEST(released != "JobHeldAdmin");
  control("uhold");
  BOOST_TEST(saved_reason() == "JobHeldUser");
  caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);  // its writer goes with it
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(controller_in_order, test::coordinated_fixture)

// The job actor a submission spawns has not run yet when the next request arrives: the listing
// must not wait for it (`shoal submit; shoal queue` shows the job at once, as sbatch; squeue).
BOOST_AUTO_TEST_CASE(a_job_is_listed_as_soon_as_its_submission_is_answered) {
  auto conf = config::parse_config(config::default_config_text(2, 6917), "<embedded>", "/");
  BOOST_REQUIRE(conf);
  auto controller = keep(caf::actor_cast<caf::actor>(actors::spawn_controller(sys, *conf)));
  sched.run();
  msg::job_request req;
  req.user = "alice";
  req.uid = 1000;
  req.argv = {"true"};
  req.cwd = "/tmp";
  caf::scoped_actor self{sys, true};
  auto submitted = self->request(controller, caf::infinite, msg::submit_atom_v, req, caf::actor{});
  BOOST_REQUIRE(sched.prioritize(controller));
  sched.run_once();
  uint64_t id = 0;
  submitted.receive([&](msg::job_info& info) { id = info.job_id; },
                    [](caf::error& err) { BOOST_FAIL("submit: " << to_string(err)); });
  BOOST_REQUIRE(id != 0u);
  auto shown = self->request(controller, caf::infinite, msg::jobs_atom_v, id);
  auto listed = self->request(controller, caf::infinite, msg::jobs_atom_v, false);
  BOOST_REQUIRE(sched.prioritize(controller));
  sched.run_once();
  BOOST_REQUIRE(sched.prioritize(controller));
  sched.run_once();
  shown.receive([&](msg::job_info& info) { BOOST_TEST((info.state == msg::job_state::pending)); },
                [](caf::error& err) { BOOST_FAIL("show job: " << to_string(err)); });
  listed.receive(
      [&](std::vector<msg::job_info>& jobs) {
        BOOST_REQUIRE_EQUAL(jobs.size(), 1u);
        BOOST_TEST(jobs.front().job_id == id);
        BOOST_TEST(jobs.front().user == "alice");
      },
      [](caf::error& err) { BOOST_FAIL("jobs: " << to_string(err)); });
}

BOOST_AUTO_TEST_SUITE_END()

// The power actor under the test coordinator: the power state it tells each node, a job waiting
// for a powered-down node until it registers, and the manual words. (Its timers and programs run
// in test/integration/power_test.cpp, against real shoald processes.)

#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include "actors/power.hpp"
#include "config/config.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "test/unit/actors/coordinated.hpp"

namespace {

using namespace shoal;
using test::inbox;

/// A node actor's stand-in: writes down the power words it hears ("on", "powering_up!", "down
/// ResumeTimeout reached").
caf::behavior power_listener(caf::event_based_actor* self, inbox<std::string> heard) {
  self->set_default_handler(
      [](caf::scheduled_actor*, caf::message_view&) -> caf::result<caf::message> {
        return caf::message{};
      });
  return {
      [heard](msg::power_atom, uint8_t state, bool asked) {
        const char* names[] = {"on", "powered_down", "powering_up", "powering_down"};
        heard->push_back(std::string{names[state]} + (asked ? "!" : ""));
      },
      [](msg::power_atom, caf::actor&) {},
      [heard](msg::nodedown_atom, const std::string& reason) {
        heard->push_back("down " + reason);
      },
  };
}

struct power_fixture : test::coordinated_fixture {
  power_fixture() {
    auto text = config::default_config_text(1, 6917) +
                "SuspendProgram=/bin/true\nResumeProgram=/bin/true\n"
                "NodeName=c1 State=CLOUD\nPartitionName=cloud Nodes=c1 SuspendTime=60\n";
    auto conf = config::parse_config(text, "<embedded>", "/");
    if (!conf) BOOST_FAIL(describe(conf.error()));
    std::string why_not;
    BOOST_REQUIRE(actors::power_saving_wanted(*conf, why_not));
    actors::power_setup setup;
    setup.cfg = *conf;
    for (auto name : {"node1", "c1"}) {
      heard[name] = test::make_inbox<std::string>();
      auto node = keep(sys.spawn(power_listener, heard[name]));
      setup.nodes.emplace(name, caf::actor_cast<actors::node_actor>(node));
    }
    power = actors::spawn_power(sys, std::move(setup));
    keep(caf::actor_cast<caf::actor>(power));
    sched.run();
  }

  /// Asks the power actor, as job 7 on `nodes`, whether its nodes are up: `answers` gets the
  /// aliases ("aliases:...") or the error ("error") once it answers.
  void ask_ready(std::vector<std::string> nodes) {
    actors::power_job job;
    job.job_id = 7;
    job.nodes = std::move(nodes);
    auto box = answers;
    auto asker = [](caf::event_based_actor* self, actors::power_actor power, actors::power_job job,
                    inbox<std::string> box) -> caf::behavior {
      self->request(power, caf::infinite, msg::ready_atom_v, job)
          .then([box](std::string& aliases) { box->push_back("aliases:" + aliases); },
                [box](caf::error&) { box->push_back("error"); });
      return {[](caf::ok_atom) {}};  // stays alive for the answer
    };
    keep(sys.spawn(asker, power, job, box));
    sched.run();
  }

  /// A manual word for `node`: the error, or none.
  caf::error manual(const std::string& node, const std::string& word) {
    caf::scoped_actor self{sys, true};
    auto handle = self->request(power, caf::infinite, msg::power_atom_v, node, word);
    sched.run();
    caf::error out;
    handle.receive([](caf::ok_atom) {}, [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  inbox<std::string> answers = test::make_inbox<std::string>();
  std::map<std::string, inbox<std::string>> heard;
  actors::power_actor power;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(power_actor, power_fixture)

BOOST_AUTO_TEST_CASE(a_cloud_node_starts_powered_down_and_others_on) {
  BOOST_TEST(*heard["c1"] == std::vector<std::string>{"powered_down"},
             boost::test_tools::per_element());
  BOOST_TEST(*heard["node1"] == std::vector<std::string>{"on"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_job_on_powered_up_nodes_goes_at_once_one_on_a_cloud_node_waits_for_it) {
  ask_ready({"node1"});
  BOOST_TEST(*answers == std::vector<std::string>{"aliases:"}, boost::test_tools::per_element());
  answers->clear();
  ask_ready({"node1", "c1"});
  BOOST_TEST(answers->empty());  // c1 must power up first
  BOOST_TEST(heard["c1"]->back() == "powering_up");
  // Its daemon registers: the job hears its nodes are up, with c1's alias (name:addr:host).
  caf::anon_send(power, msg::register_atom_v, std::string{"c1"}, int64_t{0}, int64_t{100},
                 std::string{"host-c1"}, caf::actor{});
  sched.run();
  BOOST_TEST(*answers == std::vector<std::string>{"aliases:c1:c1:c1"},
             boost::test_tools::per_element());
  BOOST_TEST(heard["c1"]->back() == "on");
}

BOOST_AUTO_TEST_CASE(manual_words_mark_the_node_and_a_bad_one_is_refused) {
  BOOST_CHECK(!manual("node1", "POWER_DOWN"));
  BOOST_TEST(heard["node1"]->back() == "on!");  // POWER_DOWN (!) until no job holds it
  BOOST_CHECK(!manual("node1", "RESUME"));
  BOOST_TEST(heard["node1"]->back() == "on");
  BOOST_CHECK(!manual("c1", "POWER_UP"));
  BOOST_TEST(heard["c1"]->back() == "powering_up");
  BOOST_TEST(manual("node1", "POWER_SIDEWAYS").code() ==
             static_cast<uint8_t>(errc::invalid_request));
  BOOST_TEST(manual("nope", "POWER_UP").code() == static_cast<uint8_t>(errc::unknown_node));
}

BOOST_AUTO_TEST_SUITE_END()

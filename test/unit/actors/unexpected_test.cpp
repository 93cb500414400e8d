// What an actor does with a message it has no handler for (actors/unexpected.hpp): a stray costs
// a log line, never the actor, and only a request is answered.

#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include "actors/unexpected.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "test/unit/actors/coordinated.hpp"

namespace {

using namespace shoal;

/// Takes only ints, and tolerates the rest as every shoal actor does. (It takes an argument:
/// CAF 0.17 dereferences a null tuple for actors spawned without any, which UBSan reports.)
caf::behavior tolerant(caf::event_based_actor* self, int) {
  actors::tolerate_strays(self);
  return {[](int x) { return x + 1; }};
}

/// Records everything that reaches it, so a test sees whether the tolerant actor answered.
caf::behavior recorder(caf::event_based_actor* self,
                       std::shared_ptr<std::vector<caf::message>> seen) {
  self->set_default_handler(
      [seen](caf::scheduled_actor*, caf::message_view& x) -> caf::result<caf::message> {
        seen->push_back(x.copy_content_to_message());
        return caf::message{};
      });
  self->set_error_handler([seen](caf::error& err) { seen->push_back(caf::make_message(err)); });
  return {[](const std::string&) {}};
}

struct strays_fixture : test::coordinated_fixture {
  caf::actor target = keep(sys.spawn(tolerant, 0));
  std::shared_ptr<std::vector<caf::message>> seen = std::make_shared<std::vector<caf::message>>();
  caf::actor peer = keep(sys.spawn(recorder, seen));

  bool alive(const caf::actor& a) {
    caf::scoped_actor self{sys, true};
    auto handle = self->request(a, caf::infinite, 41);
    sched.run();
    int answer = 0;
    handle.receive([&](int x) { answer = x; }, [](caf::error&) {});
    return answer == 42;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(unexpected_messages, strays_fixture)

BOOST_AUTO_TEST_CASE(a_stray_message_is_dropped_unanswered_and_the_actor_lives_on) {
  caf::send_as(peer, target, caf::ok_atom::value, std::string{"stray"});
  sched.run();
  BOOST_TEST(alive(target));
  BOOST_TEST(seen->empty());  // CAF's own default would have answered with an error
}

BOOST_AUTO_TEST_CASE(an_error_that_arrives_unasked_does_not_stop_the_actor) {
  caf::send_as(peer, target, caf::make_error(caf::sec::unexpected_message));
  sched.run();
  BOOST_TEST(alive(target));
  BOOST_TEST(seen->empty());
}

BOOST_AUTO_TEST_CASE(a_request_it_does_not_take_gets_an_error_at_once) {
  caf::scoped_actor self{sys, true};
  auto handle = self->request(target, caf::infinite, std::string{"what?"});
  sched.run();
  caf::error got;
  handle.receive([](int) {}, [&](caf::error& err) { got = std::move(err); });
  BOOST_TEST((got == errc::invalid_request));
  BOOST_TEST(alive(target));
}

BOOST_AUTO_TEST_SUITE_END()

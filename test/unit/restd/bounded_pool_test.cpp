#include "tools/restd/bounded_pool.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <future>
#include <thread>

using shoal::restd::bounded_pool;

BOOST_AUTO_TEST_SUITE(bounded_pool_suite)

BOOST_AUTO_TEST_CASE(a_connection_beyond_a_full_queue_is_served_on_the_accepting_thread) {
  bounded_pool pool(1, 1);
  std::promise<void> busy_started;
  std::promise<void> release;
  auto released = release.get_future().share();
  std::atomic<int> done{0};
  pool.enqueue([&] {
    busy_started.set_value();
    released.wait();
    ++done;
  });
  busy_started.get_future().wait();
  // The one worker is busy: this one waits in the queue.
  std::thread::id queued_on;
  pool.enqueue([&] {
    queued_on = std::this_thread::get_id();
    ++done;
  });
  // The queue is full: this one runs here, before enqueue returns.
  std::thread::id overflow_on;
  pool.enqueue([&] {
    overflow_on = std::this_thread::get_id();
    ++done;
  });
  BOOST_CHECK(overflow_on == std::this_thread::get_id());
  BOOST_CHECK_EQUAL(pool.served_by_acceptor(), 1u);
  BOOST_CHECK_EQUAL(done.load(), 1);
  release.set_value();
  pool.shutdown();
  BOOST_CHECK_EQUAL(done.load(), 3);
  BOOST_CHECK(queued_on != std::this_thread::get_id());
}

BOOST_AUTO_TEST_CASE(connections_queued_at_shutdown_are_still_served) {
  std::atomic<int> done{0};
  {
    bounded_pool pool(2, 64);
    for (int i = 0; i < 50; ++i) pool.enqueue([&] { ++done; });
    pool.shutdown();
    BOOST_CHECK_EQUAL(pool.served_by_acceptor(), 0u);
  }
  BOOST_CHECK_EQUAL(done.load(), 50);
}

BOOST_AUTO_TEST_SUITE_END()

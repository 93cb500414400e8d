// The memory guard against real processes: resident memory summed over process groups, the
// sampling fallback, and (where this host lets us make one) a step's memory cgroup.

#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "process/memory_guard.hpp"

using namespace shoal::process;
using namespace std::chrono_literals;

namespace {

/// A shell in its own process group holding about `mb` MB in a variable until killed.
struct memory_hog {
  pid_t pid = -1;

  explicit memory_hog(unsigned mb) {
    auto script = "x=$(head -c " + std::to_string(mb) + "000000 /dev/zero | tr '\\0' a); sleep 60";
    pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::setpgid(pid, pid);
  }

  ~memory_hog() {
    if (pid <= 0) return;
    ::killpg(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
};

template <class Pred>
bool eventually(Pred pred, std::chrono::seconds limit = 20s) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return pred();
}

/// Precondition: this process may make a memory cgroup (v2 or v1) below its own; elsewhere steps
/// fall back to sampling (sampling_sees_a_step_over_its_limit checks that).
boost::test_tools::assertion_result memory_cgroup_writable(boost::unit_test::test_unit_id) {
  auto root = find_memory_cgroup_root();
  boost::test_tools::assertion_result ok{root.kind != memory_enforcement::sampling};
  ok.message() << "no memory cgroup this process may write (cgroup v2 or v1 with the memory "
                  "controller): memory enforcement here is "
               << to_string(root.kind);
  return ok;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(memory_guard_tests)

BOOST_AUTO_TEST_CASE(resident_memory_is_summed_over_the_process_groups) {
  memory_hog hog{60};
  BOOST_REQUIRE(hog.pid > 0);
  BOOST_TEST(eventually([&] { return resident_bytes_of_groups({hog.pid}) > 50'000'000u; }));
  BOOST_TEST(resident_bytes_of_groups({}) == 0u);
}

BOOST_AUTO_TEST_CASE(sampling_sees_a_step_over_its_limit) {
  memory_hog hog{60};
  memory_guard tight{memory_cgroup_root{}, "unused", 20};
  memory_guard roomy{memory_cgroup_root{}, "unused", 4096};
  BOOST_TEST((tight.how() == memory_enforcement::sampling), to_string(tight.how()));
  BOOST_TEST(tight.procs_fd() == -1);
  BOOST_TEST(eventually([&] { return tight.exceeded({hog.pid}); }));
  // Once over, it stays over (the step is being killed).
  BOOST_TEST(tight.exceeded({}));
  BOOST_TEST(!roomy.exceeded({hog.pid}));
}

BOOST_AUTO_TEST_CASE(no_limit_means_no_guard) {
  memory_guard none{find_memory_cgroup_root(), "shoal_test_none", 0};
  BOOST_TEST((none.how() == memory_enforcement::none), to_string(none.how()));
  BOOST_TEST(!none.exceeded({::getpid()}));
}

BOOST_AUTO_TEST_CASE(a_cgroup_is_made_and_removed_where_the_host_allows,
                     *boost::unit_test::precondition(memory_cgroup_writable)) {
  auto root = find_memory_cgroup_root();
  BOOST_TEST_MESSAGE("memory enforcement here: " << to_string(root.kind) << " " << root.dir);
  auto name = "shoal_test_" + std::to_string(::getpid());
  std::string dir;
  {
    memory_guard guard{root, name, 64};
    BOOST_TEST(guard.problem() == "");
    BOOST_TEST((guard.how() == root.kind), to_string(guard.how()));
    BOOST_TEST(guard.procs_fd() >= 0);
    dir = guard.cgroup_dir();
    struct stat st;
    BOOST_TEST(::stat(dir.c_str(), &st) == 0);
  }
  struct stat st;
  BOOST_TEST(::stat(dir.c_str(), &st) != 0);
}

BOOST_AUTO_TEST_SUITE_END()

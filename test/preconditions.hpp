#pragma once

// What a case needs of the machine (root, a number of CPUs), as Boost.Test preconditions: a case
// whose precondition fails is reported as skipped with the reason, and the run still passes. A
// case that returned early instead would pass having checked nothing, and say so nowhere.
//
//   BOOST_AUTO_TEST_CASE(tasks_run_as_another_user,
//                        *boost::unit_test::precondition(test::needs_root{"to switch users"}))
//
// Boost.Test names skipped cases only at --log_level=test_suite and above; `skips_reported`, a
// global fixture each test binary's main.cpp installs, prints one line per skip at any level.

#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <boost/test/tree/observer.hpp>
#include <boost/test/unit_test.hpp>
#include <boost/test/unit_test_parameters.hpp>

namespace shoal::test {

/// Prints "SKIPPED <case or suite>: precondition failed: <reason>" on stderr for each unit a
/// precondition skipped. Units that --run_test or a `disabled()` decorator left out are not
/// named (they are "skipped" too, for Boost.Test, with the reason "disabled").
class skip_reporter : public boost::unit_test::test_observer {
 public:
  void test_unit_skipped(const boost::unit_test::test_unit& unit,
                         boost::unit_test::const_string reason) override {
    if (reason == boost::unit_test::const_string{"disabled"}) return;
    // At test_suite level and above Boost.Test says it itself.
    namespace rc = boost::unit_test::runtime_config;
    if (rc::get<boost::unit_test::log_level>(rc::btrt_log_level) <=
        boost::unit_test::log_test_units)
      return;
    std::clog << "SKIPPED " << unit.full_name() << ": " << reason << std::endl;
  }
};

/// For BOOST_TEST_GLOBAL_FIXTURE in a test binary's main.cpp: reports skips while the tests run.
/// (Not BOOST_TEST_GLOBAL_CONFIGURATION: Boost 1.74 makes and deletes that object while it walks
/// its observers, so one that registers itself crashes the run at exit.)
struct skips_reported {
  skip_reporter reporter;
  void setup() { boost::unit_test::framework::register_observer(reporter); }
  void teardown() { boost::unit_test::framework::deregister_observer(reporter); }
};

/// The CPUs this process may run on, in ascending order, as the kernel's affinity mask has them;
/// the daemons and tasks a test starts inherit them.
inline std::vector<unsigned> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<unsigned> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

/// Precondition: the test runs as root. `why` completes "needs root ...".
struct needs_root {
  std::string why;

  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    boost::test_tools::assertion_result ok{::geteuid() == 0};
    ok.message() << "needs root " << why << "; runs as uid " << ::geteuid();
    return ok;
  }
};

/// Precondition: this process may run on at least `count` CPUs. `why` completes "needs N CPUs
/// ...".
struct needs_cpus {
  unsigned count;
  std::string why;

  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    auto allowed = allowed_cpus().size();
    boost::test_tools::assertion_result ok{allowed >= count};
    ok.message() << "needs " << count << " CPUs " << why << "; " << allowed
                 << " allowed here (sched_getaffinity)";
    return ok;
  }
};

/// What `command`, run by /bin/sh, prints on stdout; empty when it cannot run.
inline std::string shell_output(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
    ::pclose(p);
  }
  return out;
}

/// Precondition: Open MPI's mpirun and mpicc are on PATH (Debian's openmpi-bin and
/// libopenmpi-dev). `why` completes "needs Open MPI ...".
struct needs_open_mpi {
  std::string why;

  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    auto banner = shell_output("mpirun --version 2>/dev/null; command -v mpicc");
    boost::test_tools::assertion_result ok{banner.find("Open MPI") != std::string::npos &&
                                           banner.find("mpicc") != std::string::npos};
    ok.message() << "needs Open MPI's mpirun and mpicc on PATH " << why;
    return ok;
  }
};

/// Precondition: `program` is on PATH, e.g. mpicc.mpich (Debian's mpich and libmpich-dev,
/// beside Open MPI without becoming the default mpicc) or mpicc.openmpi. `why` completes
/// "needs PROGRAM on PATH ...".
struct needs_program {
  std::string program;
  std::string why;

  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    auto found = shell_output("command -v " + program);
    boost::test_tools::assertion_result ok{found.find(program) != std::string::npos};
    ok.message() << "needs " << program << " on PATH " << why;
    return ok;
  }
};

/// Precondition: MPICH's compiler wrapper mpicc.mpich. `why` completes "needs MPICH ...".
struct needs_mpich : needs_program {
  explicit needs_mpich(std::string why) : needs_program{"mpicc.mpich", std::move(why)} {}
};

/// Precondition: Debian's PostgreSQL server binaries, and when running as root a user `nobody`
/// and runuser to run them as (initdb refuses root).
struct needs_postgres {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    // Debian's postgresql-15 (accounting::default_postgres_bin).
    std::string bin = "/usr/lib/postgresql/15/bin";
    bool ok = ::access((bin + "/initdb").c_str(), X_OK) == 0 &&
              ::access((bin + "/pg_ctl").c_str(), X_OK) == 0;
    if (ok && ::geteuid() == 0)
      ok = shell_output("command -v runuser && id -u nobody").find("runuser") != std::string::npos;
    boost::test_tools::assertion_result r{ok};
    r.message() << "needs PostgreSQL's server (" << bin
                << "/initdb and pg_ctl: Debian's postgresql) and, as root, runuser and a user "
                   "nobody to run it as";
    return r;
  }
};

}  // namespace shoal::test

#pragma once

// The tests' private munged (test/munge/munged.sh, a ctest fixture that names its socket in
// SHOAL_TEST_MUNGE_SOCKET): its socket, a precondition for the cases that need it, and the
// auth settings that use it.

#include <cstdlib>
#include <string>

#include <boost/test/unit_test.hpp>

#include "config/config.hpp"

namespace shoal::test {

inline std::string test_munge_socket() {
  const char* socket = std::getenv("SHOAL_TEST_MUNGE_SOCKET");
  return socket != nullptr ? socket : "";
}

/// ctest starts a private munged for these cases and always runs them; the binary run by hand
/// without one skips them.
inline boost::test_tools::assertion_result have_test_munged(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result ok{!test_munge_socket().empty()};
  ok.message() << "SHOAL_TEST_MUNGE_SOCKET is not set (ctest starts a private munged)";
  return ok;
}

/// AuthType=auth/munge with the tests' munged.
inline config::auth_settings test_munge() {
  config::auth_settings auth;
  auth.munge = true;
  auth.munge_socket = test_munge_socket();
  return auth;
}

}  // namespace shoal::test

#pragma once

// The boundary between shoal's errors (messages/errc.hpp, what the pure libraries return) and
// CAF's, which actors reply with and which cross processes. Actor and runtime code includes
// this; the pure libraries and the CLI do not, so the CLI needs no libcaf_core.

#include <string>

#include <caf/atom.hpp>
#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "messages/errc.hpp"

namespace shoal {

/// The category atom under which shoal's errors travel in CAF.
constexpr caf::atom_value error_category = caf::atom("shoal");

/// A code (and an optional text) as a caf::error in shoal's category. With this overload in
/// scope, CAF also converts an `errc` to a caf::error by itself.
caf::error make_error(errc code);
caf::error make_error(errc code, std::string text);

/// shoal's error as CAF's; no error is caf::none.
caf::error to_caf(const error& err);

template <class T>
caf::expected<T> to_caf(expected<T> x) {
  if (x) return caf::expected<T>{std::move(*x)};
  return caf::expected<T>{to_caf(x.error())};
}

/// The text a user should see for a caf::error: the attached text when there is one, otherwise
/// the code's name. Works without an actor system (CAF's own renderer needs one).
std::string describe(const caf::error& err);

}  // namespace shoal

#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace shoal {

/// Every failure shoal reports across a library or process boundary. Numbers are part of the
/// wire format: never reuse or renumber one, add new values at the end.
enum class errc : uint8_t {
  /// A configuration file or value is invalid; the text names file:line.
  invalid_config = 1,
  /// A hostlist expression is malformed; the text names the position.
  invalid_hostlist = 2,
  /// A Cap'n Proto buffer could not be decoded.
  malformed_message = 3,
  /// A request names a partition that does not exist.
  unknown_partition = 4,
  /// A request names a node that does not exist.
  unknown_node = 5,
  /// A request names a job that does not exist (or is long gone).
  unknown_job = 6,
  /// A request can never be satisfied (more nodes than exist, over a partition limit, ...).
  unsatisfiable = 7,
  /// A request is well formed but not allowed in the current state.
  invalid_request = 8,
  /// A time or duration could not be parsed.
  invalid_time = 9,
  /// The caller may not do this (e.g. cancel another user's job).
  permission_denied = 10,
  /// The controller could not be reached.
  unreachable = 11,
  /// An operating-system call failed; the text names it.
  system_error = 12,
  /// A peer speaks another major version of the wire schema; the text names both versions.
  incompatible_version = 13,
  /// The shoalctld asked is not in control (a backup in standby, or a primary taking control
  /// back); the text names the one that is. Clients move on to the next SlurmctldHost line.
  not_in_control = 14,
  /// A request's credential is missing, forged, expired, replayed or not for this request
  /// (AuthType=auth/munge); the text is Slurm's "Protocol authentication error" and the reason.
  authentication_failed = 15,
};

/// The stable name of a code, e.g. "invalid_config".
const char* to_string(errc code);

/// A failure as a value: a code and the text a user should see. The pure libraries return it
/// (alone, or in `expected`) and know nothing of CAF; actors carry caf::error, and
/// messages/caf/error.hpp converts at that boundary. A default-constructed error means "no
/// error", so a function that can only fail returns `error` and `{}` on success.
class error {
 public:
  error() = default;
  error(errc code, std::string text = {}) : code_(code), text_(std::move(text)) {}

  explicit operator bool() const { return code_ != errc{}; }
  errc code() const { return code_; }
  /// What the caller attached, possibly empty; `describe` falls back to the code's name.
  const std::string& text() const { return text_; }

 private:
  errc code_{};
  std::string text_;
};

inline bool operator==(const error& x, errc y) {
  return x.code() == y;
}
inline bool operator==(errc x, const error& y) {
  return y == x;
}
inline bool operator!=(const error& x, errc y) {
  return !(x == y);
}
inline bool operator!=(errc x, const error& y) {
  return !(y == x);
}

/// The text a user should see: the attached text when there is one, otherwise the code's name.
std::string describe(const error& err);

/// A value or the error that stands in its place (C++23's std::expected, in what shoal uses).
template <class T>
class expected {
 public:
  static_assert(!std::is_same_v<T, shoal::error>, "a function that can only fail returns error");

  expected(const T& value) : state_(std::in_place_index<0>, value) {}
  expected(T&& value) : state_(std::in_place_index<0>, std::move(value)) {}
  template <class U, class = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                              !std::is_same_v<std::decay_t<U>, T> &&
                                              !std::is_same_v<std::decay_t<U>, shoal::error> &&
                                              !std::is_same_v<std::decay_t<U>, expected>>>
  expected(U&& value) : state_(std::in_place_index<0>, std::forward<U>(value)) {}
  expected(shoal::error err) : state_(std::in_place_index<1>, std::move(err)) {}

  explicit operator bool() const { return state_.index() == 0; }
  bool has_value() const { return state_.index() == 0; }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  shoal::error& error() & { return std::get<1>(state_); }
  const shoal::error& error() const& { return std::get<1>(state_); }
  shoal::error&& error() && { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, shoal::error> state_;
};

template <class T>
bool operator==(const expected<T>& x, errc y) {
  return !x && x.error() == y;
}

}  // namespace shoal

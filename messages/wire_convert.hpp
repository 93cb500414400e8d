#pragma once

// Internal to the codec: the conversions the generated fill/read code (wire_codec.cpp, from
// messages/wire_gen.cpp) calls between a C++ member and its Cap'n Proto field, and the framing
// of every encoding behind its version header. A member type named by a `$C.type` annotation in
// messages/shoal.capnp needs its pair of overloads here. `from_wire` leaves the member as it was
// (its initializer) when the wire value does not convert.

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <capnp/blob.h>
#include <capnp/list.h>
#include <capnp/message.h>
#include <kj/function.h>

#include "messages/errc.hpp"
#include "messages/states.hpp"

namespace shoal::msg {

// -- scalars ------------------------------------------------------------------------------------

template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
T to_wire(T x) {
  return x;
}

template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
void from_wire(T v, T& x) {
  x = v;
}

inline uint8_t to_wire(power_state x) {
  return static_cast<uint8_t>(x);
}

/// Numbers past the last state (a newer peer's) read as on.
inline void from_wire(uint8_t v, power_state& x) {
  x = v <= static_cast<uint8_t>(power_state::powering_down) ? static_cast<power_state>(v)
                                                            : power_state::on;
}

inline uint8_t to_wire(stream_kind x) {
  return static_cast<uint8_t>(x);
}

/// Numbers other than 1 and 2 keep the initializer (stream_kind::out).
inline void from_wire(uint8_t v, stream_kind& x) {
  if (v == static_cast<uint8_t>(stream_kind::out) || v == static_cast<uint8_t>(stream_kind::err))
    x = static_cast<stream_kind>(v);
}

// -- Text ---------------------------------------------------------------------------------------

inline capnp::Text::Reader to_text(const std::string& x) {
  return {x.data(), x.size()};
}

inline capnp::Text::Reader to_text(node_state x) {
  return to_string(x);
}

inline capnp::Text::Reader to_text(job_state x) {
  return to_string(x);
}

inline void from_wire(capnp::Text::Reader v, std::string& x) {
  x.assign(v.cStr(), v.size());
}

/// Any case; an unknown name (a newer peer's state) keeps the initializer.
inline void from_wire(capnp::Text::Reader v, node_state& x) {
  if (auto s = parse_node_state(std::string_view{v.cStr(), v.size()})) x = *s;
}

/// Long names or short codes, any case; an unknown name keeps the initializer.
inline void from_wire(capnp::Text::Reader v, job_state& x) {
  if (auto s = parse_job_state(std::string_view{v.cStr(), v.size()})) x = *s;
}

// -- Data ---------------------------------------------------------------------------------------

inline capnp::Data::Reader to_data(const std::vector<uint8_t>& x) {
  return {x.data(), x.size()};
}

inline capnp::Data::Reader to_data(const std::string& x) {
  return {reinterpret_cast<const capnp::byte*>(x.data()), x.size()};
}

inline void from_wire(capnp::Data::Reader v, std::vector<uint8_t>& x) {
  x.assign(v.begin(), v.end());
}

inline void from_wire(capnp::Data::Reader v, std::string& x) {
  x.assign(reinterpret_cast<const char*>(v.begin()), v.size());
}

// -- lists of scalars and Text ------------------------------------------------------------------

template <class T>
unsigned list_size(const std::vector<T>& xs) {
  return static_cast<unsigned>(xs.size());
}

template <class Builder, class T>
void to_list(Builder list, const std::vector<T>& xs) {
  for (unsigned i = 0; i < list.size(); ++i) {
    if constexpr (std::is_same_v<T, std::string>)
      list.set(i, to_text(xs[i]));
    else
      list.set(i, to_wire(xs[i]));
  }
}

template <class Reader, class T>
void from_list(Reader list, std::vector<T>& xs) {
  xs.clear();
  xs.reserve(list.size());
  for (auto v : list) from_wire(v, xs.emplace_back());
}

// -- framing ------------------------------------------------------------------------------------

/// The encoding of the message `fill` builds: the version header, then the flat array of words.
std::vector<char> encode_message(kj::FunctionParam<void(capnp::MessageBuilder&)> fill);

/// Checks the version header of `buf` and hands its message to `read`. Never throws: a
/// kj::Exception from `read` or a malformed buffer is errc::malformed_message, another major
/// version errc::incompatible_version.
shoal::error decode_message(const std::vector<char>& buf,
                            kj::FunctionParam<void(capnp::MessageReader&)> read);

}  // namespace shoal::msg

#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::msg {

// -- versions -----------------------------------------------------------------------------------

/// A version of the wire schema (messages/shoal.capnp's wireMajor and wireMinor).
struct wire_version {
  uint16_t major = 0;
  uint16_t minor = 0;
};

/// The version this build writes, and whose major it reads.
constexpr wire_version current_wire_version{wire_major, wire_minor};

/// "1.4".
std::string to_string(wire_version v);

/// Every encoding starts with this many bytes: the magic "SHOL", then the major and minor
/// version as little-endian 16-bit numbers. The Cap'n Proto words follow.
constexpr size_t wire_header_size = 8;

/// The header an encoding of version `v` starts with (tests frame other versions' encodings).
std::vector<char> wire_header(wire_version v = current_wire_version);

/// The version named by the header of `buf`; errc::malformed_message when it has none.
shoal::expected<wire_version> version_of(const std::vector<char>& buf);

/// errc::incompatible_version when `peer` has another major version than this build, its text
/// naming `who` ("the controller at h:7817") and both versions; no error otherwise.
shoal::error check_peer_version(wire_version peer, const std::string& who);

/// The name under which shoalctld publishes the controller ("shoal-wire 1.4"): CAF's connection
/// handshake hands the published interface set to every client, so a peer learns the wire version
/// before its first request, at no cost of its own.
std::string wire_interface(wire_version v = current_wire_version);

/// What a shoalctld that is not in control (a backup in standby) publishes beside its wire
/// version, so a client learns it in CAF's handshake and moves on to the next SlurmctldHost line
/// without asking.
inline const std::string standby_interface = "shoal-standby";

/// The version named in a published interface set; errc::incompatible_version, naming `who`, when
/// the set names none (a release that predates versioned messages).
shoal::expected<wire_version> version_of_interface(const std::set<std::string>& ifs,
                                                   const std::string& who);

// -- codec --------------------------------------------------------------------------------------

/// Cap'n Proto encoding of each generated message type, behind the version header. `decode`
/// never throws: a malformed buffer is errc::malformed_message and an encoding of another major
/// version errc::incompatible_version (its text names both versions); another minor decodes,
/// fields it lacks at their defaults.
#define SHOAL_DECLARE_CODEC(type, wire_type) \
  std::vector<char> encode(const type& x);   \
  shoal::error decode(const std::vector<char>& buf, type& x);

SHOAL_WIRE_STRUCTS(SHOAL_DECLARE_CODEC)

#undef SHOAL_DECLARE_CODEC

}  // namespace shoal::msg

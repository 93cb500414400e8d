#include "messages/codec.hpp"

#include <cstdint>
#include <cstdio>
#include <string_view>

#include <cstring>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>
#include <kj/io.h>

#include "messages/errc.hpp"
#include "messages/wire_convert.hpp"

// The per-type encode/decode are generated (wire_codec.cpp); this file holds what they share.

namespace shoal::msg {

namespace {

constexpr char magic[4] = {'S', 'H', 'O', 'L'};

uint16_t read_u16(const char* p) {
  return static_cast<uint16_t>(static_cast<uint8_t>(p[0]) | static_cast<uint8_t>(p[1]) << 8);
}

void write_u16(char* p, uint16_t v) {
  p[0] = static_cast<char>(v & 0xff);
  p[1] = static_cast<char>(v >> 8);
}

}  // namespace

std::string to_string(wire_version v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor);
}

std::vector<char> wire_header(wire_version v) {
  std::vector<char> out(wire_header_size);
  std::memcpy(out.data(), magic, sizeof(magic));
  write_u16(out.data() + 4, v.major);
  write_u16(out.data() + 6, v.minor);
  return out;
}

shoal::expected<wire_version> version_of(const std::vector<char>& buf) {
  if (buf.size() < wire_header_size || std::memcmp(buf.data(), magic, sizeof(magic)) != 0)
    return shoal::error(
        errc::malformed_message,
        "message has no shoal wire header (from a peer older than wire version 1.0, "
        "or not a shoal message)");
  return wire_version{read_u16(buf.data() + 4), read_u16(buf.data() + 6)};
}

shoal::error check_peer_version(wire_version peer, const std::string& who) {
  if (peer.major == current_wire_version.major) return {};
  return shoal::error(errc::incompatible_version,
                      who + " uses wire version " + to_string(peer) +
                          " and this process wire version " + to_string(current_wire_version) +
                          ": the major versions differ, so they cannot exchange messages (run the "
                          "same shoal release on every host)");
}

namespace {

constexpr std::string_view interface_prefix = "shoal-wire ";

}  // namespace

std::string wire_interface(wire_version v) {
  return std::string{interface_prefix} + to_string(v);
}

shoal::expected<wire_version> version_of_interface(const std::set<std::string>& ifs,
                                                   const std::string& who) {
  for (auto& name : ifs) {
    if (name.compare(0, interface_prefix.size(), interface_prefix) != 0) continue;
    unsigned major = 0;
    unsigned minor = 0;
    if (std::sscanf(name.c_str() + interface_prefix.size(), "%u.%u", &major, &minor) == 2)
      return wire_version{static_cast<uint16_t>(major), static_cast<uint16_t>(minor)};
  }
  return shoal::error(errc::incompatible_version,
                      who +
                          " reports no wire version (a release older than wire version 1.0, or "
                          "not a shoal controller): run the same shoal release on every host");
}

std::vector<char> encode_message(kj::FunctionParam<void(capnp::MessageBuilder&)> fill) {
  capnp::MallocMessageBuilder mb;
  fill(mb);
  // Written straight behind the header: a listing of 1,000 jobs is 664 KB, and a flat copy
  // first would cost a second buffer of that size, its page faults and a memcpy.
  auto out = wire_header();
  auto words = capnp::computeSerializedSizeInWords(mb);
  out.resize(wire_header_size + words * sizeof(capnp::word));
  kj::ArrayOutputStream stream{kj::arrayPtr(
      reinterpret_cast<kj::byte*>(out.data()) + wire_header_size, words * sizeof(capnp::word))};
  capnp::writeMessage(stream, mb);
  return out;
}

shoal::error decode_message(const std::vector<char>& buf,
                            kj::FunctionParam<void(capnp::MessageReader&)> read) {
  auto version = version_of(buf);
  if (!version) return std::move(version.error());
  if (auto err = check_peer_version(*version, "the sender of a message")) return err;
  auto size = buf.size() - wire_header_size;
  if (size == 0 || size % sizeof(capnp::word) != 0)
    return shoal::error(errc::malformed_message, "message size is not a whole number of words");
  // Cap'n Proto reads words in place. A vector's storage comes from operator new, aligned for
  // any scalar, so behind the 8-byte header the words are aligned and need no copy; another
  // allocator could break that, so check, and copy into aligned storage only then.
  kj::Array<capnp::word> copy;
  kj::ArrayPtr<const capnp::word> words;
  const char* body = buf.data() + wire_header_size;
  if (reinterpret_cast<uintptr_t>(body) % alignof(capnp::word) == 0) {
    words = kj::arrayPtr(reinterpret_cast<const capnp::word*>(body), size / sizeof(capnp::word));
  } else {
    copy = kj::heapArray<capnp::word>(size / sizeof(capnp::word));
    std::memcpy(copy.begin(), body, size);
    words = copy.asPtr();
  }
  try {
    // Reading is bounded by what was sent: a list of empty structs costs no bytes on the wire,
    // and Cap'n Proto's default limit (8 Mi words) would let 57 bytes ask for millions of
    // elements. Every field is read once, so twice the message's words is room enough; this also
    // lifts the default cap for the big replies max_client_frame allows.
    capnp::ReaderOptions options;
    options.traversalLimitInWords = words.size() * 2 + 1024;
    capnp::FlatArrayMessageReader reader{words, options};
    read(reader);
    return {};
  } catch (const kj::Exception& e) {
    return shoal::error(errc::malformed_message, e.getDescription().cStr());
  }
}

}  // namespace shoal::msg

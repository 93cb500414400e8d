#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "fields.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "unit/messages/older.capnp.h"

// The schema version every encoding carries (messages/shoal.capnp's wireMajor and wireMinor):
// another minor decodes, another major is refused with both versions named.

using namespace shoal;
using namespace shoal::test;

namespace {

/// `buf` with its header rewritten to name version `v`.
std::vector<char> as_version(std::vector<char> buf, msg::wire_version v) {
  auto header = msg::wire_header(v);
  std::copy(header.begin(), header.end(), buf.begin());
  return buf;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(wire_versions)

BOOST_AUTO_TEST_CASE(every_encoding_names_this_builds_version) {
  auto v = msg::version_of(msg::encode(sample_job_info()));
  BOOST_REQUIRE(v);
  BOOST_TEST(v->major == msg::wire_major);
  BOOST_TEST(v->minor == msg::wire_minor);
  BOOST_TEST(msg::to_string(msg::current_wire_version) ==
             std::to_string(msg::wire_major) + "." + std::to_string(msg::wire_minor));
}

BOOST_AUTO_TEST_CASE(the_header_is_the_magic_then_little_endian_major_and_minor) {
  auto h = msg::wire_header({0x0102, 0x0304});
  BOOST_TEST(h.size() == msg::wire_header_size);
  BOOST_TEST(std::string(h.begin(), h.begin() + 4) == "SHOL");
  BOOST_TEST(h[4] == 0x02);
  BOOST_TEST(h[5] == 0x01);
  BOOST_TEST(h[6] == 0x04);
  BOOST_TEST(h[7] == 0x03);
}

BOOST_AUTO_TEST_CASE(an_encoding_of_a_newer_minor_version_decodes) {
  auto x = sample_node_info();
  auto buf = as_version(msg::encode(x), {msg::wire_major, uint16_t(msg::wire_minor + 7)});
  msg::node_info decoded;
  auto err = msg::decode(buf, decoded);
  BOOST_REQUIRE_MESSAGE(!err, describe(err));
  check_same(decoded, x);
}

BOOST_AUTO_TEST_CASE(an_older_schemas_encoding_of_another_minor_decodes) {
  // A peer built from test/unit/messages/older.capnp, whose header names the minor after ours:
  // the minor does not matter, the fields it has decode, the rest take their defaults.
  capnp::MallocMessageBuilder mb;
  auto b = mb.initRoot<wire_older::JobRequest>();
  b.setJobId(12);
  b.setName("older");
  auto words = capnp::messageToFlatArray(mb);
  auto bytes = words.asBytes();
  auto buf = msg::wire_header({msg::wire_major, uint16_t(msg::wire_minor + 1)});
  buf.insert(buf.end(), bytes.begin(), bytes.end());
  msg::job_request decoded;
  auto err = msg::decode(buf, decoded);
  BOOST_REQUIRE_MESSAGE(!err, describe(err));
  msg::job_request expected;
  expected.job_id = 12;
  expected.name = "older";
  check_same(decoded, expected);
}

BOOST_AUTO_TEST_CASE(an_encoding_of_another_major_version_is_refused_naming_both_versions) {
  auto current = msg::to_string(msg::current_wire_version);
  for (uint16_t major : {uint16_t(msg::wire_major + 1), uint16_t(msg::wire_major - 1)}) {
    msg::wire_version other{major, 3};
    auto buf = as_version(msg::encode(sample_job_request()), other);
    auto target = sample_job_request();
    target.name = "untouched";
    auto err = msg::decode(buf, target);
    BOOST_TEST_CONTEXT("major " << major) {
      BOOST_CHECK(err == errc::incompatible_version);
      auto text = describe(err);
      BOOST_TEST(contains(text, "wire version " + msg::to_string(other)), text);
      BOOST_TEST(contains(text, "wire version " + current), text);
      BOOST_TEST(target.name == "untouched");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_peer_of_another_major_is_incompatible_and_named) {
  BOOST_CHECK(!msg::check_peer_version({msg::wire_major, uint16_t(msg::wire_minor + 2)}, "x"));
  auto err = msg::check_peer_version({uint16_t(msg::wire_major + 1), 0}, "the controller at h:1");
  BOOST_CHECK(err == errc::incompatible_version);
  auto text = describe(err);
  BOOST_TEST(contains(text, "the controller at h:1 uses wire version " +
                                msg::to_string({uint16_t(msg::wire_major + 1), 0})),
             text);
  BOOST_TEST(contains(text, "wire version " + msg::to_string(msg::current_wire_version)), text);
}

BOOST_AUTO_TEST_CASE(an_encoding_without_the_header_is_malformed_message) {
  // What a peer from before versioned encodings sends: bare Cap'n Proto words.
  auto buf = msg::encode(sample_node_info());
  std::vector<char> bare(buf.begin() + msg::wire_header_size, buf.end());
  msg::node_info decoded;
  auto err = msg::decode(bare, decoded);
  BOOST_CHECK(err == errc::malformed_message);
  BOOST_TEST(contains(describe(err), "no shoal wire header"), describe(err));
  BOOST_CHECK(msg::version_of(bare).error() == errc::malformed_message);
}

BOOST_AUTO_TEST_CASE(a_header_alone_is_malformed_message) {
  msg::node_info decoded;
  BOOST_CHECK(msg::decode(msg::wire_header(), decoded) == errc::malformed_message);
}

BOOST_AUTO_TEST_CASE(a_caf_message_of_another_major_version_fails_to_deserialize_with_it) {
  struct config : caf::actor_system_config {
    config() { add_message_types<caf::id_block::shoal>(); }
  };
  config cfg;
  caf::actor_system sys{cfg};
  auto wire = as_version(msg::encode(sample_machine_status()),
                         {uint16_t(msg::wire_major + 1), msg::wire_minor});
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  BOOST_REQUIRE(!sink(wire));
  msg::machine_status y;
  caf::binary_deserializer source{sys, buf};
  BOOST_CHECK(source(y) == errc::incompatible_version);
}

BOOST_AUTO_TEST_SUITE_END()

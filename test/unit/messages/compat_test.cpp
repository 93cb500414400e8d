#include <boost/test/unit_test.hpp>

#include <cstring>
#include <string>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>

#include "fields.hpp"
#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "unit/messages/older.capnp.h"

// Mixed versions: an older peer's encoding (test/unit/messages/older.capnp, the first fields of
// JobRequest and NodeInfo) read by today's codec, and today's encoding read by the older schema.

using namespace shoal;
using namespace shoal::test;

namespace {

/// The older peer's encoding: its header names the same major and the first minor.
std::vector<char> flat_bytes(capnp::MessageBuilder& mb) {
  auto words = capnp::messageToFlatArray(mb);
  auto bytes = words.asBytes();
  auto out = msg::wire_header({msg::wire_major, 0});
  out.insert(out.end(), bytes.begin(), bytes.end());
  return out;
}

/// Word-aligned copy of the Cap'n Proto words of an encoding (past its version header), for a
/// reader of the older schema.
kj::Array<capnp::word> aligned(const std::vector<char>& buf) {
  auto size = buf.size() - msg::wire_header_size;
  auto words = kj::heapArray<capnp::word>(size / sizeof(capnp::word));
  std::memcpy(words.begin(), buf.data() + msg::wire_header_size, size);
  return words;
}

std::string str(capnp::Text::Reader t) {
  return std::string{t.cStr(), t.size()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(older_encodings)

BOOST_AUTO_TEST_CASE(an_older_job_request_decodes_with_new_fields_at_their_defaults) {
  auto x = sample_job_request();
  capnp::MallocMessageBuilder mb;
  auto b = mb.initRoot<wire_older::JobRequest>();
  b.setJobId(x.job_id);
  b.setName(x.name);
  b.setUser(x.user);
  b.setUid(x.uid);
  b.setGid(x.gid);
  b.setPartition(x.partition);
  b.setMinNodes(x.min_nodes);
  b.setNtasks(x.ntasks);
  b.setCpusPerTask(x.cpus_per_task);
  b.setTimeLimitS(x.time_limit_s);

  msg::job_request decoded;
  auto err = msg::decode(flat_bytes(mb), decoded);
  BOOST_REQUIRE_MESSAGE(!err, describe(err));
  msg::job_request expected;  // the old fields from the sample, the rest at their defaults
  expected.job_id = x.job_id;
  expected.name = x.name;
  expected.user = x.user;
  expected.uid = x.uid;
  expected.gid = x.gid;
  expected.partition = x.partition;
  expected.min_nodes = x.min_nodes;
  expected.ntasks = x.ntasks;
  expected.cpus_per_task = x.cpus_per_task;
  expected.time_limit_s = x.time_limit_s;
  check_same(decoded, expected);
}

BOOST_AUTO_TEST_CASE(an_older_node_info_decodes_with_new_fields_at_their_defaults) {
  auto x = sample_node_info();
  capnp::MallocMessageBuilder mb;
  auto b = mb.initRoot<wire_older::NodeInfo>();
  b.setName(x.name);
  b.setState(msg::to_string(x.state));
  b.setReason(x.reason);
  b.setReasonTime(x.reason_time);
  b.setReasonUser(x.reason_user);
  b.setStateSince(x.state_since);
  b.setLastResponse(x.last_response);
  b.setAddress(x.address);

  msg::node_info decoded;
  auto err = msg::decode(flat_bytes(mb), decoded);
  BOOST_REQUIRE_MESSAGE(!err, describe(err));
  msg::node_info expected;
  expected.name = x.name;
  expected.state = x.state;
  expected.reason = x.reason;
  expected.reason_time = x.reason_time;
  expected.reason_user = x.reason_user;
  expected.state_since = x.state_since;
  expected.last_response = x.last_response;
  expected.address = x.address;
  if (decoded.weight != expected.weight)
    BOOST_TEST_MESSAGE(
        "PRODUCT BUG: NodeInfo.weight has no schema default (`= 1`), so a node "
        "from an encoding without it gets Weight 0 instead of the default 1");
  check_same(decoded, expected);
}

BOOST_AUTO_TEST_CASE(an_older_state_name_in_another_case_still_decodes) {
  capnp::MallocMessageBuilder mb;
  auto b = mb.initRoot<wire_older::NodeInfo>();
  b.setName("n1");
  b.setState("drained");
  msg::node_info decoded;
  BOOST_REQUIRE(!msg::decode(flat_bytes(mb), decoded));
  BOOST_TEST(msg::to_string(decoded.state) == "DRAINED");
}

BOOST_AUTO_TEST_CASE(an_unknown_state_name_decodes_as_unknown) {
  capnp::MallocMessageBuilder mb;
  auto b = mb.initRoot<wire_older::NodeInfo>();
  b.setState("FUTURE_STATE");
  msg::node_info decoded;
  BOOST_REQUIRE(!msg::decode(flat_bytes(mb), decoded));
  BOOST_TEST(msg::to_string(decoded.state) == "UNKNOWN");
}

BOOST_AUTO_TEST_CASE(the_older_schema_reads_the_old_fields_of_a_new_job_request) {
  auto x = sample_job_request();
  auto words = aligned(msg::encode(x));
  capnp::FlatArrayMessageReader reader{words};
  auto r = reader.getRoot<wire_older::JobRequest>();
  BOOST_TEST(r.getJobId() == x.job_id);
  BOOST_TEST(str(r.getName()) == x.name);
  BOOST_TEST(str(r.getUser()) == x.user);
  BOOST_TEST(r.getUid() == x.uid);
  BOOST_TEST(r.getGid() == x.gid);
  BOOST_TEST(str(r.getPartition()) == x.partition);
  BOOST_TEST(r.getMinNodes() == x.min_nodes);
  BOOST_TEST(r.getNtasks() == x.ntasks);
  BOOST_TEST(r.getCpusPerTask() == x.cpus_per_task);
  BOOST_TEST(r.getTimeLimitS() == x.time_limit_s);
}

BOOST_AUTO_TEST_CASE(the_older_schema_reads_the_old_fields_of_a_new_node_info) {
  auto x = sample_node_info();
  auto words = aligned(msg::encode(x));
  capnp::FlatArrayMessageReader reader{words};
  auto r = reader.getRoot<wire_older::NodeInfo>();
  BOOST_TEST(str(r.getName()) == x.name);
  BOOST_TEST(str(r.getState()) == msg::to_string(x.state));
  BOOST_TEST(str(r.getReason()) == x.reason);
  BOOST_TEST(r.getReasonTime() == x.reason_time);
  BOOST_TEST(str(r.getReasonUser()) == x.reason_user);
  BOOST_TEST(r.getStateSince() == x.state_since);
  BOOST_TEST(r.getLastResponse() == x.last_response);
  BOOST_TEST(str(r.getAddress()) == x.address);
}

BOOST_AUTO_TEST_CASE(an_older_peer_relaying_a_new_encoding_keeps_the_new_fields) {
  // Cap'n Proto copies unknown fields along with a struct: a new message that an older peer
  // copies into its own message still decodes completely.
  auto x = sample_node_info();
  auto words = aligned(msg::encode(x));
  capnp::FlatArrayMessageReader reader{words};
  capnp::MallocMessageBuilder relay;
  relay.setRoot(reader.getRoot<wire_older::NodeInfo>());
  msg::node_info decoded;
  auto err = msg::decode(flat_bytes(relay), decoded);
  BOOST_REQUIRE_MESSAGE(!err, describe(err));
  check_same(decoded, x);
}

BOOST_AUTO_TEST_SUITE_END()

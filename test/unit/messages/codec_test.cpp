#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/message.hpp>

#include "fields.hpp"
#include "messages/caf/type_ids.hpp"
#include "messages/codec.hpp"
#include "messages/errc.hpp"
#include "messages/shoal.capnp.h"

using namespace shoal;
using namespace shoal::test;

namespace {

// -- per-type table -----------------------------------------------------------------------------

template <class T>
struct traits;

#define SHOAL_TRAITS(type, wire_type)                     \
  template <>                                             \
  struct traits<msg::type> {                              \
    using wire = wire::wire_type;                         \
    static msg::type sample() { return sample_##type(); } \
  };

SHOAL_TRAITS(machine_status, MachineStatus)
SHOAL_TRAITS(node_info, NodeInfo)
SHOAL_TRAITS(partition_info, PartitionInfo)
SHOAL_TRAITS(job_request, JobRequest)
SHOAL_TRAITS(job_info, JobInfo)
SHOAL_TRAITS(launch_request, LaunchRequest)
SHOAL_TRAITS(task_output, TaskOutput)
SHOAL_TRAITS(step_exit, StepExit)
SHOAL_TRAITS(job_event, JobEvent)
SHOAL_TRAITS(node_update, NodeUpdate)
SHOAL_TRAITS(pending_detail, PendingDetail)
SHOAL_TRAITS(job_control, JobControl)
SHOAL_TRAITS(job_update, JobUpdate)
SHOAL_TRAITS(topology_view, TopologyView)
SHOAL_TRAITS(job_record, JobRecord)
SHOAL_TRAITS(array_record, ArrayRecord)
SHOAL_TRAITS(node_record, NodeRecord)
SHOAL_TRAITS(controller_record, ControllerRecord)
SHOAL_TRAITS(power_record, PowerRecord)
SHOAL_TRAITS(node_report, NodeReport)
SHOAL_TRAITS(controller_status, ControllerStatus)
SHOAL_TRAITS(stepd_core, StepdCore)
SHOAL_TRAITS(stepd_setup, StepdSetup)
SHOAL_TRAITS(stepd_hello, StepdHello)
SHOAL_TRAITS(stepd_frame, StepdFrame)
SHOAL_TRAITS(step_exchange, StepExchange)
SHOAL_TRAITS(exchange_blob, ExchangeBlob)
SHOAL_TRAITS(collector_list, CollectorList)
SHOAL_TRAITS(collector_report, CollectorReport)
SHOAL_TRAITS(collector_info, CollectorInfo)
SHOAL_TRAITS(collector_map_record, CollectorMapRecord)
SHOAL_TRAITS(state_group, StateGroup)
SHOAL_TRAITS(partition_summary, PartitionSummary)
SHOAL_TRAITS(partition_edit, PartitionEdit)
SHOAL_TRAITS(partition_edits_record, PartitionEditsRecord)
SHOAL_TRAITS(client_request, ClientRequest)
SHOAL_TRAITS(client_reply, ClientReply)
SHOAL_TRAITS(start_estimate, StartEstimate)
SHOAL_TRAITS(step_io, StepIo)
SHOAL_TRAITS(task_input, TaskInput)
SHOAL_TRAITS(step_info, StepInfo)
SHOAL_TRAITS(share_info, ShareInfo)
SHOAL_TRAITS(usage_record, UsageRecord)
SHOAL_TRAITS(reservation_edit, ReservationEdit)
SHOAL_TRAITS(reservation_info, ReservationInfo)
SHOAL_TRAITS(reservations_record, ReservationsRecord)

#undef SHOAL_TRAITS

/// Every type with a codec in messages/codec.hpp.
using codec_types = std::tuple<
    msg::machine_status, msg::node_info, msg::partition_info, msg::job_request, msg::job_info,
    msg::launch_request, msg::task_output, msg::step_exit, msg::job_event, msg::node_update,
    msg::topology_view, msg::pending_detail, msg::job_control, msg::job_record, msg::array_record,
    msg::node_record, msg::controller_record, msg::node_report, msg::controller_status,
    msg::stepd_core, msg::stepd_setup, msg::stepd_hello, msg::stepd_frame, msg::collector_list,
    msg::collector_report, msg::collector_info, msg::collector_map_record, msg::state_group,
    msg::partition_summary, msg::partition_edit, msg::partition_edits_record, msg::client_request,
    msg::client_reply, msg::start_estimate, msg::step_io, msg::task_input, msg::power_record,
    msg::step_exchange, msg::step_info, msg::job_update, msg::share_info, msg::usage_record,
    msg::reservation_edit, msg::reservation_info, msg::reservations_record>;

/// The types that travel in CAF messages, by a registered type ID: all but the front door's
/// frames, which only ever cross its own socket (runtime/ctld/front_door.hpp).
using caf_message_types = std::tuple<
    msg::machine_status, msg::node_info, msg::partition_info, msg::job_request, msg::job_info,
    msg::launch_request, msg::task_output, msg::step_exit, msg::job_event, msg::node_update,
    msg::topology_view, msg::pending_detail, msg::job_control, msg::job_record, msg::array_record,
    msg::node_record, msg::controller_record, msg::node_report, msg::controller_status,
    msg::stepd_core, msg::stepd_setup, msg::stepd_hello, msg::stepd_frame, msg::collector_list,
    msg::collector_report, msg::collector_info, msg::collector_map_record, msg::partition_summary,
    msg::partition_edit, msg::partition_edits_record, msg::start_estimate, msg::task_input,
    msg::step_exchange, msg::step_info, msg::job_update, msg::share_info, msg::usage_record,
    msg::reservation_edit, msg::reservation_info, msg::reservations_record>;

template <class T>
T decode_ok(const std::vector<char>& buf) {
  T out;
  auto err = msg::decode(buf, out);
  BOOST_REQUIRE_MESSAGE(!err, "decode failed: " << describe(err));
  return out;
}

/// Decodes without letting anything escape: a throw is a test failure, not a crash.
template <class T>
shoal::error decode_guarded(const std::vector<char>& buf, const std::string& what) {
  try {
    T out;
    return msg::decode(buf, out);
  } catch (const std::exception& e) {
    BOOST_ERROR(what << ": decode threw " << e.what());
  } catch (...) {
    BOOST_ERROR(what << ": decode threw a non-std exception");
  }
  return {};
}

/// A message built by hand, behind this build's version header.
std::vector<char> framed(capnp::MessageBuilder& mb) {
  auto words = capnp::messageToFlatArray(mb);
  auto bytes = words.asBytes();
  auto out = msg::wire_header();
  out.insert(out.end(), bytes.begin(), bytes.end());
  return out;
}

struct caf_fixture {
  struct config : caf::actor_system_config {
    config() { add_message_types<caf::id_block::shoal>(); }
  };
  config cfg;
  caf::actor_system sys{cfg};
};

}  // namespace

BOOST_AUTO_TEST_SUITE(codec)

BOOST_AUTO_TEST_CASE_TEMPLATE(every_sample_sets_every_field_off_its_default, T, codec_types) {
  check_no_default_field(traits<T>::sample());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(every_field_survives_an_encode_decode_round_trip, T, codec_types) {
  auto x = traits<T>::sample();
  auto buf = msg::encode(x);
  BOOST_TEST(!buf.empty());
  BOOST_TEST(buf.size() % 8 == 0u);
  check_same(decode_ok<T>(buf), x);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(default_values_survive_a_round_trip, T, codec_types) {
  check_same(decode_ok<T>(msg::encode(T{})), T{});
}

BOOST_AUTO_TEST_CASE_TEMPLATE(decoding_replaces_every_field_of_the_target, T, codec_types) {
  // Lists must not be appended to what the target held before.
  auto x = traits<T>::sample();
  T target = x;
  BOOST_REQUIRE(!msg::decode(msg::encode(T{}), target));
  check_same(target, T{});
  BOOST_REQUIRE(!msg::decode(msg::encode(x), target));
  check_same(target, x);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_struct_with_no_field_set_decodes_to_the_struct_defaults, T,
                              codec_types) {
  // The oldest possible encoding: a peer that knows none of the fields. Every field the decoder
  // does not find must take the C++ default, as for any field added later to the schema.
  capnp::MallocMessageBuilder mb;
  mb.initRoot<typename traits<T>::wire>();
  auto decoded = decode_ok<T>(framed(mb));
  bool all_default = true;
  fields(decoded, T{}, [&](const std::string&, const auto& x, const auto& y) {
    if (!(x == y)) all_default = false;
  });
  if (!all_default)
    BOOST_TEST_MESSAGE(
        "PRODUCT BUG: messages/shoal.capnp gives no default to fields whose C++ default is not "
        "zero (NodeInfo.weight, PartitionInfo.state/maxTimeS/defaultTimeS/priority, "
        "JobInfo.timeLimitS/cpusPerTask, LaunchRequest.cpusPerTask), so an encoding without them "
        "decodes to 0/\"\" instead of the struct's default (e.g. MaxTime 0 instead of unlimited)");
  check_same(decoded, T{});
}

BOOST_AUTO_TEST_CASE_TEMPLATE(every_field_survives_caf_binary_serialization, T, codec_types) {
  caf_fixture fx;
  auto x = traits<T>::sample();
  std::vector<char> buf;
  caf::binary_serializer sink{fx.sys, buf};
  auto copy = x;
  auto err = sink(copy);
  BOOST_REQUIRE_MESSAGE(!err, "serialize failed: " << fx.sys.render(err));
  // The save callback ran first: the CAF payload carries the Cap'n Proto encoding.
  auto wire = msg::encode(x);
  BOOST_TEST((std::search(buf.begin(), buf.end(), wire.begin(), wire.end()) != buf.end()));
  T y;
  caf::binary_deserializer source{fx.sys, buf};
  err = source(y);
  BOOST_REQUIRE_MESSAGE(!err, "deserialize failed: " << fx.sys.render(err));
  BOOST_TEST(source.remaining() == 0u);
  check_same(y, x);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(every_field_survives_a_serialized_caf_message, T, caf_message_types) {
  // The path a remote send takes: the type travels by its registered ID.
  caf_fixture fx;
  auto x = traits<T>::sample();
  auto m = caf::make_message(x);
  std::vector<char> buf;
  caf::binary_serializer sink{fx.sys, buf};
  auto err = sink(m);
  BOOST_REQUIRE_MESSAGE(!err, "serialize failed: " << fx.sys.render(err));
  caf::message back;
  caf::binary_deserializer source{fx.sys, buf};
  err = source(back);
  BOOST_REQUIRE_MESSAGE(!err, "deserialize failed: " << fx.sys.render(err));
  BOOST_REQUIRE(back.size() == 1u);
  BOOST_REQUIRE(back.match_element<T>(0));
  check_same(back.get_as<T>(0), x);
}

BOOST_FIXTURE_TEST_CASE(vectors_of_messages_survive_a_serialized_caf_message, caf_fixture) {
  std::vector<msg::node_info> nodes{sample_node_info(), msg::node_info{}, sample_node_info()};
  nodes[2].name = "node018";
  std::vector<msg::job_info> jobs{sample_job_info(), msg::job_info{}};
  auto m = caf::make_message(nodes, jobs);
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  BOOST_REQUIRE(!sink(m));
  caf::message back;
  caf::binary_deserializer source{sys, buf};
  BOOST_REQUIRE(!source(back));
  BOOST_REQUIRE((back.match_elements<std::vector<msg::node_info>, std::vector<msg::job_info>>()));
  auto& nodes_back = back.get_as<std::vector<msg::node_info>>(0);
  auto& jobs_back = back.get_as<std::vector<msg::job_info>>(1);
  BOOST_REQUIRE(nodes_back.size() == nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) check_same(nodes_back[i], nodes[i]);
  BOOST_REQUIRE(jobs_back.size() == jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) check_same(jobs_back[i], jobs[i]);
}

BOOST_FIXTURE_TEST_CASE(a_caf_payload_with_a_corrupt_encoding_is_malformed_message, caf_fixture) {
  // What a peer sending garbage in the byte buffer looks like to the load callback.
  std::vector<char> garbage(24, '\x5a');
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  BOOST_REQUIRE(!sink(garbage));
  msg::node_info y;
  caf::binary_deserializer source{sys, buf};
  auto err = source(y);
  BOOST_CHECK(err == errc::malformed_message);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(malformed_input)

BOOST_AUTO_TEST_CASE_TEMPLATE(an_empty_buffer_is_malformed_message, T, codec_types) {
  auto err = decode_guarded<T>({}, "empty buffer");
  BOOST_CHECK(err == errc::malformed_message);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_size_not_a_multiple_of_eight_is_malformed_message, T, codec_types) {
  auto valid = msg::encode(traits<T>::sample());
  for (size_t size : {size_t{1}, size_t{4}, size_t{7}, size_t{9}, size_t{15}, valid.size() - 1,
                      valid.size() + 1}) {
    std::vector<char> buf(valid.begin(), valid.begin() + std::min(size, valid.size()));
    buf.resize(size, '\0');
    auto err = decode_guarded<T>(buf, "size " + std::to_string(size));
    BOOST_CHECK_MESSAGE(err == errc::malformed_message, "size " << size << ": " << describe(err));
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(every_truncation_of_a_valid_encoding_is_malformed_message, T,
                              codec_types) {
  auto valid = msg::encode(traits<T>::sample());
  for (size_t words = 1; words * 8 < valid.size(); ++words) {
    std::vector<char> buf(valid.begin(), valid.begin() + words * 8);
    auto err = decode_guarded<T>(buf, std::to_string(words) + " words");
    BOOST_CHECK_MESSAGE(err == errc::malformed_message,
                        "truncated to " << words << " words: " << describe(err));
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(random_bytes_are_malformed_message, T, codec_types) {
  const uint32_t seed = 20'250'117;
  std::mt19937 rng{seed};
  std::uniform_int_distribution<int> byte{0, 255};
  std::uniform_int_distribution<size_t> words{1, 64};
  for (int round = 0; round < 2000; ++round) {
    std::vector<char> buf(words(rng) * 8);
    for (auto& b : buf) b = static_cast<char>(byte(rng));
    auto what = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    auto err = decode_guarded<T>(buf, what);
    BOOST_CHECK_MESSAGE(err == errc::malformed_message,
                        what << ": " << (err ? describe(err) : "decoded without error"));
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(corrupted_valid_encodings_never_throw, T, codec_types) {
  // Past the version header and a valid segment table, random words reach the pointer checks; the
  // result may decode (data words) or fail, but only ever as malformed_message.
  const uint32_t seed = 977;
  std::mt19937 rng{seed};
  auto valid = msg::encode(traits<T>::sample());
  std::uniform_int_distribution<size_t> position{msg::wire_header_size + 8, valid.size() - 1};
  std::uniform_int_distribution<int> byte{0, 255};
  std::uniform_int_distribution<int> edits{1, 8};
  for (int round = 0; round < 2000; ++round) {
    auto buf = valid;
    for (int e = edits(rng); e > 0; --e) buf[position(rng)] = static_cast<char>(byte(rng));
    auto what = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    auto err = decode_guarded<T>(buf, what);
    BOOST_CHECK_MESSAGE(!err || err == errc::malformed_message, what << ": " << describe(err));
  }
}

// Found by the client_frame fuzz target: 57 bytes whose reply names a list of 8,000,000 empty
// job structs (free on the wire) and once decoded to 4.5 GB. Reading is now bounded by the
// message's own size.
BOOST_AUTO_TEST_CASE(a_tiny_message_cannot_ask_for_millions_of_elements) {
  const std::string hex =
      "53484f4c010003000000000005000000000000000100030000000000000000000000000000000000010000"
      "000090d0030000000000000000";
  std::vector<char> buf;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    buf.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  msg::client_reply reply;
  auto err = msg::decode(buf, reply);
  BOOST_TEST((err == errc::malformed_message));
  BOOST_TEST(reply.jobs.size() < 1000u);
}

BOOST_AUTO_TEST_CASE(a_reply_past_capnps_default_read_limit_decodes_whole) {
  // Cap'n Proto's default stops at 8 Mi words (64 MiB); a listing of every job may be larger
  // (max_client_frame allows 256 MiB), and the bound now grows with the message.
  msg::client_reply big;
  big.jobs.assign(200000, sample_job_info());
  auto buf = msg::encode(big);
  BOOST_TEST_REQUIRE(buf.size() > size_t{64} << 20);
  msg::client_reply back;
  BOOST_REQUIRE(!msg::decode(buf, back));
  BOOST_TEST(back.jobs.size() == 200000u);
}

BOOST_AUTO_TEST_SUITE_END()

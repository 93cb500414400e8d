// Writes wire_messages_fuzz's seed corpus into DIR: for every message type, its index byte then
// an encoding of the message tests' sample of it (every field off its default), or of the
// default value for the types that only travel inside others. Run by the build, so the seeds
// always match the schema and the type order of this build.
//
// usage: wire_messages_seeds DIR

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "messages/codec.hpp"
#include "test/fuzz/wire_messages.hpp"
#include "test/unit/messages/fields.hpp"

namespace {

using namespace shoal;

template <class T>
T sample_of() {
  return T{};
}

#define SHOAL_SAMPLE(type)           \
  template <>                        \
  msg::type sample_of<msg::type>() { \
    return test::sample_##type();    \
  }
SHOAL_SAMPLE(machine_status)
SHOAL_SAMPLE(node_info)
SHOAL_SAMPLE(partition_info)
SHOAL_SAMPLE(job_request)
SHOAL_SAMPLE(job_info)
SHOAL_SAMPLE(launch_request)
SHOAL_SAMPLE(task_output)
SHOAL_SAMPLE(step_exit)
SHOAL_SAMPLE(job_event)
SHOAL_SAMPLE(pending_detail)
SHOAL_SAMPLE(job_control)
SHOAL_SAMPLE(node_update)
SHOAL_SAMPLE(topology_view)
SHOAL_SAMPLE(job_record)
SHOAL_SAMPLE(array_record)
SHOAL_SAMPLE(node_record)
SHOAL_SAMPLE(controller_record)
SHOAL_SAMPLE(power_record)
SHOAL_SAMPLE(node_report)
SHOAL_SAMPLE(controller_status)
SHOAL_SAMPLE(collector_list)
SHOAL_SAMPLE(collector_report)
SHOAL_SAMPLE(state_group)
SHOAL_SAMPLE(partition_summary)
SHOAL_SAMPLE(collector_map_record)
SHOAL_SAMPLE(collector_info)
SHOAL_SAMPLE(stepd_core)
SHOAL_SAMPLE(stepd_setup)
SHOAL_SAMPLE(stepd_hello)
SHOAL_SAMPLE(stepd_frame)
SHOAL_SAMPLE(partition_edit)
SHOAL_SAMPLE(partition_edits_record)
SHOAL_SAMPLE(client_request)
SHOAL_SAMPLE(start_estimate)
SHOAL_SAMPLE(client_reply)
#undef SHOAL_SAMPLE

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: wire_messages_seeds DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  unsigned index = 0;
  bool ok = true;
#define SHOAL_WRITE_SEED(type, wire_type)                                   \
  {                                                                         \
    auto bytes = msg::encode(sample_of<msg::type>());                       \
    std::ofstream out{dir + "/" #type, std::ios::binary | std::ios::trunc}; \
    out.put(static_cast<char>(index));                                      \
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));    \
    ok = ok && static_cast<bool>(out);                                      \
    ++index;                                                                \
  }
  SHOAL_WIRE_STRUCTS(SHOAL_WRITE_SEED)
#undef SHOAL_WRITE_SEED
  if (!ok) {
    std::fprintf(stderr, "wire_messages_seeds: cannot write the seeds into %s\n", dir.c_str());
    return 1;
  }
  return 0;
}

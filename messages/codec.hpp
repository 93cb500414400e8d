#pragma once

#include <vector>

#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/save_callback.hpp>
#include <caf/meta/type_name.hpp>

#include "messages/types.hpp"

namespace shoal::msg {

/// Cap'n Proto encoding of each message type (a flat array of words as bytes). `decode` never
/// throws: a malformed buffer is errc::malformed_message.
#define SHOAL_DECLARE_CODEC(type)          \
  std::vector<char> encode(const type& x); \
  caf::error decode(const std::vector<char>& buf, type& x);

SHOAL_DECLARE_CODEC(machine_status)
SHOAL_DECLARE_CODEC(node_info)
SHOAL_DECLARE_CODEC(partition_info)
SHOAL_DECLARE_CODEC(job_request)
SHOAL_DECLARE_CODEC(job_info)
SHOAL_DECLARE_CODEC(launch_request)
SHOAL_DECLARE_CODEC(task_output)
SHOAL_DECLARE_CODEC(step_exit)
SHOAL_DECLARE_CODEC(job_event)
SHOAL_DECLARE_CODEC(node_update)
SHOAL_DECLARE_CODEC(pending_detail)
SHOAL_DECLARE_CODEC(job_control)
SHOAL_DECLARE_CODEC(topology_view)

#undef SHOAL_DECLARE_CODEC

// CAF serializes each type as one byte buffer holding its Cap'n Proto encoding, so the wire is
// versioned by the schema and no second hand-written format exists.
#define SHOAL_CAPNP_INSPECT(type)                                                            \
  template <class Inspector>                                                                 \
  typename Inspector::result_type inspect(Inspector& f, type& x) {                           \
    std::vector<char> buf;                                                                   \
    return f(caf::meta::type_name("shoal::msg::" #type),                                     \
             caf::meta::save_callback([&]() -> caf::error {                                  \
               buf = encode(x);                                                              \
               return caf::none;                                                             \
             }),                                                                             \
             buf, caf::meta::load_callback([&]() -> caf::error { return decode(buf, x); })); \
  }

SHOAL_CAPNP_INSPECT(machine_status)
SHOAL_CAPNP_INSPECT(node_info)
SHOAL_CAPNP_INSPECT(partition_info)
SHOAL_CAPNP_INSPECT(job_request)
SHOAL_CAPNP_INSPECT(job_info)
SHOAL_CAPNP_INSPECT(launch_request)
SHOAL_CAPNP_INSPECT(task_output)
SHOAL_CAPNP_INSPECT(step_exit)
SHOAL_CAPNP_INSPECT(job_event)
SHOAL_CAPNP_INSPECT(node_update)
SHOAL_CAPNP_INSPECT(pending_detail)
SHOAL_CAPNP_INSPECT(job_control)
SHOAL_CAPNP_INSPECT(topology_view)

#undef SHOAL_CAPNP_INSPECT

}  // namespace shoal::msg

#pragma once

// How CAF carries shoal's message types between processes: as the bytes of their Cap'n Proto
// encoding (messages/codec.hpp). Only actor code includes this (through type_ids.hpp); the pure
// libraries and the CLI know nothing of CAF.

#include <vector>

#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/save_callback.hpp>
#include <caf/meta/type_name.hpp>

#include "messages/caf/error.hpp"
#include "messages/codec.hpp"

namespace shoal::msg {

// CAF serializes each type as one byte buffer holding its Cap'n Proto encoding, so the wire is
// versioned by the schema and no second hand-written format exists.
#define SHOAL_CAPNP_INSPECT(type, wire_type)                                                       \
  template <class Inspector>                                                                       \
  typename Inspector::result_type inspect(Inspector& f, type& x) {                                 \
    std::vector<char> buf;                                                                         \
    return f(                                                                                      \
        caf::meta::type_name("shoal::msg::" #type), caf::meta::save_callback([&]() -> caf::error { \
          buf = encode(x);                                                                         \
          return {};                                                                               \
        }),                                                                                        \
        buf, caf::meta::load_callback([&]() -> caf::error { return to_caf(decode(buf, x)); }));    \
  }

SHOAL_WIRE_STRUCTS(SHOAL_CAPNP_INSPECT)

#undef SHOAL_CAPNP_INSPECT

}  // namespace shoal::msg

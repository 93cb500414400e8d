#pragma once

// The daemons' transport figure (docs/benchmarks.md, "The daemons' port in TLS"): what TLS with
// the cluster's identity (runtime/tls) costs against plain CAF between two actor systems on
// 127.0.0.1: the first connection (handshake included), small request-reply round trips, and
// large messages.

#include <cstddef>

namespace shoal::bench {

struct transport_options {
  size_t round_trips = 20000;  ///< small requests, one at a time
  size_t large_messages = 50;  ///< of large_bytes each, echoed back
  size_t large_bytes = 1u << 20;
  unsigned connections = 20;  ///< fresh client systems, each timed to its first reply
};

/// Prints plain and TLS figures side by side. False when a measurement is invalid (a connect or
/// a reply failed), never for a slow figure.
bool run_transport_bench(const transport_options& opt);

}  // namespace shoal::bench

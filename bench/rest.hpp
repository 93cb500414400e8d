#pragma once

namespace shoal::bench {

/// The REST API under load (issue 38): a controller with simulated nodes under auth/jwt, a
/// shoalrestd in front of it, and `clients` HTTP/1.1 clients with keep-alive.
struct rest_options {
  unsigned nodes = 64;              ///< simulated nodes (jobs start without forking tasks)
  unsigned clients = 32;            ///< concurrent HTTP clients
  unsigned list_requests = 4000;    ///< GET /jobs, spread over the clients
  unsigned submit_requests = 2000;  ///< POST /job/submit, spread over the clients
  unsigned queue_runs = 20;         ///< `shoal queue` runs timed idle and under each load
  unsigned restd_threads = 20;      ///< shoalrestd -t
};

/// Prints requests/s for GET /jobs and POST /job/submit, and `shoal queue`'s latency (median,
/// p95) idle, while GET /jobs runs and while submissions run. False when the run is invalid (the
/// cluster or shoalrestd does not come up, a request fails, a submitted job is lost).
bool run_rest_bench(const rest_options& opt);

}  // namespace shoal::bench

#pragma once

// The accounting store's figures (docs/benchmarks.md, "Accounting store"): finished jobs per
// second written into each store (SQLite, and PostgreSQL on a private server of its own), in
// batches as the controller's accounting writer sends them, and how long a `sacct -S` window
// query over them takes.

#include <cstddef>
#include <string>

namespace shoal::bench {

struct accounting_options {
  /// Where the SQLite file goes (a real disk: it fsyncs).
  std::string dir;
  /// Where the PostgreSQL server's cluster goes: an empty folder that, as root, user nobody can
  /// reach (private_postgres).
  std::string postgres_dir;
  size_t jobs = 100000;
  size_t batch = 1000;
  /// Each window query runs this many times; the median is printed.
  unsigned query_runs = 3;
};

/// Runs the figures for both stores and prints them. False when a measurement is invalid (a
/// store does not open, a write or a query fails, a query misses rows), never for a slow figure.
/// A PostgreSQL server that cannot start here is reported and skipped, not a failure.
bool run_accounting_bench(const accounting_options& opt);

}  // namespace shoal::bench

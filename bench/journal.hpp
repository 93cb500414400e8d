#pragma once

// The durable-state figures (docs/benchmarks.md, "Durable state: the journal"): changes per
// second through the state keeper when every sender waits for its change to be durable, against
// the same with no locations; and how long load() takes to rebuild a large saved state.

#include <string>
#include <vector>

namespace shoal::bench {

struct journal_options {
  /// Where the state directories go (a real disk: its fdatasync is what is measured).
  std::string dir;
  /// Wall time of each keeper run.
  double seconds_per_run = 3;
  /// Concurrent senders of each keeper run.
  std::vector<unsigned> senders{1, 8, 32};
  /// Records in the saved state load() reads; the journal run appends as many changes again.
  size_t load_records = 100000;
  size_t value_bytes = 1024;
};

/// Runs both figures and prints them. False when a measurement is invalid (a sync or a load
/// failed), never for a slow figure.
bool run_journal_bench(const journal_options& opt);

}  // namespace shoal::bench

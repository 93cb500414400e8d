#include "bench/journal.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include <caf/all.hpp>

#include "actors/state_keeper.hpp"
#include "bench/support.hpp"
#include "messages/caf/error.hpp"
#include "messages/caf/type_ids.hpp"
#include "metrics/registry.hpp"
#include "runtime/bootstrap/system_setup.hpp"
#include "state/load.hpp"
#include "state/store.hpp"

namespace shoal::bench {
namespace {

using clock_type = std::chrono::steady_clock;

struct keeper_run {
  size_t locations = 0;
  unsigned senders = 0;
  uint64_t changes = 0;
  double seconds = 0;
  uint64_t batches = 0;
  double fsync_mean_ms = 0;
  std::string error;
};

/// `senders` threads, each with its own actor, each sending a change and waiting for its sync
/// before the next one (a controller acknowledging one submission at a time per client), for
/// `seconds`.
keeper_run run_keeper(caf::actor_system& sys, metrics::registry& meters, const journal_options& opt,
                      size_t locations, unsigned senders, const std::string& dir) {
  keeper_run r;
  r.locations = locations;
  r.senders = senders;
  actors::state_keeper_settings settings;
  for (size_t i = 0; i < locations; ++i)
    settings.locations.push_back(dir + "/location" + std::to_string(i));
  settings.meters = &meters;
  auto keeper = actors::spawn_state_keeper(sys, settings, {});
  {
    // The first generation is written before the clock starts.
    caf::scoped_actor self{sys};
    self->request(keeper, std::chrono::seconds{60}, msg::sync_atom_v)
        .receive([](caf::ok_atom) {}, [&](caf::error& err) { r.error = describe(err); });
  }
  auto value = state::make_value(std::string(opt.value_bytes, 'v'));
  std::atomic<uint64_t> done{0};
  std::atomic<bool> stop{false};
  std::string first_error;
  std::mutex error_mtx;
  auto start = clock_type::now();
  std::vector<std::thread> threads;
  for (unsigned s = 0; s < senders; ++s) {
    threads.emplace_back([&, s] {
      caf::scoped_actor self{sys};
      for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        self->send(keeper, msg::persist_atom_v,
                   "job/" + std::to_string(s) + "." + std::to_string(i), value);
        bool ok = false;
        self->request(keeper, std::chrono::seconds{60}, msg::sync_atom_v)
            .receive([&](caf::ok_atom) { ok = true; },
                     [&](caf::error& err) {
                       std::lock_guard<std::mutex> guard{error_mtx};
                       if (first_error.empty()) first_error = describe(err);
                     });
        if (!ok) return;
        done.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(opt.seconds_per_run));
  stop = true;
  for (auto& t : threads) t.join();
  r.seconds = seconds_since(start);
  r.changes = done.load();
  if (r.error.empty()) r.error = first_error;
  r.batches = meters.counter_of("shoal_state_batches_total", "").value();
  auto fsync = meters.histogram_of("shoal_state_fsync_seconds", "").read();
  r.fsync_mean_ms = fsync.count > 0 ? 1000.0 * fsync.sum / static_cast<double>(fsync.count) : 0;
  caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
  return r;
}

void print_keeper_run(const keeper_run& r, double none_rate) {
  double rate = r.seconds > 0 ? static_cast<double>(r.changes) / r.seconds : 0;
  std::printf("journal     %-11s %2u sender%s  %8.0f changes/s",
              r.locations == 0 ? "no location" : (r.locations == 1 ? "1 location" : "2 locations"),
              r.senders, r.senders == 1 ? " " : "s", rate);
  if (r.locations > 0) {
    std::printf(
        "  (%.1f%% of no location)  %llu batches, %.1f changes each, fdatasync round "
        "%.2f ms",
        none_rate > 0 ? 100.0 * rate / none_rate : 0.0, static_cast<unsigned long long>(r.batches),
        r.batches > 0 ? static_cast<double>(r.changes) / static_cast<double>(r.batches) : 0.0,
        r.fsync_mean_ms);
  }
  std::printf("\n");
  if (!r.error.empty()) std::printf("            FAILED: %s\n", r.error.c_str());
  std::fflush(stdout);
}

struct load_run {
  size_t snapshot_records = 0;
  size_t journal_records = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  std::string error;
};

load_run time_load(const std::string& dir, size_t expected_records) {
  load_run r;
  auto start = clock_type::now();
  auto loaded = state::load({dir});
  r.seconds = seconds_since(start);
  if (!loaded) {
    r.error = describe(loaded.error());
    return r;
  }
  r.snapshot_records = loaded->snapshot_records;
  r.journal_records = loaded->journal_records;
  r.bytes = loaded->bytes_read;
  if (loaded->records.size() != expected_records)
    r.error = "loaded " + std::to_string(loaded->records.size()) + " records, expected " +
              std::to_string(expected_records);
  return r;
}

void print_load(const load_run& r, const char* what) {
  std::printf(
      "load        %-28s %7zu snapshot + %7zu journal records, %6.1f MiB read: %7.3f s "
      "(%.0f records/s)\n",
      what, r.snapshot_records, r.journal_records, static_cast<double>(r.bytes) / (1 << 20),
      r.seconds,
      r.seconds > 0 ? static_cast<double>(r.snapshot_records + r.journal_records) / r.seconds
                    : 0.0);
  if (!r.error.empty()) std::printf("            FAILED: %s\n", r.error.c_str());
  std::fflush(stdout);
}

/// load() of `opt.load_records` records from a snapshot, then with as many journal changes
/// (each a new key, in batches of 100) after it.
bool measure_load(const journal_options& opt, const std::string& dir) {
  state::record_map records;
  for (size_t i = 0; i < opt.load_records; ++i)
    records["job/" + std::to_string(i)] = state::make_value(std::string(opt.value_bytes, 'j'));
  auto write_start = clock_type::now();
  auto st = state::store::open({dir}, records);
  if (!st) {
    std::printf("load        FAILED: %s\n", describe(st.error()).c_str());
    return false;
  }
  std::printf("load        (writing the snapshot of %zu records took %.3f s)\n", records.size(),
              seconds_since(write_start));
  auto only = time_load(dir, records.size());
  print_load(only, "snapshot only:");
  std::vector<state::change> batch;
  auto value = state::make_value(std::string(opt.value_bytes, 'k'));
  for (size_t i = 0; i < opt.load_records; ++i) {
    batch.push_back({"job/" + std::to_string(opt.load_records + i), value});
    if (batch.size() == 100 || i + 1 == opt.load_records) {
      if (auto err = st->append(batch)) {
        std::printf("load        FAILED: %s\n", describe(err).c_str());
        return false;
      }
      batch.clear();
    }
  }
  auto both = time_load(dir, 2 * opt.load_records);
  print_load(both, "snapshot + journal:");
  return only.error.empty() && both.error.empty();
}

/// "ext4 on /dev/vda": the mount holding `dir` (the longest mount path that prefixes it).
std::string filesystem_of(const std::string& dir) {
  std::FILE* f = std::fopen("/proc/self/mounts", "r");
  if (f == nullptr) return "?";
  char dev[512], path[512], type[128];
  std::string best_type = "?";
  size_t best_len = 0;
  while (std::fscanf(f, "%511s %511s %127s %*[^\n]", dev, path, type) == 3) {
    std::string p = path;
    if (dir.compare(0, p.size(), p) == 0 && p.size() >= best_len) {
      best_len = p.size();
      best_type = std::string{type} + " on " + dev;
    }
  }
  std::fclose(f);
  return best_type;
}

}  // namespace

bool run_journal_bench(const journal_options& opt) {
  std::printf("# journal: state directories in %s (%s); values of %zu bytes\n", opt.dir.c_str(),
              filesystem_of(opt.dir).c_str(), opt.value_bytes);
  bool valid = true;
  {
    // One registry per run, alive until the actor system is gone: a keeper meters itself until
    // it has terminated, after the run returned.
    std::vector<std::unique_ptr<metrics::registry>> meters;
    caf::actor_system_config cfg;
    runtime::configure_actor_system(cfg, 2);
    caf::actor_system sys{cfg};
    int round = 0;
    for (auto senders : opt.senders) {
      // No location first: the ceiling the others are compared with.
      double none_rate = 0;
      for (size_t locations : {size_t{0}, size_t{1}, size_t{2}}) {
        auto dir = opt.dir + "/keeper" + std::to_string(round++);
        std::filesystem::create_directories(dir);
        meters.push_back(std::make_unique<metrics::registry>());
        auto r = run_keeper(sys, *meters.back(), opt, locations, senders, dir);
        if (locations == 0) none_rate = static_cast<double>(r.changes) / r.seconds;
        print_keeper_run(r, none_rate);
        valid = valid && r.error.empty() && r.changes > 0;
        std::filesystem::remove_all(dir);
      }
    }
  }
  auto dir = opt.dir + "/load";
  valid = measure_load(opt, dir) && valid;
  std::filesystem::remove_all(dir);
  return valid;
}

}  // namespace shoal::bench

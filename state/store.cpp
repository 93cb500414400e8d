#include "state/store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include "messages/errc.hpp"
#include "state/format.hpp"
#include "state/frame.hpp"

namespace shoal::state {
namespace {

/// Records per snapshot chunk are cut at about this many bytes of keys and values.
constexpr size_t chunk_bytes = 1 << 20;
/// Encoded snapshot bytes are written out in pieces of about this size.
constexpr size_t write_bytes = 4 << 20;
/// A journal is written ahead with this many zero bytes past its last batch, as databases lay
/// out their write-ahead logs: a batch then lands in blocks the file already has, so its
/// fdatasync flushes data only, without committing the file system's journal for a new size
/// (on ext4 about a third less time per batch; docs/benchmarks.md). A reader takes zeros at a
/// frame boundary for the end (state/frame.hpp).
constexpr size_t journal_room = 1 << 20;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string combine(const std::vector<std::string>& texts) {
  std::string s;
  for (auto& t : texts) s += (s.empty() ? "" : "; ") + t;
  return s;
}

/// One location's snapshot.N.tmp while it is written.
struct snapshot_target {
  size_t index;
  std::string temp;
  std::string final_path;
  file_handle fd;
  shoal::error error;
};

}  // namespace

shoal::expected<store> store::open(std::vector<std::string> locations, const record_map& current) {
  if (locations.empty()) return shoal::error(errc::invalid_request, "no state save location given");
  store s;
  s.ids_.seed(std::random_device{}());
  s.dirs_ = locations;
  uint64_t newest = 0;
  for (auto& dir : locations) {
    s.locations_.push_back(location{dir, {}, 0, false, false});
    // Listing only picks the generation number; a location that cannot be listed fails in
    // write_generation below, with the reason.
    if (make_directories(dir)) continue;
    if (auto listing = list_directory(dir)) newest = std::max(newest, listing->newest());
  }
  if (auto err = s.write_generation(newest + 1, current, 0)) return err;
  return s;
}

size_t store::working_locations() const {
  size_t n = 0;
  for (auto& loc : locations_) n += loc.up ? 1 : 0;
  return n;
}

std::vector<location_event> store::take_events() {
  std::vector<location_event> out;
  out.swap(events_);
  return out;
}

void store::fail(location& loc, shoal::error err) {
  loc.journal.reset();
  loc.journal_size = 0;
  loc.room_end = 0;
  loc.up = false;
  if (!loc.failure_reported) events_.push_back({loc.dir, std::move(err)});
  loc.failure_reported = true;
}

shoal::error store::append(const std::vector<change>& batch) {
  if (batch.empty()) return {};
  std::vector<uint8_t> frame;
  append_batch(frame, last_sequence_ + 1, batch);
  last_sequence_ += batch.size();
  // Write everywhere first, then fdatasync every location at once (one helper thread per extra
  // location): the batch costs the slowest disk's sync, not the sum of them.
  std::vector<location*> targets;
  std::vector<shoal::error> results;
  for (auto& loc : locations_) {
    if (!loc.up) continue;
    auto path = join(loc.dir, journal_name(generation_));
    targets.push_back(&loc);
    results.push_back(place_batch(loc, frame, path));
  }
  auto sync_one = [&](size_t i) {
    if (results[i]) return;
    if (::fdatasync(targets[i]->journal.get()) != 0)
      results[i] = os_error("fdatasync", join(targets[i]->dir, journal_name(generation_)), errno);
  };
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < targets.size(); ++i) helpers.emplace_back(sync_one, i);
  if (!targets.empty()) sync_one(0);
  for (auto& h : helpers) h.join();
  std::vector<std::string> errors;
  size_t written = 0;
  for (size_t i = 0; i < targets.size(); ++i) {
    auto& loc = *targets[i];
    if (results[i]) {
      // Cut the partial frame off, so that a later reader sees a clean end rather than damage;
      // the location is out until a snapshot rewrites it whole, as a failed fdatasync may have
      // dropped pages it cannot report.
      if (::ftruncate(loc.journal.get(), static_cast<off_t>(loc.journal_size)) == 0)
        (void)::fdatasync(loc.journal.get());
      loc.room_end = loc.journal_size;
      errors.push_back(describe(results[i]));
      fail(loc, std::move(results[i]));
      continue;
    }
    loc.journal_size += frame.size();
    ++written;
  }
  if (written > 0) return {};
  if (errors.empty()) errors.push_back("every state save location failed earlier");
  return shoal::error(errc::system_error,
                      "no state save location took the batch: " + combine(errors));
}

shoal::error store::place_batch(location& loc, const std::vector<uint8_t>& frame,
                                const std::string& path) {
  auto end = loc.journal_size + frame.size();
  if (end <= loc.room_end)
    return write_all_at(loc.journal.get(), frame.data(), frame.size(), loc.journal_size, path);
  // The batch and a new room behind it, in one write.
  std::vector<uint8_t> bytes(frame.size() + journal_room, 0);
  std::copy(frame.begin(), frame.end(), bytes.begin());
  auto err = write_all_at(loc.journal.get(), bytes.data(), bytes.size(), loc.journal_size, path);
  if (!err) loc.room_end = end + journal_room;
  return err;
}

shoal::error store::snapshot(const record_map& all) {
  return write_generation(generation_ + 1, all, snapshot_id_);
}

shoal::error store::write_generation(uint64_t gen, const record_map& all, uint64_t continues_from) {
  uint64_t id = 0;
  while (id == 0) id = ids_();
  std::vector<snapshot_target> targets;
  std::vector<std::string> errors;
  for (size_t i = 0; i < locations_.size(); ++i) {
    auto& dir = locations_[i].dir;
    snapshot_target t{i, join(dir, temp_snapshot_name(gen)), join(dir, snapshot_name(gen)), {}, {}};
    t.error = make_directories(dir);
    if (!t.error) {
      t.fd = file_handle{::open(t.temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
      if (!t.fd) t.error = os_error("open", t.temp, errno);
    }
    targets.push_back(std::move(t));
  }
  // Encode once, write the same bytes to every location as they come.
  std::vector<uint8_t> buffer;
  auto flush = [&] {
    for (auto& t : targets)
      if (!t.error) t.error = write_all(t.fd.get(), buffer.data(), buffer.size(), t.temp);
    buffer.clear();
  };
  append_magic(buffer, snapshot_magic);
  append_snapshot_header(buffer, {gen, id, last_sequence_, all.size(), now_ns()});
  for (auto first = all.begin(); first != all.end();) {
    auto last = first;
    size_t bytes = 0;
    while (last != all.end() && bytes < chunk_bytes) {
      bytes += last->first.size() + (last->second ? last->second->size() : 0);
      ++last;
    }
    append_chunk(buffer, first, last);
    first = last;
    if (buffer.size() >= write_bytes) flush();
  }
  flush();
  size_t placed = 0;
  for (auto& t : targets) {
    if (!t.error && ::fsync(t.fd.get()) != 0) t.error = os_error("fsync", t.temp, errno);
    t.fd.reset();
    if (!t.error && ::rename(t.temp.c_str(), t.final_path.c_str()) != 0)
      t.error = os_error("rename", t.temp, errno);
    if (t.error) {
      ::unlink(t.temp.c_str());
      continue;
    }
    t.error = sync_directory(locations_[t.index].dir);
    ++placed;  // in place even if the directory sync failed: it must not be left behind
  }
  if (placed == 0) {
    // Nothing changed on disk: the locations that were working keep their journals.
    for (auto& t : targets) errors.push_back(describe(t.error));
    for (auto& t : targets)
      if (!locations_[t.index].up) fail(locations_[t.index], std::move(t.error));
    return shoal::error(errc::system_error,
                        "no state save location took the snapshot: " + combine(errors));
  }
  // From here on every location is either on the new generation or out: a location left
  // appending to an older journal would hold changes a reader of the new snapshot never sees.
  std::vector<uint8_t> head;
  append_magic(head, journal_magic);
  append_journal_header(head, {gen, id, continues_from, last_sequence_});
  auto head_size = head.size();
  head.resize(head_size + journal_room, 0);
  size_t working = 0;
  for (auto& t : targets) {
    auto& loc = locations_[t.index];
    auto path = join(loc.dir, journal_name(gen));
    if (!t.error) {
      file_handle fd{::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
      if (!fd) t.error = os_error("open", path, errno);
      if (!t.error) t.error = write_all(fd.get(), head.data(), head.size(), path);
      if (!t.error && ::fdatasync(fd.get()) != 0) t.error = os_error("fdatasync", path, errno);
      if (!t.error) t.error = sync_directory(loc.dir);
      if (!t.error) {
        loc.journal = std::move(fd);
        loc.journal_size = head_size;
        loc.room_end = head.size();
        loc.up = true;
        if (loc.failure_reported) events_.push_back({loc.dir, shoal::error{}});
        loc.failure_reported = false;
        ++working;
        remove_old_generations(loc, gen - 1);
        continue;
      }
    }
    errors.push_back(describe(t.error));
    fail(loc, std::move(t.error));
  }
  generation_ = gen;
  snapshot_id_ = id;
  if (working > 0) return {};
  return shoal::error(errc::system_error,
                      "no state save location took the snapshot: " + combine(errors));
}

void store::remove_old_generations(const location& loc, uint64_t keep_from) {
  auto listing = list_directory(loc.dir);
  if (!listing) return;  // old files only cost space; the next snapshot tries again
  for (auto& [gen, present] : listing->snapshots)
    if (present && gen < keep_from) ::unlink(join(loc.dir, snapshot_name(gen)).c_str());
  for (auto& [gen, present] : listing->journals)
    if (present && gen < keep_from) ::unlink(join(loc.dir, journal_name(gen)).c_str());
  for (auto& name : listing->leftovers) ::unlink(join(loc.dir, name).c_str());
}

}  // namespace shoal::state

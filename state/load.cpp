#include "state/load.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "messages/errc.hpp"
#include "state/file_io.hpp"
#include "state/format.hpp"

namespace shoal::state {
namespace {

using clock_type = std::chrono::steady_clock;

/// One location's copy of snapshot.N, read whole.
struct snapshot_copy {
  std::string path;
  bool valid = false;
  std::string problem;  ///< why it is not valid
  snapshot_header header;
  record_map records;
};

/// One location's copy of journal.N: its header and the changes of its intact batches.
struct journal_copy {
  std::string path;
  bool has_header = false;
  std::string problem;  ///< why it has no usable header
  journal_header header;
  std::vector<sequenced_change> changes;
  damage_kind damage = damage_kind::none;
  std::string damage_text;
  size_t valid_end = 0;
  size_t data_end = 0;  ///< past the last byte that is not zero (the room after it is not data)

  uint64_t reached() const {
    return changes.empty() ? header.base_sequence : changes.back().sequence;
  }
};

/// The files of one generation, in location order.
struct generation_files {
  std::vector<std::string> snapshots;
  std::vector<std::string> journals;
};

std::string text_of(const shoal::error& err) {
  return describe(err);
}

snapshot_copy read_snapshot(const std::string& path, uint64_t generation, uint64_t& bytes_read) {
  snapshot_copy copy;
  copy.path = path;
  auto data = read_file(path);
  if (!data) {
    copy.problem = text_of(data.error());
    return copy;
  }
  bytes_read += data->size();
  auto scan = scan_frames(data->data(), data->size(), snapshot_magic);
  if (scan.damage != damage_kind::none) {
    copy.problem = describe_damage(scan);
    return copy;
  }
  if (scan.frames.empty()) {
    copy.problem = "no header";
    return copy;
  }
  auto header = read_snapshot_header(scan.frames.front());
  if (!header) {
    copy.problem = text_of(header.error());
    return copy;
  }
  if (header->generation != generation) {
    copy.problem = "holds generation " + std::to_string(header->generation);
    return copy;
  }
  uint64_t count = 0;
  for (size_t i = 1; i < scan.frames.size(); ++i) {
    if (auto err = read_chunk(scan.frames[i], copy.records, count)) {
      copy.problem = text_of(err);
      return copy;
    }
  }
  if (count != header->record_count || copy.records.size() != count) {
    copy.problem = "holds " + std::to_string(copy.records.size()) + " of " +
                   std::to_string(header->record_count) + " records";
    return copy;
  }
  copy.header = *header;
  copy.valid = true;
  return copy;
}

journal_copy read_journal(const std::string& path, uint64_t generation, uint64_t& bytes_read) {
  journal_copy copy;
  copy.path = path;
  auto data = read_file(path);
  if (!data) {
    copy.problem = text_of(data.error());
    return copy;
  }
  bytes_read += data->size();
  auto last = std::find_if(data->rbegin(), data->rend(), [](uint8_t b) { return b != 0; });
  copy.data_end = static_cast<size_t>(data->rend() - last);
  auto scan = scan_frames(data->data(), data->size(), journal_magic);
  copy.damage = scan.damage;
  copy.damage_text = scan.damage == damage_kind::none ? "" : describe_damage(scan);
  copy.valid_end = scan.valid_end;
  if (scan.frames.empty()) {
    copy.problem = scan.damage == damage_kind::none ? "empty" : copy.damage_text;
    return copy;
  }
  auto header = read_journal_header(scan.frames.front());
  if (!header) {
    copy.problem = text_of(header.error());
    return copy;
  }
  if (header->generation != generation) {
    copy.problem = "holds generation " + std::to_string(header->generation);
    return copy;
  }
  copy.header = *header;
  copy.has_header = true;
  // A batch that does not decode or does not continue the numbering is damage like a bad
  // checksum: nothing after it can be trusted.
  for (size_t i = 1; i < scan.frames.size(); ++i) {
    const auto& f = scan.frames[i];
    std::vector<sequenced_change> batch;
    auto err = read_batch(f, batch);
    std::string bad;
    if (err)
      bad = text_of(err);
    else
      for (size_t k = 0; k < batch.size() && bad.empty(); ++k)
        if (batch[k].sequence != copy.reached() + 1 + k)
          bad = "change " + std::to_string(batch[k].sequence) + " out of sequence at byte " +
                std::to_string(f.offset);
    if (!bad.empty()) {
      copy.damage = damage_kind::corrupt;
      copy.damage_text = bad;
      copy.valid_end = f.offset;
      break;
    }
    for (auto& c : batch) copy.changes.push_back(std::move(c));
  }
  return copy;
}

shoal::error lost(std::string text) {
  return shoal::error(errc::malformed_message, std::move(text));
}

class loader {
 public:
  explicit loader(const std::vector<std::string>& locations) : locations_(locations) {}

  shoal::expected<loaded_state> run() {
    auto start = clock_type::now();
    if (auto err = gather()) return err;
    if (generations_.empty()) {
      out_.elapsed = clock_type::now() - start;
      return std::move(out_);
    }
    uint64_t top = generations_.rbegin()->first;
    std::vector<std::string> unusable;  // snapshots passed over, for the fallback's warning
    for (auto it = generations_.rbegin(); it != generations_.rend(); ++it) {
      if (it->second.snapshots.empty()) continue;
      auto base = choose_snapshot(it->first, it->second.snapshots);
      if (!base) {
        unusable.push_back(snapshot_name(it->first));
        continue;
      }
      if (it->first != top)
        out_.warnings.push_back("no usable copy of " + join_names(unusable) + "; rebuilt from " +
                                base->path + " and the journals after it");
      if (auto err = replay(*base, top)) return err;
      out_.elapsed = clock_type::now() - start;
      return std::move(out_);
    }
    return lost("no usable snapshot in " + join_names(locations_) + ": " +
                (failures_.empty() ? "none found" : join_names(failures_)));
  }

 private:
  static std::string join_names(const std::vector<std::string>& names) {
    std::string s;
    for (auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  /// Lists every location; files by generation.
  shoal::error gather() {
    size_t unreadable = 0;
    std::vector<std::pair<std::string, uint64_t>> newest;
    for (auto& dir : locations_) {
      auto listing = list_directory(dir);
      if (!listing) {
        out_.warnings.push_back(dir + ": " + text_of(listing.error()));
        ++unreadable;
        continue;
      }
      newest.emplace_back(dir, listing->newest());
      for (auto& [gen, present] : listing->snapshots)
        if (present) generations_[gen].snapshots.push_back(join(dir, snapshot_name(gen)));
      for (auto& [gen, present] : listing->journals)
        if (present) generations_[gen].journals.push_back(join(dir, journal_name(gen)));
    }
    if (!locations_.empty() && unreadable == locations_.size())
      return shoal::error(errc::system_error,
                          "no state save location could be read: " + join_names(out_.warnings));
    uint64_t top = generations_.empty() ? 0 : generations_.rbegin()->first;
    for (auto& [dir, gen] : newest)
      if (gen == 0 && top > 0)
        out_.warnings.push_back(dir + ": holds no saved state; using the other location's");
    return {};
  }

  /// The valid copy of snapshot `gen` to use, if any; warnings for the others.
  std::optional<snapshot_copy> choose_snapshot(uint64_t gen,
                                               const std::vector<std::string>& paths) {
    std::vector<snapshot_copy> copies;
    for (auto& p : paths) copies.push_back(read_snapshot(p, gen, out_.bytes_read));
    snapshot_copy* best = nullptr;
    for (auto& c : copies)
      if (c.valid && (best == nullptr || c.header.written_at_ns > best->header.written_at_ns))
        best = &c;
    for (auto& c : copies) {
      if (&c == best) continue;
      if (!c.valid && best != nullptr)
        out_.warnings.push_back(c.path + ": " + c.problem + "; using " + best->path);
      else if (!c.valid)
        failures_.push_back(c.path + ": " + c.problem);
      else if (c.header.snapshot_id != best->header.snapshot_id)
        out_.warnings.push_back(c.path + ": another history of generation " + std::to_string(gen) +
                                ", written earlier; using " + best->path);
    }
    if (best == nullptr) {
      for (auto& c : copies) out_.warnings.push_back(c.path + ": " + c.problem);
      return std::nullopt;
    }
    return std::move(*best);
  }

  /// One journal's changes that the chain uses.
  struct segment {
    std::vector<sequenced_change>* changes;
    uint64_t base;
  };

  /// Applies snapshot `base` and the journals of its generation up to `top`.
  shoal::error replay(snapshot_copy& base, uint64_t top) {
    uint64_t gen = base.header.generation;
    uint64_t prev_id = base.header.snapshot_id;
    uint64_t prev_base = base.header.last_sequence;
    uint64_t reached = base.header.last_sequence;
    std::vector<segment> segments;
    for (uint64_t j = gen; j <= top; ++j) {
      auto& copies = journals_[j];
      auto files = generations_.find(j);
      if (files != generations_.end())
        for (auto& p : files->second.journals)
          copies.push_back(read_journal(p, j, out_.bytes_read));
      // The copies that continue the chain: journal `gen` follows the base snapshot itself;
      // a later one must say it continues the snapshot before it, from a change we reached.
      std::vector<journal_copy*> matching;
      for (auto& c : copies) {
        bool fits =
            c.has_header &&
            (j == gen ? c.header.snapshot_id == prev_id && c.header.base_sequence == reached
                      : c.header.continues_from == prev_id && c.header.base_sequence >= prev_base &&
                            c.header.base_sequence <= reached);
        if (fits)
          matching.push_back(&c);
        else
          out_.warnings.push_back(
              c.path + ": " +
              (c.has_header ? "does not continue " + base.path + " and the journals after it"
                            : c.problem) +
              "; ignored");
      }
      if (matching.empty()) {
        if (j == gen) continue;  // a crash before the journal was created: no changes after it
        // Nothing of generation j but journals without a header: no snapshot was ever in place
        // for them, so they hold nothing that was written.
        bool holds_nothing = files == generations_.end() || files->second.snapshots.empty();
        for (auto& c : copies) holds_nothing = holds_nothing && !c.has_header;
        if (holds_nothing) continue;
        return lost("generation " + std::to_string(j) + ": no usable snapshot, and no journal." +
                    std::to_string(j) + " continues " +
                    (j - 1 == gen ? base.path : journal_name(j - 1)) +
                    "; the changes it held are lost");
      }
      journal_copy* best = matching.front();
      for (auto* c : matching)
        if (c->reached() > best->reached()) best = c;
      if (auto err = judge_copies(matching, *best)) return err;
      segments.push_back({&best->changes, best->header.base_sequence});
      prev_id = best->header.snapshot_id;
      prev_base = best->header.base_sequence;
      reached = best->reached();
    }
    out_.records = std::move(base.records);
    out_.generation = gen;
    out_.snapshot_records = out_.records.size();
    for (size_t i = 0; i < segments.size(); ++i) {
      uint64_t cap =
          i + 1 < segments.size() ? segments[i + 1].base : std::numeric_limits<uint64_t>::max();
      for (auto& c : *segments[i].changes) {
        if (c.sequence > cap) break;
        apply(out_.records, std::move(c.what));
        ++out_.journal_records;
      }
    }
    out_.last_sequence = reached;
    return {};
  }

  /// Warnings for the copies of one journal not used, or an error when changes that reached disk
  /// are in no usable copy.
  shoal::error judge_copies(const std::vector<journal_copy*>& copies, const journal_copy& best) {
    for (auto* c : copies) {
      // Copies of one journal are written with the same bytes, so a copy with data past the
      // best one's intact part held changes that no copy can give back.
      if (c->damage == damage_kind::corrupt && c->data_end > best.valid_end)
        return lost(c->path + ": " + c->damage_text + ", and no other copy holds what follows");
      if (c == &best) continue;
      if (c->damage != damage_kind::none)
        out_.warnings.push_back(c->path + ": " + c->damage_text + "; using " + best.path);
      else if (c->reached() < best.reached())
        out_.warnings.push_back(c->path + ": ends at change " + std::to_string(c->reached()) +
                                ", " + best.path + " at " + std::to_string(best.reached()) +
                                "; using " + best.path);
    }
    if (best.damage == damage_kind::torn)
      out_.warnings.push_back(best.path + ": torn last batch dropped (" + best.damage_text +
                              "); the changes before it are kept");
    return {};
  }

  const std::vector<std::string>& locations_;
  std::map<uint64_t, generation_files> generations_;
  std::map<uint64_t, std::vector<journal_copy>> journals_;
  std::vector<std::string> failures_;
  loaded_state out_;
};

}  // namespace

shoal::expected<loaded_state> load(const std::vector<std::string>& locations) {
  return loader{locations}.run();
}

}  // namespace shoal::state

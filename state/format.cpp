#include "state/format.hpp"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cstring>
#include <memory>

#include "messages/errc.hpp"
#include "state/state.capnp.h"

namespace shoal::state {
namespace {

void append_message(std::vector<uint8_t>& out, frame_kind kind,
                    capnp::MallocMessageBuilder& builder) {
  auto words = capnp::messageToFlatArray(builder);
  auto bytes = words.asBytes();
  append_frame(out, kind, bytes.begin(), bytes.size());
}

/// A reader over a frame's payload: in place when it is word-aligned (always, for files read
/// whole into a vector), from an aligned copy otherwise. The traversal limit follows the
/// payload's size (a batch or chunk may exceed Cap'n Proto's 64 MiB default); the frame's
/// checksum already vouches for the bytes.
class frame_reader {
 public:
  explicit frame_reader(const frame_view& f) {
    const uint8_t* p = f.payload;
    size_t words = f.size / sizeof(capnp::word);
    if (reinterpret_cast<uintptr_t>(p) % alignof(capnp::word) != 0) {
      copy_ = kj::heapArray<capnp::word>(words);
      std::memcpy(copy_.begin(), p, words * sizeof(capnp::word));
      p = reinterpret_cast<const uint8_t*>(copy_.begin());
    }
    capnp::ReaderOptions options;
    options.traversalLimitInWords = words * 2 + 1024;
    reader_ = std::make_unique<capnp::FlatArrayMessageReader>(
        kj::ArrayPtr<const capnp::word>(reinterpret_cast<const capnp::word*>(p), words), options);
  }

  template <class T>
  typename T::Reader root() {
    return reader_->getRoot<T>();
  }

 private:
  kj::Array<capnp::word> copy_;
  std::unique_ptr<capnp::FlatArrayMessageReader> reader_;
};

shoal::error wrong_kind(const frame_view& f, const char* what) {
  return shoal::error(errc::malformed_message, std::string{"expected a "} + what +
                                                   " frame at byte " + std::to_string(f.offset));
}

shoal::error undecodable(const frame_view& f, const kj::Exception& e) {
  return shoal::error(
      errc::malformed_message,
      "undecodable frame at byte " + std::to_string(f.offset) + ": " + e.getDescription().cStr());
}

shoal::error wrong_format(uint32_t format) {
  return shoal::error(errc::incompatible_version, "state file format " + std::to_string(format) +
                                                      ", this build reads " +
                                                      std::to_string(capnp_state::FORMAT_VERSION));
}

}  // namespace

void append_journal_header(std::vector<uint8_t>& out, const journal_header& h) {
  capnp::MallocMessageBuilder builder;
  auto m = builder.initRoot<capnp_state::JournalHeader>();
  m.setFormat(capnp_state::FORMAT_VERSION);
  m.setGeneration(h.generation);
  m.setSnapshotId(h.snapshot_id);
  m.setContinuesFrom(h.continues_from);
  m.setBaseSequence(h.base_sequence);
  append_message(out, frame_kind::journal_header, builder);
}

void append_batch(std::vector<uint8_t>& out, uint64_t first_sequence,
                  const std::vector<change>& batch) {
  capnp::MallocMessageBuilder builder;
  auto records = builder.initRoot<capnp_state::JournalBatch>().initRecords(
      static_cast<unsigned>(batch.size()));
  for (size_t i = 0; i < batch.size(); ++i) {
    auto r = records[static_cast<unsigned>(i)];
    r.setSequence(first_sequence + i);
    r.setKey(kj::StringPtr{batch[i].key.c_str(), batch[i].key.size()});
    if (batch[i].value) {
      auto& v = *batch[i].value;
      r.setValue(kj::ArrayPtr<const kj::byte>(v.data(), v.size()));
    } else {
      r.setErase(true);
    }
  }
  append_message(out, frame_kind::journal_batch, builder);
}

void append_snapshot_header(std::vector<uint8_t>& out, const snapshot_header& h) {
  capnp::MallocMessageBuilder builder;
  auto m = builder.initRoot<capnp_state::SnapshotHeader>();
  m.setFormat(capnp_state::FORMAT_VERSION);
  m.setGeneration(h.generation);
  m.setSnapshotId(h.snapshot_id);
  m.setLastSequence(h.last_sequence);
  m.setRecordCount(h.record_count);
  m.setWrittenAtNs(h.written_at_ns);
  append_message(out, frame_kind::snapshot_header, builder);
}

void append_chunk(std::vector<uint8_t>& out, record_map::const_iterator first,
                  record_map::const_iterator last) {
  capnp::MallocMessageBuilder builder;
  auto records = builder.initRoot<capnp_state::SnapshotChunk>().initRecords(
      static_cast<unsigned>(std::distance(first, last)));
  unsigned i = 0;
  for (auto it = first; it != last; ++it, ++i) {
    auto r = records[i];
    r.setKey(kj::StringPtr{it->first.c_str(), it->first.size()});
    if (it->second)
      r.setValue(kj::ArrayPtr<const kj::byte>(it->second->data(), it->second->size()));
  }
  append_message(out, frame_kind::snapshot_chunk, builder);
}

shoal::expected<journal_header> read_journal_header(const frame_view& f) {
  if (f.kind != frame_kind::journal_header) return wrong_kind(f, "journal header");
  try {
    frame_reader reader{f};
    auto m = reader.root<capnp_state::JournalHeader>();
    if (m.getFormat() != capnp_state::FORMAT_VERSION) return wrong_format(m.getFormat());
    return journal_header{m.getGeneration(), m.getSnapshotId(), m.getContinuesFrom(),
                          m.getBaseSequence()};
  } catch (const kj::Exception& e) {
    return undecodable(f, e);
  }
}

shoal::error read_batch(const frame_view& f, std::vector<sequenced_change>& out) {
  if (f.kind != frame_kind::journal_batch) return wrong_kind(f, "journal batch");
  try {
    frame_reader reader{f};
    for (auto r : reader.root<capnp_state::JournalBatch>().getRecords()) {
      sequenced_change c;
      c.sequence = r.getSequence();
      auto key = r.getKey();
      c.what.key.assign(key.begin(), key.size());
      if (!r.getErase()) {
        auto v = r.getValue();
        c.what.value = make_value(v.begin(), v.size());
      }
      out.push_back(std::move(c));
    }
    return {};
  } catch (const kj::Exception& e) {
    return undecodable(f, e);
  }
}

shoal::expected<snapshot_header> read_snapshot_header(const frame_view& f) {
  if (f.kind != frame_kind::snapshot_header) return wrong_kind(f, "snapshot header");
  try {
    frame_reader reader{f};
    auto m = reader.root<capnp_state::SnapshotHeader>();
    if (m.getFormat() != capnp_state::FORMAT_VERSION) return wrong_format(m.getFormat());
    return snapshot_header{m.getGeneration(), m.getSnapshotId(), m.getLastSequence(),
                           m.getRecordCount(), m.getWrittenAtNs()};
  } catch (const kj::Exception& e) {
    return undecodable(f, e);
  }
}

shoal::error read_chunk(const frame_view& f, record_map& out, uint64_t& count) {
  if (f.kind != frame_kind::snapshot_chunk) return wrong_kind(f, "snapshot chunk");
  try {
    frame_reader reader{f};
    for (auto r : reader.root<capnp_state::SnapshotChunk>().getRecords()) {
      auto key = r.getKey();
      auto v = r.getValue();
      out.emplace_hint(out.end(), std::string{key.begin(), key.size()},
                       make_value(v.begin(), v.size()));
      ++count;
    }
    return {};
  } catch (const kj::Exception& e) {
    return undecodable(f, e);
  }
}

}  // namespace shoal::state

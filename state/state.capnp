@0x857a10ae5409e684;
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("shoal::capnp_state");
# The files of the saved state (state/store.hpp). Each message travels in a frame of its own
# (state/frame.hpp): [length][checksum of the bytes][kind][checksum of the frame header][bytes].
# Never renumber an ordinal; add fields at the end and raise formatVersion only for a change an
# older reader must refuse.

const formatVersion :UInt32 = 1;
# The file layout version this build writes and reads.

struct JournalHeader {
  # The first frame of journal.N: which snapshot it follows.
  format @0 :UInt32;
  # formatVersion of the writer.
  generation @1 :UInt64;
  # N: the generation of the snapshot this journal follows.
  snapshotId @2 :UInt64;
  # The random id of snapshot.N (a journal belongs to one snapshot, not just to its number).
  continuesFrom @3 :UInt64;
  # The id of snapshot N-1 when snapshot N was written from snapshot N-1 plus journal N-1 (a
  # periodic snapshot), so a reader may rebuild snapshot N from them; 0 when snapshot N was the
  # first of a store (the caller's state, which may differ from what was on disk).
  baseSequence @4 :UInt64;
  # The sequence number of the last change snapshot N holds; the first record here is one more.
}

struct JournalRecord {
  # One change: an upsert of `key` to `value`, or its erasure.
  sequence @0 :UInt64;
  # Consecutive over the records of a store, from baseSequence + 1.
  key @1 :Text;
  value @2 :Data;
  # The new value (opaque bytes); empty when erase is set.
  erase @3 :Bool;
  # True: the key is removed.
}

struct JournalBatch {
  # One group commit: written with one write and made durable with one fdatasync, so a torn frame
  # only ever holds a batch no caller was told is durable.
  records @0 :List(JournalRecord);
}

struct SnapshotHeader {
  # The first frame of snapshot.N.
  format @0 :UInt32;
  # formatVersion of the writer.
  generation @1 :UInt64;
  # N.
  snapshotId @2 :UInt64;
  # Random, non-zero: ties journal.N to this very snapshot.
  lastSequence @3 :UInt64;
  # The sequence number of the last change this snapshot holds.
  recordCount @4 :UInt64;
  # How many records the chunks after this header hold in all (a truncated file shows here).
  writtenAtNs @5 :Int64;
  # Wall-clock time of writing, in ns since the epoch: when two histories ever share a
  # generation number (locations used apart), the newer one wins.
}

struct SnapshotRecord {
  key @0 :Text;
  value @1 :Data;
}

struct SnapshotChunk {
  # Consecutive records in key order, about a mebibyte at a time.
  records @0 :List(SnapshotRecord);
}

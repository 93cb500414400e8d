#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "policy/licenses.hpp"
#include "policy/resources.hpp"

namespace shoal::policy {

/// A time so far ahead that it stands for "unlimited" (no time limit, no end).
constexpr int64_t forever = std::numeric_limits<int64_t>::max() / 4;

/// `now + seconds`, saturating at `forever`.
inline int64_t later(int64_t now, int64_t seconds) {
  return seconds >= forever - now ? forever : now + seconds;
}

/// A job that holds resources until `end` (seconds; its start plus time limit).
struct running_job {
  uint64_t id = 0;
  allocation alloc;
  int64_t end = forever;
  license_list licenses;  ///< -L: held until `end` (empty: none)
  /// Preemption (pass_config::preempt): its partition (index; SIZE_MAX: none known, never
  /// preempted), its priority and start, and the job it is being preempted for (0: none).
  size_t partition = SIZE_MAX;
  int64_t priority = 0;
  int64_t start = 0;
  uint64_t preempted_for = 0;
  uint32_t qos = 0;  ///< preempt/qos: its QOS (pending_job::qos); 0: none known
  /// PreemptMode=SUSPEND: a job suspended for a preemptor holds only `alloc` (its memory where
  /// it asked for some, and its devices) and lends `lent` (its CPUs, and the memory it was given
  /// as a whole node's), which it takes back when they are free for the `remaining` seconds of
  /// its time limit (forever: none). Empty: not lent. A lent job's `end` is forever.
  allocation lent{};
  int64_t remaining = forever;
};

/// Free CPUs and memory of every node over future time: Slurm's backfill "node space map". Slot
/// i holds what is free during [start(i), start(i+1)); the last slot lasts forever. Running jobs
/// release their resources at their end; jobs started now and reservations consume resources
/// over [from, to).
///
/// What keeps the tests cheap: free resources only rise over time except where a reservation
/// begins, so the least free over a window [t, t+L) is found at t and at the reservation starts
/// ("dips") inside it, not at every slot. Slots are built lazily, only as far into the future
/// as a question reaches: memory and time are O(slots used x nodes). Slot boundaries are rounded
/// up to `resolution` seconds (bf_resolution) to bound the slot count.
///
/// Generic resources (node_capacity::gres) are counted per node and kind like memory.
/// CPUs are counted in units of 1/units_per_cpu CPU (see free_view). With `sharing`
/// (OverSubscribe somewhere), each slot also keeps the units held by sharing jobs and by the
/// others, so that a node holds one kind at a time; without it, it costs nothing.
class availability_profile {
 public:
  /// Builds the profile at `now`. Jobs past their end are taken to end at the next resolution
  /// step. Unusable nodes have nothing free, ever. Keeps pointers into `running`, which must
  /// outlive the profile.
  availability_profile(const std::vector<node_capacity>& nodes,
                       const std::vector<running_job>& running, int64_t now, int64_t resolution = 1,
                       uint32_t units_per_cpu = 1, bool sharing = false);

  // -- observers --

  /// Whether slot i exists (building it if needed); false past the last change.
  bool has_slot(size_t i);
  int64_t slot_start(size_t i) const { return slots_[i].start; }
  /// What is free in slot i.
  free_view slot(size_t i) const {
    const auto& s = slots_[i];
    return {s.cpus,
            s.memory_mb,
            units_per_cpu_,
            sharing_ ? &s.shared : nullptr,
            sharing_ ? &s.sole : nullptr,
            kinds_ > 0 ? &s.gres : nullptr,
            kinds_};
  }
  uint32_t units_per_cpu() const { return units_per_cpu_; }
  /// Whether some reservation begins in (slot_start(i), to).
  bool dips_within(size_t i, int64_t to) const;
  /// Upper bounds of the CPU units free and of the idle nodes, cluster-wide, over all of
  /// [slot_start(i), to): a job needing more cannot fit there, so a search for its start can
  /// skip the slot without looking at any node. O(dips in the window).
  struct bounds {
    uint64_t free_units;
    uint32_t idle_nodes;
  };
  bounds window_bounds(size_t i, int64_t to) const;
  /// Scratch vectors (indexed by node) that window_min fills.
  struct window {
    std::vector<uint32_t> cpus;
    std::vector<uint64_t> memory_mb;
    std::vector<uint32_t> shared;  ///< the most held by sharing jobs
    std::vector<uint32_t> sole;    ///< the most held by the others
    std::vector<uint32_t> gres;    ///< the fewest free devices per node and kind
  };
  /// For each of `nodes`: the least free CPUs, memory and devices over [slot_start(i), to) (and,
  /// with sharing, the most held by each kind), written into `out` (other entries untouched).
  /// Returns a view of `out`; `out` must have an entry per node.
  free_view window_min(size_t i, int64_t to, const std::vector<size_t>& nodes, window& out) const;
  /// Rounds a time up to the resolution (relative to now).
  int64_t round_up(int64_t t) const;

  // -- modifiers --

  /// Takes `alloc` out of every slot in [from, to) (`from` at least now). With `reservation`,
  /// `from` becomes a dip. Precondition: the allocation fits there (what `place` returned).
  void consume(int64_t from, int64_t to, const allocation& alloc, bool reservation);

 private:
  struct slot_data {
    int64_t start;
    std::vector<uint32_t> cpus;
    std::vector<uint64_t> memory_mb;
    std::vector<uint32_t> shared;  ///< with sharing_: units held by sharing jobs
    std::vector<uint32_t> sole;    ///< with sharing_: units held by the others
    uint64_t free_units = 0;       ///< the sum of `cpus`
    uint32_t idle_nodes = 0;       ///< usable nodes with all their CPUs and memory free
    std::vector<uint32_t> gres;    ///< free devices, node * kinds_ + kind (empty: no kinds)
  };

  /// Takes `alloc` out of slot `s` (give = false) or gives it back.
  void apply(slot_data& s, const allocation& alloc, bool give) const;

  /// The index of the slot starting exactly at `t`, splitting the slot containing it if needed.
  size_t split_at(int64_t t);
  /// When the next slot after the built ones begins (forever when nothing changes any more).
  int64_t next_change() const;
  /// Builds the next slot; false when nothing changes any more.
  bool build_next();
  /// The index of the slot containing `t`.
  size_t slot_of(int64_t t) const;

  std::vector<slot_data> slots_;  ///< built so far; the last lasts until next_change()
  std::vector<uint32_t> cap_cpus_;
  std::vector<uint64_t> cap_memory_;
  uint32_t kinds_ = 0;  ///< generic resource kinds (free_view::gres_kinds)
  std::vector<uint32_t> cap_gres_;
  /// Running jobs' releases by rounded end; those before next_release_ are built in.
  std::vector<std::pair<int64_t, const allocation*>> releases_;
  size_t next_release_ = 0;
  /// Releases of consumptions that end beyond the built slots, by time.
  std::vector<std::pair<int64_t, allocation>> later_releases_;
  /// Reservation starts, ascending, and the nodes the reservations starting there hold: only
  /// those can have less free at a dip than before it, so window_min visits only them.
  struct dip {
    int64_t at;
    size_t slot;  ///< the slot starting at `at` (kept current as slots are inserted)
    std::vector<size_t> nodes;
  };
  std::vector<dip> dips_;
  /// The first dip after time `t`.
  std::vector<dip>::const_iterator first_dip_after(int64_t t) const;
  int64_t now_;
  int64_t resolution_;
  uint32_t units_per_cpu_;
  bool sharing_;
};

}  // namespace shoal::policy

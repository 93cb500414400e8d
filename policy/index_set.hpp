#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shoal::policy {

/// An arithmetic run of array task indices: first, first+step, ..., last.
/// Invariant: first <= last, step >= 1, (last - first) % step == 0.
struct index_range {
  uint32_t first = 0;
  uint32_t last = 0;
  uint32_t step = 1;

  uint64_t count() const { return (uint64_t{last} - first) / step + 1; }
  bool contains(uint32_t i) const { return i >= first && i <= last && (i - first) % step == 0; }
  friend bool operator==(const index_range& a, const index_range& b) {
    return a.first == b.first && a.last == b.last && a.step == b.step;
  }
};

/// The set of task indices of a job array, kept as sorted runs whose spans do not overlap, so
/// memory is O(runs), not O(tasks): `1-100000` is one 12-byte run however many tasks it holds.
/// Pending tasks are taken from the front as they start; cancels cut runs in two at most.
class index_set {
 public:
  index_set() = default;

  // -- modifiers --

  /// Adds every index of `r`. Runs that overlap existing ones are re-folded (cost O(span) of the
  /// overlapping runs, bounded by the array size); disjoint runs cost O(runs).
  void insert(index_range r);

  /// Removes and returns the smallest index, or nullopt when empty. O(1) amortised.
  std::optional<uint32_t> take_first();

  /// Removes every index in [lo, hi]; returns how many were removed. O(runs).
  uint64_t erase(uint32_t lo, uint32_t hi);

  /// Removes `i`; returns whether it was present.
  bool erase(uint32_t i) { return erase(i, i) == 1; }

  // -- observers --

  bool empty() const { return count_ == 0; }
  uint64_t count() const { return count_; }
  bool contains(uint32_t i) const;
  /// Smallest and largest index; precondition: not empty.
  uint32_t min() const { return runs_[head_].first; }
  uint32_t max() const { return runs_.back().last; }
  /// The runs, ascending; for rendering and tests.
  std::vector<index_range> runs() const { return {runs_.begin() + head_, runs_.end()}; }
  size_t run_count() const { return runs_.size() - head_; }
  /// Bytes held on the heap (capacity of the run vector): the cost of a pending array.
  size_t heap_bytes() const { return runs_.capacity() * sizeof(index_range); }

  /// Slurm's folded text without brackets: `1,3,5-7`, `1-99:2`; "" when empty. Two-element
  /// stepped runs print as a list (`1,3`). `--array` parses the text back to the same set.
  std::string to_string() const;

  friend bool operator==(const index_set& a, const index_set& b) { return a.runs() == b.runs(); }

 private:
  void compact();
  /// Joins step-1 runs and single indices that touch, so the form is canonical.
  void merge_neighbours();

  std::vector<index_range> runs_;
  size_t head_ = 0;  ///< runs before head_ are used up (taken from the front)
  uint64_t count_ = 0;
};

/// Folds ascending, distinct indices into runs: consecutive indices form step-1 runs, and three or
/// more at a constant larger step form a stepped run unless that would split a consecutive run.
std::vector<index_range> fold_indices(const std::vector<uint32_t>& sorted);

}  // namespace shoal::policy

#include "topology/node_selection.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace shoal::topology {

namespace {

// The selection runs on 64-bit words of node bits (bit i % 64 of word i / 64): counting, weight
// filtering and finding runs go 64 nodes at a time, which keeps a decision over 100,000 nodes
// well under 100 microseconds (docs/benchmarks.md).

constexpr size_t word_bits = 64;

size_t word_count(size_t nodes) {
  return (nodes + word_bits - 1) / word_bits;
}

/// `bits` as words; bits past the end are zero.
std::vector<uint64_t> words_of(const std::vector<bool>& bits) {
  std::vector<uint64_t> words(word_count(bits.size()), 0);
  if (words.empty()) return words;
#if defined(__GLIBCXX__)
  // libstdc++ keeps vector<bool> in unsigned long words in exactly this layout.
  static_assert(sizeof(std::_Bit_type) == sizeof(uint64_t));
  std::memcpy(words.data(), bits.begin()._M_p, words.size() * sizeof(uint64_t));
  if (auto tail = bits.size() % word_bits; tail != 0) words.back() &= (uint64_t{1} << tail) - 1;
#else
  for (size_t i = 0; i < bits.size(); ++i)
    if (bits[i]) words[i / word_bits] |= uint64_t{1} << (i % word_bits);
#endif
  return words;
}

size_t count_bits(const std::vector<uint64_t>& words) {
  size_t n = 0;
  for (auto w : words) n += static_cast<size_t>(__builtin_popcountll(w));
  return n;
}

/// The `count`-th smallest weight among the nodes set in `words` (1-based; count <= set nodes).
/// Weights within a span of 4096 (the usual case: a few tiers) are counted in a histogram in one
/// branch-free pass; otherwise nth_element.
uint32_t weight_limit(const std::vector<uint64_t>& words, const std::vector<uint32_t>& weights,
                      size_t count) {
  constexpr uint32_t max_span = 4096;
  auto [lightest, heaviest] = std::minmax_element(weights.begin(), weights.end());
  if (*heaviest - *lightest < max_span) {
    auto base = *lightest;
    std::vector<size_t> nodes_of_weight(*heaviest - base + 1, 0);
    for (size_t w = 0; w < words.size(); ++w)
      for (auto word = words[w]; word != 0; word &= word - 1)
        ++nodes_of_weight[weights[w * word_bits + static_cast<size_t>(__builtin_ctzll(word))] -
                          base];
    size_t seen = 0;
    for (size_t k = 0;; ++k) {
      seen += nodes_of_weight[k];
      if (seen >= count) return base + static_cast<uint32_t>(k);
    }
  }
  std::vector<uint32_t> candidate;
  for (size_t w = 0; w < words.size(); ++w)
    for (auto word = words[w]; word != 0; word &= word - 1)
      candidate.push_back(weights[w * word_bits + static_cast<size_t>(__builtin_ctzll(word))]);
  auto nth = candidate.begin() + static_cast<std::ptrdiff_t>(count - 1);
  std::nth_element(candidate.begin(), nth, candidate.end());
  return *nth;
}

/// Clears the nodes heavier than `limit`.
void drop_heavier(std::vector<uint64_t>& words, const std::vector<uint32_t>& weights,
                  uint32_t limit) {
  const auto n = weights.size();
  for (size_t w = 0; w < words.size(); ++w) {
    if (words[w] == 0) continue;
    uint64_t light = 0;
    auto base = w * word_bits;
    auto end = std::min(word_bits, n - base);
    for (size_t k = 0; k < end; ++k)
      light |= static_cast<uint64_t>(weights[base + k] <= limit) << k;
    words[w] &= light;
  }
}

/// Calls visit(start, length) for each maximal run of set bits, in node order, until visit
/// returns false. Runs are found 64 nodes at a time, from one change of bit to the next.
template <class Visit>
void for_each_run(const std::vector<uint64_t>& words, Visit&& visit) {
  size_t start = 0;
  bool open = false;
  for (size_t w = 0; w < words.size(); ++w) {
    auto word = words[w];
    auto base = w * word_bits;
    size_t k = 0;
    while (k < word_bits) {
      auto rest = (open ? ~word : word) >> k;
      if (rest == 0) break;
      k += static_cast<size_t>(__builtin_ctzll(rest));
      if (open && !visit(start, base + k - start)) return;
      if (!open) start = base + k;
      open = !open;
    }
  }
  if (open) visit(start, words.size() * word_bits - start);
}

void append_run(std::vector<size_t>& chosen, size_t start, size_t length) {
  for (size_t k = 0; k < length; ++k) chosen.push_back(start + k);
}

std::vector<size_t> pick_linear(const std::vector<uint64_t>& words, size_t count) {
  std::vector<size_t> chosen;
  chosen.reserve(count);
  for (size_t w = 0; w < words.size() && chosen.size() < count; ++w)
    for (auto word = words[w]; word != 0 && chosen.size() < count; word &= word - 1)
      chosen.push_back(w * word_bits + static_cast<size_t>(__builtin_ctzll(word)));
  return chosen;
}

std::vector<size_t> pick_consecutive(const std::vector<uint64_t>& words, size_t count) {
  std::vector<size_t> chosen;
  chosen.reserve(count);
  // Best fit: the smallest run that holds the whole request leaves the larger runs for later
  // jobs. Strict '<' keeps the earliest run among equals, and a run of exactly `count` ends the
  // search. Until a run fits, the shorter runs are counted by length for the fallback below.
  bool fits = false;
  size_t best_start = 0;
  size_t best_length = 0;
  std::vector<size_t> nodes_in_runs_of;  // index: run length (< count)
  for_each_run(words, [&](size_t start, size_t length) {
    if (length >= count) {
      if (!fits || length < best_length) {
        fits = true;
        best_start = start;
        best_length = length;
      }
      return length != count;
    }
    if (!fits) {
      if (length >= nodes_in_runs_of.size()) nodes_in_runs_of.resize(length + 1, 0);
      nodes_in_runs_of[length] += length;
    }
    return true;
  });
  if (fits) {
    append_run(chosen, best_start, count);
    return chosen;
  }
  // No run fits: the fewest runs, so the largest first, the earliest first among runs of equal
  // length. All runs longer than some length L are taken whole, then runs of length L in node
  // order until the request is met, the last of them only in part; counting runs by length
  // finds L without sorting the runs.
  size_t threshold = nodes_in_runs_of.size() - 1;
  size_t taken_above = 0;  // nodes in runs longer than `threshold`
  while (taken_above + nodes_in_runs_of[threshold] < count) {
    taken_above += nodes_in_runs_of[threshold];
    --threshold;
  }
  auto missing_at_threshold = count - taken_above;
  for_each_run(words, [&](size_t start, size_t length) {
    if (length > threshold) {
      append_run(chosen, start, length);
    } else if (length == threshold && missing_at_threshold > 0) {
      auto take = std::min(length, missing_at_threshold);
      append_run(chosen, start, take);
      missing_at_threshold -= take;
    }
    return chosen.size() < count;
  });
  return chosen;
}

}  // namespace

std::optional<std::vector<size_t>> select_nodes(selection_policy policy,
                                                const std::vector<bool>& available, size_t count,
                                                const std::vector<uint32_t>& weights) {
  if (!weights.empty() && weights.size() != available.size())
    throw std::invalid_argument("select_nodes: weights must be empty or one per node");
  if (count == 0) return std::vector<size_t>{};
  auto permitted = words_of(available);
  if (count_bits(permitted) < count) return std::nullopt;
  // Trying the weight tiers one by one stops at the first tier whose nodes, together with all
  // lighter ones, number at least `count`: that tier's weight is the count-th smallest weight.
  // Finding it directly keeps the selection O(n) however many distinct weights there are.
  if (!weights.empty()) drop_heavier(permitted, weights, weight_limit(permitted, weights, count));
  switch (policy) {
    case selection_policy::linear:
      return pick_linear(permitted, count);
    case selection_policy::consecutive:
      return pick_consecutive(permitted, count);
  }
  return std::nullopt;
}

}  // namespace shoal::topology

#include "actors/exchange_tree.hpp"

#include <algorithm>
#include <utility>

namespace shoal::actors {

namespace {

/// Rounds remembered as over, beyond which the oldest are only known as "at most this one".
constexpr size_t remembered_rounds = 16;

}  // namespace

exchange_tree::exchange_tree(uint64_t job_id, uint32_t step_id, uint32_t index, uint32_t count,
                             uint32_t fanout)
    : job_id_(job_id),
      step_id_(step_id),
      index_(index),
      count_(std::max<uint32_t>(count, 1)),
      fanout_(std::max<uint32_t>(fanout, 1)) {}

uint32_t exchange_tree::parent_of(uint32_t index, uint32_t fanout) {
  return index == 0 ? 0 : (index - 1) / std::max<uint32_t>(fanout, 1);
}

std::vector<uint32_t> exchange_tree::children() const {
  std::vector<uint32_t> out;
  uint64_t first = uint64_t{index_} * fanout_ + 1;
  for (uint64_t c = first; c < first + fanout_ && c < count_; ++c)
    out.push_back(static_cast<uint32_t>(c));
  return out;
}

bool exchange_tree::is_child(uint32_t node) const {
  return node != 0 && node < count_ && parent_of(node, fanout_) == index_;
}

bool exchange_tree::joined_locally(uint32_t round) const {
  auto it = open_.find(round);
  return over(round) || (it != open_.end() && it->second.local);
}

std::vector<exchange_tree::action> exchange_tree::join_local(const msg::step_exchange& part) {
  if (part.round == 0 || over(part.round)) return {};
  auto& r = open_[part.round];
  if (r.local) return {};
  r.local = true;
  if (!lost_.empty() && r.error.empty()) r.error = lost_;
  return join(part.round, part);
}

std::vector<exchange_tree::action> exchange_tree::join_child(uint32_t child,
                                                             const msg::step_exchange& part) {
  if (part.round == 0 || over(part.round) || !is_child(child)) return {};
  auto& r = open_[part.round];
  if (!r.children.insert(child).second) return {};
  return join(part.round, part);
}

std::vector<exchange_tree::action> exchange_tree::join(uint32_t round,
                                                       const msg::step_exchange& part) {
  auto& r = open_[round];
  for (auto& b : part.blobs)
    if (b.node < count_ && r.blobs.size() < count_) r.blobs.push_back(b);
  if (!part.error.empty() && r.error.empty()) r.error = part.error;
  return advance(round);
}

msg::step_exchange exchange_tree::message(uint32_t round) const {
  msg::step_exchange m;
  m.job_id = job_id_;
  m.step_id = step_id_;
  m.round = round;
  return m;
}

std::vector<exchange_tree::action> exchange_tree::advance(uint32_t round) {
  auto& r = open_[round];
  if (r.sent_up) return {};
  bool whole = r.local && r.children.size() == children().size();
  if (r.error.empty() && !whole) return {};
  if (is_root() || (parent_lost_ && !r.error.empty())) {
    auto error = r.error;
    if (error.empty() && r.blobs.size() != count_)
      error = "the step's all-gather round " + std::to_string(round) + " came together with " +
              std::to_string(r.blobs.size()) + " parts for " + std::to_string(count_) + " nodes";
    return finish(round, std::move(error));
  }
  action up;
  up.up = true;
  up.message = message(round);
  up.message.error = r.error;
  if (r.error.empty()) up.message.blobs = std::move(r.blobs);
  r.sent_up = true;
  return {std::move(up)};
}

std::vector<exchange_tree::action> exchange_tree::finish(uint32_t round, std::string error) {
  action down;
  down.message = message(round);
  auto it = open_.find(round);
  if (error.empty() && it != open_.end()) {
    down.message.blobs = std::move(it->second.blobs);
    std::sort(
        down.message.blobs.begin(), down.message.blobs.end(),
        [](const msg::exchange_blob& a, const msg::exchange_blob& b) { return a.node < b.node; });
  }
  down.message.error = std::move(error);
  if (it != open_.end()) open_.erase(it);
  over_.insert(round);
  while (over_.size() > remembered_rounds) {
    trimmed_through_ = std::max(trimmed_through_, *over_.begin());
    over_.erase(over_.begin());
  }
  return {std::move(down)};
}

std::vector<exchange_tree::action> exchange_tree::outcome(const msg::step_exchange& result) {
  if (result.round == 0 || over(result.round)) return {};
  auto actions = finish(result.round, result.error);
  if (result.error.empty()) actions.front().message.blobs = result.blobs;
  return actions;
}

std::vector<exchange_tree::action> exchange_tree::expire(uint32_t round, const std::string& why) {
  if (over(round)) return {};
  std::string text = why;
  if (is_root()) {
    std::vector<bool> seen(count_, false);
    if (auto it = open_.find(round); it != open_.end())
      for (auto& b : it->second.blobs) seen[b.node] = true;
    std::string missing;
    for (uint32_t n = 0; n < count_; ++n)
      if (!seen[n]) missing += (missing.empty() ? "" : ",") + std::to_string(n);
    if (!missing.empty()) text += " (no word from the step's node(s) " + missing + ")";
  }
  return finish(round, std::move(text));
}

std::vector<exchange_tree::action> exchange_tree::peer_lost(bool parent, const std::string& why) {
  if (lost_.empty()) lost_ = why;
  if (parent) parent_lost_ = true;
  std::vector<action> out;
  std::vector<uint32_t> rounds;
  for (auto& [round, r] : open_) rounds.push_back(round);
  for (auto round : rounds) {
    auto& r = open_[round];
    if (r.error.empty()) r.error = why;
    // A part already sent up is the parent's to finish, unless the parent is what went.
    if (r.sent_up && parent) {
      auto more = finish(round, r.error);
      out.insert(out.end(), more.begin(), more.end());
      continue;
    }
    auto more = advance(round);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

}  // namespace shoal::actors

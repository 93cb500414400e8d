#pragma once

// The rounds of a step's all-gather as one node's shepherd sees them (PMI fences: each node's
// shoal-stepd gives a blob, every node gets them all). The step's shepherds form a tree by node
// index (node 0 at the root, each node's children the next `fanout` of the level below): a node
// sends its subtree's blobs up once it has its own and every child's; the root sends the round's
// outcome down, and each node passes it on to its children. No actors here: the shepherd
// (actors/shepherd.cpp) carries out what each call returns.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "messages/types.hpp"

namespace shoal::actors {

class exchange_tree {
 public:
  /// Children per node. Slurm's TreeWidth default is 50 (16 since 23.02); PMI blobs are small
  /// and the tree is rebuilt per step, so depth costs more than width here.
  static constexpr uint32_t default_fanout = 16;

  /// What the shepherd does next: send `message` up to its parent, or (down) hand the round's
  /// outcome to its own shoal-stepd and to each child that joined the round.
  struct action {
    bool up = false;
    msg::step_exchange message;
  };

  exchange_tree(uint64_t job_id, uint32_t step_id, uint32_t index, uint32_t count,
                uint32_t fanout = default_fanout);

  /// Node `index`'s parent in a tree of that fanout (index 0 has none: 0 is returned).
  static uint32_t parent_of(uint32_t index, uint32_t fanout = default_fanout);

  uint32_t index() const { return index_; }
  bool is_root() const { return index_ == 0; }
  /// The nodes whose parent this is, ascending.
  std::vector<uint32_t> children() const;

  /// This node's own part of a round (from shoal-stepd): its blob, or the error it failed with.
  std::vector<action> join_local(const msg::step_exchange& part);

  /// Child `child`'s subtree part of a round. Parts of rounds over, of nodes that are not
  /// children, or second parts, are ignored.
  std::vector<action> join_child(uint32_t child, const msg::step_exchange& part);

  /// The round's outcome from the parent.
  std::vector<action> outcome(const msg::step_exchange& result);

  /// The round's time is up here: its outcome becomes an error naming `why` (and, at the root,
  /// the nodes whose part never came).
  std::vector<action> expire(uint32_t round, const std::string& why);

  /// A child or the parent went away (its step ended, its daemon died): every open round, and
  /// the next one to open here, fails with `why`.
  std::vector<action> peer_lost(bool parent, const std::string& why);

  /// Whether this node saw its own part of `round` (a timer was started for it then).
  bool joined_locally(uint32_t round) const;
  /// True once `round`'s outcome went down from here.
  bool over(uint32_t round) const { return round <= trimmed_through_ || over_.count(round) > 0; }

 private:
  struct round_state {
    std::vector<msg::exchange_blob> blobs;
    bool local = false;
    std::set<uint32_t> children;
    std::string error;
    bool sent_up = false;
  };

  std::vector<action> join(uint32_t round, const msg::step_exchange& part);
  std::vector<action> advance(uint32_t round);
  std::vector<action> finish(uint32_t round, std::string error);
  msg::step_exchange message(uint32_t round) const;
  bool is_child(uint32_t node) const;

  uint64_t job_id_;
  uint32_t step_id_;
  uint32_t index_;
  uint32_t count_;
  uint32_t fanout_;
  std::map<uint32_t, round_state> open_;
  std::set<uint32_t> over_;       ///< rounds whose outcome went down (the last few)
  uint32_t trimmed_through_ = 0;  ///< every round up to this one is over too
  std::string lost_;              ///< a peer went: every later round fails with this
  bool parent_lost_ = false;
};

}  // namespace shoal::actors

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"

namespace shoal::policy {

struct feature_expr;

/// One operand of a constraint: a feature name or a parenthesised group, with an optional node
/// count (`gpu*2`, `(knl&flat)*4`), or the one bracketed set a constraint may hold.
struct feature_factor {
  std::string name;                     ///< a feature name; empty for a group or a bracket
  std::shared_ptr<feature_expr> group;  ///< ( ... ) or [ ... ]
  bool bracket = false;                 ///< [ ... ]: matching OR, or multiple counts
  uint32_t count = 0;                   ///< *N: at least N of the job's nodes have it; 0: none
};

/// Operands joined by `&` (AND) and `|` (OR), read left to right as Slurm does (no precedence:
/// `a|b&c` is `(a|b)&c`).
struct feature_expr {
  std::vector<feature_factor> factors;
  std::vector<char> ops;  ///< between factors: '&' or '|'; one fewer than factors
};

/// A job's -C/--constraint, parsed once (parse_constraint).
struct feature_constraint {
  feature_expr expr;
  std::string text;  ///< as given, blanks removed

  /// Every feature name the constraint mentions, in order of appearance, each once.
  std::vector<std::string> names() const;
};

/// Reads Slurm's --constraint syntax: names joined by `&` (AND) and `|` (OR), evaluated left to
/// right; `NAME*N` or `(...)*N`: at least N of the job's nodes have it (the other nodes need not);
/// parentheses group; one bracketed set per constraint: `[a|b|c]` (matching OR: every node of the
/// job has the same one of them) or `[a*2&b*4]` (multiple counts: every item has a count; the
/// job gets that many nodes of each). A name is letters, digits and `_ - . : + @ /`.
/// Error (errc::invalid_request): "Invalid feature specification: <why>" (sbatch's words).
shoal::expected<feature_constraint> parse_constraint(std::string_view text);

/// One way a job may place under its constraint: which nodes it may use, and how many nodes of
/// which sets it needs at least.
struct feature_choice {
  std::vector<bool> eligible;  ///< per node index: the node satisfies the constraint
  struct counted {
    std::vector<bool> nodes;  ///< eligible nodes that have the counted feature
    uint32_t count = 0;
  };
  std::vector<counted> counts;  ///< in the order written; each picked from nodes not yet taken
};

/// The ways `c` may place on nodes with `node_features` (one list of names per node index): one
/// choice, or one per alternative of a matching OR, in the order written. A counted operand does
/// not filter nodes (`gpu*2` lets the job's other nodes lack gpu); it adds a count.
std::vector<feature_choice> resolve_constraint(
    const feature_constraint& c, const std::vector<std::vector<std::string>>& node_features);

/// Whether a node with `features` may be used by a job with `c` (under one of its choices).
bool node_satisfies(const feature_constraint& c, const std::vector<std::string>& features);

}  // namespace shoal::policy

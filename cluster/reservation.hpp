#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"
#include "policy/profile.hpp"

namespace shoal::cluster {

/// scontrol's reservation flags that shoal acts on (Slurm 22.05's names).
struct reservation_flags {
  bool maint = false;        ///< MAINT: its nodes show `maint`; accounted as down time in Slurm
  bool ignore_jobs = false;  ///< IGNORE_JOBS: created over nodes whose jobs still run then
  bool overlap = false;      ///< OVERLAP: may share nodes and time with other reservations
  bool flex = false;         ///< FLEX: its jobs may use nodes outside it too
  bool daily = false;        ///< DAILY: once ended, moves a day forward
  bool weekly = false;       ///< WEEKLY: once ended, moves a week forward
  bool spec_nodes = false;   ///< SPEC_NODES: the nodes were named (set by Nodes=)
};

/// One reservation: nodes held for its users and accounts over [start, end).
struct reservation {
  std::string name;
  int64_t start = 0;
  int64_t end = policy::forever;   ///< policy::forever: UNLIMITED
  std::vector<std::string> nodes;  ///< config order
  uint32_t node_count = 0;         ///< NodeCnt= when the nodes were picked (0: named)
  std::string partition;           ///< empty: none named
  reservation_flags flags;
  std::vector<std::string> users;
  std::vector<std::string> accounts;
};

/// What `create reservation` or `update reservationname=R` asked, key by key (case-insensitive
/// keys, Slurm's words); each is unset when not given.
struct reservation_words {
  std::optional<std::string> name;
  std::optional<int64_t> start;
  std::optional<int64_t> end;
  std::optional<int64_t> duration;   ///< seconds; policy::forever for UNLIMITED
  std::optional<std::string> nodes;  ///< hostlist, or ALL
  std::optional<uint32_t> node_count;
  std::optional<std::string> partition;
  std::optional<reservation_flags> flags;
  std::optional<std::vector<std::string>> users;
  std::optional<std::vector<std::string>> accounts;
};

/// Reads `Key=Value` words relative to `now`: ReservationName, StartTime, EndTime, Duration,
/// Nodes, NodeCnt, PartitionName, Flags, Users, Accounts. Error (errc::invalid_request) in
/// scontrol's words: "Unknown parameter X", "Invalid start time X", "Parameter X specified more
/// than once", ...
shoal::expected<reservation_words> read_reservation_words(const std::vector<std::string>& settings,
                                                          int64_t now);

/// A new reservation from its words, as scontrol and slurmctld check them (start, end or
/// duration, users or accounts, nodes or a count or a partition). The nodes are the named ones
/// expanded (ALL: `all_nodes`; Nodes= also sets SPEC_NODES); a count is left for the caller to
/// pick (node_count set, nodes empty). `fallback_name` is used when none is given.
shoal::expected<reservation> new_reservation(const reservation_words& words,
                                             const std::vector<std::string>& all_nodes,
                                             const std::string& fallback_name);

/// `r` with the words applied (update): a new start keeps the duration unless an end is given.
shoal::expected<reservation> updated_reservation(const reservation& r,
                                                 const reservation_words& words,
                                                 const std::vector<std::string>& all_nodes);

/// DAILY and WEEKLY: the reservation moved forward by its period until it ends after `now`;
/// others as they are.
reservation current_window(const reservation& r, int64_t now);

/// Whether the reservation holds its nodes at `now` (State=ACTIVE).
bool is_active(const reservation& r, int64_t now);

/// Whether `a` and `b` share a node over a shared time (each taken at its window at `now`).
bool overlaps(const reservation& a, const reservation& b, int64_t now);

/// Whether creating or moving `a` is refused because of `b` (slurmctld's _resv_overlap): they
/// overlap and neither is MAINT or OVERLAP.
bool conflicts(const reservation& a, const reservation& b, int64_t now);

/// A job holding nodes until `end` (its start plus time limit; policy::forever: none).
struct busy_node {
  std::string node;
  int64_t end = policy::forever;
};

/// Whether a running job on one of `r`'s nodes would still run when it begins.
bool nodes_busy(const reservation& r, const std::vector<busy_node>& running, int64_t now);

/// The first `count` of `candidates` (config order) that no job holds at the reservation's
/// start and that no other reservation in `others` holds over its time (unless OVERLAP); empty
/// when fewer are free.
std::vector<std::string> pick_nodes(const reservation& r, uint32_t count,
                                    const std::vector<std::string>& candidates,
                                    const std::vector<busy_node>& running,
                                    const std::vector<reservation>& others, int64_t now);

/// Whether `user` (with `account`, empty: none) may run jobs in `r`.
bool may_use(const reservation& r, const std::string& user, const std::string& account);

/// Slurm's flag string ("MAINT,IGNORE_JOBS,SPEC_NODES"; empty for none).
std::string flags_text(const reservation_flags& flags);

/// The listing's record (active at `now`), and back (the saved record).
msg::reservation_info info_of(const reservation& r, int64_t now);
reservation reservation_of(const msg::reservation_info& info);

}  // namespace shoal::cluster

#pragma once

// The chaos test's decisions, drawn from its seed alone: which daemons die in each round, when,
// for how long, and which jobs are submitted. The run follows them by the wall clock, so the
// timing of processes differs from run to run but the decisions of a seed do not.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace shoal::chaos {

/// The daemons the test kills, each one process.
enum class victim : uint8_t {
  primary,      ///< shoalctld on the first SlurmctldHost line
  backup,       ///< shoalctld on the second
  front_end_1,  ///< shoald --simulate for the first half of the simulated nodes (two collectors)
  front_end_2,  ///< the same for the second half
  real_node,    ///< a shoald of one real node, which runs its jobs' steps
};
inline constexpr size_t victim_count = 5;

/// What the summary counts kills and recoveries by: the two front ends are one kind.
enum class fault_kind : uint8_t { primary, backup, front_end, real_node };
inline constexpr size_t fault_kind_count = 4;

fault_kind kind_of(victim v);
/// "primary", "backup", "front end 1", "front end 2", "real node".
std::string name_of(victim v);
/// "primary", "backup", "front end", "real node".
std::string name_of(fault_kind k);

/// One kill -9 of a round.
struct planned_kill {
  victim who = victim::primary;
  double after_s = 0;  ///< from the round's first kill (0 for the first)
  double down_s = 0;   ///< from this kill until the daemon is started again
};

/// A round: a quiet pause, then one or two daemons killed; the next round starts once every
/// victim is back (see main.cpp for what "back" means).
struct planned_round {
  double pause_s = 0;               ///< from the end of the previous round to the first kill
  std::vector<planned_kill> kills;  ///< one, or two of different kinds; first kill first
};

/// One submission of the job stream.
struct planned_job {
  double gap_s = 0;   ///< after the previous submission was answered
  bool real = false;  ///< on the real node (a script that leaves a marker), else simulated
  unsigned nodes = 1;
  unsigned seconds = 1;  ///< the job's `sleep`
};

/// Two independent streams from one seed: the rounds and the jobs. Taking the k-th round never
/// depends on how many jobs were taken, and the other way round.
class plan {
 public:
  explicit plan(uint64_t seed);

  planned_round next_round();
  planned_job next_job();

  /// Bounds of the draws, printed with the figures.
  static constexpr double min_pause_s = 1, max_pause_s = 4;
  static constexpr double second_kill_chance = 0.35;
  static constexpr double max_second_kill_after_s = 3;
  static constexpr double min_down_s = 0.5, max_down_s = 10;
  static constexpr double min_job_gap_s = 0.3, max_job_gap_s = 1.2;
  static constexpr double real_job_chance = 0.1;
  static constexpr unsigned max_sim_job_nodes = 4, max_sim_job_seconds = 12;
  static constexpr unsigned min_real_job_seconds = 2, max_real_job_seconds = 6;

 private:
  /// splitmix64: small, fully specified (std::uniform_*_distribution are not the same in every
  /// standard library, and a seed must replay anywhere).
  struct stream {
    uint64_t state;
    uint64_t next();
    double uniform(double lo, double hi);     ///< in [lo, hi)
    unsigned pick(unsigned lo, unsigned hi);  ///< in [lo, hi]
    bool chance(double p);
  };
  stream rounds_;
  stream jobs_;
};

}  // namespace shoal::chaos

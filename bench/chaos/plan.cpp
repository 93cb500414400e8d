#include "bench/chaos/plan.hpp"

namespace shoal::chaos {

fault_kind kind_of(victim v) {
  switch (v) {
    case victim::primary:
      return fault_kind::primary;
    case victim::backup:
      return fault_kind::backup;
    case victim::front_end_1:
    case victim::front_end_2:
      return fault_kind::front_end;
    case victim::real_node:
      return fault_kind::real_node;
  }
  return fault_kind::primary;
}

std::string name_of(victim v) {
  switch (v) {
    case victim::primary:
      return "primary";
    case victim::backup:
      return "backup";
    case victim::front_end_1:
      return "front end 1";
    case victim::front_end_2:
      return "front end 2";
    case victim::real_node:
      return "real node";
  }
  return "?";
}

std::string name_of(fault_kind k) {
  switch (k) {
    case fault_kind::primary:
      return "primary";
    case fault_kind::backup:
      return "backup";
    case fault_kind::front_end:
      return "front end";
    case fault_kind::real_node:
      return "real node";
  }
  return "?";
}

uint64_t plan::stream::next() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double plan::stream::uniform(double lo, double hi) {
  double unit = static_cast<double>(next() >> 11) * 0x1.0p-53;
  return lo + unit * (hi - lo);
}

unsigned plan::stream::pick(unsigned lo, unsigned hi) {
  return lo + static_cast<unsigned>(next() % (static_cast<uint64_t>(hi - lo) + 1));
}

bool plan::stream::chance(double p) {
  return uniform(0, 1) < p;
}

plan::plan(uint64_t seed) : rounds_{seed ^ 0x726f756e6473ULL}, jobs_{seed ^ 0x6a6f6273ULL} {}

planned_round plan::next_round() {
  auto draw_victim = [this](fault_kind kind) {
    switch (kind) {
      case fault_kind::primary:
        return victim::primary;
      case fault_kind::backup:
        return victim::backup;
      case fault_kind::front_end:
        return rounds_.chance(0.5) ? victim::front_end_1 : victim::front_end_2;
      case fault_kind::real_node:
        return victim::real_node;
    }
    return victim::primary;
  };
  planned_round r;
  r.pause_s = rounds_.uniform(min_pause_s, max_pause_s);
  auto first = static_cast<fault_kind>(rounds_.pick(0, fault_kind_count - 1));
  r.kills.push_back({draw_victim(first), 0, rounds_.uniform(min_down_s, max_down_s)});
  if (rounds_.chance(second_kill_chance)) {
    // Another kind than the first: the first kind's position plus 1 to 3, around the four.
    auto offset = rounds_.pick(1, fault_kind_count - 1);
    auto second =
        static_cast<fault_kind>((static_cast<unsigned>(first) + offset) % fault_kind_count);
    planned_kill k;
    k.who = draw_victim(second);
    k.after_s = rounds_.uniform(0, max_second_kill_after_s);
    k.down_s = rounds_.uniform(min_down_s, max_down_s);
    r.kills.push_back(k);
  }
  return r;
}

planned_job plan::next_job() {
  planned_job j;
  j.gap_s = jobs_.uniform(min_job_gap_s, max_job_gap_s);
  j.real = jobs_.chance(real_job_chance);
  if (j.real) {
    j.nodes = 1;
    j.seconds = jobs_.pick(min_real_job_seconds, max_real_job_seconds);
  } else {
    j.nodes = jobs_.pick(1, max_sim_job_nodes);
    j.seconds = jobs_.pick(1, max_sim_job_seconds);
  }
  return j;
}

}  // namespace shoal::chaos

#include "bench/overhead.hpp"

#include <algorithm>
#include <filesystem>

#include "messages/states.hpp"

namespace shoal::bench {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  auto n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

overhead_result measure_overhead(const cluster_access& on, const cluster_access& off, size_t jobs,
                                 unsigned rounds, const std::string& dir,
                                 std::chrono::seconds deadline) {
  overhead_result out;
  for (unsigned round = 0; round < rounds; ++round) {
    for (int k = 0; k < 2; ++k) {
      bool metrics_on = (round % 2 == 0) == (k == 0);
      auto sub = dir + "/overhead-" + std::to_string(round) + (metrics_on ? "-on" : "-off");
      std::filesystem::create_directories(sub);
      auto r = run_api_burst(metrics_on ? on : off, jobs, sub, deadline);
      auto completed = r.states.count(msg::job_state::completed)
                           ? r.states.at(msg::job_state::completed)
                           : size_t{0};
      if (!r.all_finished || completed != jobs || r.end_to_end_s <= 0) {
        out.valid = false;
        out.failures.push_back("round " + std::to_string(round) + " metrics " +
                               (metrics_on ? "on" : "off") + ": " + std::to_string(completed) +
                               " of " + std::to_string(jobs) + " jobs completed");
        continue;
      }
      auto rate = static_cast<double>(r.accepted) / r.end_to_end_s;
      (metrics_on ? out.on_rates : out.off_rates).push_back(rate);
    }
  }
  out.on_median = median(out.on_rates);
  out.off_median = median(out.off_rates);
  if (out.off_median > 0)
    out.overhead_pct = (out.off_median - out.on_median) / out.off_median * 100.0;
  return out;
}

}  // namespace shoal::bench

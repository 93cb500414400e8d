#include "bench/latency.hpp"

namespace shoal::bench {

latency_result measure_cli_latency(const std::string& shoal_path,
                                   const std::vector<std::string>& args, unsigned warmup,
                                   unsigned runs, const std::string& cwd) {
  latency_result out;
  out.label = "shoal";
  for (auto& a : args) out.label += " " + a;
  out.warmup = warmup;
  std::vector<std::string> argv{shoal_path};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<double> samples;
  samples.reserve(runs);
  for (unsigned i = 0; i < warmup + runs; ++i) {
    auto r = run_silent(argv, cwd, cwd + "/latency.err");
    bool timed = i >= warmup;
    if (!succeeded(r)) {
      out.failures.push_back(std::string{timed ? "run " : "warm-up run "} +
                             std::to_string(timed ? i - warmup + 1 : i + 1) + ": " +
                             describe_status(r) + " after " +
                             std::to_string(static_cast<long>(r.elapsed_ms)) + " ms");
      continue;
    }
    if (timed) samples.push_back(r.elapsed_ms);
  }
  out.stats = summarize(std::move(samples));
  return out;
}

}  // namespace shoal::bench

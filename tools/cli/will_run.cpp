#include "tools/cli/will_run.hpp"

#include <cstdio>
#include <ctime>

#include "messages/front_door.hpp"

namespace shoal::cli {

std::string slurm_time(int64_t unix_seconds) {
  auto t = static_cast<std::time_t>(unix_seconds);
  std::tm local{};
  ::localtime_r(&t, &local);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &local);
  return buf;
}

int refuse_estimate(const shoal::error& err) {
  std::fprintf(stderr, "allocation failure: %s\n", last_line(describe(err)).c_str());
  return exit_failure;
}

int print_start_estimate(session& s, msg::job_request req, const std::string& program) {
  auto ask = msg::make_client_request(msg::client_op::test_only);
  ask.submission = std::move(req);
  auto reply = call(s, ask);
  if (!reply) return refuse_estimate(reply.error());
  const auto& e = reply->estimate;
  std::fprintf(stderr,
               "%s: Job %llu to start at %s using %u processors on nodes %s in partition %s\n",
               program.c_str(), static_cast<unsigned long long>(e.job_id),
               slurm_time(e.start_time).c_str(), e.cpus, e.nodelist.c_str(), e.partition.c_str());
  return 0;
}

}  // namespace shoal::cli

// Golden output of the listings users and their scripts read (squeue, sinfo, sinfo -N, scontrol
// show job|node|partition), byte for byte, from fixed records and a fixed clock in UTC. The
// expected text lives in test/data/golden/NAME.txt; a change in any column, width or word fails
// here first. After a deliberate change, SHOAL_GOLDEN_UPDATE=1 rewrites the files: read the diff
// against Slurm's own output before committing it.

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tools/format/listing.hpp"
#include "topology/partition_summary.hpp"

using namespace shoal;

namespace {

constexpr int64_t now = 1'767'225'600;  // 2026-01-01T00:00:00Z

struct utc {
  utc() {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
  }
};

std::string golden_path(const std::string& name) {
  return std::string{SHOAL_TEST_DATA} + "/golden/" + name + ".txt";
}

void check_golden(const std::string& name, const std::string& text) {
  auto path = golden_path(name);
  if (const char* update = std::getenv("SHOAL_GOLDEN_UPDATE");
      update != nullptr && *update == '1') {
    std::ofstream{path} << text;
    return;
  }
  std::ifstream in{path};
  BOOST_REQUIRE_MESSAGE(in.good(), path << " is missing (SHOAL_GOLDEN_UPDATE=1 writes it)");
  std::stringstream want;
  want << in.rdbuf();
  BOOST_TEST(text == want.str(), name << ": got\n" << text);
}

std::vector<msg::node_info> nodes() {
  std::vector<msg::node_info> out;
  const char* names[] = {"node1", "node2", "node3", "node4"};
  msg::node_state states[] = {msg::node_state::allocated, msg::node_state::allocated,
                              msg::node_state::idle, msg::node_state::drained};
  for (int i = 0; i < 4; ++i) {
    msg::node_info n;
    n.name = names[i];
    n.state = states[i];
    n.address = "10.0.0." + std::to_string(i + 1);
    n.cpus = 8;
    n.real_memory_mb = 32000;
    n.tmp_disk_mb = 1000;
    n.partitions =
        i < 3 ? std::vector<std::string>{"debug"} : std::vector<std::string>{"debug", "gpu"};
    n.state_since = now - 3600;
    n.last_response = now - 5;
    n.reported.node_name = names[i];
    n.reported.hostname = std::string{"host"} + std::to_string(i + 1);
    n.reported.os = "Linux.6.1.0-18-amd64";
    n.reported.cpus = 8;
    n.reported.sockets = 1;
    n.reported.cores_per_socket = 4;
    n.reported.threads_per_core = 2;
    n.reported.cpu_mhz = 2400;
    n.reported.real_memory_mb = 32011;
    n.reported.virtual_memory_mb = 34059;
    n.reported.tmp_disk_mb = 1000;
    n.reported.boot_time = now - 86400;
    n.reported.daemon_start_time = now - 7200;
    n.reported.daemon_pid = 4000 + i;
    if (i < 2) n.job_ids = {101};
    n.last_busy = i < 2 ? now - 60 : 0;
    // Power saving's marks: node2 asked down (alloc!), node3 a cloud node powering up (idle#).
    if (i == 1) n.power_down_asked = true;
    if (i == 2) {
      n.cloud = true;
      n.power = msg::power_state::powering_up;
    }
    if (i == 3) {
      n.reason = "disk swap";
      n.reason_user = "root";
      n.reason_time = now - 600;
      n.gres = "gpu:2";
      n.gres_used = "gpu:0(IDX:N/A)";
    }
    out.push_back(n);
  }
  return out;
}

std::vector<msg::partition_info> partitions() {
  msg::partition_info debug;
  debug.name = "debug";
  debug.is_default = true;
  debug.max_time_s = 3600;
  debug.nodes = {"node1", "node2", "node3", "node4"};
  msg::partition_info gpu;
  gpu.name = "gpu";
  gpu.state = "DOWN";
  gpu.max_time_s = -1;
  gpu.nodes = {"node4"};
  gpu.priority = 2;
  gpu.over_subscribe = "FORCE:4";
  return {debug, gpu};
}

std::vector<msg::job_info> jobs() {
  std::vector<msg::job_info> out;
  msg::job_info running;
  running.job_id = 101;
  running.name = "relax";
  running.user = "alice";
  running.uid = 1001;
  running.partition = "debug";
  running.state = msg::job_state::running;
  running.submit_time = now - 1000;
  running.start_time = now - 754;
  running.time_limit_s = 3600;
  running.nodelist = "node[1-2]";
  running.node_count = 2;
  running.ntasks = 16;
  running.work_dir = "/home/alice";
  running.stdout_path = "/home/alice/slurm-101.out";
  out.push_back(running);
  msg::job_info pending = running;
  pending.job_id = 102;
  pending.name = "a-long-job-name-cut";
  pending.user = "bob";
  pending.state = msg::job_state::pending;
  pending.reason = "Resources";
  pending.start_time = 0;
  pending.nodelist.clear();
  pending.node_count = 4;
  pending.stdout_path = "/home/bob/slurm-102.out";
  out.push_back(pending);
  msg::job_info done = running;
  done.job_id = 99;
  done.name = "setup";
  done.state = msg::job_state::failed;
  done.exit_code = 3;
  done.start_time = now - 7200;
  done.end_time = now - 7000;
  done.nodelist = "node3";
  done.node_count = 1;
  out.push_back(done);
  return out;
}

std::string value_of(const shoal::expected<std::string>& r) {
  BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), "render failed");
  return *r;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(golden_listings, utc)

BOOST_AUTO_TEST_CASE(squeue) {
  check_golden("squeue", value_of(cli::render_jobs(jobs(), {}, now)));
}

BOOST_AUTO_TEST_CASE(sinfo) {
  auto all = nodes();
  auto sums = topology::summarize_partitions(partitions(), [&](const std::string& name) {
    for (auto& n : all)
      if (n.name == name) return n.state;
    return msg::node_state::unknown;
  });
  check_golden("sinfo", value_of(cli::render_partition_summary(sums, {})));
}

BOOST_AUTO_TEST_CASE(sinfo_nodes) {
  check_golden("sinfo_N", value_of(cli::render_nodes(partitions(), nodes(), {}, now)));
}

BOOST_AUTO_TEST_CASE(scontrol_show) {
  auto all = nodes();
  auto js = jobs();
  check_golden("show_job", cli::show_job(js[0], now) + cli::show_job(js[2], now));
  check_golden("show_node", cli::show_node(all[0], now) + cli::show_node(all[3], now));
  auto parts = partitions();
  check_golden("show_partition",
               cli::show_partition(parts[0], all) + cli::show_partition(parts[1], all));
}

BOOST_AUTO_TEST_SUITE_END()

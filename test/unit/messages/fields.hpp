#pragma once

// Shared by the message tests: a field-by-field walk over every message type (so a failed
// comparison names the field), and one sample of each type with every field off its default.

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "messages/types.hpp"

namespace shoal::test {

// -- printing field values ----------------------------------------------------------------------

inline std::string show(const std::string& x) {
  return '"' + x + '"';
}

inline std::string show(msg::node_state x) {
  return msg::to_string(x);
}

inline std::string show(msg::job_state x) {
  return msg::to_string(x);
}

inline std::string show(msg::power_state x) {
  return std::to_string(static_cast<int>(x));
}

inline std::string show(msg::stream_kind x) {
  return std::to_string(static_cast<int>(x));
}

template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
std::string show(T x) {
  if constexpr (std::is_same_v<T, bool>)
    return x ? "true" : "false";
  else if constexpr (std::is_floating_point_v<T>) {
    std::ostringstream out;
    out.precision(17);
    out << x;
    return out.str();
  } else if constexpr (std::is_signed_v<T>)
    return std::to_string(static_cast<long long>(x));
  else
    return std::to_string(static_cast<unsigned long long>(x));
}

template <class T>
std::string show(const std::vector<T>& xs) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i) out += (i == 0 ? "" : ", ") + show(xs[i]);
  return out + "]";
}

// -- walking the fields of two values -----------------------------------------------------------

template <class T>
struct is_struct_list : std::false_type {};

template <class T>
struct is_struct_list<std::vector<T>> : std::bool_constant<msg::is_wire_struct_v<T>> {};

/// Calls `f(name, a.field, b.field)` for every field of two values of a generated message struct,
/// from the generated visitor (so no field is left out), nested structs and lists of structs
/// included: a list of structs gives its size, then the fields of each element both have.
template <class T, class F>
void fields(const T& a, const T& b, F&& f, const std::string& prefix) {
  msg::wire_fields<T>::visit([&](const char* name, auto member) {
    using M = std::decay_t<decltype(a.*member)>;
    const auto& x = a.*member;
    const auto& y = b.*member;
    auto path = prefix + name;
    if constexpr (msg::is_wire_struct_v<M>) {
      fields(x, y, f, path + ".");
    } else if constexpr (is_struct_list<M>::value) {
      f(path + ".size()", x.size(), y.size());
      for (size_t i = 0; i < x.size() && i < y.size(); ++i)
        fields(x[i], y[i], f, path + "[" + std::to_string(i) + "].");
    } else {
      f(path, x, y);
    }
  });
}

/// As above, each name prefixed with the type's name ("node_info.reported.cpus").
template <class T, class F>
void fields(const T& a, const T& b, F&& f) {
  fields(a, b, f, std::string{msg::wire_fields<T>::name} + ".");
}

/// Checks every field of `actual` against `expected`, naming each one that differs.
template <class T>
void check_same(const T& actual, const T& expected) {
  fields(actual, expected, [](const std::string& name, const auto& x, const auto& y) {
    BOOST_CHECK_MESSAGE(x == y, name << " is " << show(x) << ", expected " << show(y));
  });
}

/// Checks that no field of `x` holds the value it has in `T{}`: a sample that leaves a field at
/// its default cannot show that the codec carries that field.
template <class T>
void check_no_default_field(const T& x) {
  fields(x, T{}, [](const std::string& name, const auto& v, const auto& def) {
    BOOST_CHECK_MESSAGE(!(v == def),
                        name << " keeps its default " << show(def) << " in the sample");
  });
}

// -- samples ------------------------------------------------------------------------------------

// Values are chosen to catch truncation and sign errors: large 64-bit numbers, negative signed
// values, non-ASCII text, and NUL bytes in Data fields.

inline msg::machine_status sample_machine_status() {
  msg::machine_status x;
  x.node_name = "node017";
  x.hostname = "n17.cluster.example";
  x.os = "Linux.6.1.0-18-amd64";
  x.cpus = 96;
  x.sockets = 2;
  x.cores_per_socket = 24;
  x.threads_per_core = 2;
  x.cpu_mhz = 2450.125;
  x.real_memory_mb = 515'000;
  x.virtual_memory_mb = 0x1'0000'0001ull;
  x.tmp_disk_mb = 1'800'000;
  x.boot_time = 1'700'000'000;
  x.daemon_start_time = -1'700'000'123;
  x.daemon_pid = 4'194'304;
  x.credential = "MUNGE:AwQDAACm3IN+registration:";
  return x;
}

inline msg::node_usage sample_node_usage() {
  msg::node_usage x;
  x.sampled_at = 1'700'000'333;
  x.load1 = 0.52;
  x.load5 = 1.25;
  x.load15 = 3.5;
  x.user_ms = 123'456'789;
  x.system_ms = 9'876;
  x.idle_ms = 1ull << 40;
  x.mem_total_bytes = 64ull << 30;
  x.mem_available_bytes = 3ull << 30;
  return x;
}

inline msg::node_info sample_node_info() {
  msg::node_info x;
  x.name = "node017";
  x.state = msg::node_state::draining;
  x.reason = "Low RealMemory (reported 1024 < configured 2048) \xc3\xa9";
  x.reason_time = 1'700'000'111;
  x.reason_user = "root";
  x.state_since = 1'700'000'222;
  x.last_response = -5;
  x.address = "10.1.2.17";
  x.cpus = 64;
  x.real_memory_mb = 0xffff'ffff'ffffull;
  x.tmp_disk_mb = 77;
  x.weight = 0xffff'ffffu;
  x.partitions = {"debug", "batch", ""};
  x.reported = sample_machine_status();
  x.job_ids = {1, 0xffff'ffff'ffff'ffffull, 42};
  x.features = "gpu,ib";
  x.speed = 2.5;
  x.os = "Linux.2.4.7-10";
  x.gres = "gpu:tesla:4,nic:1";
  x.gres_used = "gpu:tesla:2(IDX:0,3),nic:0(IDX:N/A)";
  x.power = msg::power_state::powering_up;
  x.power_down_asked = true;
  x.cloud = true;
  x.last_busy = 1700000123;
  x.hostname = "host-n1";
  x.usage = sample_node_usage();
  x.maint = true;
  x.reboot_requested = true;
  x.reboot_issued = true;
  return x;
}

inline msg::partition_info sample_partition_info() {
  msg::partition_info x;
  x.name = "batch";
  x.state = "DRAIN";
  x.is_default = true;
  x.max_time_s = 86'400;
  x.default_time_s = 3'600;
  x.max_nodes = 128;
  x.nodes = {"node1", "node2", "node10"};
  x.priority = 9;
  x.over_subscribe = "FORCE:4";
  x.preempt_mode = "REQUEUE";
  x.grace_time_s = 120;
  return x;
}

inline msg::step_io sample_step_io() {
  msg::step_io x;
  x.input = "all";
  x.input_file = "in.%t";
  x.pty = true;
  x.pty_rows = 65535;
  x.pty_cols = 80;
  x.unbuffered = true;
  x.kill_on_bad_exit = true;
  x.chdir_required = true;
  x.multi_prog = "0 echo %t\n* true\n";
  x.mpi = "pmix_v4";
  x.output = "out.%t";
  x.error = "/dev/null";
  x.task_prolog = "/home/u/task-prolog.sh";
  x.task_epilog = "task-epilog";
  return x;
}

inline msg::task_input sample_task_input() {
  msg::task_input x;
  x.job_id = 77;
  x.step_id = 3;
  x.data = std::string{"in\0\xff", 4};
  x.eof = true;
  x.rows = 24;
  x.cols = 65535;
  return x;
}

inline msg::job_request sample_job_request() {
  msg::job_request x;
  x.job_id = 0x1'0000'0002ull;
  x.name = "relax";
  x.user = "alice";
  x.uid = 1001;
  x.gid = 4294967294u;
  x.partition = "batch";
  x.min_nodes = 4;
  x.ntasks = 16;
  x.cpus_per_task = 3;
  x.time_limit_s = -1;
  x.nodelist = "node[1-2]";
  x.exclude = "node7";
  x.argv = {"/bin/echo", "a b", ""};
  x.env = {"PATH=/usr/bin", "EMPTY="};
  x.cwd = "/home/alice/run";
  x.batch = true;
  x.script = "#!/bin/sh\necho \"h\xc3\xa9\"\n";  // Text holds no NUL: Cap'n Proto's rule
  x.stdout_path = "out-%j.txt";
  x.stderr_path = "err-%j.txt";
  x.requeue = true;
  x.label = true;
  x.nice = -20;
  x.nodes_max = 8;
  x.submit_token = "host:1234:abcdef";
  x.workload.array = "1-1000:3%50";
  x.workload.dependency = "afterok:12:13_4?singleton";
  x.workload.kill_on_invalid_dep = true;
  x.workload.begin_time = 1'700'000'123;
  x.workload.hold = true;
  x.workload.mem_per_node_mb = 64'000;
  x.workload.mem_per_cpu_mb = 2'000;
  x.workload.exclusive = true;
  x.workload.oversubscribe = true;
  x.workload.ntasks_per_node = 2;
  x.workload.min_cpus = 4;
  x.workload.account = "physics";
  x.workload.qos = "high";
  x.workload.comment = "run 7 of the sweep";
  x.workload.mail_type = "BEGIN,END";
  x.workload.mail_user = "alice@example.org";
  x.workload.open_mode = "truncate";
  x.workload.warn_signal = 10;
  x.workload.warn_time_s = 90;
  x.workload.warn_batch_only = true;
  x.workload.warn_reservation = true;
  x.workload.allocation = true;
  x.workload.cyclic = true;
  x.workload.priority = 5000;
  x.workload.reservation = "maint_window";
  x.shape.geometry = {2, 4, 0xffff'ffffu};
  x.shape.rotate = false;
  x.shape.conn_type = "mesh";
  x.shape.node_use = "virtual";
  x.cpu_bind = "verbose,mask_cpu:0x3,0xc";
  x.gres = "gpu:tesla:2,nic:1";
  x.constraint = "[rack1|rack2]&gpu*2";
  x.licenses = "fluent:2,ansys";
  x.io = sample_step_io();
  x.submit_host = "login1";
  x.submit_pid = 31337;
  return x;
}

inline msg::step_info sample_step_info() {
  msg::step_info x;
  x.job_id = 77;
  x.step_id = 2;
  x.name = "mpi_hello";
  x.user = "alice";
  x.uid = 1000;
  x.partition = "debug";
  x.start_time = 1700000100;
  x.time_limit_s = 600;
  x.nodelist = "n[1-2]";
  x.node_count = 2;
  x.ntasks = 8;
  x.cpus = 16;
  x.mem_mb = 4000;
  x.array_job_id = 70;
  x.array_task_id = 7;
  x.distribution = "Cyclic";
  x.srun_host = "login1";
  x.srun_pid = 4242;
  x.tres_per_node = "gres:gpu:1";
  return x;
}

inline msg::job_info sample_job_info() {
  msg::job_info x;
  x.job_id = 77;
  x.name = "relax";
  x.user = "alice";
  x.uid = 1001;
  x.partition = "batch";
  x.state = msg::job_state::node_fail;
  x.reason = "NodeFail";
  x.submit_time = 1'700'000'000;
  x.start_time = 1'700'000'010;
  x.end_time = 1'700'000'020;
  x.time_limit_s = 600;
  x.node_count = 3;
  x.nodelist = "node[1-3]";
  x.ntasks = 12;
  x.cpus_per_task = 2;
  x.exit_code = -137;
  x.batch = true;
  x.work_dir = "/home/alice";
  x.command = "/home/alice/job.sh";
  x.stdout_path = "/home/alice/shoal-77.out";
  x.stderr_path = "/home/alice/shoal-77.err";
  x.requeue_count = 2;
  x.priority = 0xffff'ffff'0000ull;
  x.step_count = 5;
  x.requeue = true;
  x.exclude_nodes = "node9";
  x.required_nodes = "node1";
  x.array_job_id = 70;
  x.array_task_id = 7;
  x.array_tasks = "8-1000%50";
  x.dependency = "afterany:69";
  x.begin_time = 1'700'000'005;
  x.mem_per_node_mb = 4'096;
  x.over_subscribe = "YES";
  x.account = "physics";
  x.qos = "high";
  x.comment = "run 7 of the sweep";
  x.mail_type = "BEGIN,END";
  x.mail_user = "alice@example.org";
  x.ntasks_per_node = 2;
  x.min_cpus = 4;
  x.exit_signal = 15;
  x.tres_per_node = "gres:gpu:2";
  x.features = "gpu&ib";
  x.usage.user_cpu_us = 5'000'000;
  x.usage.system_cpu_us = 12'345;
  x.usage.max_rss_bytes = 1ull << 33;
  x.usage.max_rss_node = "node3";
  x.usage.max_rss_task = 2;
  x.usage.ave_rss_bytes = 1ull << 30;
  x.usage.max_vsize_bytes = 1ull << 41;
  x.usage.max_vsize_node = "node4";
  x.usage.read_bytes = 512;
  x.usage.written_bytes = 1024;
  x.usage.samples = 9;
  x.usage.tasks = 8;
  x.usage.min_cpu_us = 600'000;
  x.usage.min_cpu_node = "node5";
  x.usage.min_cpu_task = 6;
  x.licenses = "fluent:2,ansys:1";
  x.reservation = "workshop";
  x.suspend_time = 1'700'000'500;
  x.suspended_secs = 45;
  x.preempt_time = 1'700'000'600;
  x.secs_pre_suspend = 120;
  return x;
}

inline msg::launch_request sample_launch_request() {
  msg::launch_request x;
  x.job_id = 77;
  x.step_id = msg::batch_step_id;
  x.user = "alice";
  x.uid = 1001;
  x.gid = 100;
  x.argv = {"hostname", "-s"};
  x.env = {"A=1", "B=2"};
  x.cwd = "/tmp";
  x.nodelist = "node[1-3]";
  x.node_index = 2;
  x.node_count = 3;
  x.ntasks = 7;
  x.ranks = {4, 5, 6};
  x.cpus_per_task = 4;
  x.batch = true;
  x.script = "#!/bin/sh\n";
  x.stdout_path = "/tmp/o";
  x.stderr_path = "/tmp/e";
  x.switch_data = {0x00, 0xff, 0x7f, 0x80, 0x01};
  x.job_nodelist = "node[1-4]";
  x.job_name = "relax";
  x.partition = "batch";
  x.job_node_count = 4;
  x.cpu_bind = "quiet,cores";
  x.job_cpus = {0, 3, 4294967295u};
  x.mem_limit_mb = 1ull << 40;
  x.credential = "MUNGE:AwQDAACm3IN+launch:";
  x.job_ntasks = 12;
  x.cpus_per_task_set = true;
  x.open_mode = "truncate";
  x.gres = {{7, "gpu", {1, 3}}, {0, "nic", {}}};
  x.io = sample_step_io();
  x.node_aliases = "ec0:10.0.0.8:foo,ec2:10.0.0.9:bar";
  x.rank_nodes = {0, 0, 1, 4294967295u};
  x.pmi_timeout_s = 300;
  return x;
}

inline msg::task_output sample_task_output() {
  msg::task_output x;
  x.job_id = 77;
  x.step_id = 3;
  x.rank = -1;
  x.stream = msg::stream_kind::err;
  x.data = std::string{"line 1\n\0\xff binary", 17};
  x.node_name = "node2";
  return x;
}

inline msg::step_usage sample_step_usage() {
  msg::step_usage x;
  x.user_cpu_us = 2'000'123;
  x.system_cpu_us = 45'678;
  x.max_rss_bytes = 209'715'200;
  x.max_rss_node = "node2";
  x.max_rss_task = 3;
  x.ave_rss_bytes = 104'857'600;
  x.max_vsize_bytes = 1ull << 40;
  x.max_vsize_node = "node1";
  x.read_bytes = 4096;
  x.written_bytes = 10'485'760;
  x.samples = 7;
  x.tasks = 4;
  x.min_cpu_us = 400'000;
  x.min_cpu_node = "node1";
  x.min_cpu_task = 2;
  return x;
}

inline msg::step_exit sample_step_exit() {
  msg::step_exit x;
  x.job_id = 77;
  x.step_id = 3;
  x.node_name = "node2";
  x.tasks = {{0, 0, 9}, {1, 255, 0}, {4294967295u, -1, -2}};
  x.launch_error = "execve: No such file or directory";
  x.out_of_memory = true;
  x.usage = sample_step_usage();
  x.prolog_failed = true;
  return x;
}

inline msg::job_event sample_job_event() {
  msg::job_event x;
  x.job_id = 77;
  x.step_id = 1;
  x.kind = "ended";
  x.state = msg::job_state::timeout;
  x.nodelist = "node[1-2]";
  x.text = "DUE TO TIME LIMIT";
  x.exit_code = 143;
  x.node_count = 2;
  return x;
}

inline msg::pending_detail sample_pending_detail() {
  msg::pending_detail x;
  x.job_id = 0x1'0000'0001ull;
  x.reason = "Priority";
  x.expected_start = 1'700'000'600;
  x.priority = 12'345;
  x.age_factor = 1'000;
  x.size_factor = 200;
  x.partition_factor = 10'000;
  x.nice = -5;
  x.fairshare_factor = 2'500;
  x.qos_factor = 300;
  return x;
}

inline msg::job_control sample_job_control() {
  msg::job_control x;
  x.op = "uhold";
  x.jobs = {"12", "13_4", "14_[1-3]"};
  x.uid = 1001;
  return x;
}

inline msg::job_update sample_job_update() {
  msg::job_update x;
  x.jobs = {"12", "13_4"};
  x.settings = {"TimeLimit=30", "Partition=debug", "StartTime=now+1hour"};
  x.uid = 1001;
  x.begin_time = 1'800'000'000;
  return x;
}

inline msg::node_update sample_node_update() {
  msg::node_update x;
  x.nodes = "node[1-4]";
  x.state = "DRAIN";
  x.reason = "maintenance";
  x.user = "root";
  x.address = "10.1.2.3";
  x.hostname = "ec2-10-1-2-3";
  x.reboot = "REBOOT_ASAP";
  x.next_state = "DOWN";
  return x;
}

inline msg::topology_view sample_topology_view() {
  msg::topology_view x;
  x.select_type = "select/torus3d";
  x.dims = {8, 4, 4};
  x.nodes = {{"bgl000", msg::node_state::allocated, 0x1'0000'0007ull, {0, 0, 0}},
             {"bgl001", msg::node_state::drained, 0, {0, 0, 1}}};
  x.allocations = {{0x1'0000'0007ull, "bgl[000x011]", 4, {7, 0, 0}, {2, 2, 1}, "mesh", "virtual"}};
  return x;
}

inline msg::job_record sample_job_record() {
  msg::job_record x;
  x.request = sample_job_request();
  x.info = sample_job_info();
  x.life_state = 6;
  x.life_reason = "NonZeroExitCode";
  x.life_ending = 8;
  x.requeue_reason = "NodeFail";
  x.nodes = {"n1", "n2"};
  x.cpus = {4, 2};
  x.main_step = 0xfffffffe;
  x.next_step = 3;
  x.steps = {{1,
              {0, 1},
              {"n2"},
              137,
              "node n1 failed",
              true,
              9,
              sample_step_usage(),
              1700000000,
              0,
              8,
              "n[1-2]",
              sample_step_info()}};
  x.life_warned = true;
  x.life_lent = true;
  x.gres = {{1, "gpu", {0, 1}}};
  x.done_steps = {{0xfffffffe,
                   {0},
                   {},
                   0,
                   "",
                   false,
                   0,
                   sample_step_usage(),
                   1700000000,
                   1700000060,
                   1,
                   "n1",
                   {}}};
  return x;
}

inline msg::array_record sample_array_record() {
  msg::array_record x;
  x.task_template = sample_job_request();
  x.info = sample_job_info();
  x.spec = "1-100%4";
  x.pending = "7-100";
  return x;
}

inline msg::node_record sample_node_record() {
  msg::node_record x;
  x.name = "n7";
  x.drain = true;
  x.down = true;
  x.reason = "bad fan";
  x.reason_time = 1700000000;
  x.reason_user = "root";
  x.address = "10.1.2.7";
  x.hostname = "ec2-10-1-2-7";
  return x;
}

inline msg::power_record sample_power_record() {
  msg::power_record x;
  x.name = "cloud7";
  x.state = msg::power_state::powering_down;
  x.down_asked = true;
  x.deadline = 1700000060;
  x.program_run = true;
  x.since = 1700000030;
  return x;
}

inline msg::controller_record sample_controller_record() {
  msg::controller_record x;
  x.next_job_id = 0x1'0000'0001ull;
  return x;
}

inline msg::node_report sample_node_report() {
  msg::node_report x;
  x.running = {{77, 0xfffffffe}, {0x1'0000'0002ull, 3}};
  x.ended = {sample_step_exit()};
  return x;
}

inline msg::controller_status sample_controller_status() {
  msg::controller_status x;
  x.in_control = true;
  x.reclaiming = true;
  return x;
}

inline msg::collector_list sample_collector_list() {
  msg::collector_list x;
  x.nodes = {"node3", "node4"};
  x.version = 0x1'0000'0007ull;
  x.interval_ms = -30000;
  return x;
}

inline msg::collector_report sample_collector_report() {
  msg::collector_report x;
  x.collector = "node1";
  x.version = 0x1'0000'0007ull;
  x.round = 0x2'0000'0009ull;
  x.answered = 4294967295u;
  x.silent = {"node4", ""};
  x.round_ms = -45000;
  x.returned = {"node3"};
  x.full = true;
  return x;
}

inline msg::state_group sample_state_group() {
  msg::state_group x;
  x.state = msg::node_state::drained;
  x.count = 4294967295u;
  x.nodes = "node[1-3,7]";
  x.maint = true;
  return x;
}

inline msg::partition_summary sample_partition_summary() {
  msg::partition_summary x;
  x.partition = sample_partition_info();
  x.groups = {sample_state_group(), {}};
  return x;
}

inline msg::share_info sample_share_info() {
  msg::share_info x;
  x.account = "physics";
  x.user = "alice";
  x.parent = "physics";
  x.depth = 2;
  x.raw_shares = 10;
  x.norm_shares = 0.5;
  x.raw_usage = 3600.5;
  x.norm_usage = 0.75;
  x.effective_usage = 0.8;
  x.fairshare = 0.33;
  return x;
}

inline msg::usage_record sample_usage_record() {
  msg::usage_record x;
  x.entries = {{"alice", "physics", 1234.5}, {}};
  x.at = 1'700'000'000;
  x.reset_at = 1'699'000'000;
  return x;
}

inline msg::collector_map_record sample_collector_map_record() {
  msg::collector_map_record x;
  x.collectors = {"node1", "node9"};
  x.nodes = {"node[2-8]", ""};
  return x;
}

inline msg::collector_info sample_collector_info() {
  msg::collector_info x;
  x.name = "node1";
  x.state = "UP";
  x.nodes = 4294967295u;
  x.last_report = -1;
  x.round_ms = 45000;
  x.reports = 0x3'0000'0001ull;
  return x;
}

inline msg::stepd_core sample_stepd_core() {
  msg::stepd_core x;
  x.socket = 1;
  x.numa_node = 3;
  x.pus = {2, 4294967295u};
  return x;
}

inline msg::stepd_setup sample_stepd_setup() {
  msg::stepd_setup x;
  x.request = sample_launch_request();
  x.node_name = "node2";
  x.socket_path = "/var/spool/shoald/node2/job77.stepbatch.sock";
  x.cores = {sample_stepd_core(), {0, 0, {0, 1}}};
  x.task_prolog = "/etc/shoal/task_prolog";
  x.task_epilog = "/etc/shoal/task_epilog";
  x.script_timeout_s = 4294967295u;
  return x;
}

inline msg::stepd_hello sample_stepd_hello() {
  msg::stepd_hello x;
  x.request = sample_launch_request();
  x.tasks_running = true;
  x.pid = -2;
  x.node_name = "node2";
  return x;
}

inline msg::exchange_blob sample_exchange_blob() {
  msg::exchange_blob x;
  x.node = 4294967295u;
  x.data = std::string("\0kvs", 4);
  return x;
}

inline msg::step_exchange sample_step_exchange() {
  msg::step_exchange x;
  x.job_id = 77;
  x.step_id = 3;
  x.round = 4294967295u;
  x.blobs = {{0, std::string("\0\xff", 2)}, {7, "kvs"}};
  x.error = "PMIxTimeout (300 s) passed";
  return x;
}

inline msg::stepd_frame sample_stepd_frame() {
  msg::stepd_frame x;
  x.kind = 255;
  x.hello = sample_stepd_hello();
  x.output = sample_task_output();
  x.exit = sample_step_exit();
  x.signo = -15;
  x.input = sample_task_input();
  x.exchange = sample_step_exchange();
  x.usage = sample_step_usage();
  return x;
}

inline msg::partition_edit sample_partition_edit() {
  msg::partition_edit x;
  x.action = "update";
  x.name = "gpu";
  x.settings = {"State=DOWN", "Nodes=", "MaxTime=1-00:00:00"};
  x.user = "root";
  return x;
}

inline msg::partition_edits_record sample_partition_edits_record() {
  msg::partition_edits_record x;
  x.edits = {sample_partition_edit(), {}};
  return x;
}

inline msg::reservation_edit sample_reservation_edit() {
  msg::reservation_edit x;
  x.action = "update";
  x.name = "maint";
  x.settings = {"StartTime=now+1hour", "Duration=60", "Flags=MAINT,IGNORE_JOBS"};
  x.user = "root";
  return x;
}

inline msg::reservation_info sample_reservation_info() {
  msg::reservation_info x;
  x.name = "root_1";
  x.start_time = 1'800'000'000;
  x.end_time = 1'800'003'600;
  x.nodes = "n[1-4]";
  x.node_count = 4;
  x.core_count = 16;
  x.partition = "debug";
  x.flags = "MAINT,SPEC_NODES";
  x.users = "alice,bob";
  x.accounts = "physics";
  x.active = true;
  return x;
}

inline msg::reservations_record sample_reservations_record() {
  msg::reservations_record x;
  x.reservations = {sample_reservation_info(), {}};
  return x;
}

inline msg::client_request sample_client_request() {
  msg::client_request x;
  x.op = 254;
  x.credential = "MUNGE:AwQDAAA";
  x.include_finished = true;
  x.job_id = 77;
  x.target = "12_[1-5]";
  x.signo = -9;
  x.uid = 4242;
  x.text = "debug3";
  x.user = "alice";
  x.submission = sample_job_request();
  x.control = sample_job_control();
  x.update = sample_node_update();
  x.partition_change = sample_partition_edit();
  x.exit_code = 143;
  x.step_id = 3;
  x.input = sample_task_input();
  x.query.start = 1700000000;
  x.query.end = 1700086400;
  x.query.states = {"COMPLETED", "FAILED"};
  x.query.jobs = {"12", "13_4"};
  x.query.uids = {0, 1000};
  x.query.accounts = {"physics"};
  x.query.partitions = {"debug"};
  x.query.nodes = {"n[1-4]"};
  x.query.names = {"burner"};
  x.query.with_steps = false;
  x.query.limit = 100;
  x.acctmgr.action = "modify";
  x.acctmgr.entity = "user";
  x.acctmgr.names = {"alice"};
  x.acctmgr.conditions = {"account=physics"};
  x.acctmgr.settings = {"maxjobs=4", "qos+=high"};
  x.job_change = sample_job_update();
  x.reservation_change = sample_reservation_edit();
  x.job_fields = 0x5'0000'0021ull;
  x.filter.states = {"RUNNING", "PENDING"};
  x.filter.users = {"alice"};
  x.filter.partitions = {"debug", "batch"};
  x.lifespan = 600;
  return x;
}

inline msg::start_estimate sample_start_estimate() {
  msg::start_estimate x;
  x.job_id = 78;
  x.start_time = 1'800'000'000;
  x.nodelist = "n[1-2]";
  x.node_count = 2;
  x.cpus = 8;
  x.partition = "debug";
  return x;
}

inline msg::client_reply sample_client_reply() {
  msg::client_reply x;
  x.error_code = 253;
  x.error_text = "Access/permission denied";
  x.jobs = {sample_job_info(), sample_job_info()};
  x.nodes = {sample_node_info()};
  x.partitions = {sample_partition_info()};
  x.pending = {sample_pending_detail()};
  x.map = sample_topology_view();
  x.status = sample_controller_status();
  x.text = "PartitionName=debug";
  x.stream = 252;
  x.output = sample_task_output();
  x.exited = sample_step_exit();
  x.event = sample_job_event();
  x.collectors = {sample_collector_info()};
  x.summary = {sample_partition_summary()};
  x.estimate = sample_start_estimate();
  msg::accounted_job stored;
  stored.info = sample_job_info();
  stored.derived_exit_code = 2;
  stored.eligible_time = 1700000001;
  stored.req_tres = "cpu=4,mem=2000M,node=1";
  stored.alloc_tres = "cpu=4,mem=2000M,node=1";
  stored.alloc_cpus = 4;
  stored.steps = {{0xfffffffbu, "batch", "n1", 1, 1, "COMPLETED", 2, 0, 1700000002, 1700000060,
                   sample_step_usage()}};
  x.accounted = {stored};
  msg::association assoc;
  assoc.cluster = "alpha";
  assoc.account = "physics";
  assoc.user = "alice";
  assoc.partition = "gpu";
  assoc.parent = "root";
  assoc.shares = 7;
  assoc.priority = 3;
  assoc.grp_jobs = 10;
  assoc.grp_submit = 20;
  assoc.grp_tres = "cpu=8";
  assoc.grp_wall_min = 600;
  assoc.max_jobs = 4;
  assoc.max_submit = 8;
  assoc.max_tres = "cpu=2,node=1";
  assoc.max_wall_min = 60;
  assoc.qos = {"high", "normal"};
  assoc.default_qos = "normal";
  msg::qos_info qos;
  qos.name = "high";
  qos.description = "high priority";
  qos.priority = 100;
  qos.flags = "DenyOnLimit";
  qos.usage_factor = 2.5;
  qos.grace_time_s = 30;
  qos.grp_jobs = 11;
  qos.grp_submit = 21;
  qos.grp_tres = "cpu=16";
  qos.grp_wall_min = 700;
  qos.max_tres = "cpu=4";
  qos.max_wall_min = 120;
  qos.max_tres_per_user = "cpu=8";
  qos.max_jobs_per_user = 5;
  qos.max_submit_per_user = 9;
  qos.max_tres_per_account = "cpu=12";
  qos.max_jobs_per_account = 6;
  qos.max_submit_per_account = 12;
  qos.min_tres = "cpu=1";
  qos.preempt = {"scavenger"};
  qos.preempt_mode = "REQUEUE";
  x.associations.clusters = {{"alpha", "ctl1", 6817}};
  x.associations.accounts = {{"physics", "Physics dept", "science"}};
  x.associations.users = {{"alice", "physics", "Operator"}};
  x.associations.associations = {assoc};
  x.associations.qos = {qos};
  x.steps = {sample_step_info(), {}};
  x.shares = {sample_share_info(), {}};
  x.reservations = {sample_reservation_info(), {}};
  return x;
}

}  // namespace shoal::test

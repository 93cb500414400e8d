#include "process/step_usage.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

namespace shoal::process {

namespace {

/// The whole of a small /proc or cgroup file; "" when it cannot be read (gone, not permitted).
std::string read_small_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buf[4096];
  for (;;) {
    auto n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

uint64_t to_u64(const std::string& word) {
  return std::strtoull(word.c_str(), nullptr, 10);
}

/// The number after `key` on the line that starts with it ("VmRSS:\t 1234 kB"), times `unit`.
uint64_t keyed_value(const std::string& text, const std::string& key, uint64_t unit) {
  size_t at = 0;
  while ((at = text.find(key, at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n')
      return std::strtoull(text.c_str() + at + key.size(), nullptr, 10) * unit;
    at += key.size();
  }
  return 0;
}

uint64_t ticks_to_us(uint64_t ticks) {
  static const auto per_second = static_cast<uint64_t>(::sysconf(_SC_CLK_TCK));
  return per_second == 0 ? 0 : ticks * 1'000'000 / per_second;
}

uint64_t timeval_us(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1'000'000 + static_cast<uint64_t>(tv.tv_usec);
}

}  // namespace

// -- parsing ------------------------------------------------------------------

std::optional<proc_stat_fields> parse_proc_stat(const std::string& text) {
  // Fields are counted after the command name, which may hold spaces and parentheses.
  auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return std::nullopt;
  std::istringstream in{text.substr(close + 2)};
  std::vector<std::string> fields;
  for (std::string word; fields.size() < 15 && in >> word;) fields.push_back(word);
  // From field 3 (state): 5 pgrp, 14 utime, 15 stime, 16 cutime, 17 cstime (proc(5)).
  if (fields.size() < 15) return std::nullopt;
  proc_stat_fields out;
  out.process_group = static_cast<pid_t>(std::strtol(fields[2].c_str(), nullptr, 10));
  out.user_ticks = to_u64(fields[11]);
  out.system_ticks = to_u64(fields[12]);
  out.children_user_ticks = to_u64(fields[13]);
  out.children_system_ticks = to_u64(fields[14]);
  return out;
}

proc_status_fields parse_proc_status(const std::string& text) {
  proc_status_fields out;
  out.rss_bytes = keyed_value(text, "VmRSS:", 1024);
  out.peak_rss_bytes = keyed_value(text, "VmHWM:", 1024);
  out.vsize_bytes = keyed_value(text, "VmSize:", 1024);
  out.peak_vsize_bytes = keyed_value(text, "VmPeak:", 1024);
  return out;
}

io_fields parse_proc_io(const std::string& text) {
  io_fields out;
  out.read_bytes = keyed_value(text, "read_bytes:", 1);
  out.written_bytes = keyed_value(text, "write_bytes:", 1);
  return out;
}

io_fields parse_cgroup_io_stat(const std::string& text) {
  // One line per device: "8:0 rbytes=1459200 wbytes=314773504 rios=192 wios=353 ...".
  io_fields out;
  std::istringstream in{text};
  for (std::string word; in >> word;) {
    if (word.compare(0, 7, "rbytes=") == 0) out.read_bytes += to_u64(word.substr(7));
    if (word.compare(0, 7, "wbytes=") == 0) out.written_bytes += to_u64(word.substr(7));
  }
  return out;
}

std::optional<cgroup_cpu_fields> parse_cgroup_cpu_stat(const std::string& text) {
  cgroup_cpu_fields out;
  bool user = false;
  bool system = false;
  std::istringstream in{text};
  for (std::string name, value; in >> name >> value;) {
    if (name == "user_usec") {
      out.user_us = to_u64(value);
      user = true;
    } else if (name == "system_usec") {
      out.system_us = to_u64(value);
      system = true;
    }
  }
  if (!user || !system) return std::nullopt;
  return out;
}

// -- sampling -----------------------------------------------------------------

void step_usage_sampler::add_task(pid_t process_group, uint32_t rank) {
  task_record t;
  t.process_group = process_group;
  t.rank = rank;
  tasks_.push_back(t);
}

void step_usage_sampler::use_cgroup(std::string dir, bool v2) {
  cgroup_dir_ = std::move(dir);
  cgroup_v2_ = v2;
}

void step_usage_sampler::add_reaped(uint32_t rank, const rusage& usage) {
  auto t = std::find_if(tasks_.begin(), tasks_.end(),
                        [&](const task_record& r) { return r.rank == rank && !r.reaped; });
  if (t == tasks_.end()) return;
  t->reaped = true;
  reaped_user_us_ += timeval_us(usage.ru_utime);
  reaped_system_us_ += timeval_us(usage.ru_stime);
  // The kernel counts storage I/O in 512-byte blocks here (task_io_get_inblock).
  reaped_io_.read_bytes += static_cast<uint64_t>(usage.ru_inblock) * 512;
  reaped_io_.written_bytes += static_cast<uint64_t>(usage.ru_oublock) * 512;
  raise_peak_rss(static_cast<uint64_t>(usage.ru_maxrss) * 1024, static_cast<int32_t>(t->rank));
}

int32_t step_usage_sampler::task_index_of_group(pid_t process_group) const {
  for (size_t i = 0; i < tasks_.size(); ++i)
    if (tasks_[i].process_group == process_group && !tasks_[i].gone) return static_cast<int32_t>(i);
  return -1;
}

step_usage_sampler::live_totals step_usage_sampler::scan_proc() {
  live_totals live;
  live.rss_by_task.assign(tasks_.size(), 0);
  live.processes_by_task.assign(tasks_.size(), 0);
  if (std::all_of(tasks_.begin(), tasks_.end(), [](const task_record& t) { return t.gone; }))
    return live;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return live;
  uint64_t peak_rss = 0;
  int32_t peak_rss_rank = -1;
  while (auto* entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::string dir = std::string{"/proc/"} + entry->d_name;
    auto stat = parse_proc_stat(read_small_file(dir + "/stat"));
    if (!stat) continue;
    auto index = task_index_of_group(stat->process_group);
    if (index < 0) continue;
    auto status = parse_proc_status(read_small_file(dir + "/status"));
    auto io = parse_proc_io(read_small_file(dir + "/io"));
    live.user_ticks += stat->user_ticks + stat->children_user_ticks;
    live.system_ticks += stat->system_ticks + stat->children_system_ticks;
    live.rss_bytes += status.rss_bytes;
    live.vsize_bytes += status.vsize_bytes;
    live.io.read_bytes += io.read_bytes;
    live.io.written_bytes += io.written_bytes;
    ++live.processes;
    auto i = static_cast<size_t>(index);
    live.rss_by_task[i] += status.rss_bytes;
    ++live.processes_by_task[i];
    figures_.max_vsize_bytes = std::max(figures_.max_vsize_bytes, status.peak_vsize_bytes);
    if (status.peak_rss_bytes > peak_rss) {
      peak_rss = status.peak_rss_bytes;
      peak_rss_rank = static_cast<int32_t>(tasks_[i].rank);
    }
  }
  ::closedir(proc);
  raise_peak_rss(peak_rss, peak_rss_rank);
  return live;
}

void step_usage_sampler::raise_peak_rss(uint64_t bytes, int32_t rank) {
  if (bytes <= figures_.max_rss_bytes) return;
  figures_.max_rss_bytes = bytes;
  figures_.max_rss_rank = rank;
}

void step_usage_sampler::count_cpu_and_io(const live_totals& live) {
  uint64_t user = reaped_user_us_ + ticks_to_us(live.user_ticks);
  uint64_t system = reaped_system_us_ + ticks_to_us(live.system_ticks);
  io_fields io{reaped_io_.read_bytes + live.io.read_bytes,
               reaped_io_.written_bytes + live.io.written_bytes};
  if (!cgroup_dir_.empty() && cgroup_v2_) {
    // The cgroup saw every process of the step, reparented or not: its time is the whole.
    if (auto cpu = parse_cgroup_cpu_stat(read_small_file(cgroup_dir_ + "/cpu.stat"))) {
      user = cpu->user_us;
      system = cpu->system_us;
    }
    // io.stat exists only where the io controller is enabled, and counts block devices only.
    auto cgroup_io = parse_cgroup_io_stat(read_small_file(cgroup_dir_ + "/io.stat"));
    io.read_bytes = std::max(io.read_bytes, cgroup_io.read_bytes);
    io.written_bytes = std::max(io.written_bytes, cgroup_io.written_bytes);
  }
  figures_.user_cpu_us = std::max(figures_.user_cpu_us, user);
  figures_.system_cpu_us = std::max(figures_.system_cpu_us, system);
  figures_.read_bytes = std::max(figures_.read_bytes, io.read_bytes);
  figures_.written_bytes = std::max(figures_.written_bytes, io.written_bytes);
}

void step_usage_sampler::count_memory(const live_totals& live) {
  figures_.current_rss_bytes = live.rss_bytes;
  figures_.max_vsize_bytes = std::max(figures_.max_vsize_bytes, live.vsize_bytes);
  if (live.processes > 0) {
    ++figures_.sample_count;
    sampled_rss_sum_ += live.rss_bytes;
    figures_.ave_rss_bytes = sampled_rss_sum_ / figures_.sample_count;
    auto most = std::max_element(live.rss_by_task.begin(), live.rss_by_task.end());
    raise_peak_rss(
        live.rss_bytes,
        static_cast<int32_t>(tasks_[static_cast<size_t>(most - live.rss_by_task.begin())].rank));
  }
  if (cgroup_dir_.empty()) return;
  auto peak_file = cgroup_dir_ + (cgroup_v2_ ? "/memory.peak" : "/memory.max_usage_in_bytes");
  auto text = read_small_file(peak_file);
  if (text.empty()) return;
  // Not one task's: the rank stays that of the highest sample.
  auto peak = to_u64(text);
  if (peak > figures_.max_rss_bytes) figures_.max_rss_bytes = peak;
}

void step_usage_sampler::sample(clock_type::time_point now) {
  next_sample_at_ = now + interval_;
  auto live = scan_proc();
  count_cpu_and_io(live);
  count_memory(live);
  for (size_t i = 0; i < tasks_.size(); ++i)
    if (tasks_[i].reaped && live.processes_by_task[i] == 0) tasks_[i].gone = true;
}

const usage_figures& step_usage_sampler::final_figures() {
  sample(clock_type::now());
  return figures_;
}

}  // namespace shoal::process

#include "process/memory_guard.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <utility>

namespace shoal::process {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in{text};
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

bool has_word(const std::string& list, const std::string& word, char sep) {
  auto words = split(list, sep);
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::string read_text(const std::string& path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Writes `value` to a cgroup control file; 0 or errno.
int write_control(const std::string& path, const std::string& value) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  auto n = ::write(fd, value.data(), value.size());
  int err = n == static_cast<ssize_t>(value.size()) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return err;
}

/// One cgroup mount: its root within the hierarchy and where it is mounted.
struct cgroup_mount {
  std::string root;
  std::string mount_point;
};

/// The cgroup2 mount (`v2`), or the v1 mount carrying the memory controller.
bool find_mount(bool v2, cgroup_mount& out) {
  std::ifstream in{"/proc/self/mountinfo"};
  for (std::string line; std::getline(in, line);) {
    auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    auto before = split(line.substr(0, dash), ' ');
    auto after = split(line.substr(dash + 3), ' ');
    if (before.size() < 5 || after.size() < 3) continue;
    bool match =
        v2 ? after[0] == "cgroup2" : after[0] == "cgroup" && has_word(after[2], "memory", ',');
    if (!match) continue;
    out.root = before[3];
    out.mount_point = before[4];
    return true;
  }
  return false;
}

/// Our cgroup's directory under `mount`, given its path in the hierarchy.
std::string directory_of(const cgroup_mount& mount, const std::string& path) {
  auto rel = path;
  if (mount.root != "/" && rel.compare(0, mount.root.size(), mount.root) == 0)
    rel = rel.substr(mount.root.size());
  if (rel == "/") rel.clear();
  return mount.mount_point + rel;
}

/// A counter line "KEY N" of a cgroup file (memory.events, memory.oom_control).
uint64_t counter_in(const std::string& path, const std::string& key) {
  std::ifstream in{path};
  for (std::string name, value; in >> name >> value;)
    if (name == key) return std::strtoull(value.c_str(), nullptr, 10);
  return 0;
}

}  // namespace

const char* to_string(memory_enforcement how) {
  switch (how) {
    case memory_enforcement::none:
      return "none";
    case memory_enforcement::cgroup_v2:
      return "cgroup v2";
    case memory_enforcement::cgroup_v1:
      return "cgroup v1";
    case memory_enforcement::sampling:
      return "sampling";
  }
  return "none";
}

memory_cgroup_root find_memory_cgroup_root() {
  std::string v2_path;
  std::string v1_path;
  std::ifstream in{"/proc/self/cgroup"};
  for (std::string line; std::getline(in, line);) {
    auto first = line.find(':');
    auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    auto controllers = line.substr(first + 1, second - first - 1);
    auto path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) v2_path = path;
    if (has_word(controllers, "memory", ',')) v1_path = path;
  }
  cgroup_mount mount;
  // v2 only where our cgroup already hands the memory controller to its children: enabling it
  // ourselves would break the "no processes in inner cgroups" rule or reconfigure the host.
  if (!v2_path.empty() && find_mount(true, mount)) {
    auto dir = directory_of(mount, v2_path);
    std::istringstream enabled{read_text(dir + "/cgroup.subtree_control")};
    bool delegated = false;
    for (std::string word; enabled >> word;) delegated = delegated || word == "memory";
    if (delegated && ::access(dir.c_str(), W_OK) == 0) return {memory_enforcement::cgroup_v2, dir};
  }
  if (!v1_path.empty() && find_mount(false, mount)) {
    auto dir = directory_of(mount, v1_path);
    if (::access((dir + "/memory.limit_in_bytes").c_str(), F_OK) == 0 &&
        ::access(dir.c_str(), W_OK) == 0)
      return {memory_enforcement::cgroup_v1, dir};
  }
  return {memory_enforcement::sampling, {}};
}

uint64_t resident_bytes_of_groups(const std::vector<pid_t>& process_groups) {
  if (process_groups.empty()) return 0;
  static const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  uint64_t total = 0;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return 0;
  while (auto* entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    auto text = read_text(std::string{"/proc/"} + entry->d_name + "/stat");
    // Fields are counted after the command name, which may hold spaces and parentheses.
    auto close = text.rfind(')');
    if (close == std::string::npos || close + 2 >= text.size()) continue;
    auto fields = split(text.substr(close + 2), ' ');
    if (fields.size() < 22) continue;
    auto pgrp = static_cast<pid_t>(std::strtol(fields[2].c_str(), nullptr, 10));
    if (std::find(process_groups.begin(), process_groups.end(), pgrp) == process_groups.end())
      continue;
    total += std::strtoull(fields[21].c_str(), nullptr, 10) * page;
  }
  ::closedir(proc);
  return total;
}

memory_guard::memory_guard(const memory_cgroup_root& root, const std::string& name,
                           uint64_t limit_mb) {
  if (limit_mb == 0) return;
  limit_bytes_ = limit_mb * 1024 * 1024;
  how_ = memory_enforcement::sampling;
  if (root.kind == memory_enforcement::sampling || root.dir.empty()) return;
  auto dir = root.dir + "/" + name;
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    problem_ = "mkdir(" + dir + "): " + std::strerror(errno);
    return;
  }
  dir_ = dir;
  auto bytes = std::to_string(limit_bytes_);
  bool v2 = root.kind == memory_enforcement::cgroup_v2;
  auto limit_file = dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes");
  int err = write_control(limit_file, bytes);
  // --mem means memory, not memory plus swap: where swap is accounted, none beyond the limit.
  if (err == 0 && v2 && ::access((dir + "/memory.swap.max").c_str(), F_OK) == 0)
    err = write_control(dir + "/memory.swap.max", "0");
  if (err == 0 && !v2 && ::access((dir + "/memory.memsw.limit_in_bytes").c_str(), F_OK) == 0)
    err = write_control(dir + "/memory.memsw.limit_in_bytes", bytes);
  if (err == 0) {
    procs_fd_ = ::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (procs_fd_ < 0) err = errno;
  }
  if (err != 0) {
    problem_ = "cannot set a memory limit in " + dir + ": " + std::strerror(err);
    release();
    how_ = memory_enforcement::sampling;
    return;
  }
  how_ = root.kind;
  kills_at_start_ = oom_kills();
}

memory_guard::memory_guard(memory_guard&& other) noexcept {
  *this = std::move(other);
}

memory_guard& memory_guard::operator=(memory_guard&& other) noexcept {
  if (this != &other) {
    release();
    how_ = other.how_;
    limit_bytes_ = other.limit_bytes_;
    dir_ = std::move(other.dir_);
    procs_fd_ = other.procs_fd_;
    kills_at_start_ = other.kills_at_start_;
    over_ = other.over_;
    problem_ = std::move(other.problem_);
    other.dir_.clear();
    other.procs_fd_ = -1;
    other.how_ = memory_enforcement::none;
  }
  return *this;
}

memory_guard::~memory_guard() {
  release();
}

void memory_guard::release() {
  if (procs_fd_ >= 0) ::close(procs_fd_);
  procs_fd_ = -1;
  if (dir_.empty()) return;
  // The step's last processes may still be on their way out after SIGKILL: the kernel refuses
  // to remove a cgroup while any is attached.
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::rmdir(dir_.c_str()) == 0 || errno == ENOENT) break;
    if (errno != EBUSY) break;
    struct timespec pause = {0, 2 * 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
  dir_.clear();
}

uint64_t memory_guard::oom_kills() const {
  if (dir_.empty()) return 0;
  return how_ == memory_enforcement::cgroup_v2
             ? counter_in(dir_ + "/memory.events", "oom_kill")
             : counter_in(dir_ + "/memory.oom_control", "oom_kill");
}

bool memory_guard::exceeded(const std::vector<pid_t>& process_groups) {
  if (over_) return true;
  switch (how_) {
    case memory_enforcement::none:
      return false;
    case memory_enforcement::cgroup_v1:
    case memory_enforcement::cgroup_v2:
      over_ = oom_kills() > kills_at_start_;
      break;
    case memory_enforcement::sampling:
      over_ = resident_bytes_of_groups(process_groups) > limit_bytes_;
      break;
  }
  return over_;
}

}  // namespace shoal::process

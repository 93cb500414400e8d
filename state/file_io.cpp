#include "state/file_io.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "messages/errc.hpp"

namespace shoal::state {
namespace {

/// The generation in "PREFIX.DIGITS", or false.
bool parse_generation(const std::string& name, const std::string& prefix, uint64_t& out) {
  if (name.size() <= prefix.size() + 1 || name.compare(0, prefix.size(), prefix) != 0 ||
      name[prefix.size()] != '.')
    return false;
  uint64_t v = 0;
  for (size_t i = prefix.size() + 1; i < name.size(); ++i) {
    char c = name[i];
    if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  out = v;
  return true;
}

}  // namespace

file_handle& file_handle::operator=(file_handle&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

void file_handle::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

shoal::error os_error(const char* call, const std::string& path, int err) {
  return shoal::error(errc::system_error,
                      std::string{call} + "(" + path + "): " + std::strerror(err));
}

std::string snapshot_name(uint64_t generation) {
  return "snapshot." + std::to_string(generation);
}

std::string journal_name(uint64_t generation) {
  return "journal." + std::to_string(generation);
}

std::string temp_snapshot_name(uint64_t generation) {
  return snapshot_name(generation) + ".tmp";
}

uint64_t directory_listing::newest() const {
  uint64_t n = 0;
  if (!snapshots.empty()) n = snapshots.rbegin()->first;
  if (!journals.empty()) n = std::max(n, journals.rbegin()->first);
  return n;
}

shoal::expected<directory_listing> list_directory(const std::string& dir) {
  directory_listing out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return out;
    return os_error("opendir", dir, errno);
  }
  errno = 0;
  while (auto* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    uint64_t gen = 0;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0)
      out.leftovers.push_back(name);
    else if (parse_generation(name, "snapshot", gen))
      out.snapshots[gen] = true;
    else if (parse_generation(name, "journal", gen))
      out.journals[gen] = true;
  }
  int err = errno;
  ::closedir(d);
  if (err != 0) return os_error("readdir", dir, err);
  return out;
}

shoal::expected<std::vector<uint8_t>> read_file(const std::string& path) {
  file_handle fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (!fd) return os_error("open", path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return os_error("fstat", path, errno);
  std::vector<uint8_t> data(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < data.size()) {
    auto n = ::read(fd.get(), data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_error("read", path, errno);
    if (n == 0) break;  // shrank while we read: what is there is all there is
    got += static_cast<size_t>(n);
  }
  data.resize(got);
  return data;
}

shoal::error write_all(int fd, const void* data, size_t size, const std::string& path) {
  auto p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    auto n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_error("write", path, errno);
    p += n;
    size -= static_cast<size_t>(n);
  }
  return {};
}

shoal::error write_all_at(int fd, const void* data, size_t size, uint64_t offset,
                          const std::string& path) {
  auto p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    auto n = ::pwrite(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_error("pwrite", path, errno);
    p += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<size_t>(n);
  }
  return {};
}

shoal::error sync_directory(const std::string& dir) {
  file_handle fd{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (!fd) return os_error("open", dir, errno);
  if (::fsync(fd.get()) != 0) return os_error("fsync", dir, errno);
  return {};
}

shoal::error make_directories(const std::string& dir) {
  if (dir.empty()) return shoal::error(errc::invalid_config, "empty state save location");
  std::string path;
  size_t at = 0;
  while (at != std::string::npos) {
    auto next = dir.find('/', at + 1);
    path = dir.substr(0, next);
    at = next;
    if (path.empty() || path == "/") continue;
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return os_error("mkdir", path, errno);
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return os_error("stat", dir, errno);
  if (!S_ISDIR(st.st_mode)) return os_error("mkdir", dir, ENOTDIR);
  return {};
}

std::string join(const std::string& dir, const std::string& name) {
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

}  // namespace shoal::state

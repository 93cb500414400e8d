#pragma once

// The few POSIX file operations the store needs, with errors as values naming the call and the
// path ("fdatasync(/var/spool/shoal/journal.3): No space left on device").

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include "messages/errc.hpp"

namespace shoal::state {

/// An open file descriptor, closed when destroyed. Movable, not copyable.
class file_handle {
 public:
  file_handle() = default;
  explicit file_handle(int fd) : fd_(fd) {}
  file_handle(file_handle&& other) noexcept : fd_(other.release()) {}
  file_handle& operator=(file_handle&& other) noexcept;
  file_handle(const file_handle&) = delete;
  file_handle& operator=(const file_handle&) = delete;
  ~file_handle() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();

 private:
  int fd_ = -1;
};

/// errc::system_error "CALL(PATH): strerror(errno)".
shoal::error os_error(const char* call, const std::string& path, int err);

/// "snapshot.12", "journal.12"; the temporary name a snapshot is written under before its rename.
std::string snapshot_name(uint64_t generation);
std::string journal_name(uint64_t generation);
std::string temp_snapshot_name(uint64_t generation);

/// The state files of one directory.
struct directory_listing {
  std::map<uint64_t, bool> snapshots;  ///< generation -> present
  std::map<uint64_t, bool> journals;   ///< generation -> present
  std::vector<std::string> leftovers;  ///< *.tmp names a crash left behind
  /// The highest generation of any snapshot or journal; 0 when there is none.
  uint64_t newest() const;
};

/// Lists `dir`. A missing directory is an empty listing; any other failure an error.
shoal::expected<directory_listing> list_directory(const std::string& dir);

/// The whole content of `path`.
shoal::expected<std::vector<uint8_t>> read_file(const std::string& path);

/// Writes all `size` bytes (retrying short writes and EINTR).
shoal::error write_all(int fd, const void* data, size_t size, const std::string& path);

/// Writes all `size` bytes at `offset` (retrying short writes and EINTR).
shoal::error write_all_at(int fd, const void* data, size_t size, uint64_t offset,
                          const std::string& path);

/// Opens `dir` and fsyncs it, so names created, renamed or removed in it are durable.
shoal::error sync_directory(const std::string& dir);

/// Creates `dir` and its parents as needed (mode 0700 for the ones it creates).
shoal::error make_directories(const std::string& dir);

/// "dir/name".
std::string join(const std::string& dir, const std::string& name);

}  // namespace shoal::state

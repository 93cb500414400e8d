#include "process/stepd_wire.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <vector>

#include "messages/errc.hpp"
#include "process/task_launch.hpp"

namespace shoal::process {

namespace {

constexpr size_t length_size = 4;

uint32_t read_length(const char* p) {
  auto b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

}  // namespace

msg::stepd_frame make_frame(frame_kind kind, int32_t signo) {
  msg::stepd_frame f;
  f.kind = static_cast<uint8_t>(kind);
  f.signo = signo;
  return f;
}

std::string encode_frame(const msg::stepd_frame& frame) {
  auto body = msg::encode(frame);
  auto n = static_cast<uint32_t>(body.size());
  std::string out;
  out.reserve(length_size + body.size());
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>((n >> shift) & 0xff));
  out.append(body.data(), body.size());
  return out;
}

void frame_reader::feed(const char* data, size_t size) {
  // Drop what was consumed before growing, so the buffer stays the size of one frame.
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > (1u << 16)) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(data, size);
}

shoal::expected<bool> frame_reader::next(msg::stepd_frame& out) {
  if (pending() < length_size) return false;
  auto n = read_length(buf_.data() + pos_);
  if (n > max_frame_size)
    return shoal::error(errc::malformed_message,
                        "step socket frame of " + std::to_string(n) + " bytes");
  if (pending() < length_size + n) return false;
  std::vector<char> body(buf_.begin() + static_cast<std::ptrdiff_t>(pos_ + length_size),
                         buf_.begin() + static_cast<std::ptrdiff_t>(pos_ + length_size + n));
  pos_ += length_size + n;
  out = msg::stepd_frame{};
  if (auto err = msg::decode(body, out)) return err;
  return true;
}

int write_all(int fd, const char* data, size_t size) {
  struct stat st {};
  bool is_socket = ::fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
  while (size > 0) {
    auto n = is_socket ? ::send(fd, data, size, MSG_NOSIGNAL) : ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

shoal::expected<msg::stepd_frame> read_frame(int fd, frame_reader& reader, int timeout_ms) {
  using clock = std::chrono::steady_clock;
  auto deadline = clock::now() + std::chrono::milliseconds{timeout_ms < 0 ? 0 : timeout_ms};
  char buf[64 * 1024];
  for (;;) {
    msg::stepd_frame frame;
    auto got = reader.next(frame);
    if (!got) return std::move(got.error());
    if (*got) return frame;
    if (timeout_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
      if (left.count() <= 0)
        return shoal::error(errc::unreachable, "shoal-stepd did not answer within " +
                                                   std::to_string(timeout_ms) + " ms");
      pollfd pfd{fd, POLLIN, 0};
      auto ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno != EINTR)
        return shoal::error(errc::system_error, "poll(step socket): " + errno_text(errno));
      if (ready <= 0) continue;
    }
    auto n = ::read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return shoal::error(errc::system_error, "read(step socket): " + errno_text(errno));
    if (n == 0) return shoal::error(errc::unreachable, "shoal-stepd closed the connection");
    reader.feed(buf, static_cast<size_t>(n));
  }
}

}  // namespace shoal::process

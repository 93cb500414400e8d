#pragma once
// The TCP side's worker pool. httplib's own ThreadPool queues every accepted connection without
// a limit, so a flood of idle connections grows the queue (and the descriptors it holds) as far
// as the process's descriptor limit.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace shoal::restd {

/// `threads` workers and at most `max_queued` connections waiting for one. A connection accepted
/// while the queue is full is served on the accepting thread itself, so accepting stops until
/// it is done and further clients wait in the kernel's listen backlog, which is bounded too.
class bounded_pool final : public httplib::TaskQueue {
 public:
  bounded_pool(size_t threads, size_t max_queued);
  ~bounded_pool() override;
  bounded_pool(const bounded_pool&) = delete;
  bounded_pool& operator=(const bounded_pool&) = delete;

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

  /// Connections served on the accepting thread because the queue was full.
  uint64_t served_by_acceptor() const;

 private:
  void work();

  size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  uint64_t served_by_acceptor_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace shoal::restd

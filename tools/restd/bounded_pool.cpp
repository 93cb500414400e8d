#include "tools/restd/bounded_pool.hpp"

namespace shoal::restd {

bounded_pool::bounded_pool(size_t threads, size_t max_queued) : max_queued_(max_queued) {
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

bounded_pool::~bounded_pool() {
  shutdown();
}

void bounded_pool::enqueue(std::function<void()> fn) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (queue_.size() < max_queued_ && !stopping_) {
      queue_.push_back(std::move(fn));
      lock.unlock();
      ready_.notify_one();
      return;
    }
    ++served_by_acceptor_;
  }
  fn();
}

void bounded_pool::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
}

uint64_t bounded_pool::served_by_acceptor() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return served_by_acceptor_;
}

void bounded_pool::work() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      // Connections already accepted are still served on the way out, as httplib's pool does.
      if (queue_.empty()) return;
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
  }
}

}  // namespace shoal::restd

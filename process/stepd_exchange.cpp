#include "process/stepd_exchange.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "process/stepd_wire.hpp"

namespace shoal::process {

namespace {

/// The blobs of every node in node order, or why the round cannot be used.
step_exchange::result outcome_of(const msg::step_exchange& in, uint32_t node_count) {
  if (!in.error.empty()) return shoal::error(errc::unreachable, in.error);
  std::vector<std::string> out(node_count);
  std::vector<bool> seen(node_count, false);
  for (auto& b : in.blobs) {
    if (b.node >= node_count || seen[b.node])
      return shoal::error(errc::malformed_message, "all-gather round " + std::to_string(in.round) +
                                                       " names node " + std::to_string(b.node) +
                                                       " of " + std::to_string(node_count) +
                                                       " twice or out of range");
    seen[b.node] = true;
    out[b.node] = b.data;
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end())
    return shoal::error(errc::malformed_message,
                        "all-gather round " + std::to_string(in.round) + " lacks a node's part");
  return out;
}

}  // namespace

stepd_exchange::stepd_exchange(const msg::launch_request& req,
                               std::function<void(const msg::stepd_frame&)> send)
    : job_id_(req.job_id),
      step_id_(req.step_id),
      node_index_(req.node_index),
      node_count_(std::max<uint32_t>(req.node_count, 1)),
      send_(std::move(send)),
      wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

stepd_exchange::~stepd_exchange() {
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void stepd_exchange::send_join(uint32_t round, std::string blob, std::string error) {
  auto frame = make_frame(frame_kind::exchange_join);
  frame.exchange.job_id = job_id_;
  frame.exchange.step_id = step_id_;
  frame.exchange.round = round;
  frame.exchange.error = std::move(error);
  if (frame.exchange.error.empty()) frame.exchange.blobs.push_back({node_index_, std::move(blob)});
  send_(std::move(frame));
}

void stepd_exchange::allgather(std::string blob, done_fn done) {
  auto round = next_round_++;
  open_round_ = round;
  done_ = std::move(done);
  // A round this node failed already has its part: the error.
  if (round != failed_round_) send_join(round, std::move(blob), {});
  settle(round);
}

void stepd_exchange::fail(std::string why) {
  auto round = open_round_ != 0 ? open_round_ : next_round_;
  if (round == failed_round_) return;
  failed_round_ = round;
  send_join(round, {}, std::move(why));
}

void stepd_exchange::announce_abort(std::string why) {
  if (aborted_) return;
  aborted_ = true;
  auto frame = make_frame(frame_kind::step_aborted);
  frame.exchange.job_id = job_id_;
  frame.exchange.step_id = step_id_;
  frame.exchange.error = std::move(why);
  send_(std::move(frame));
}

void stepd_exchange::on_result(const msg::step_exchange& result) {
  if (result.round == 0 || result.round >= next_round_ + 1 || arrived_.size() > 4) return;
  arrived_.insert_or_assign(result.round, outcome_of(result, node_count_));
  settle(result.round);
}

/// Hands the open round's outcome to the poll loop once both are there.
void stepd_exchange::settle(uint32_t round) {
  if (round != open_round_) return;
  auto it = arrived_.find(round);
  if (it == arrived_.end()) return;
  ready_.emplace_back(std::move(done_), std::move(it->second));
  arrived_.erase(it);
  done_ = nullptr;
  open_round_ = 0;
  wake();
}

void stepd_exchange::wake() {
  uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!::write(wake_fd_, &one, sizeof one);
}

void stepd_exchange::deliver() {
  uint64_t count = 0;
  if (wake_fd_ >= 0) (void)!::read(wake_fd_, &count, sizeof count);
  while (!ready_.empty()) {
    auto [done, outcome] = std::move(ready_.front());
    ready_.pop_front();
    if (done) done(std::move(outcome));
  }
}

}  // namespace shoal::process

#pragma once

// shoal-stepd's side of a step's all-gather (process/mpi_server.hpp's step_exchange): each round
// goes to shoald as an exchange_join frame, and its outcome comes back as exchange_result, once
// the step's shepherds gathered every node's blob along their tree (actors/shepherd.hpp).

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "messages/types.hpp"
#include "process/mpi_server.hpp"

namespace shoal::process {

class stepd_exchange final : public step_exchange {
 public:
  /// `send` queues a frame for shoald, in order with the step's output.
  stepd_exchange(const msg::launch_request& req, std::function<void(const msg::stepd_frame&)> send);
  ~stepd_exchange() override;
  stepd_exchange(const stepd_exchange&) = delete;
  stepd_exchange& operator=(const stepd_exchange&) = delete;

  void allgather(std::string blob, done_fn done) override;
  void fail(std::string why) override;

  /// Tells shoald that a rank aborted the step here, so that its other nodes end theirs.
  void announce_abort(std::string why);

  /// An exchange_result frame's content from shoald.
  void on_result(const msg::step_exchange& result);

  /// Readable while an outcome waits to be delivered (poll it for POLLIN).
  int wake_fd() const { return wake_fd_; }

  /// Delivers the outcomes that arrived: each round's `done`, from the poll loop.
  void deliver();

 private:
  void send_join(uint32_t round, std::string blob, std::string error);
  void settle(uint32_t round);
  void wake();

  uint64_t job_id_;
  uint32_t step_id_;
  uint32_t node_index_;
  uint32_t node_count_;
  std::function<void(const msg::stepd_frame&)> send_;
  uint32_t next_round_ = 1;  ///< the round the next allgather joins
  uint32_t open_round_ = 0;  ///< the round a `done` waits for; 0: none
  done_fn done_;
  uint32_t failed_round_ = 0;           ///< the last round this node failed instead of joining
  std::map<uint32_t, result> arrived_;  ///< outcomes of rounds, until their `done` runs
  std::deque<std::pair<done_fn, result>> ready_;
  int wake_fd_ = -1;
  bool aborted_ = false;  ///< announce_abort was sent
};

}  // namespace shoal::process

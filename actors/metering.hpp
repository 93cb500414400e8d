#pragma once

// How every actor type meters itself: messages handled by message type, handler time, mailbox
// depth (now and high-water) and actors alive. One line per actor type plus one wrapper per
// handler:
//
//   caf::behavior job_behavior(job_self self, job_setup setup) {
//     actor_probe probe{self, setup.meters, "job"};
//     return {probe.metered("start", [self](msg::start_atom, ...) { ... }), ...};
//   }
//
// The wrapper has the handler's own parameter types, so CAF matches on it as before. Label sets
// are resolved when the actor starts, never per message; per message the cost is two clock
// reads and a few relaxed atomic operations. A null registry meters nothing (CollectMetrics=NO).

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include <caf/abstract_actor.hpp>

#include "metrics/registry.hpp"

namespace shoal::actors {

/// The series one handler updates.
struct handler_meter {
  metrics::counter* messages = nullptr;
  metrics::histogram* seconds = nullptr;
  metrics::histogram* rpc_seconds = nullptr;  ///< set for the controller's requests only
};

/// The metering state of one actor: shared by its handler wrappers, used only on its thread.
class actor_meters {
 public:
  /// Counts the actor in shoal_actors_alive{actor=actor_type}.
  actor_meters(metrics::registry& reg, std::string actor_type);

  /// Resolves the series of one message type; `rpc` adds shoal_rpc_seconds{type=message}.
  handler_meter handler(const std::string& message, bool rpc);

  /// After each message: the mailbox depth left (the type's gauge is the sum over its actors)
  /// and the high-water mark.
  void after_message(size_t mailbox_depth) {
    auto depth = static_cast<double>(mailbox_depth);
    if (depth != last_depth_) {
      mailbox_->add(depth - last_depth_);
      last_depth_ = depth;
      high_water_->raise_to(depth);
    }
  }

  /// The user the current request acts for (RPCs by user); cleared after the handler.
  void attribute_to(const std::string& user) { user_ = user; }
  /// After an RPC handler: its time, by user when one was named.
  void finish_rpc(double seconds);

  /// When the actor terminates: no longer alive, its queued messages no longer counted.
  void on_exit();

 private:
  metrics::registry& reg_;
  std::string type_;
  metrics::gauge* alive_;
  metrics::gauge* mailbox_;
  metrics::gauge* high_water_;
  double last_depth_ = 0;
  std::string user_;
  std::unordered_map<std::string, metrics::histogram*> users_;
};

/// Times one handler call and records it when destroyed (also when the handler throws).
template <class Self>
class handler_timer {
 public:
  handler_timer(Self* self, actor_meters& meters, const handler_meter& h)
      : self_(self), meters_(meters), h_(h), start_(std::chrono::steady_clock::now()) {}
  handler_timer(const handler_timer&) = delete;
  handler_timer& operator=(const handler_timer&) = delete;
  ~handler_timer() {
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start_;
    h_.messages->inc();
    h_.seconds->observe(took.count());
    if (h_.rpc_seconds) {
      h_.rpc_seconds->observe(took.count());
      meters_.finish_rpc(took.count());
    }
    meters_.after_message(self_->mailbox().size());
  }

 private:
  Self* self_;
  actor_meters& meters_;
  const handler_meter& h_;
  std::chrono::steady_clock::time_point start_;
};

/// Attaches metering to one actor (event-based or blocking) for its whole life.
template <class Self>
class actor_probe {
 public:
  /// With `reg` null, meters nothing and the wrappers only forward.
  actor_probe(Self* self, metrics::registry* reg, const char* actor_type) : self_(self) {
    if (reg == nullptr) return;
    meters_ = std::make_shared<actor_meters>(*reg, actor_type);
    // Through abstract_actor: blocking_actor hides attach_functor behind a private overload.
    static_cast<caf::abstract_actor*>(self)->attach_functor([m = meters_] { m->on_exit(); });
  }

  /// `f` metered as message type `message` (the atom's name, or the struct's).
  template <class F>
  auto metered(const std::string& message, F f) const {
    return wrap(meters_ ? meters_->handler(message, false) : handler_meter{}, std::move(f),
                &F::operator());
  }

  /// The series of message type `message`, resolved now: for handlers rebuilt on every receive
  /// (blocking actors), so the lookup is not repeated per message.
  handler_meter meter(const std::string& message) const {
    return meters_ ? meters_->handler(message, false) : handler_meter{};
  }

  /// `f` metered into series resolved earlier with meter().
  template <class F>
  auto metered(const handler_meter& h, F f) const {
    return wrap(h, std::move(f), &F::operator());
  }

  /// As metered, and counted as a request to the controller (shoal_rpc_seconds).
  template <class F>
  auto rpc(const std::string& message, F f) const {
    return wrap(meters_ ? meters_->handler(message, true) : handler_meter{}, std::move(f),
                &F::operator());
  }

  /// Inside an rpc handler: the request acts for `user` (shoal_rpc_user_seconds).
  void attribute_to(const std::string& user) const {
    if (meters_) meters_->attribute_to(user);
  }

  bool enabled() const { return meters_ != nullptr; }

 private:
  template <class F, class C, class R, class... Ts>
  auto wrap(handler_meter h, F f, R (C::*)(Ts...) const) const {
    return [self = self_, m = meters_, h, f = std::move(f)](Ts... xs) -> R {
      if (!m) return f(std::forward<Ts>(xs)...);
      handler_timer<Self> timer{self, *m, h};
      return f(std::forward<Ts>(xs)...);
    };
  }

  Self* self_;
  std::shared_ptr<actor_meters> meters_;
};

}  // namespace shoal::actors

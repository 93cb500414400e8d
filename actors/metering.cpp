#include "actors/metering.hpp"

namespace shoal::actors {

actor_meters::actor_meters(metrics::registry& reg, std::string actor_type)
    : reg_(reg), type_(std::move(actor_type)) {
  alive_ = &reg_.gauges("shoal_actors_alive", "Actors of this type now running.", {"actor"})
                .with({type_});
  mailbox_ = &reg_.gauges("shoal_actor_mailbox_messages",
                          "Messages waiting in the mailboxes of this actor type, summed over its "
                          "actors, as seen after each handled message.",
                          {"actor"})
                  .with({type_});
  high_water_ = &reg_.gauges("shoal_actor_mailbox_high_water_messages",
                             "Deepest mailbox any actor of this type had since start.", {"actor"})
                     .with({type_});
  alive_->add(1);
}

handler_meter actor_meters::handler(const std::string& message, bool rpc) {
  handler_meter h;
  h.messages =
      &reg_.counters("shoal_actor_messages_total",
                     "Messages handled, by actor type and message type.", {"actor", "message"})
           .with({type_, message});
  h.seconds = &reg_.histograms("shoal_actor_handler_seconds",
                               "Time spent in message handlers, by actor type and message type.",
                               {"actor", "message"})
                   .with({type_, message});
  if (rpc)
    h.rpc_seconds = &reg_.histograms("shoal_rpc_seconds",
                                     "Requests the controller handled (RPCs), by message type: "
                                     "count, and time in the handler.",
                                     {"type"})
                         .with({message});
  return h;
}

void actor_meters::finish_rpc(double seconds) {
  if (user_.empty()) return;
  auto it = users_.find(user_);
  if (it == users_.end()) {
    auto& h = reg_.histograms("shoal_rpc_user_seconds",
                              "Requests the controller handled, by the user they act for: count, "
                              "and time in the handler.",
                              {"user"})
                  .with({user_});
    it = users_.emplace(user_, &h).first;
  }
  it->second->observe(seconds);
  user_.clear();
}

void actor_meters::on_exit() {
  alive_->add(-1);
  mailbox_->add(-last_depth_);
  last_depth_ = 0;
}

}  // namespace shoal::actors

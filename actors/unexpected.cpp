#include "actors/unexpected.hpp"

#include <mutex>
#include <string>
#include <unordered_map>

#include <caf/all.hpp>

#include "config/log.hpp"
#include "messages/caf/error.hpp"

namespace shoal::actors {

namespace {

/// Whether this occurrence of `kind` is logged: the 1st, 2nd, 4th, 8th... so a storm of the same
/// stray costs a few lines, each saying how many came.
bool worth_logging(const std::string& kind, uint64_t& count) {
  static std::mutex lock;
  static std::unordered_map<std::string, uint64_t> seen;
  std::lock_guard<std::mutex> guard{lock};
  count = ++seen[kind];
  return (count & (count - 1)) == 0;
}

std::string sender_of(caf::scheduled_actor* self) {
  const auto& sender = self->current_sender();
  if (!sender) return "(anonymous)";
  return sender->node() == self->node() ? "this process" : to_string(sender->node());
}

std::string shortened(std::string text) {
  constexpr size_t limit = 200;
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

}  // namespace

caf::result<caf::message> drop_unexpected(caf::scheduled_actor* self, caf::message_view& x) {
  auto text = shortened(to_string(x.content()));
  auto* element = self->current_mailbox_element();
  bool request = element != nullptr && element->mid.is_request();
  uint64_t count = 0;
  auto kind = x.content().size() == 0 ? std::string{"()"} : x.content().stringify(0);
  if (worth_logging(std::string{self->name()} + ":" + kind, count))
    config::log().warn("{} dropped an unexpected message {} from {} ({} so far of its kind)",
                       self->name(), text, sender_of(self), count);
  if (request)
    return make_error(errc::invalid_request, std::string{self->name()} +
                                                 " does not take the message " + text +
                                                 " (a peer of another version?)");
  return caf::message{};
}

void drop_stray_error(caf::scheduled_actor* self, caf::error& err) {
  uint64_t count = 0;
  auto text = describe(err);
  if (worth_logging(std::string{self->name()} + ":error:" + text, count))
    config::log().warn("{} dropped an error it did not ask for from {}: {} ({} so far)",
                       self->name(), sender_of(self), text, count);
}

}  // namespace shoal::actors

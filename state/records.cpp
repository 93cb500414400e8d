#include "state/records.hpp"

#include <utility>

namespace shoal::state {

value_ptr make_value(const void* bytes, size_t size) {
  auto p = static_cast<const uint8_t*>(bytes);
  return std::make_shared<const std::vector<uint8_t>>(p, p + size);
}

value_ptr make_value(const std::string& bytes) {
  return make_value(bytes.data(), bytes.size());
}

void apply(record_map& records, change c) {
  if (!c.value) {
    records.erase(c.key);
    return;
  }
  records.insert_or_assign(std::move(c.key), std::move(c.value));
}

}  // namespace shoal::state

#include "policy/array_spec.hpp"

#include <algorithm>
#include <cctype>

#include "messages/errc.hpp"

namespace shoal::policy {

namespace {

class spec_reader {
 public:
  spec_reader(std::string_view text, uint32_t max) : text_(text), max_(max) {}

  shoal::expected<array_spec> parse() {
    if (text_.empty()) return fail(0, "empty value; expected e.g. 1-10 or 1,3,5-7%2");
    array_spec spec;
    for (;;) {
      auto first = number("a task index");
      if (!first) return first.error();
      uint32_t last = *first;
      uint32_t step = 1;
      if (peek('-')) {
        ++pos_;
        auto end_pos = pos_;
        auto l = number("the last index of the range");
        if (!l) return l.error();
        if (*l < *first)
          return fail(end_pos, "range " + std::to_string(*first) + "-" + std::to_string(*l) +
                                   " ends before it starts");
        last = *l;
        if (peek(':')) {
          ++pos_;
          auto step_pos = pos_;
          auto s = number("a step", false);
          if (!s) return s.error();
          if (*s == 0) return fail(step_pos, "the step must be at least 1");
          step = *s;
          last = *first + ((last - *first) / step) * step;
        }
      }
      spec.indices.insert({*first, last, step});
      if (peek(',')) {
        ++pos_;
        continue;
      }
      break;
    }
    if (peek('%')) {
      ++pos_;
      auto m = number("the number of tasks to run at once after %", false);
      if (!m) return m.error();
      if (*m == 0) return fail(pos_ - 1, "%0 would never run a task; use %1 or more");
      spec.max_running = *m;
    }
    if (pos_ != text_.size())
      return fail(pos_, std::string{"unexpected '"} + text_[pos_] + "'; expected , - : or %");
    return spec;
  }

 private:
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  shoal::expected<uint32_t> number(const char* what, bool is_index = true) {
    auto start = pos_;
    uint64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = std::min<uint64_t>(v * 10 + uint64_t(text_[pos_] - '0'), uint64_t{1} << 40);
      ++pos_;
    }
    if (pos_ == start) return fail(start, std::string{"expected "} + what);
    auto digits = std::string{text_.substr(start, pos_ - start)};
    if (is_index && v >= max_)
      return fail(start, "index " + digits + " is not below MaxArraySize=" + std::to_string(max_));
    if (v > UINT32_MAX) return fail(start, std::string{what} + " " + digits + " is too large");
    return uint32_t(v);
  }

  shoal::error fail(size_t pos, const std::string& why) const {
    return shoal::error(errc::invalid_request,
                        "--array: column " + std::to_string(pos + 1) + ": " + why);
  }

  std::string_view text_;
  uint32_t max_;
  size_t pos_ = 0;
};

}  // namespace

shoal::expected<array_spec> parse_array_spec(std::string_view text, uint32_t max_array_size) {
  return spec_reader{text, max_array_size}.parse();
}

std::string folded_tasks(const index_set& pending, uint32_t max_running) {
  if (pending.empty()) return {};
  std::string out = "[" + pending.to_string();
  if (max_running > 0) out += "%" + std::to_string(max_running);
  return out + "]";
}

}  // namespace shoal::policy

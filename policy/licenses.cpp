#include "policy/licenses.hpp"

#include <algorithm>

namespace shoal::policy {

namespace {

shoal::error invalid_license() {
  return shoal::error(errc::invalid_request, "Invalid license specification");
}

bool blank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

shoal::expected<license_list> parse_licenses(std::string_view text) {
  license_list out;
  text = trimmed(text);
  if (text.empty()) return out;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto comma = std::min(text.find(',', pos), text.size());
    auto item = trimmed(text.substr(pos, comma - pos));
    pos = comma + 1;
    auto sep = item.find_first_of(":*");
    auto name = trimmed(item.substr(0, sep));
    if (name.empty() || name.find_first_of(" \t=|&()") != std::string_view::npos) return invalid_license();
    uint64_t count = 1;
    if (sep != std::string_view::npos) {
      auto digits = trimmed(item.substr(sep + 1));
      if (digits.empty() || digits.size() > 9 ||
          !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return invalid_license();
      count = std::stoull(std::string{digits});
      if (count == 0) return invalid_license();
    }
    auto same = std::find_if(out.begin(), out.end(), [&](auto& l) { return l.name == name; });
    if (same != out.end()) {
      if (same->count + count > UINT32_MAX) return invalid_license();
      same->count += static_cast<uint32_t>(count);
    } else {
      out.push_back({std::string{name}, static_cast<uint32_t>(count)});
    }
    if (comma == text.size()) break;
  }
  return out;
}

std::string licenses_text(const license_list& list) {
  std::string out;
  for (const auto& l : list) {
    if (!out.empty()) out += ',';
    out += l.name + ":" + std::to_string(l.count);
  }
  return out;
}

bool licenses_known(const license_list& wanted, const license_list& configured) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const license_item& w) {
    return std::any_of(configured.begin(), configured.end(),
                       [&](const license_item& c) { return c.name == w.name; });
  });
}

void count_licenses(license_use& use, const license_list& held, int sign) {
  for (const auto& l : held) {
    auto& n = use[l.name];
    if (sign > 0)
      n += l.count;
    else
      n -= std::min<uint64_t>(n, l.count);
    if (n == 0) use.erase(l.name);
  }
}

bool licenses_fit(const license_list& wanted, const license_list& total, const license_use& use) {
  for (const auto& w : wanted) {
    auto t = std::find_if(total.begin(), total.end(), [&](auto& l) { return l.name == w.name; });
    if (t == total.end()) return false;
    auto u = use.find(w.name);
    uint64_t used = u == use.end() ? 0 : u->second;
    if (used + w.count > t->count) return false;
  }
  return true;
}

}  // namespace shoal::policy

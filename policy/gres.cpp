#include "policy/gres.hpp"

#include <cctype>

#include "messages/errc.hpp"

namespace shoal::policy {

namespace {

shoal::error invalid_gres() {
  return shoal::error(errc::invalid_request, "Invalid generic resource (gres) specification");
}

bool valid_word(std::string_view w) {
  if (w.empty()) return false;
  for (char c : w)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      return false;
  return true;
}

/// COUNT[K|M|G|T|P]; nullopt-like false when malformed.
bool parse_count(std::string_view text, uint64_t& out) {
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (value > (UINT64_MAX - 9) / 10) return false;
    value = value * 10 + uint64_t(text[i] - '0');
  }
  if (i == 0) return false;
  if (i < text.size()) {
    if (i + 1 != text.size()) return false;
    static constexpr std::string_view suffixes = "KMGTP";
    auto at = suffixes.find(static_cast<char>(std::toupper(static_cast<unsigned char>(text[i]))));
    if (at == std::string_view::npos) return false;
    for (size_t k = 0; k <= at; ++k) {
      if (value > UINT64_MAX / 1024) return false;
      value *= 1024;
    }
  }
  out = value;
  return true;
}

}  // namespace

shoal::expected<gres_list> parse_gres(std::string_view text) {
  gres_list out;
  if (text.empty() || text == "none") return out;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    auto item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.rfind("gres:", 0) == 0) item.remove_prefix(5);
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (;;) {
      auto colon = item.find(':', start);
      parts.push_back(item.substr(start, colon == std::string_view::npos ? colon : colon - start));
      if (colon == std::string_view::npos) break;
      start = colon + 1;
    }
    if (parts.size() > 3) return invalid_gres();
    gres_item g;
    g.name = std::string{parts[0]};
    if (!valid_word(parts[0])) return invalid_gres();
    if (parts.size() > 1) {
      auto last = parts.back();
      bool numeric = !last.empty() && std::isdigit(static_cast<unsigned char>(last.front()));
      if (numeric) {
        if (!parse_count(last, g.count)) return invalid_gres();
        if (parts.size() == 3) {
          if (!valid_word(parts[1])) return invalid_gres();
          g.type = std::string{parts[1]};
        }
      } else {
        // NAME:TYPE (count 1); NAME:TYPE:TYPE is not a count.
        if (parts.size() == 3 || !valid_word(last)) return invalid_gres();
        g.type = std::string{last};
      }
    }
    out.push_back(std::move(g));
  }
  return out;
}

shoal::expected<gres_list> parse_gres_request(std::string_view text) {
  auto all = parse_gres(text);
  if (!all) return all.error();
  gres_list out;
  for (auto& item : *all) {
    if (item.count == 0) continue;
    for (auto& seen : out)
      if (seen.name == item.name) return invalid_gres();
    if (item.count > UINT32_MAX) return invalid_gres();
    out.push_back(std::move(item));
  }
  return out;
}

std::string gres_text(const gres_list& list) {
  std::string out;
  for (auto& g : list) {
    if (!out.empty()) out += ',';
    out += g.name;
    if (!g.type.empty()) out += ':' + g.type;
    out += ':' + std::to_string(g.count);
  }
  return out;
}

std::string tres_per_node(const gres_list& list) {
  std::string out;
  for (auto& g : list) {
    if (!out.empty()) out += ',';
    out += "gres:" + g.name;
    if (!g.type.empty()) out += ':' + g.type;
    out += ':' + std::to_string(g.count);
  }
  return out;
}

std::string index_ranges(const std::vector<uint32_t>& indices) {
  std::string out;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(indices[i]);
    if (j > i) out += '-' + std::to_string(indices[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace shoal::policy

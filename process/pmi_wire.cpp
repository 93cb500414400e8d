#include "process/pmi_wire.hpp"

#include <algorithm>
#include <cstdio>

namespace shoal::process {

namespace {

/// The width of a PMI-2 command's length field.
constexpr size_t length_field = 6;

/// The longest PMI_process_mapping served. MPICH 4.0's PMI-1 client cuts its value length to
/// what fits a 1024-byte line beside the longest key and kvsname (674 bytes), and fails its
/// start on a mapping cut short, where a missing one only makes it compare host names.
constexpr size_t max_mapping = 512;

shoal::error malformed(std::string what) {
  return shoal::error{shoal::errc::malformed_message, std::move(what)};
}

/// Splits "key=value"; false without '=' or with an empty key.
bool split_pair(std::string_view pair, std::string& key, std::string& value) {
  auto eq = pair.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  key.assign(pair.substr(0, eq));
  value.assign(pair.substr(eq + 1));
  return true;
}

/// Reads a decimal number of at most 9 digits; false otherwise.
bool parse_count(std::string_view text, size_t& out) {
  if (text.empty() || text.size() > 9) return false;
  size_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  out = n;
  return true;
}

}  // namespace

// -- pmi_command ----------------------------------------------------------------------------

const std::string* pmi_command::find(std::string_view key) const {
  for (auto& [k, v] : args)
    if (k == key) return &v;
  return nullptr;
}

pmi_command& pmi_command::add(std::string key, std::string value) {
  args.emplace_back(std::move(key), std::move(value));
  return *this;
}

// -- parsing --------------------------------------------------------------------------------

shoal::expected<pmi_command> parse_pmi1(std::string_view line) {
  pmi_command cmd;
  bool first = true;
  size_t pos = 0;
  while (pos < line.size()) {
    if (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r') {
      ++pos;
      continue;
    }
    auto end = line.find_first_of(" \t\r", pos);
    if (end == std::string_view::npos) end = line.size();
    std::string key, value;
    if (!split_pair(line.substr(pos, end - pos), key, value))
      return malformed("'" + std::string(line.substr(pos, end - pos)) + "' is not key=value");
    if (first) {
      if (key == "cmd")
        cmd.name = std::move(value);
      else if (key == "mcmd")
        cmd.name = "mcmd:" + value;
      else
        return malformed("the line does not start with cmd=");
      if (cmd.name.empty()) return malformed("cmd= names no command");
      first = false;
    } else {
      cmd.add(std::move(key), std::move(value));
    }
    pos = end;
  }
  if (first) return malformed("an empty line");
  return cmd;
}

shoal::expected<pmi_command> parse_pmi2(std::string_view body) {
  pmi_command cmd;
  bool first = true;
  size_t pos = 0;
  while (pos < body.size()) {
    auto eq = body.find('=', pos);
    auto semi = body.find(';', pos);
    if (eq == std::string_view::npos || (semi != std::string_view::npos && semi < eq))
      return malformed("a pair without '='");
    if (eq == pos) return malformed("a pair with an empty key");
    std::string key(body.substr(pos, eq - pos));
    std::string value;
    size_t i = eq + 1;
    bool terminated = false;
    while (i < body.size()) {
      if (body[i] == ';') {
        if (i + 1 < body.size() && body[i + 1] == ';') {
          value.push_back(';');
          i += 2;
          continue;
        }
        terminated = true;
        ++i;
        break;
      }
      value.push_back(body[i++]);
    }
    if (!terminated) return malformed("'" + key + "' has no ';' after its value");
    if (first) {
      if (key != "cmd") return malformed("the command does not start with cmd=");
      if (value.empty()) return malformed("cmd= names no command");
      cmd.name = std::move(value);
      first = false;
    } else {
      cmd.add(std::move(key), std::move(value));
    }
    pos = i;
  }
  if (first) return malformed("an empty command");
  return cmd;
}

// -- formatting -----------------------------------------------------------------------------

std::string format_pmi1(const pmi_command& cmd) {
  auto clean = [](std::string s) {
    std::replace_if(
        s.begin(), s.end(), [](char c) { return c == ' ' || c == '\n' || c == '\r'; }, '_');
    return s;
  };
  std::string out = "cmd=" + clean(cmd.name);
  for (auto& [k, v] : cmd.args) out += " " + clean(k) + "=" + clean(v);
  out += '\n';
  return out;
}

std::string format_pmi2(const pmi_command& cmd) {
  std::string body;
  auto append_escaped = [&body](const std::string& s) {
    for (char c : s) {
      if (c == ';') body.push_back(';');
      body.push_back(c);
    }
  };
  body += "cmd=";
  append_escaped(cmd.name);
  body += ';';
  for (auto& [k, v] : cmd.args) {
    body += k;
    body += '=';
    append_escaped(v);
    body += ';';
  }
  char length[16];
  std::snprintf(length, sizeof length, "%-6zu", body.size());
  return std::string(length) + body;
}

std::string format_pmi(pmi_wire wire, const pmi_command& cmd) {
  return wire == pmi_wire::v1 ? format_pmi1(cmd) : format_pmi2(cmd);
}

// -- pmi_reader -----------------------------------------------------------------------------

pmi_reader::status pmi_reader::next(std::string& out) {
  if (failed_) {
    out = "the connection's input is unusable after an earlier error";
    return status::error;
  }
  std::string_view rest(buffer_);
  rest.remove_prefix(consumed_);
  auto fail = [&](std::string why) {
    failed_ = true;
    out = std::move(why);
    return status::error;
  };
  if (wire_ == pmi_wire::v1) {
    auto nl = rest.find('\n');
    if (nl == std::string_view::npos) {
      if (rest.size() > pmi_max_message)
        return fail("a PMI-1 line longer than " + std::to_string(pmi_max_message) + " bytes");
      return status::need_more;
    }
    if (nl > pmi_max_message)
      return fail("a PMI-1 line longer than " + std::to_string(pmi_max_message) + " bytes");
    out.assign(rest.substr(0, nl));
    consumed_ += nl + 1;
  } else {
    if (rest.size() < length_field) return status::need_more;
    auto field = rest.substr(0, length_field);
    auto digits = field.substr(0, field.find(' '));
    if (field.find_first_not_of(' ', digits.size()) != std::string_view::npos)
      return fail("a PMI-2 length field that is not a number: '" + std::string(field) + "'");
    size_t length = 0;
    if (!parse_count(digits, length) || length == 0)
      return fail("a PMI-2 length field that is not a number: '" + std::string(field) + "'");
    if (length > pmi_max_message)
      return fail("a PMI-2 command of " + std::to_string(length) + " bytes (at most " +
                  std::to_string(pmi_max_message) + ")");
    if (rest.size() < length_field + length) return status::need_more;
    out.assign(rest.substr(length_field, length));
    consumed_ += length_field + length;
  }
  // Compact once the taken part dominates, so a long-lived connection's buffer stays small.
  if (consumed_ > 4096 && consumed_ * 2 > buffer_.size()) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  return status::message;
}

// -- pmi_kvs --------------------------------------------------------------------------------

shoal::error pmi_kvs::put(std::string key, std::string value) {
  if (key.empty() || key.size() > pmi_max_key)
    return {shoal::errc::invalid_request, "a key of " + std::to_string(key.size()) +
                                              " bytes (1 to " + std::to_string(pmi_max_key) + ")"};
  if (value.size() > pmi_max_value)
    return {shoal::errc::invalid_request, "a value of " + std::to_string(value.size()) +
                                              " bytes (at most " + std::to_string(pmi_max_value) +
                                              ")"};
  auto bytes = key.size() + value.size();
  if (pending_bytes_ + bytes > pmi_max_pending)
    return {shoal::errc::invalid_request, "more than " + std::to_string(pmi_max_pending) +
                                              " bytes put on this node before a fence"};
  pending_bytes_ += bytes;
  pending_.emplace_back(std::move(key), std::move(value));
  return {};
}

const std::string* pmi_kvs::get(std::string_view key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

// A blob is "KEYLEN VALLEN\n" then the key and the value, per pair: lengths, so a key or value
// may hold any byte.
std::string pmi_kvs::take_pending() {
  std::string blob;
  blob.reserve(pending_bytes_ + 16 * pending_.size());
  for (auto& [k, v] : pending_) {
    blob += std::to_string(k.size()) + ' ' + std::to_string(v.size()) + '\n';
    blob += k;
    blob += v;
  }
  pending_.clear();
  pending_bytes_ = 0;
  return blob;
}

shoal::error pmi_kvs::merge(const std::vector<std::string>& blobs) {
  for (size_t node = 0; node < blobs.size(); ++node) {
    std::string_view rest(blobs[node]);
    while (!rest.empty()) {
      auto nl = rest.find('\n');
      auto header = rest.substr(0, nl);
      auto space = header.find(' ');
      size_t klen = 0, vlen = 0;
      if (nl == std::string_view::npos || space == std::string_view::npos ||
          !parse_count(header.substr(0, space), klen) ||
          !parse_count(header.substr(space + 1), vlen) || klen == 0 || klen > pmi_max_key ||
          vlen > pmi_max_value || rest.size() - nl - 1 < klen + vlen)
        return malformed("node " + std::to_string(node) + "'s PMI data does not decode");
      rest.remove_prefix(nl + 1);
      values_[std::string(rest.substr(0, klen))] = std::string(rest.substr(klen, vlen));
      rest.remove_prefix(klen + vlen);
    }
  }
  return {};
}

// -- pmi_process_mapping --------------------------------------------------------------------

std::string pmi_process_mapping(const std::vector<uint32_t>& rank_nodes) {
  if (rank_nodes.empty()) return {};
  // Runs of consecutive ranks on one node, then runs of runs: nodes one after another with
  // equal counts make one triple.
  struct run {
    uint32_t node;
    size_t count;
  };
  std::vector<run> runs;
  for (auto node : rank_nodes) {
    if (!runs.empty() && runs.back().node == node)
      ++runs.back().count;
    else
      runs.push_back({node, 1});
  }
  std::string out = "(vector";
  for (size_t i = 0; i < runs.size();) {
    size_t j = i + 1;
    while (j < runs.size() && runs[j].count == runs[i].count &&
           runs[j].node == runs[j - 1].node + 1)
      ++j;
    out += ",(" + std::to_string(runs[i].node) + "," + std::to_string(j - i) + "," +
           std::to_string(runs[i].count) + ")";
    if (out.size() >= max_mapping) return {};
    i = j;
  }
  out += ")";
  return out.size() <= max_mapping ? out : std::string{};
}

}  // namespace shoal::process

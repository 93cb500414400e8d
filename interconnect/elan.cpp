#include "interconnect/elan.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "interconnect/byte_codec.hpp"
#include "topology/hostlist.hpp"

namespace shoal::interconnect {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::optional<uint32_t> parse_number(std::string_view s, uint64_t max) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  if (n > max) return std::nullopt;
  return static_cast<uint32_t>(n);
}

/// A 128-bit key from the kernel's cryptographic generator (getrandom blocks only until the pool
/// was first seeded, at boot).
std::array<uint8_t, 16> random_key() {
  std::array<uint8_t, 16> key{};
  size_t got = 0;
  while (got < key.size()) {
    auto n = ::getrandom(key.data() + got, key.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    // Only an ancient kernel (before 3.17) lacks getrandom; a key of zeros would be no key.
    if (n < 0) std::abort();
    got += static_cast<size_t>(n);
  }
  return key;
}

constexpr std::string_view state_magic = "ELS1";
constexpr uint32_t data_version = 1;

}  // namespace

shoal::expected<elan_map> parse_elan_map(std::string_view text, const std::string& file) {
  elan_map out;
  std::map<uint32_t, std::string> owners;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    auto end = text.find('\n');
    auto line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    auto fail = [&](const std::string& why) {
      return shoal::error(errc::invalid_config, file + ":" + std::to_string(line_no) + ": " + why);
    };
    auto space = line.find_first_of(" \t");
    auto nodes_field = line.substr(0, space);
    auto attrs = space == std::string_view::npos ? std::string_view{} : trim(line.substr(space));
    if (attrs.find_first_of(" \t") != std::string_view::npos)
      return fail("expected 'NODES ATTR[,ATTR=VALUE]...', found more than two fields");
    std::optional<uint32_t> first_id;
    while (!attrs.empty()) {
      auto comma = attrs.find(',');
      auto attr = attrs.substr(0, comma);
      attrs = comma == std::string_view::npos ? std::string_view{} : attrs.substr(comma + 1);
      auto eq = attr.find('=');
      if (attr.substr(0, eq) != "elanid") continue;
      auto value = eq == std::string_view::npos ? std::string_view{} : attr.substr(eq + 1);
      first_id = parse_number(value, std::numeric_limits<uint32_t>::max());
      if (!first_id)
        return fail("elanid '" + std::string{value} + "' is not a network id (0 to 4294967295)");
    }
    if (!first_id) continue;  // a genders line about something else
    auto names = topology::expand_hostlist(nodes_field);
    if (!names) return fail(describe(names.error()));
    if (names->empty()) return fail("no node names before the attributes");
    uint64_t id = *first_id;
    for (auto& name : *names) {
      if (id > std::numeric_limits<uint32_t>::max())
        return fail("network ids beyond 4294967295 from elanid=" + std::to_string(*first_id));
      if (out.count(name) != 0) return fail("node " + name + " has an elanid already");
      auto [owner, fresh] = owners.emplace(static_cast<uint32_t>(id), name);
      if (!fresh)
        return fail("elanid " + std::to_string(id) + " of " + name + " is " + owner->second +
                    "'s already");
      out.emplace(name, static_cast<uint32_t>(id));
      ++id;
    }
  }
  return out;
}

shoal::expected<elan_map> load_elan_map(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return shoal::error(errc::invalid_config,
                        "cannot read the Elan map " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_elan_map(text.str(), path);
}

std::string key_hex(const std::array<uint8_t, 16>& key) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (auto b : key) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::vector<uint8_t> encode_elan_data(const elan_step_data& data) {
  byte_writer w;
  w.magic(elan_magic);
  w.u32(data_version);
  w.u32(data.program);
  w.u32(static_cast<uint32_t>(data.node_ids.size()));
  for (auto id : data.node_ids) w.u32(id);
  w.u32(static_cast<uint32_t>(data.capabilities.size()));
  for (auto& cap : data.capabilities) {
    w.bytes(cap.key.data(), cap.key.size());
    w.u32(cap.rail);
    w.u32(cap.low_id);
    w.u32(cap.high_id);
    w.u32(cap.low_context);
    w.u32(cap.high_context);
  }
  return std::move(w.out);
}

shoal::expected<elan_step_data> decode_elan_data(const std::vector<uint8_t>& bytes) {
  byte_reader r{bytes};
  elan_step_data data;
  uint32_t version = 0, nodes = 0, caps = 0;
  bool ok = r.magic(elan_magic) && r.u32(version) && version == data_version &&
            r.u32(data.program) && r.u32(nodes) && nodes <= r.left() / 4;
  for (uint32_t i = 0; ok && i < nodes; ++i) ok = r.u32(data.node_ids.emplace_back());
  ok = ok && r.u32(caps) && caps <= r.left() / 36;
  for (uint32_t i = 0; ok && i < caps; ++i) {
    auto& cap = data.capabilities.emplace_back();
    ok = r.bytes(cap.key.data(), cap.key.size()) && r.u32(cap.rail) && r.u32(cap.low_id) &&
         r.u32(cap.high_id) && r.u32(cap.low_context) && r.u32(cap.high_context);
  }
  if (!ok || r.left() != 0)
    return shoal::error(errc::malformed_message, "switch data is not switch/elan's");
  return data;
}

shoal::expected<elan_settings> parse_elan_parameters(std::string_view parameters) {
  elan_settings out;
  std::string map_path;
  while (!parameters.empty()) {
    auto comma = parameters.find(',');
    auto item = trim(parameters.substr(0, comma));
    parameters =
        comma == std::string_view::npos ? std::string_view{} : parameters.substr(comma + 1);
    if (item.empty()) continue;
    auto eq = item.find('=');
    auto key = item.substr(0, eq);
    auto value = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
    if (key == "elan_map") {
      map_path = std::string{value};
    } else if (key == "elan_rails") {
      auto rails = parse_number(value, 8);
      if (!rails || *rails == 0)
        return shoal::error(errc::invalid_config, "SwitchParameters elan_rails='" +
                                                      std::string{value} +
                                                      "' is not a rail count from 1 to 8");
      out.rails = *rails;
    } else {
      return shoal::error(errc::invalid_config, "SwitchParameters '" + std::string{key} +
                                                    "' is not switch/elan's (known: elan_map, "
                                                    "elan_rails)");
    }
  }
  if (map_path.empty())
    return shoal::error(errc::invalid_config,
                        "switch/elan needs SwitchParameters=elan_map=PATH (the genders-style file "
                        "that gives each node its elanid)");
  auto ids = load_elan_map(map_path);
  if (!ids) return std::move(ids).error();
  out.ids = std::move(*ids);
  return out;
}

elan_switch::elan_switch(elan_settings settings) : settings_(std::move(settings)) {}

uint32_t elan_switch::next_program() const {
  std::lock_guard<std::mutex> lock{mutex_};
  return next_program_;
}

std::optional<uint32_t> elan_switch::free_contexts(uint32_t width) const {
  std::vector<std::pair<uint32_t, uint32_t>> taken;
  for (auto& [key, h] : steps_) taken.emplace_back(h.low_context, h.width);
  std::sort(taken.begin(), taken.end());
  uint32_t at = elan_first_context;
  for (auto& [low, w] : taken) {
    if (low >= at + width) break;
    at = std::max(at, low + w);
  }
  if (at + width > elan_first_context + elan_context_count) return std::nullopt;
  return at;
}

shoal::expected<std::vector<uint8_t>> elan_switch::allocate(const step_request& req) {
  elan_step_data data;
  for (auto& node : req.nodes) {
    auto id = settings_.ids.find(node);
    if (id == settings_.ids.end())
      return shoal::error(errc::invalid_request,
                          "switch/elan: node " + node + " has no elanid in the Elan map");
    data.node_ids.push_back(id->second);
  }
  if (data.node_ids.empty())
    return shoal::error(errc::invalid_request, "switch/elan: a step without nodes");
  auto [low_id, high_id] = std::minmax_element(data.node_ids.begin(), data.node_ids.end());
  auto width = std::max<uint32_t>(req.tasks_per_node, 1);
  std::lock_guard<std::mutex> lock{mutex_};
  step_key key{req.job_id, req.step_id};
  // A repeated allocate (a launch retried) gives back what the step holds, with a new program
  // description: a description is never handed out twice.
  steps_.erase(key);
  auto low_context = free_contexts(width);
  if (!low_context)
    return shoal::error(errc::unsatisfiable, "switch/elan: no " + std::to_string(width) +
                                                 " free hardware contexts (all " +
                                                 std::to_string(elan_context_count) +
                                                 " are held by running steps)");
  if (next_program_ == std::numeric_limits<uint32_t>::max())
    return shoal::error(errc::unsatisfiable, "switch/elan: program descriptions exhausted");
  data.program = next_program_++;
  for (uint32_t rail = 0; rail < settings_.rails; ++rail) {
    elan_capability cap;
    cap.key = random_key();
    cap.rail = rail;
    cap.low_id = *low_id;
    cap.high_id = *high_id;
    cap.low_context = *low_context;
    cap.high_context = *low_context + width - 1;
    data.capabilities.push_back(cap);
  }
  steps_[key] = held{*low_context, width};
  publish_state(saved_state());
  return encode_elan_data(data);
}

void elan_switch::release(uint64_t job_id, uint32_t step_id) {
  std::lock_guard<std::mutex> lock{mutex_};
  if (steps_.erase(step_key{job_id, step_id}) == 0) return;
  publish_state(saved_state());
}

std::vector<uint8_t> elan_switch::saved_state() const {
  byte_writer w;
  w.magic(state_magic);
  w.u32(next_program_);
  w.u32(static_cast<uint32_t>(steps_.size()));
  for (auto& [key, h] : steps_) {
    w.u64(key.first);
    w.u32(key.second);
    w.u32(h.low_context);
    w.u32(h.width);
  }
  return std::move(w.out);
}

shoal::error elan_switch::restore_state(const std::vector<uint8_t>& saved,
                                        const std::set<step_key>& live) {
  byte_reader r{saved};
  uint32_t next = 0, count = 0;
  std::map<step_key, held> steps;
  bool ok = r.magic(state_magic) && r.u32(next) && r.u32(count) && count <= r.left() / 20;
  for (uint32_t i = 0; ok && i < count; ++i) {
    step_key key;
    held h;
    ok = r.u64(key.first) && r.u32(key.second) && r.u32(h.low_context) && r.u32(h.width) &&
         h.width > 0 && h.low_context >= elan_first_context &&
         uint64_t{h.low_context} + h.width <= uint64_t{elan_first_context} + elan_context_count;
    if (ok && live.count(key) != 0) steps[key] = h;
  }
  if (!ok || r.left() != 0)
    return shoal::error(errc::malformed_message, "the saved switch/elan state does not decode");
  std::lock_guard<std::mutex> lock{mutex_};
  next_program_ = std::max(next_program_, next);
  steps_ = std::move(steps);
  publish_state(saved_state());
  return {};
}

}  // namespace shoal::interconnect

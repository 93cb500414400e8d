#include "topology/cpu_binding.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "messages/errc.hpp"
#include "messages/text.hpp"

namespace shoal::topology {

namespace {

constexpr size_t max_list_entries = 65536;
constexpr uint32_t max_cpu = 65535;

shoal::error bad(const std::string& text) {
  return shoal::error(errc::invalid_request, "invalid --cpu-bind: " + text);
}

using text::is_digit;
using text::lower;

bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

/// srun's test for "the text after this comma continues a list": it starts with a digit, or is
/// hex digits up to the next comma (we also allow a `*COUNT` repetition after them).
bool starts_value(std::string_view rest) {
  if (rest.empty()) return false;
  if (is_digit(rest.front())) return true;
  size_t i = 0;
  while (i < rest.size() && is_hex(rest[i])) ++i;
  return i > 0 && (i == rest.size() || rest[i] == ',' || rest[i] == '*');
}

/// Splits at commas that do not continue a list.
std::vector<std::string_view> split_tokens(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && (text[i] != ',' || starts_value(text.substr(i + 1)))) continue;
    tokens.push_back(text.substr(start, i - start));
    start = i + 1;
  }
  return tokens;
}

bool parse_number(std::string_view s, int base, uint64_t limit, uint64_t& out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (is_digit(c))
      d = c - '0';
    else if (base == 16 && is_hex(c))
      d = std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
    else
      return false;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    if (v > limit) return false;
  }
  out = v;
  return true;
}

/// Splits "ENTRY*COUNT" into the entry and its repeat count (1 without a star).
shoal::expected<std::pair<std::string_view, uint64_t>> split_repeat(std::string_view entry,
                                                                    const char* what) {
  auto star = entry.find('*');
  if (star == std::string_view::npos) return std::make_pair(entry, uint64_t{1});
  uint64_t count = 0;
  if (!parse_number(entry.substr(star + 1), 10, max_list_entries, count) || count == 0)
    return bad(std::string{what} + " entry '" + std::string{entry} +
               "' has a bad repeat count (use ENTRY*COUNT, COUNT from 1 to 65536)");
  return std::make_pair(entry.substr(0, star), count);
}

std::vector<std::string_view> split_list(std::string_view list) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i < list.size() && list[i] != ',') continue;
    out.push_back(list.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

shoal::error parse_map(std::string_view list, cpu_bind_spec& spec) {
  spec.map.clear();
  for (auto entry : split_list(list)) {
    auto rep = split_repeat(entry, "map_cpu");
    if (!rep) return std::move(rep.error());
    auto [value, count] = *rep;
    uint64_t cpu = 0;
    bool ok = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X')
                  ? parse_number(value.substr(2), 16, max_cpu, cpu)
                  : parse_number(value, 10, max_cpu, cpu);
    if (!ok)
      return bad("map_cpu entry '" + std::string{entry} +
                 "' is not a CPU number from 0 to 65535 (e.g. map_cpu:0,2 or map_cpu:0*4,1*4)");
    if (spec.map.size() + count > max_list_entries)
      return bad("map_cpu lists more than 65536 entries");
    spec.map.insert(spec.map.end(), count, static_cast<uint32_t>(cpu));
  }
  return {};
}

shoal::error parse_masks(std::string_view list, cpu_bind_spec& spec) {
  spec.masks.clear();
  for (auto entry : split_list(list)) {
    auto rep = split_repeat(entry, "mask_cpu");
    if (!rep) return std::move(rep.error());
    auto [value, count] = *rep;
    if (value.size() >= 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X'))
      value.remove_prefix(2);
    bool hex = !value.empty() && std::all_of(value.begin(), value.end(), is_hex);
    if (!hex || value.size() > (max_cpu + 1) / 4)
      return bad("mask_cpu entry '" + std::string{entry} +
                 "' is not a hex CPU mask (e.g. mask_cpu:0x3,0xC; bit N is CPU N)");
    cpu_list cpus;
    uint32_t bit = 0;
    for (auto it = value.rbegin(); it != value.rend(); ++it, bit += 4) {
      int d = is_digit(*it) ? *it - '0' : std::tolower(static_cast<unsigned char>(*it)) - 'a' + 10;
      for (uint32_t b = 0; b < 4; ++b)
        if ((d >> b) & 1) cpus.push_back(bit + b);
    }
    std::sort(cpus.begin(), cpus.end());
    if (cpus.empty()) return bad("mask_cpu entry '" + std::string{entry} + "' selects no CPU");
    if (spec.masks.size() + count > max_list_entries)
      return bad("mask_cpu lists more than 65536 entries");
    spec.masks.insert(spec.masks.end(), count, cpus);
  }
  return {};
}

/// The list after "map_cpu:" (or '='), or nullopt-like false when `token` is not `name`+list.
bool list_after(std::string_view token, std::string_view lowered, std::string_view name,
                std::string_view& list) {
  if (lowered.compare(0, name.size(), name) != 0) return false;
  auto rest = token.substr(name.size());
  if (!rest.empty() && rest.front() != ':' && rest.front() != '=') return false;
  list = rest.empty() ? rest : rest.substr(1);
  return true;
}

std::string pad2(uint32_t v) {
  auto s = std::to_string(v);
  return s.size() < 2 ? " " + s : s;
}

char hex_digit(unsigned v, bool upper) {
  return static_cast<char>(v < 10 ? '0' + v : (upper ? 'A' : 'a') + (v - 10));
}

/// Hex digits of `cpus`, most significant first, exactly `digits` of them.
std::string hex_digits(const cpu_list& cpus, uint32_t digits, bool upper) {
  std::string out(digits, '0');
  for (auto cpu : cpus) {
    auto pos = cpu / 4;
    if (pos >= digits) continue;
    auto& c = out[digits - 1 - pos];
    unsigned v = is_digit(c) ? static_cast<unsigned>(c - '0')
                             : static_cast<unsigned>(std::tolower(c) - 'a' + 10);
    c = hex_digit(v | (1u << (cpu % 4)), upper);
  }
  return out;
}

cpu_list sorted_unique(cpu_list cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

/// Core indices of each task under the cores rule (see plan_cpu_binding).
std::vector<std::vector<size_t>> core_shares(const std::vector<core_info>& cores,
                                             uint32_t local_tasks, uint32_t cpus_per_task) {
  std::vector<std::vector<size_t>> shares(local_tasks);
  size_t cursor = 0;
  for (auto& share : shares) {
    size_t pus = 0;
    while (pus < cpus_per_task && share.size() < cores.size()) {
      share.push_back(cursor);
      pus += cores[cursor].pus.size();
      cursor = (cursor + 1) % cores.size();
    }
  }
  return shares;
}

}  // namespace

shoal::expected<cpu_bind_spec> parse_cpu_bind(std::string_view text) {
  if (text.empty())
    return bad("empty value (use e.g. --cpu-bind=cores; --cpu-bind=help lists the types)");
  cpu_bind_spec spec;
  for (auto token : split_tokens(text)) {
    auto low = lower(token);
    std::string_view list;
    if (low == "q" || low == "quiet") {
      spec.verbose = false;
    } else if (low == "v" || low == "verbose") {
      spec.verbose = true;
    } else if (low == "no" || low == "none") {
      spec.type = cpu_bind_type::none;
    } else if (low == "rank") {
      spec.type = cpu_bind_type::rank;
    } else if (low == "cores" || low == "core") {
      spec.type = cpu_bind_type::cores;
    } else if (low == "threads" || low == "thread") {
      spec.type = cpu_bind_type::threads;
    } else if (low == "sockets" || low == "socket") {
      spec.type = cpu_bind_type::sockets;
    } else if (low == "ldoms" || low == "ldom") {
      spec.type = cpu_bind_type::ldoms;
    } else if (list_after(token, low, "map_cpu", list) || list_after(token, low, "mapcpu", list)) {
      if (list.empty()) return bad("map_cpu needs a list of CPUs (e.g. --cpu-bind=map_cpu:0,1)");
      if (auto err = parse_map(list, spec)) return err;
      spec.type = cpu_bind_type::map_cpu;
    } else if (list_after(token, low, "mask_cpu", list) ||
               list_after(token, low, "maskcpu", list)) {
      if (list.empty())
        return bad("mask_cpu needs a list of masks (e.g. --cpu-bind=mask_cpu:0x3,0xC)");
      if (auto err = parse_masks(list, spec)) return err;
      spec.type = cpu_bind_type::mask_cpu;
    } else if (low == "rank_ldom" || low.compare(0, 8, "map_ldom") == 0 ||
               low.compare(0, 7, "mapldom") == 0 || low.compare(0, 9, "mask_ldom") == 0 ||
               low.compare(0, 8, "maskldom") == 0) {
      auto name = std::string{token.substr(0, token.find_first_of(":="))};
      return bad("'" + name +
                 "' is not supported by shoal (use ldoms to bind each task to the NUMA nodes of "
                 "its cores, or mask_cpu:LIST)");
    } else {
      return bad("unknown type '" + std::string{token} +
                 "' (use [quiet|verbose,]none|cores|threads|sockets|ldoms|rank|map_cpu:LIST|"
                 "mask_cpu:LIST; --cpu-bind=help explains them)");
    }
  }
  return spec;
}

bool is_cpu_bind_help(std::string_view text) {
  for (auto token : split_tokens(text))
    if (lower(token) == "help") return true;
  return false;
}

const char* cpu_bind_help() {
  return "CPU bind options:\n"
         "    --cpu-bind=         Bind tasks to CPUs\n"
         "        q[uiet]         quietly bind before task runs (default)\n"
         "        v[erbose]       verbosely report binding before task runs\n"
         "        no[ne]          don't bind tasks to CPUs (default)\n"
         "        rank            bind local task i to CPU i of the node\n"
         "        map_cpu:<list>  specify a CPU ID binding for each task\n"
         "                        where <list> is <cpuid1>,<cpuid2>,...<cpuidN>\n"
         "        mask_cpu:<list> specify a CPU ID binding mask for each task\n"
         "                        where <list> is <mask1>,<mask2>,...<maskN>\n"
         "        sockets         bind each task to the sockets of its cores\n"
         "        cores           bind each task to its own cores (-c CPUs each)\n"
         "        threads         bind each task to its own threads (-c CPUs each)\n"
         "        ldoms           bind each task to the NUMA nodes of its cores\n"
         "        help            show this help message\n"
         "A list entry may repeat: map_cpu:0*4,1*4. Not supported: rank_ldom, map_ldom,\n"
         "mask_ldom.\n";
}

std::string to_string(const cpu_bind_spec& spec) {
  std::string out = spec.verbose ? "verbose," : "quiet,";
  switch (spec.type) {
    case cpu_bind_type::none:
      return out + "none";
    case cpu_bind_type::cores:
      return out + "cores";
    case cpu_bind_type::threads:
      return out + "threads";
    case cpu_bind_type::sockets:
      return out + "sockets";
    case cpu_bind_type::ldoms:
      return out + "ldoms";
    case cpu_bind_type::rank:
      return out + "rank";
    case cpu_bind_type::map_cpu:
      out += "map_cpu:";
      for (size_t i = 0; i < spec.map.size(); ++i)
        out += (i > 0 ? "," : "") + std::to_string(spec.map[i]);
      return out;
    case cpu_bind_type::mask_cpu:
      out += "mask_cpu:";
      for (size_t i = 0; i < spec.masks.size(); ++i)
        out += (i > 0 ? "," : "") + short_hex_mask(spec.masks[i]);
      return out;
  }
  return out;
}

std::string env_type_name(const cpu_bind_spec& spec) {
  switch (spec.type) {
    case cpu_bind_type::none:
      return "none";
    case cpu_bind_type::rank:
      return "rank";
    case cpu_bind_type::map_cpu:
      return "map_cpu:";
    default:
      return "mask_cpu:";
  }
}

shoal::expected<std::vector<cpu_list>> plan_cpu_binding(const std::vector<core_info>& cores,
                                                        uint32_t local_tasks,
                                                        uint32_t cpus_per_task,
                                                        const cpu_bind_spec& spec) {
  if (spec.type == cpu_bind_type::none) return std::vector<cpu_list>{};
  if (cores.empty())
    return shoal::error(errc::invalid_request,
                        "--cpu-bind: this node's daemon knows no cores (hwloc found none); use "
                        "--cpu-bind=none");
  cpus_per_task = std::max<uint32_t>(1, cpus_per_task);
  cpu_list in_order;  // every PU, hwloc order
  for (auto& core : cores) in_order.insert(in_order.end(), core.pus.begin(), core.pus.end());
  auto node_cpus = sorted_unique(in_order);
  auto on_node = [&](uint32_t cpu) {
    return std::binary_search(node_cpus.begin(), node_cpus.end(), cpu);
  };
  std::vector<cpu_list> plan(local_tasks);
  switch (spec.type) {
    case cpu_bind_type::none:
      break;
    case cpu_bind_type::threads: {
      size_t cursor = 0;
      auto take = std::min<size_t>(cpus_per_task, in_order.size());
      for (auto& cpus : plan) {
        for (size_t k = 0; k < take; ++k) cpus.push_back(in_order[(cursor + k) % in_order.size()]);
        cursor = (cursor + take) % in_order.size();
      }
      break;
    }
    case cpu_bind_type::cores:
    case cpu_bind_type::sockets:
    case cpu_bind_type::ldoms: {
      auto shares = core_shares(cores, local_tasks, cpus_per_task);
      for (size_t t = 0; t < plan.size(); ++t) {
        std::set<uint32_t> domains;
        for (auto c : shares[t]) {
          if (spec.type == cpu_bind_type::cores)
            plan[t].insert(plan[t].end(), cores[c].pus.begin(), cores[c].pus.end());
          else
            domains.insert(spec.type == cpu_bind_type::sockets ? cores[c].socket
                                                               : cores[c].numa_node);
        }
        if (spec.type == cpu_bind_type::cores) continue;
        for (auto& core : cores) {
          auto domain = spec.type == cpu_bind_type::sockets ? core.socket : core.numa_node;
          if (domains.count(domain) > 0)
            plan[t].insert(plan[t].end(), core.pus.begin(), core.pus.end());
        }
      }
      break;
    }
    case cpu_bind_type::rank:
      for (size_t t = 0; t < plan.size(); ++t) plan[t] = {node_cpus[t % node_cpus.size()]};
      break;
    case cpu_bind_type::map_cpu:
      if (spec.map.empty())
        return shoal::error(errc::invalid_request, "--cpu-bind=map_cpu: no list");
      for (size_t t = 0; t < plan.size(); ++t) {
        auto cpu = spec.map[t % spec.map.size()];
        if (!on_node(cpu))
          return shoal::error(errc::invalid_request, "--cpu-bind=map_cpu: CPU " +
                                                         std::to_string(cpu) +
                                                         " is not one of this node's CPUs (" +
                                                         cpu_range_list(node_cpus) + ")");
        plan[t] = {cpu};
      }
      break;
    case cpu_bind_type::mask_cpu:
      if (spec.masks.empty())
        return shoal::error(errc::invalid_request, "--cpu-bind=mask_cpu: no list");
      for (size_t t = 0; t < plan.size(); ++t) {
        auto& mask = spec.masks[t % spec.masks.size()];
        for (auto cpu : mask)
          if (on_node(cpu)) plan[t].push_back(cpu);
        if (plan[t].empty())
          return shoal::error(errc::invalid_request, "--cpu-bind=mask_cpu: mask " +
                                                         short_hex_mask(mask) +
                                                         " holds none of this node's CPUs (" +
                                                         cpu_range_list(node_cpus) + ")");
      }
      break;
  }
  for (auto& cpus : plan) cpus = sorted_unique(std::move(cpus));
  return plan;
}

std::string cpu_range_list(const cpu_list& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::string padded_hex_mask(const cpu_list& cpus, uint32_t width_bits) {
  uint32_t top = cpus.empty() ? 0 : *std::max_element(cpus.begin(), cpus.end()) + 1;
  auto digits = std::max<uint32_t>(1, (std::max(width_bits, top) + 3) / 4);
  return "0x" + hex_digits(cpus, digits, true);
}

std::string short_hex_mask(const cpu_list& cpus) {
  uint32_t top = cpus.empty() ? 0 : *std::max_element(cpus.begin(), cpus.end()) + 1;
  auto digits = std::max<uint32_t>(1, (top + 3) / 4);
  return "0x" + hex_digits(cpus, digits, false);
}

verbose_bind_line make_verbose_bind_line(const cpu_bind_spec& spec, const std::string& node_name,
                                         uint32_t rank, uint32_t local_id, const cpu_list& cpus,
                                         const cpu_list& current) {
  // srun's units suffix ("cpu-bind-cores=") disappears once the automatic types are turned into
  // masks, so they print as MASK; MAP keeps Slurm's trailing blank.
  const char* kind = spec.type == cpu_bind_type::none      ? "NONE"
                     : spec.type == cpu_bind_type::rank    ? "RANK"
                     : spec.type == cpu_bind_type::map_cpu ? "MAP "
                                                           : "MASK";
  verbose_bind_line line;
  line.head = std::string{"cpu-bind="} + kind + " - " + node_name + ", task " + pad2(rank) + " " +
              pad2(local_id) + " [";
  if (spec.type == cpu_bind_type::none) {
    line.tail = "]: mask " + short_hex_mask(current) + "\n";
    line.failed_tail = line.tail;
  } else {
    line.tail = "]: mask " + short_hex_mask(cpus) + " set\n";
    line.failed_tail = "]: mask " + short_hex_mask(current) + " set FAILED\n";
  }
  return line;
}

}  // namespace shoal::topology

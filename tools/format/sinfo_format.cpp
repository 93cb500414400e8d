#include "tools/format/sinfo_format.hpp"

#include <pwd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "tools/format/node_state_text.hpp"
#include "tools/format/slurm_format.hpp"
#include "tools/format/table.hpp"
#include "topology/hostlist.hpp"
#include "topology/task_layout.hpp"

namespace shoal::cli {

namespace {

using msg::node_state;

/// The fields records must agree on (sinfo's match_flags), set by the fields the format shows.
struct match_flags {
  // partition-level
  bool partition = false, avail = false, max_time = false, default_time = false, job_size = false,
       oversubscribe = false, priority_tier = false;
  // node-level
  bool hostnames = false, node_addr = false, features = false, features_act = false, gres = false,
       gres_used = false, reason = false, reason_time = false, reason_user = false, state = false,
       state_complete = false;
  // node sizes, compared only with -e
  bool cpus = false, sockets = false, cores = false, threads = false, sct = false, disk = false,
       memory = false, weight = false;
};

/// One line of sinfo: a partition's nodes that agree on the shown fields.
struct record {
  const msg::partition_info* part = nullptr;
  size_t part_index = 0;
  std::vector<std::string> nodes;           ///< in the order they joined
  std::unordered_set<std::string> members;  ///< `nodes`, to count a node once in O(1)
  std::vector<std::string> addrs;
  std::vector<std::string> hostnames;
  const msg::node_info* first = nullptr;  ///< the first node: state, reason, features, ...
  uint32_t min_cpus = 0, max_cpus = 0;
  uint32_t min_sockets = 0, max_sockets = 0, min_cores = 0, max_cores = 0;
  uint32_t min_threads = 0, max_threads = 0;
  uint64_t min_disk = 0, max_disk = 0, min_mem = 0, max_mem = 0;
  uint32_t min_weight = 0, max_weight = 0;
  uint32_t nodes_alloc = 0, nodes_idle = 0, nodes_other = 0, nodes_total = 0;
  uint64_t cpus_alloc = 0, cpus_idle = 0, cpus_other = 0, cpus_total = 0;
};

struct cell {
  std::string text;
  bool cut = true;
};

/// One of sinfo's fields.
struct node_column {
  char letter = '\0';  ///< '\0': -O only
  std::vector<const char*> names;
  const char* header = "";
  bool header_cut = true;
  bool match_flags::*flag = nullptr;  ///< what the field makes records agree on
  std::function<cell(const record&)> value;
  const char* missing = nullptr;  ///< non-null: shoal has no value; the note
};

// -- a node's values ------------------------------------------------------------------------

uint32_t cpus_of(const msg::node_info& n) {
  return n.cpus ? n.cpus : n.reported.cpus;
}
uint64_t memory_of(const msg::node_info& n) {
  return n.real_memory_mb ? n.real_memory_mb : n.reported.real_memory_mb;
}
uint64_t disk_of(const msg::node_info& n) {
  return n.tmp_disk_mb ? n.tmp_disk_mb : n.reported.tmp_disk_mb;
}
std::string address_of(const msg::node_info& n) {
  return n.address.empty() ? n.name : n.address;
}
/// NodeHostname as Slurm defaults it: the node's name. (shoal keeps one address per node, from
/// NodeHostname= or NodeAddr=, which %o shows.)
std::string hostname_of(const msg::node_info& n) {
  return n.name;
}

/// Slurm's node_state value (base state and flags), which sinfo sorts by.
uint32_t slurm_state_value(node_state s) {
  switch (s) {
    case node_state::unknown:
      return 0;
    case node_state::down:
      return 1;
    case node_state::idle:
      return 2;
    case node_state::allocated:
      return 3;
    case node_state::mixed:
      return 5;
    case node_state::drained:
      return 0x200 | 2;  // IDLE + DRAIN
    case node_state::draining:
      return 0x200 | 3;  // ALLOCATED + DRAIN
    case node_state::completing:
      return 0x400 | 2;  // IDLE + COMPLETING
  }
  return 0;
}

/// node_state_string_complete, as sinfo prints it (lower case).
std::string state_complete(node_state s) {
  switch (s) {
    case node_state::drained:
      return "idle+drain";
    case node_state::draining:
      return "allocated+drain";
    case node_state::completing:
      return "idle+completing";
    default:
      return detail::lower(msg::to_string(s));
  }
}

/// sinfo -t's test for one state name (_filter_out); the power flags (the guide's states) by
/// their names.
bool state_wanted(const msg::node_info& n, const std::string& want, uint64_t cpus_used) {
  auto s = n.state;
  auto w = detail::lower(want);
  if (w == "powered_down") return n.power == msg::power_state::powered_down;
  if (w == "powering_up") return n.power == msg::power_state::powering_up;
  if (w == "powering_down") return n.power == msg::power_state::powering_down;
  if (w == "power_down") return n.power_down_asked;
  if (w == "cloud") return n.cloud;
  if (w == "drain") return s == node_state::draining || s == node_state::drained;
  if (w == "draining" || w == "drng") return s == node_state::draining;
  if (w == "drained") return s == node_state::drained;
  if (w == "comp" || w == "completing") return s == node_state::completing;
  if (w == "alloc" || w == "allocated") return cpus_used > 0;
  // The base state: a drained or completing node is idle underneath, a draining one allocated.
  auto base = slurm_state_value(s) & 0xff;
  if (w == "idle") return base == 2;
  if (w == "down") return base == 1;
  if (w == "mix" || w == "mixed") return base == 5;
  if (w == "unk" || w == "unknown") return base == 0;
  return false;
}

std::string or_null(const std::string& s) {
  return s.empty() ? "(null)" : s;
}

/// _build_min_max_32_string / _16_string: "4", or "2+" (range: "2-4"), 0 max as infinite.
std::string min_max(uint64_t min, uint64_t max, bool range, bool units, bool max_infinite = false) {
  auto text = [units](uint64_t v) {
    return units ? slurm_number_unit(static_cast<double>(v), 0) : std::to_string(v);
  };
  if (min == max && !max_infinite) return text(max);
  if (range) return text(min) + "-" + (max_infinite ? std::string{"infinite"} : text(max));
  return text(min) + "+";
}

std::string hostlist_text(const std::vector<std::string>& names) {
  return topology::compress_hostlist_sorted(names);
}

std::string partition_state(const msg::partition_info& p) {
  auto s = detail::lower(p.state);
  return s.empty() ? "up" : s;
}

std::string part_time(int64_t seconds, const char* unset) {
  if (seconds == -1 && unset != nullptr) return unset;
  if (seconds < 0) return "infinite";
  return slurm_seconds(seconds, false);
}

std::string reason_user_long(const std::string& user) {
  if (user.empty()) return "Unknown";
  passwd pw{};
  passwd* found = nullptr;
  char buf[4096];
  if (getpwnam_r(user.c_str(), &pw, buf, sizeof buf, &found) == 0 && found != nullptr)
    return user + "(" + std::to_string(found->pw_uid) + ")";
  return user;
}

// Shorthands for the column tables below.
using R = const record&;
using M = match_flags;

/// A cell of the text `get` returns for the record.
template <class Get>
std::function<cell(R)> text(Get get) {
  return [get](R r) { return cell{get(r)}; };
}

/// A cell that is always `v`.
std::function<cell(R)> constant(const char* v) {
  return [v](R) { return cell{v}; };
}

/// A cell of the text `get` returns for the record's first node; (null) when it has none.
template <class Get>
std::function<cell(R)> node_text(Get get) {
  return [get](R r) { return cell{r.first != nullptr ? get(*r.first) : std::string{"(null)"}}; };
}

/// A field shoal keeps no value for, shown as N/A; `note` tells the user so.
node_column shown_as_na(char letter, const char* name, const char* header, const char* note) {
  return {letter, {name}, header, true, nullptr, constant("N/A"), note};
}

/// A partition's settings.
void add_partition_columns(std::vector<node_column>& f) {
  f.push_back({'a', {"available"}, "AVAIL", true, &M::avail, text([](R r) {
                 return r.part ? partition_state(*r.part) : "n/a";
               })});
  f.push_back(
      {'h', {"oversubscribe", "share"}, "OVERSUBSCRIBE", true, &M::oversubscribe, text([](R r) {
         return r.part ? r.part->over_subscribe : "n/a";
       })});
  f.push_back({'l', {"time"}, "TIMELIMIT", true, &M::max_time, text([](R r) {
                 return r.part ? part_time(r.part->max_time_s, nullptr) : "n/a";
               })});
  f.push_back({'L', {"defaulttime"}, "DEFAULTTIME", true, &M::default_time, text([](R r) {
                 return r.part ? part_time(r.part->default_time_s, "n/a") : "n/a";
               })});
  f.push_back({'p', {"prioritytier"}, "PRIO_TIER", true, &M::priority_tier, text([](R r) {
                 return r.part ? std::to_string(r.part->priority) : "n/a";
               })});
  f.push_back({'P', {"partition"}, "PARTITION", true, &M::partition, nullptr});  // see render
  f.push_back({'R', {"partitionname"}, "PARTITION", true, &M::partition, text([](R r) {
                 return r.part ? r.part->name : "n/a";
               })});
  f.push_back({'s', {"size"}, "JOB_SIZE", true, &M::job_size, text([](R r) -> std::string {
                 if (r.part == nullptr) return "n/a";
                 // MinNodes is 1 in shoal; MaxNodes 0 is unlimited.
                 return min_max(1, r.part->max_nodes, true, true, r.part->max_nodes == 0);
               })});
  f.push_back({'g', {"groups"}, "GROUPS", true, nullptr, constant("all")});
  f.push_back({'S', {"allocnodes"}, "ALLOCNODES", true, nullptr, constant("all")});
  f.push_back({'r', {"root"}, "ROOT", true, nullptr, constant("no")});
  f.push_back({'M', {"preemptmode"}, "PREEMPT_MODE", true, nullptr, constant("OFF")});
  f.push_back({'B', {"maxcpuspernode"}, "MAX_CPUS_PER_NODE", true, nullptr, constant("UNLIMITED")});
  f.push_back(
      shown_as_na('I', "priorityjobfactor", "PRIO_JOB_FACTOR",
                  "PRIO_JOB_FACTOR (%I, priorityjobfactor) is not in shoal's partition listing; "
                  "shown as N/A"));
}

/// Node counts, and the CPUs, memory and disk of the record's nodes.
void add_count_columns(std::vector<node_column>& f) {
  f.push_back({'A', {"nodeai"}, "NODES(A/I)", true, nullptr, text([](R r) {
                 return std::to_string(r.nodes_alloc) + "/" + std::to_string(r.nodes_idle);
               })});
  f.push_back({'F', {"nodeaiot"}, "NODES(A/I/O/T)", true, nullptr, text([](R r) {
                 return std::to_string(r.nodes_alloc) + "/" + std::to_string(r.nodes_idle) + "/" +
                        std::to_string(r.nodes_other) + "/" + std::to_string(r.nodes_total);
               })});
  f.push_back({'D', {"nodes"}, "NODES", true, nullptr, text([](R r) {
                 return std::to_string(r.nodes_total);
               })});
  f.push_back({'C', {"cpusstate"}, "CPUS(A/I/O/T)", true, &M::cpus, text([](R r) {
                 return std::to_string(r.cpus_alloc) + "/" + std::to_string(r.cpus_idle) + "/" +
                        std::to_string(r.cpus_other) + "/" + std::to_string(r.cpus_total);
               })});
  f.push_back({'c', {"cpus"}, "CPUS", true, &M::cpus, text([](R r) {
                 return min_max(r.min_cpus, r.max_cpus, false, true);
               })});
  f.push_back({'m', {"memory"}, "MEMORY", true, &M::memory, text([](R r) {
                 return min_max(r.min_mem, r.max_mem, false, false);
               })});
  f.push_back({'d', {"disk"}, "TMP_DISK", true, &M::disk, text([](R r) {
                 return min_max(r.min_disk, r.max_disk, false, false);
               })});
  f.push_back({'w', {"weight"}, "WEIGHT", true, &M::weight, text([](R r) {
                 return min_max(r.min_weight, r.max_weight, false, false);
               })});
  f.push_back({'X', {"sockets"}, "SOCKETS", true, &M::sockets, text([](R r) {
                 return min_max(r.min_sockets, r.max_sockets, false, true);
               })});
  f.push_back({'Y', {"cores"}, "CORES", true, &M::cores, text([](R r) {
                 return min_max(r.min_cores, r.max_cores, false, true);
               })});
  f.push_back({'Z', {"threads"}, "THREADS", true, &M::threads, text([](R r) {
                 return min_max(r.min_threads, r.max_threads, false, true);
               })});
  f.push_back({'z', {"socketcorethread"}, "S:C:T", true, &M::sct, text([](R r) {
                 return min_max(r.min_sockets, r.max_sockets, false, true) + ":" +
                        min_max(r.min_cores, r.max_cores, false, true) + ":" +
                        min_max(r.min_threads, r.max_threads, false, true);
               })});
}

/// The record's nodes: names, features and generic resources, state and its reason.
void add_node_columns(std::vector<node_column>& f) {
  f.push_back({'N', {"nodelist"}, "NODELIST", false, nullptr, text([](R r) {
                 return hostlist_text(r.nodes);
               })});
  f.push_back({'n', {"nodehost"}, "HOSTNAMES", false, &M::hostnames, text([](R r) {
                 return hostlist_text(r.hostnames);
               })});
  f.push_back({'o', {"nodeaddr"}, "NODE_ADDR", false, &M::node_addr, text([](R r) {
                 return hostlist_text(r.addrs);
               })});
  f.push_back({'f',
               {"features"},
               "AVAIL_FEATURES",
               true,
               &M::features,
               node_text([](const msg::node_info& n) { return or_null(n.features); })});
  f.push_back({'b',
               {"features_act"},
               "ACTIVE_FEATURES",
               true,
               &M::features_act,
               node_text([](const msg::node_info& n) { return or_null(n.features); })});
  f.push_back({'G', {"gres"}, "GRES", true, &M::gres, node_text([](const msg::node_info& n) {
                 return or_null(n.gres);
               })});
  f.push_back(
      {'\0', {"gresused"}, "GRES_USED", true, &M::gres_used, node_text([](const msg::node_info& n) {
         return or_null(n.gres_used);
       })});
  f.push_back({'t', {"statecompact"}, "STATE", true, &M::state, text([](R r) -> std::string {
                 if (r.nodes_total == 0 || r.first == nullptr) return "n/a";
                 return compact_state(*r.first);
               })});
  f.push_back({'T', {"statelong"}, "STATE", true, &M::state, text([](R r) -> std::string {
                 if (r.nodes_total == 0 || r.first == nullptr) return "n/a";
                 return long_state(*r.first);
               })});
  f.push_back({'\0',
               {"statecomplete"},
               "STATECOMPLETE",
               true,
               &M::state_complete,
               text([](R r) -> std::string {
                 if (r.nodes_total == 0 || r.first == nullptr) return "n/a";
                 return state_complete(r.first->state) + detail::lower(power_flags(*r.first));
               })});
  f.push_back({'E', {"reason"}, "REASON", true, &M::reason, node_text([](const msg::node_info& n) {
                 return n.reason.empty() ? std::string{"none"} : n.reason;
               })});
  f.push_back({'H', {"timestamp"}, "TIMESTAMP", true, &M::reason_time, text([](R r) {
                 if (r.first == nullptr || r.first->reason_time == 0) return std::string{"Unknown"};
                 return detail::iso_time(r.first->reason_time, "Unknown");
               })});
  f.push_back({'u', {"user"}, "USER", true, &M::reason_user, text([](R r) -> std::string {
                 if (r.first == nullptr || r.first->reason_user.empty()) return "Unknown";
                 return r.first->reason_user;
               })});
  f.push_back({'U', {"userlong"}, "USER", true, &M::reason_user, text([](R r) {
                 return reason_user_long(r.first != nullptr ? r.first->reason_user : "");
               })});
}

/// Slurm's fields shoal keeps no value for.
void add_unkept_columns(std::vector<node_column>& f) {
  f.push_back(
      shown_as_na('e', "freemem", "FREE_MEM",
                  "FREE_MEM (%e, freemem): shoal keeps no free memory per node; shown as N/A"));
  f.push_back(
      shown_as_na('O', "cpusload", "CPU_LOAD",
                  "CPU_LOAD (%O, cpusload): shoal keeps no CPU load per node; shown as N/A"));
  f.push_back(
      shown_as_na('v', "version", "VERSION",
                  "VERSION (%v, version): shoal does not list its node daemons' versions; shown as "
                  "N/A"));
  // Only a multi-cluster sinfo names the cluster.
  f.push_back({'V', {"cluster"}, "CLUSTER", true, nullptr, constant("N/A")});
  f.push_back({'\0', {"comment"}, "COMMENT", true, nullptr, constant("(null)")});
  f.push_back({'\0', {"extra"}, "EXTRA", true, nullptr, constant("(null)")});
  f.push_back(shown_as_na('\0', "port", "PORT",
                          "PORT (port) is not in shoal's node listing; shown as N/A"));
  f.push_back(shown_as_na('\0', "allocmem", "ALLOCMEM",
                          "ALLOCMEM (allocmem) is not in shoal's node listing; shown as N/A"));
}

std::vector<node_column> make_columns() {
  std::vector<node_column> f;
  add_partition_columns(f);
  add_count_columns(f);
  add_node_columns(f);
  add_unkept_columns(f);
  return f;
}

const std::vector<node_column>& columns() {
  static const std::vector<node_column> all = make_columns();
  return all;
}

const node_column* by_letter(char letter) {
  for (auto& c : columns())
    if (c.letter == letter) return &c;
  return nullptr;
}

const node_column* by_name(const std::string& name) {
  for (auto& c : columns())
    for (auto* n : c.names)
      if (name == n) return &c;
  return nullptr;
}

/// %P: the name, with `*` for the default partition (over its last character when the width
/// leaves no room for it, as sinfo does).
cell partition_cell(const record& r, int width) {
  if (r.part == nullptr) return {"n/a"};
  auto name = r.part->name;
  if (r.part->is_default) {
    if (width <= 0 || name.size() < static_cast<size_t>(width))
      name += "*";
    else
      name[static_cast<size_t>(width) - 1] = '*';
  }
  return {name};
}

// -- grouping ------------------------------------------------------------------------------

bool same_partition(const match_flags& m, const record& r, const msg::partition_info* p) {
  if (p == r.part) return true;
  if (p == nullptr || r.part == nullptr) return false;
  if (m.partition && p->name != r.part->name) return false;
  if (m.avail && p->state != r.part->state) return false;
  if (m.job_size && p->max_nodes != r.part->max_nodes) return false;
  if (m.default_time && p->default_time_s != r.part->default_time_s) return false;
  if (m.max_time && p->max_time_s != r.part->max_time_s) return false;
  if (m.oversubscribe && p->over_subscribe != r.part->over_subscribe) return false;
  if (m.priority_tier && p->priority != r.part->priority) return false;
  return true;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool same_node(const match_flags& m, bool exact, const record& r, const msg::node_info& n) {
  const auto& f = *r.first;
  if (m.hostnames && !contains(r.hostnames, hostname_of(n))) return false;
  if (m.node_addr && !contains(r.addrs, address_of(n))) return false;
  if (m.features && n.features != f.features) return false;
  if (m.features_act && n.features != f.features) return false;
  if (m.gres && n.gres != f.gres) return false;
  if (m.gres_used && n.gres_used != f.gres_used) return false;
  if (m.reason && n.reason != f.reason) return false;
  if (m.reason_time && n.reason_time != f.reason_time) return false;
  if (m.reason_user && n.reason_user != f.reason_user) return false;
  bool same_power = n.power == f.power && n.power_down_asked == f.power_down_asked;
  if (m.state && (n.state != f.state || !same_power)) return false;
  if (m.state_complete && (n.state != f.state || !same_power || n.cloud != f.cloud)) return false;
  if (!exact) return true;
  if (m.cpus && cpus_of(n) != r.min_cpus) return false;
  if (m.sockets && n.reported.sockets != r.min_sockets) return false;
  if (m.cores && n.reported.cores_per_socket != r.min_cores) return false;
  if (m.threads && n.reported.threads_per_core != r.min_threads) return false;
  if (m.sct && (n.reported.sockets != r.min_sockets || n.reported.cores_per_socket != r.min_cores ||
                n.reported.threads_per_core != r.min_threads))
    return false;
  if (m.disk && disk_of(n) != r.min_disk) return false;
  if (m.memory && memory_of(n) != r.min_mem) return false;
  if (m.weight && n.weight != r.min_weight) return false;
  return true;
}

template <class T>
void widen(T& lo, T& hi, T v) {
  lo = std::min(lo, v);
  hi = std::max(hi, v);
}

void add_node(record& r, const match_flags& m, const msg::node_info& n, uint64_t cpus_used) {
  if (r.nodes_total == 0) {
    r.first = &n;
    r.min_cpus = r.max_cpus = cpus_of(n);
    r.min_sockets = r.max_sockets = n.reported.sockets;
    r.min_cores = r.max_cores = n.reported.cores_per_socket;
    r.min_threads = r.max_threads = n.reported.threads_per_core;
    r.min_disk = r.max_disk = disk_of(n);
    r.min_mem = r.max_mem = memory_of(n);
    r.min_weight = r.max_weight = n.weight;
  } else if (r.members.count(n.name) > 0) {
    return;  // in this record through another partition: counted once
  } else {
    widen(r.min_cpus, r.max_cpus, cpus_of(n));
    widen(r.min_sockets, r.max_sockets, n.reported.sockets);
    widen(r.min_cores, r.max_cores, n.reported.cores_per_socket);
    widen(r.min_threads, r.max_threads, n.reported.threads_per_core);
    widen(r.min_disk, r.max_disk, disk_of(n));
    widen(r.min_mem, r.max_mem, memory_of(n));
    widen(r.min_weight, r.max_weight, n.weight);
  }
  r.nodes.push_back(n.name);
  r.members.insert(n.name);
  if (m.node_addr && !contains(r.addrs, address_of(n))) r.addrs.push_back(address_of(n));
  if (m.hostnames && !contains(r.hostnames, hostname_of(n))) r.hostnames.push_back(hostname_of(n));
  auto s = n.state;
  bool other = s == node_state::drained || s == node_state::draining || s == node_state::down;
  if (s == node_state::allocated || s == node_state::mixed || s == node_state::completing ||
      s == node_state::draining)
    ++r.nodes_alloc;
  else if (other)
    ++r.nodes_other;
  else
    ++r.nodes_idle;
  ++r.nodes_total;
  uint64_t total = cpus_of(n);
  auto used = std::min(cpus_used, total);
  r.cpus_alloc += used;
  r.cpus_total += total;
  (other ? r.cpus_other : r.cpus_idle) += total - used;
}

}  // namespace

std::unordered_map<std::string, uint64_t> cpus_in_use(const std::vector<msg::node_info>& nodes,
                                                      const std::vector<msg::job_info>& jobs) {
  std::unordered_map<std::string, uint64_t> from_jobs;
  for (auto& j : jobs) {
    using S = msg::job_state;
    if (j.state != S::running && j.state != S::configuring && j.state != S::completing) continue;
    auto names = topology::expand_hostlist(j.nodelist);
    if (!names || names->empty()) continue;
    auto counts =
        topology::block_task_counts(std::max(j.ntasks, static_cast<uint32_t>(names->size())),
                                    static_cast<uint32_t>(names->size()));
    for (size_t i = 0; i < names->size(); ++i)
      from_jobs[(*names)[i]] += uint64_t{counts[i]} * std::max(1u, j.cpus_per_task);
  }
  std::unordered_map<std::string, uint64_t> used;
  for (auto& n : nodes) {
    switch (n.state) {
      case node_state::allocated:
        used[n.name] = cpus_of(n);
        break;
      case node_state::mixed:
      case node_state::draining:
      case node_state::completing: {
        auto it = from_jobs.find(n.name);
        used[n.name] = it == from_jobs.end() ? 0 : std::min<uint64_t>(it->second, cpus_of(n));
        break;
      }
      default:
        used[n.name] = 0;
    }
  }
  return used;
}

namespace {

// -- sorting -------------------------------------------------------------------------------

int compare_text(const std::string& a, const std::string& b) {
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

template <class T>
int compare_value(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

std::string first_sorted(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  return *std::min_element(
      names.begin(), names.end(),
      [](const std::string& a, const std::string& b) { return detail::natural_compare(a, b) < 0; });
}

using comparator = std::function<int(const record&, const record&)>;

comparator sort_key(char letter, bool part_order) {
  using R = const record&;
  auto part_name = [](R r) { return r.part ? r.part->name : std::string{}; };
  auto node_value = [](auto get) {
    return [get](R a, R b) {
      std::string x = a.first ? get(*a.first) : std::string{};
      std::string y = b.first ? get(*b.first) : std::string{};
      return compare_text(x, y);
    };
  };
  switch (letter) {
    case 'P':
    case 'R':
      if (part_order) return [](R a, R b) { return compare_value(a.part_index, b.part_index); };
      return [part_name](R a, R b) { return compare_text(part_name(a), part_name(b)); };
    case 't':
    case 'T':
      return [](R a, R b) {
        auto v = [](R r) { return r.first ? slurm_state_value(r.first->state) : 0u; };
        return compare_value(v(a), v(b));
      };
    case 'N':
      return [](R a, R b) {
        return detail::natural_compare(first_sorted(a.nodes), first_sorted(b.nodes));
      };
    case 'n':
      return [](R a, R b) {
        return detail::natural_compare(first_sorted(a.hostnames), first_sorted(b.hostnames));
      };
    case 'o':
      return [](R a, R b) {
        return detail::natural_compare(first_sorted(a.addrs), first_sorted(b.addrs));
      };
    case 'D':
      return [](R a, R b) { return compare_value(a.nodes_total, b.nodes_total); };
    case 'A':
    case 'F':
      return [](R a, R b) { return compare_value(a.nodes_alloc, b.nodes_alloc); };
    case 'a':
      return [](R a, R b) {
        return compare_text(a.part ? a.part->state : "", b.part ? b.part->state : "");
      };
    case 'l':
      return [](R a, R b) {
        auto t = [](R r) {
          return r.part && r.part->max_time_s >= 0 ? r.part->max_time_s : INT64_MAX;
        };
        return compare_value(t(a), t(b));
      };
    case 'c':
      return [](R a, R b) { return compare_value(a.min_cpus, b.min_cpus); };
    case 'm':
      return [](R a, R b) { return compare_value(a.min_mem, b.min_mem); };
    case 'd':
      return [](R a, R b) { return compare_value(a.min_disk, b.min_disk); };
    case 'w':
      return [](R a, R b) { return compare_value(a.min_weight, b.min_weight); };
    case 'X':
      return [](R a, R b) { return compare_value(a.min_sockets, b.min_sockets); };
    case 'Y':
      return [](R a, R b) { return compare_value(a.min_cores, b.min_cores); };
    case 'Z':
      return [](R a, R b) { return compare_value(a.min_threads, b.min_threads); };
    case 'p':
      return [](R a, R b) {
        return compare_value(a.part ? a.part->priority : 0u, b.part ? b.part->priority : 0u);
      };
    case 'E':
      return node_value([](const msg::node_info& n) { return n.reason; });
    case 'f':
    case 'b':
      return node_value([](const msg::node_info& n) { return n.features; });
    case 'u':
    case 'U':
      return node_value([](const msg::node_info& n) { return n.reason_user; });
    case 'h':
      return [](R a, R b) {
        return compare_text(a.part ? a.part->over_subscribe : "",
                            b.part ? b.part->over_subscribe : "");
      };
    default:
      return {};  // sinfo skips a letter it does not sort by
  }
}

void sort_records(std::vector<record>& records, const std::string& spec) {
  for (size_t k = spec.size(); k-- > 0;) {
    char c = spec[k];
    if (c == ',' || c == '#' || c == '+' || c == '-') continue;
    bool reverse = k > 0 && spec[k - 1] == '-';
    bool part_order = k > 0 && spec[k - 1] == '#';
    auto key = sort_key(c, part_order);
    if (!key) continue;
    std::stable_sort(records.begin(), records.end(), [&](const record& a, const record& b) {
      int d = key(a, b);
      return reverse ? d > 0 : d < 0;
    });
  }
}

}  // namespace

shoal::expected<slurm_output> render_sinfo(const std::vector<msg::partition_info>& parts,
                                           const std::vector<msg::node_info>& nodes,
                                           const std::vector<msg::job_info>& jobs,
                                           const sinfo_format_options& opt) {
  slurm_output out;
  std::vector<slurm_item> items;
  if (!opt.long_format.empty())
    items = parse_slurm_long_format(
        opt.long_format, [](const std::string& name) { return by_name(name) != nullptr; }, false,
        out.errors);
  else
    items = parse_slurm_format(
        opt.format, [](char letter) { return by_letter(letter) != nullptr; }, "Invalid node",
        out.errors, true);
  match_flags m;
  std::vector<const node_column*> cols;
  for (auto& item : items) {
    const node_column* c = nullptr;
    if (item.what == slurm_item::kind::field)
      c = opt.long_format.empty() ? by_letter(item.name[0]) : by_name(item.name);
    cols.push_back(c);
    if (c == nullptr) continue;
    if (c->flag != nullptr) m.*(c->flag) = true;
    if (c->missing != nullptr && !contains(out.notes, c->missing))
      out.notes.emplace_back(c->missing);
  }

  // Which nodes and partitions take part.
  std::set<std::string> only_nodes;
  if (!opt.nodes.empty()) {
    auto names = topology::expand_hostlist(opt.nodes);
    if (!names) return names.error();
    only_nodes.insert(names->begin(), names->end());
  }
  auto wanted_part = [&](const msg::partition_info& p) {
    return opt.partitions.empty() || contains(opt.partitions, p.name);
  };
  auto used = cpus_in_use(nodes, jobs);
  auto wanted_node = [&](const msg::node_info& n) {
    if (hidden_cloud_node(n)) return false;
    if (!only_nodes.empty() && only_nodes.count(n.name) == 0) return false;
    if (opt.states.empty()) return true;
    return std::any_of(opt.states.begin(), opt.states.end(),
                       [&](const std::string& s) { return state_wanted(n, s, used[n.name]); });
  };
  std::unordered_map<std::string, const msg::node_info*> by_node;
  for (auto& n : nodes) by_node.emplace(n.name, &n);
  // A member the controller did not list (it should not happen) shows as an unknown node; a
  // deque, because records point at the nodes they hold.
  std::deque<msg::node_info> unlisted;

  std::vector<record> records;
  if (!opt.node_oriented && m.partition)
    for (size_t i = 0; i < parts.size(); ++i)
      if (wanted_part(parts[i])) {
        record r;
        r.part = &parts[i];
        r.part_index = i;
        records.push_back(std::move(r));
      }
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    if (!wanted_part(p)) continue;
    for (auto& name : p.nodes) {
      const msg::node_info* n = nullptr;
      if (auto it = by_node.find(name); it != by_node.end()) {
        n = it->second;
      } else {
        msg::node_info unknown;
        unknown.name = name;
        unlisted.push_back(std::move(unknown));
        n = &unlisted.back();
      }
      if (!wanted_node(*n)) continue;
      // -N gives every node a line of its own: nothing to search (at 100,000 nodes the search
      // alone was quadratic).
      auto joined = opt.node_oriented
                        ? records.end()
                        : std::find_if(records.begin(), records.end(), [&](const record& r) {
                            if (!same_partition(m, r, &p)) return false;
                            return r.nodes_total == 0 || same_node(m, opt.exact, r, *n);
                          });
      if (joined == records.end()) {
        record r;
        r.part = &p;
        r.part_index = i;
        records.push_back(std::move(r));
        joined = records.end() - 1;
      }
      add_node(*joined, m, *n, used[n->name]);
    }
  }
  sort_records(records, opt.sort.empty() ? (opt.node_oriented ? "N" : "#P,-t") : opt.sort);

  auto line = [&](const record* r) {
    std::string text;
    for (size_t k = 0; k < items.size(); ++k) {
      auto& item = items[k];
      if (const auto* c = cols[k]; c != nullptr) {
        if (r == nullptr) {
          text += slurm_cell(c->header, item.width, item.right, c->header_cut);
        } else {
          auto v = c->value ? c->value(*r) : partition_cell(*r, item.width);
          text += slurm_cell(v.text, item.width, item.right, v.cut);
        }
      }
      text += item.suffix;
    }
    out.text += text;
    out.text.push_back('\n');
  };
  if (!opt.no_header) line(nullptr);
  for (auto& r : records) line(&r);
  return out;
}

}  // namespace shoal::cli

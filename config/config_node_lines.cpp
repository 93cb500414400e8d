#include <algorithm>
#include <string>
#include <string_view>

#include "config/config_parser.hpp"
#include "config/partition_edit.hpp"
#include "policy/gres.hpp"
#include "topology/hostlist.hpp"

namespace shoal::config::parsing {

namespace {

/// Seed partitions are numbered 0 to MAX_PARTITION.
constexpr uint64_t max_seed_partition = 31;

/// NodeName State= values: Slurm's, plus IDLE and the seed's DRAINING/DRAINED (stored as DRAIN).
constexpr std::string_view node_states[] = {
    "UNKNOWN", "IDLE", "DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "CLOUD",
};

}  // namespace

// -- nodes ----------------------------------------------------------------------------------------

shoal::error parser::apply_node_key(node_template& rec, const cs::pair& p, const where& at) {
  const auto& k = p.lower;
  auto& n = rec.cfg;
  auto u32 = [&](uint32_t& field, std::string_view canonical) -> shoal::error {
    auto value = cs::parse_unsigned(p.value, cs::max_u32);
    if (!value) return bad_value(at, p, canonical, "a non-negative integer");
    field = static_cast<uint32_t>(*value);
    return {};
  };
  auto u64 = [&](uint64_t& field, std::string_view canonical) -> shoal::error {
    auto value = cs::parse_unsigned(p.value, cs::max_u64);
    if (!value) return bad_value(at, p, canonical, "a non-negative integer, in megabytes");
    field = *value;
    return {};
  };
  if (k == "nodeaddr") {
    rec.address_expr = p.value;
  } else if (k == "nodehostname") {
    rec.hostname_expr = p.value;
  } else if (k == "cpus" || k == "procs") {
    return u32(n.cpus, "CPUs");
  } else if (k == "sockets") {
    return u32(n.sockets, "Sockets");
  } else if (k == "corespersocket") {
    return u32(n.cores_per_socket, "CoresPerSocket");
  } else if (k == "threadspercore") {
    return u32(n.threads_per_core, "ThreadsPerCore");
  } else if (k == "weight") {
    auto value = cs::parse_unsigned(p.value, max_node_weight);
    if (!value) return bad_value(at, p, "Weight", "an integer from 0 to 4294967280");
    n.weight = static_cast<uint32_t>(*value);
  } else if (k == "speed") {
    auto value = cs::parse_decimal(p.value);
    if (!value) return bad_value(at, p, "Speed", "a non-negative decimal number such as 1.5");
    n.speed = *value;
  } else if (k == "realmemory") {
    return u64(n.real_memory_mb, "RealMemory");
  } else if (k == "virtualmemory") {
    return u64(n.virtual_memory_mb, "VirtualMemory");
  } else if (k == "tmpdisk") {
    return u64(n.tmp_disk_mb, "TmpDisk");
  } else if (k == "os") {
    n.os = p.value;
  } else if (k == "features" || k == "feature") {
    for (const auto& name : split_list(p.value))
      if ((name.empty() && !p.value.empty()) || name.find_first_of("&|[]()*!") != std::string::npos)
        return bad_value(at, p, "Features",
                         "feature names separated by commas, without & | [ ] ( ) * or !");
    n.features = p.value;
  } else if (k == "gres") {
    auto list = policy::parse_gres(p.value);
    if (!list)
      return bad_value(at, p, "Gres",
                       "NAME[:TYPE]:COUNT items separated by commas, such as gpu:4 or gpu:tesla:2");
    n.gres.clear();
    for (auto& item : *list)
      if (item.count > 0) n.gres.push_back({item.name, item.type, item.count, {}});
  } else if (k == "simulate") {
    auto yes = cs::parse_yes_no(p.value);
    if (!yes) return bad_value(at, p, "Simulate", "YES or NO");
    n.simulate = *yes;
  } else if (k == "state") {
    auto state = cs::to_upper(p.value);
    if (state == "DRAINING" || state == "DRAINED") state = "DRAIN";
    if (!contains(node_states, state))
      return bad_value(at, p, "State",
                       "UNKNOWN, IDLE, DOWN, DRAIN, FAIL, FAILING, FUTURE or CLOUD");
    n.initial_state = state;
  } else if (k == "partition") {
    std::vector<std::string> names;
    const auto& v = p.value;
    size_t pos = 0;
    while (!v.empty() && pos <= v.size()) {
      auto comma = std::min(v.find(',', pos), v.size());
      auto number =
          cs::parse_unsigned(std::string_view{v}.substr(pos, comma - pos), max_seed_partition);
      if (!number)
        return bad_value(at, p, "Partition", "partition numbers 0-31 separated by commas");
      auto name = std::to_string(*number);
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      pos = comma + 1;
    }
    n.partitions = std::move(names);
    n.partitions_given = true;
  } else if (k == "nodename" || k == "name" || k == "partitionname") {
    return fail(at, "'" + p.key + "' must be the first key on its line");
  } else {
    return unknown_key(at, p, key_set::node);
  }
  return {};
}

shoal::error parser::on_node_line(const std::vector<cs::pair>& pairs, const where& at, bool seed) {
  const auto& head = pairs.front();
  if (head.value.empty()) return fail(at, head.key + " needs a node name, hostlist or DEFAULT");
  bool is_default = iequals(head.value, "DEFAULT");
  node_template rec = node_defaults_;
  for (size_t i = 1; i < pairs.size(); ++i)
    if (auto err = apply_node_key(rec, pairs[i], at)) return err;
  if (is_default) {
    node_defaults_ = std::move(rec);
    return {};
  }
  auto names = topology::expand_hostlist(head.value);
  if (!names) return bad_value(at, head, head.key, "a hostlist: " + describe(names.error()));
  if (names->empty()) return fail(at, head.key + " '" + head.value + "' names no node");
  std::vector<std::string> addresses;
  const auto& addr_expr = rec.address_expr.empty() ? rec.hostname_expr : rec.address_expr;
  if (!addr_expr.empty()) {
    auto key = rec.address_expr.empty() ? "NodeHostname" : "NodeAddr";
    auto expanded = topology::expand_hostlist(addr_expr);
    if (!expanded)
      return fail(
          at, "invalid value '" + addr_expr + "' for " + key + ": " + describe(expanded.error()));
    addresses = std::move(*expanded);
    if (addresses.size() != 1 && addresses.size() != names->size())
      return fail(at, std::string{key} + " '" + addr_expr + "' gives " +
                          std::to_string(addresses.size()) + " addresses for " +
                          std::to_string(names->size()) + " nodes (give one, or one per node)");
  }
  // The seed: "If not otherwise specified, all nodes will be in partition zero."
  if (seed && !rec.cfg.partitions_given) rec.cfg.partitions = {"0"};
  for (size_t i = 0; i < names->size(); ++i) {
    const auto& name = (*names)[i];
    // Written back as its own line, such a node would become the DEFAULT record.
    if (iequals(name, "DEFAULT"))
      return fail(at,
                  "node name '" + name + "' is reserved (" + head.key + "=DEFAULT sets defaults)");
    if (auto it = node_index_.find(name); it != node_index_.end()) {
      const auto& prev = cfg_.nodes[it->second];
      return fail(at, "node '" + name + "' is already defined at " + prev.file + ":" +
                          std::to_string(prev.line));
    }
    node_config n = rec.cfg;
    n.name = name;
    n.address = addresses.empty() ? name : addresses[addresses.size() == 1 ? 0 : i];
    n.file = at.file;
    n.line = at.line;
    node_index_.emplace(name, cfg_.nodes.size());
    node_seq_.push_back(seq_);
    node_seed_.push_back(seed);
    cfg_.nodes.push_back(std::move(n));
  }
  return {};
}

// -- partitions -----------------------------------------------------------------------------------

shoal::error parser::apply_partition_key(partition_template& rec, const cs::pair& p,
                                         const where& at) {
  const auto& k = p.lower;
  if (k == "nodename" || k == "name" || k == "partitionname")
    return fail(at, "'" + p.key + "' must be the first key on its line");
  if (auto err = apply_partition_setting(rec.cfg, rec.nodes_expr, p.key, p.value)) {
    if (!err->unknown) return fail(at, err->text);
    return unknown_key(at, p, key_set::partition);
  }
  return {};
}

shoal::error parser::on_partition_line(const std::vector<cs::pair>& pairs, const where& at) {
  const auto& head = pairs.front();
  if (head.value.empty()) return fail(at, head.key + " needs a partition name or DEFAULT");
  partition_template rec = partition_defaults_;
  for (size_t i = 1; i < pairs.size(); ++i)
    if (auto err = apply_partition_key(rec, pairs[i], at)) return err;
  if (iequals(head.value, "DEFAULT")) {
    partition_defaults_ = std::move(rec);
    return {};
  }
  const auto& name = head.value;
  if (auto it = draft_index_.find(name); it != draft_index_.end()) {
    const auto& prev = drafts_[it->second].cfg;
    return fail(at, "partition '" + name + "' is already defined at " + prev.file + ":" +
                        std::to_string(prev.line));
  }
  if (rec.cfg.is_default) {
    if (!default_yes_.empty()) {
      const auto& prev = drafts_[draft_index_.at(default_yes_)].cfg;
      return fail(at, "partition '" + name + "' has Default=YES, but so has partition '" +
                          prev.name + "' at " + prev.file + ":" + std::to_string(prev.line) +
                          " (only one may be the default)");
    }
    default_yes_ = name;
  }
  partition_draft draft;
  draft.cfg = std::move(rec.cfg);
  draft.cfg.name = name;
  draft.cfg.nodes.clear();
  draft.cfg.file = at.file;
  draft.cfg.line = at.line;
  draft.nodes_expr = std::move(rec.nodes_expr);
  draft.seq = seq_;
  draft.from_line = true;
  draft_index_.emplace(name, drafts_.size());
  drafts_.push_back(std::move(draft));
  return {};
}

shoal::error parser::resolve_partitions() {
  for (auto& d : drafts_) {
    where at{d.cfg.file, d.cfg.line};
    if (iequals(d.nodes_expr, "ALL")) {
      for (size_t i = 0; i < cfg_.nodes.size(); ++i) d.members.push_back(i);
      continue;
    }
    auto names = topology::expand_hostlist(d.nodes_expr);
    if (!names)
      return fail(at, "invalid value '" + d.nodes_expr + "' for Nodes: " + describe(names.error()));
    for (const auto& name : *names) {
      auto it = node_index_.find(name);
      if (it == node_index_.end())
        return fail(at, "partition '" + d.cfg.name + "' names unknown node '" + name + "'");
      d.members.push_back(it->second);
    }
  }
  // Seed Partition= keys (and the implied partition "0") add members, creating the numbered
  // partitions in order of first appearance.
  for (size_t i = 0; i < cfg_.nodes.size(); ++i) {
    const auto& node = cfg_.nodes[i];
    for (const auto& name : node.partitions) {
      auto it = draft_index_.find(name);
      if (it == draft_index_.end()) {
        partition_draft draft;
        draft.cfg.name = name;
        draft.cfg.file = node.file;
        draft.cfg.line = node.line;
        draft.seq = node_seq_[i];
        it = draft_index_.emplace(name, drafts_.size()).first;
        drafts_.push_back(std::move(draft));
      }
      auto& d = drafts_[it->second];
      d.seq = std::min(d.seq, node_seq_[i]);
      d.members.push_back(i);
    }
  }
  std::stable_sort(drafts_.begin(), drafts_.end(),
                   [](const auto& a, const auto& b) { return a.seq < b.seq; });
  for (auto& node : cfg_.nodes) node.partitions.clear();
  for (auto& d : drafts_) {
    // Nodes in config order, as Slurm's partition bitmaps keep them.
    std::sort(d.members.begin(), d.members.end());
    d.members.erase(std::unique(d.members.begin(), d.members.end()), d.members.end());
    for (auto i : d.members) {
      d.cfg.nodes.push_back(cfg_.nodes[i].name);
      cfg_.nodes[i].partitions.push_back(d.cfg.name);
    }
    cfg_.partitions.push_back(std::move(d.cfg));
  }
  return {};
}

}  // namespace shoal::config::parsing
